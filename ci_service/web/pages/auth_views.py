"""Sign-in, sign-out, choosing a workspace, accepting an invite, changing one's password."""

from __future__ import annotations

from flask import g, make_response, redirect, request, url_for

from ci_service.errors import NotFound, RateLimited, Unauthorized, ValidationFailed
from ci_service.services.identity import users as people
from ci_service.web.pages import bp
from ci_service.web.pages.context import (
    clear_session_cookie,
    render,
    safe_next,
    set_session_cookie,
)

# Pages that do not work in a chosen workspace (the OAuth consent page picks its own).
NO_WORKSPACE_NEEDED = ("/oauth/authorize",)


def _signed_in(login, next_url: str, user_id: str | None = None):
    token, session = people.start_session(login, user_id)
    next_url = safe_next(next_url)
    if session.user_id or next_url.startswith(NO_WORKSPACE_NEEDED):
        target = next_url
    else:  # pick a workspace first, then go on
        target = url_for("pages.pick_workspace", next=next_url if next_url != "/" else None)
    response = make_response(redirect(target))
    set_session_cookie(response, token)
    return response


@bp.route("/signin", methods=["GET", "POST"])
def signin():
    next_url = safe_next(request.values.get("next"))
    if request.method == "GET":
        if g.web_session is not None and g.principal is not None:
            return redirect(next_url)
        return render("signin.html", next_url=next_url, email="", error=None)
    email = request.form.get("email", "")
    try:
        login = people.sign_in(email, request.form.get("password", ""), request.remote_addr)
    except RateLimited as exc:
        return render("signin.html", 429, next_url=next_url, email=email, error=exc.message)
    except Unauthorized as exc:
        return render("signin.html", 401, next_url=next_url, email=email, error=exc.message)
    return _signed_in(login, next_url)


@bp.route("/signout", methods=["POST"])
def signout():
    if g.web_session is not None:
        people.end_session(g.web_session)
    response = make_response(redirect(url_for("pages.signin")))
    clear_session_cookie(response)
    return response


@bp.route("/workspaces", methods=["GET", "POST"])
def pick_workspace():
    session = g.web_session
    if session is None:
        return redirect(url_for("pages.signin", next="/workspaces"))
    choices = people.memberships(session.login)
    if request.method == "POST":
        people.choose_workspace(session, request.form.get("userId", ""))
        return redirect(safe_next(request.form.get("next")))
    return render("workspaces.html", choices=choices, next_url=safe_next(request.args.get("next")))


@bp.route("/invite/<token>", methods=["GET", "POST"])
def accept_invite(token):
    try:
        invite = people.open_invite(token)
    except NotFound:
        return render("invite.html", 404, invite=None, error=None)
    if request.method == "GET":
        return render("invite.html", invite=invite, error=None)
    password = request.form.get("password", "")
    if request.form.get("confirm") is not None and request.form.get("confirm") != password:
        return render("invite.html", 400, invite=invite, error="The two passwords differ")
    try:
        login, user = people.accept_invite(token, password)
    except (ValidationFailed, Unauthorized) as exc:
        return render("invite.html", exc.status, invite=invite, error=exc.message)
    if g.web_session is not None:
        people.end_session(g.web_session)
    return _signed_in(login, "/", user.id)


@bp.route("/account/password", methods=["GET", "POST"])
def change_password():
    session = g.web_session
    if session is None:
        return redirect(url_for("pages.signin", next="/account/password"))
    if request.method == "GET":
        return render("password.html", error=None, done=False)
    new = request.form.get("password", "")
    if new != request.form.get("confirm", ""):
        return render("password.html", 400, error="The two passwords differ", done=False)
    try:
        people.change_password(session.login, request.form.get("current", ""), new)
    except (ValidationFailed, Unauthorized) as exc:
        return render("password.html", exc.status, error=exc.message, done=False)
    # Every session ended with the change, this one too: sign in again with the new one.
    response = make_response(redirect(url_for("pages.signin")))
    clear_session_cookie(response)
    return response
