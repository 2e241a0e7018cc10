"""What every page shares: who is signed in, CSRF, the page's access rule, rendering, errors
and security headers.

- The session cookie (``ci_session``: HttpOnly, SameSite=Lax, Secure over TLS) holds a
  random token; ``services.identity.users.session_for`` finds the live session behind it.
- CSRF: every POST/PUT/PATCH/DELETE to a page carries the session's token (form field
  ``csrf_token`` or header ``X-CSRF-Token``); before sign-in, forms use a double-submit
  cookie (``ci_csrf``). A missing or wrong token is a 400 page and changes nothing.
- ``@page(access)``: not signed in → redirect to ``/signin?next=...``; no workspace chosen →
  ``/workspaces``; then ``services.identity.auth.check_access`` on the session's principal, exactly
  as for a key (VIEWER reads, EDITOR writes; plan gates show the upgrade page).
- Templates get ``can(access)`` to show a button only to those who may use it, and
  ``safe_url`` to link only to http(s) addresses (crawled links can be ``javascript:``).
- Every HTML answer carries a Content-Security-Policy that allows only our own scripts,
  styles and images (no inline script, no third-party origin), and no framing.
"""

from __future__ import annotations

import functools
import hmac
import secrets
from typing import Any

from flask import (
    Blueprint,
    Flask,
    current_app,
    g,
    redirect,
    render_template,
    request,
    send_from_directory,
    url_for,
)

from ci_service.errors import ServiceError, UpgradeRequired, ValidationFailed
from ci_service.services.identity import users as people
from ci_service.services.identity.auth import READ, Access, check_access

SESSION_COOKIE = "ci_session"
PRE_CSRF_COOKIE = "ci_csrf"
UNSAFE_METHODS = ("POST", "PUT", "PATCH", "DELETE")
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}


class CsrfFailed(ValidationFailed):
    """400: the form's CSRF token is missing or wrong."""


def is_page_request() -> bool:
    return request.blueprint == "pages"


def load_session() -> None:
    """Before each page request: the session, its principal, and the CSRF check."""
    if not is_page_request():
        return  # API and tool requests have their own principal (a key's)
    g.web_session = None
    g.principal = None
    session = people.session_for(request.cookies.get(SESSION_COOKIE))
    g.web_session = session
    if session is not None:
        g.principal = people.principal_for(session)
    if request.method in UNSAFE_METHODS:
        check_csrf()


def check_csrf() -> None:
    presented = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token")
    session = g.web_session
    if session is not None:
        expected = session.csrf_token
    else:  # before sign-in: the double-submit cookie
        expected = request.cookies.get(PRE_CSRF_COOKIE) or ""
    if not expected or not isinstance(presented, str):
        raise CsrfFailed("The form expired or was not sent by this site; reload and retry")
    if not hmac.compare_digest(expected, presented):
        raise CsrfFailed("The form expired or was not sent by this site; reload and retry")


def csrf_token() -> str:
    """The token forms of this response carry (the session's, or the pre-session one)."""
    session = g.get("web_session")
    if session is not None:
        return session.csrf_token
    token = g.get("pre_csrf") or request.cookies.get(PRE_CSRF_COOKIE)
    if not token:
        token = secrets.token_urlsafe(32)
    g.pre_csrf = token
    return token


def page(access: Access = READ):
    """Declare a page's access rule (see the module docstring)."""

    def decorate(view):
        @functools.wraps(view)
        def wrapper(*args, **kwargs):
            if g.get("web_session") is None:
                target = request.full_path if request.query_string else request.path
                return redirect(url_for("pages.signin", next=target))
            if g.get("principal") is None:
                return redirect(url_for("pages.pick_workspace"))
            check_access(g.principal, access)
            return view(*args, **kwargs)

        wrapper.page_access = access
        return wrapper

    return decorate


def principal():
    return g.principal


def can(access: Access) -> bool:
    """Whether the signed-in person may do what ``access`` guards (for buttons)."""
    who = g.get("principal")
    if who is None:
        return False
    try:
        check_access(who, access)
    except ServiceError:
        return False
    return True


def safe_url(url: Any) -> str:
    """``url`` when it is an absolute http(s) address, else "#"."""
    from ci_service.services.battlecards.export import http_url

    return http_url(url) or "#"


