"""Settings: the workspace's people (ADMIN or OWNER) and API keys (as ``/api/api-keys``:
admin scope, OWNER or ADMIN, the ENTERPRISE plan).

An invite link and a new API key are shown once, in the answer to the form that made them,
and never again (only hashes are stored): pending invites are listed without their links,
with "New link" (revoke and invite again) and "Revoke".
"""

from __future__ import annotations

from typing import Any

from flask import current_app, redirect, request, url_for

from ci_service.errors import Forbidden, ValidationFailed
from ci_service.services.identity import api_keys as apikeys
from ci_service.services.identity import team as settings_team
from ci_service.services.identity import users as people
from ci_service.services.identity.auth import WRITE, Access
from ci_service.store.identity import SCOPES, User
from ci_service.web.pages import bp
from ci_service.web.pages.context import can, page, principal
from ci_service.web.pages.context import render as render_page
from ci_service.web.pages.settings_forms import form_errors, lines
from ci_service.web.routes.api_keys import KEY_ADMIN

# The role rule of /api/api-keys without its plan gate: managing people is on every plan.
USER_ADMIN = Access(scope="admin", min_role="ADMIN")


def tabs() -> list[tuple[str, str]]:
    """The settings area's links (endpoint, label) that the signed-in person may open."""
    out = [("pages.settings", "Organization"), ("pages.settings_products", "Products")]
    if can(USER_ADMIN):  # the keys page then shows the upgrade message below ENTERPRISE
        out += [("pages.settings_users", "Users"), ("pages.settings_keys", "API keys")]
    out.append(("pages.settings_connections", "Connected apps"))  # everyone's own (issue 17)
    return out + [("pages.change_password", "Your password")]


def render(template: str, status: int = 200, **context: Any):
    """Render a settings page with the area's links."""
    return render_page(template, status, settings_tabs=tabs(), write_access=WRITE, **context)


# -- users ----------------------------------------------------------------------------------


def _users_page(status=200, errors=None, invite_link=None, invite_form=None, notice=None):
    who = principal()
    return render(
        "settings_users.html",
        status,
        users=people.list_users(who.workspace_id),
        invites=people.list_pending_invites(who.workspace_id),
        roles=settings_team.grantable_roles(who),
        errors=errors or [],
        invite_link=invite_link,
        invite_form=invite_form or {"email": "", "role": "VIEWER"},
        notice=notice,
    )


@bp.route("/settings/users")
@page(USER_ADMIN)
def settings_users():
    notice = {
        "role": "Role changed.",
        "removed": "User removed.",
        "revoked": "Invite revoked: its link no longer works.",
    }.get(request.args.get("done"))
    return _users_page(notice=notice)


@bp.route("/settings/users/invite", methods=["POST"])
@page(USER_ADMIN)
def settings_users_invite():
    who = principal()
    form = {"email": request.form.get("email", ""), "role": request.form.get("role", "")}
    try:
        token, _row = settings_team.invite_member(
            who.workspace_id, form["email"], form["role"], who
        )
    except (ValidationFailed, Forbidden) as exc:
        return _users_page(exc.status, form_errors(exc), invite_form=form)
    return _users_page(invite_link=_invite_link(token))


def _invite_link(token: str) -> str:
    return f"{current_app.config['CI_SETTINGS'].base_url}/invite/{token}"


@bp.route("/settings/users/invites/<invite_id>/revoke", methods=["POST"])
@page(USER_ADMIN)
def settings_users_invite_revoke(invite_id):
    who = principal()
    try:
        settings_team.revoke_member_invite(who.workspace_id, invite_id, who)
    except Forbidden as exc:
        return _users_page(exc.status, [exc.message])
    return redirect(url_for("pages.settings_users", done="revoked"))


@bp.route("/settings/users/invites/<invite_id>/renew", methods=["POST"])
@page(USER_ADMIN)
def settings_users_invite_renew(invite_id):
    """A new link for a pending invite (the old link is revoked): only a hash of a link's
    token is stored, so a lost link cannot be shown again."""
    who = principal()
    try:
        token, _row = settings_team.renew_invite(who.workspace_id, invite_id, who)
    except Forbidden as exc:
        return _users_page(exc.status, [exc.message])
    return _users_page(invite_link=_invite_link(token))


@bp.route("/settings/users/<user_id>/role", methods=["POST"])
@page(USER_ADMIN)
def settings_users_role(user_id):
    who = principal()
    try:
        people.set_role(who.workspace_id, user_id, request.form.get("role"), who)
    except (ValidationFailed, Forbidden) as exc:
        return _users_page(exc.status, [exc.message])
    return redirect(url_for("pages.settings_users", done="role"))


@bp.route("/settings/users/<user_id>/remove", methods=["POST"])
@page(USER_ADMIN)
def settings_users_remove(user_id):
    who = principal()
    try:
        people.remove_user(who.workspace_id, user_id, who)
    except (ValidationFailed, Forbidden) as exc:
        return _users_page(exc.status, [exc.message])
    return redirect(url_for("pages.settings_users", done="removed"))


# -- API keys -------------------------------------------------------------------------------


def _keys_page(status=200, errors=None, new_key=None, form=None, notice=None):
    current_app.extensions["ci_usage"].flush()  # so lastUsedAt is current, as in REST
    rows = apikeys.list_keys(principal().workspace_id)
    return render(
        "settings_keys.html",
        status,
        keys=[apikeys.key_to_dict(row, detail=False) for row in rows],
        scopes=SCOPES,
        errors=errors or [],
        new_key=new_key,
        form=form or {"name": "", "expires": "", "rateLimit": "1000", "allowedIps": ""},
        chosen_scopes=(form or {}).get("scopes") or list(SCOPES),
        notice=notice,
    )


def _key_options(form) -> dict[str, Any]:
    """The POST /api/api-keys options the form stands for; the service validates them."""
    expires = form.get("expires", "").strip()
    if len(expires) == 10:  # a date input: the key ends as that day starts (UTC)
        expires += "T00:00:00Z"
    rate = form.get("rateLimit", "").strip()
    return {
        "name": form.get("name", ""),
        "expires_at": expires or None,
        "scopes": form.getlist("scopes"),
        "rate_limit": int(rate) if rate.isdigit() else (rate or None),
        "allowed_ips": lines(form.get("allowedIps")),
    }


@bp.route("/settings/keys")
@page(KEY_ADMIN)
def settings_keys():
    return _keys_page(notice="Key revoked." if request.args.get("done") == "revoked" else None)


@bp.route("/settings/keys", methods=["POST"])
@page(KEY_ADMIN)
def settings_keys_create():
    user = User.get_by_id(principal().user_id)
    try:
        row, key = apikeys.create_key(user, **_key_options(request.form))
    except ValidationFailed as exc:
        form = {k: request.form.get(k, "") for k in ("name", "expires", "rateLimit", "allowedIps")}
        form["scopes"] = request.form.getlist("scopes")
        return _keys_page(400, form_errors(exc), form=form)
    return _keys_page(new_key={"key": key, "name": row.name, "prefix": row.prefix})


@bp.route("/settings/keys/<key_id>/revoke", methods=["POST"])
@page(KEY_ADMIN)
def settings_keys_revoke(key_id):
    apikeys.revoke_key(key_id, principal().workspace_id)
    return redirect(url_for("pages.settings_keys", done="revoked"))