def safe_next(target: Any) -> str:
    """A local path to return to after sign-in ("/" for anything else)."""
    text = str(target or "")
    if text.startswith("/") and not text.startswith("//") and "\\" not in text:
        return text
    return "/"


def render(template: str, status: int = 200, **context: Any):
    return render_template(template, **context), status


def render_error(error: Exception, status: int):
    """The HTML error page for a page request (the same 404 for missing and foreign ids)."""
    message = getattr(error, "message", None) or {
        400: "That request could not be understood.",
        403: "You do not have access to this.",
        404: "This page does not exist, or it is not in your workspace.",
        405: "That action is not available here.",
        429: "Too many requests; wait a moment and try again.",
    }.get(status, "Something went wrong on our side; it has been logged.")
    if status == 404:
        message = "This page does not exist, or it is not in your workspace."
    upgrade = (
        getattr(error, "extra", {}).get("requiredPlan")
        if isinstance(error, UpgradeRequired)
        else None
    )
    body = render_template("error.html", status=status, message=message, required_plan=upgrade)
    headers = dict(getattr(error, "headers", {}) or {})
    return body, status, headers


def add_security_headers(response):
    if response.mimetype == "text/html":
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        if is_page_request():
            response.headers.setdefault("Cache-Control", "no-store")
    pre = g.get("pre_csrf")
    if pre and request.cookies.get(PRE_CSRF_COOKIE) != pre:
        response.set_cookie(PRE_CSRF_COOKIE, pre, httponly=True, samesite="Lax", secure=secure())
    return response


def secure() -> bool:
    """Whether cookies carry ``Secure``: the request came over HTTPS, or people reach the
    service at an ``https://`` public URL (a TLS proxy in front; issue 25)."""
    return request.is_secure or current_app.config["CI_SETTINGS"].public_is_https


def set_session_cookie(response, token: str) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=int(people.SESSION_LIFETIME.total_seconds()),
        httponly=True,
        samesite="Lax",
        secure=secure(),
    )


def clear_session_cookie(response) -> None:
    response.delete_cookie(SESSION_COOKIE, httponly=True, samesite="Lax", secure=secure())


# The header's links, in order; an area not installed is left out.
NAV = (
    ("pages.home", "Home"),
    ("pages.changes", "Changes"),
    ("pages.matrix", "Matrix"),
    ("pages.graph", "Graph"),
    ("pages.deals", "Deals"),
    ("pages.jobs", "Jobs"),
    ("pages.settings", "Settings"),
)


def view_endpoints() -> set[str]:
    return set(current_app.view_functions)


def nav_links() -> list[tuple[str, str]]:
    endpoints = view_endpoints()
    return [(endpoint, label) for endpoint, label in NAV if endpoint in endpoints]


def workspace_name() -> str:
    from ci_service.store.identity import Workspace

    who = g.get("principal")
    if who is None:
        return ""
    if "workspace_name" not in g:
        row = Workspace.get_or_none(Workspace.id == who.workspace_id)
        g.workspace_name = row.name if row else ""
    return g.workspace_name


def unread_changes() -> int:
    """The signed-in person's unread events, for the header's Changes link: one COUNT,
    capped (``event_reads.UNREAD_COUNT_CAP``), once per request."""
    from ci_service.services.alerts import reads as event_reads

    who = g.get("principal")
    if who is None:
        return 0
    if "unread_changes" not in g:
        g.unread_changes = event_reads.unread_count(who.workspace_id, who.user_id)
    return g.unread_changes


def template_globals() -> dict[str, Any]:
    from ci_service.services.battlecards.facts import price_terms

    return {
        "price_terms": price_terms,
        "nav_links": nav_links,
        "view_endpoints": view_endpoints,
        "workspace_name": workspace_name,
        "unread_changes": unread_changes,
        "csrf_token": csrf_token,
        "can": can,
        "safe_url": safe_url,
        "current": g.get("principal"),
        "web_session": g.get("web_session"),
    }


def install(app: Flask, bp: Blueprint) -> None:
    app.before_request(load_session)
    app.after_request(add_security_headers)
    app.context_processor(template_globals)

    # Browsers ask for /favicon.ico whatever the page links; answer with our SVG icon so
    # no page logs a 404 (outside the blueprint: no session is loaded for an icon).
    @app.get("/favicon.ico")
    def favicon():
        return send_from_directory(
            bp.static_folder, "favicon.svg", mimetype="image/svg+xml", max_age=86400
        )
