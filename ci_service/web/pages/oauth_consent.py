"""``/oauth/authorize``: the authorization endpoint, a page for people (issue 17).

The whole request is validated first (Authlib: client, redirect URI, response type, scope
within the client's, PKCE S256; here: the resource), before anyone is asked to sign in. A
request that fails any check gets an error page (HTTP 400) and is redirected nowhere, not
even to a registered redirect URI: with open registration anyone can register one, so an
automatic error redirect would make this server an open redirector (RFC 9700 §4.11.2,
issue 25). The page tells the person what went wrong in words, and the developer the
OAuth error and its description.

Signed in, the person sees the client's name, where it will send them back, the scopes
asked for (they may untick one) and picks a workspace they belong to; only ENTERPRISE
workspaces can be chosen (the tool server's plan). The form carries the session's CSRF
token. Allowing creates or updates the connection and redirects with a single-use code;
denying redirects with ``error=access_denied`` (the person chose to go back to the
application, so that is not an open redirect). Both answers carry ``state`` and ``iss``
(RFC 9207).

The page's Content-Security-Policy lets the form lead to the client's redirect URI: browsers
apply ``form-action`` to the redirect that follows the submission.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from flask import current_app, g, redirect, request, url_for

from ci_service.errors import ServiceError
from ci_service.services.identity import oauth_clients, oauth_tokens
from ci_service.services.identity import users as people
from ci_service.web.oauth.common import mcp_resource, safe_text
from ci_service.web.oauth.routes import bad_parameter, server
from ci_service.web.pages import bp
from ci_service.web.pages.context import CSP, render

if TYPE_CHECKING:  # Authlib is imported by the first request here, not at start-up
    from authlib.oauth2 import OAuth2Error

SCOPE_TEXT = {
    "read": "Read competitors, battlecards, matrices, solutions and collected intel",
    "write": "Start refreshes and battlecard generation; create and update solutions",
}


# What the person is told, by OAuth error; the developer's details follow on the page.
UNOFFERED = "The application asked for a kind of access this server does not offer."
PERSON_TEXT = {
    "invalid_client": "This application is not known to this server.",
    "invalid_scope": "The application asked for permissions this server does not give it.",
    "unsupported_response_type": UNOFFERED,
    "unauthorized_client": UNOFFERED,
    "invalid_target": "The application asked to connect to another service than this one.",
}
MALFORMED = "The application's sign-in link is incomplete or malformed."
UNREADABLE_DOCUMENT = "This application's details could not be read."


def _invalid(message: str, detail: str | None = None):
    return render("oauth_error.html", 400, message=message, detail=(detail or "")[:300])


def _refused(error: OAuth2Error):
    """An invalid request's error page: never a redirect (RFC 9700 §4.11.2)."""
    description = error.get_error_description()
    detail = f"{error.error}: {description}" if description else error.error
    return _invalid(PERSON_TEXT.get(error.error, MALFORMED), detail)


def _validated():
    """(Authlib grant, client row) for this request; or the error page that ends it."""
    from authlib.oauth2 import OAuth2Error

    from ci_service.web.oauth.server import check_resource

    if bad_parameter() is not None:
        return None, _invalid(MALFORMED, "invalid_request: a parameter is repeated or malformed")
    client_id = request.values.get("client_id")
    if oauth_clients.is_metadata_document_id(client_id):
        settings = current_app.config["CI_SETTINGS"]
        try:
            oauth_clients.resolve_metadata_document(client_id, settings.allow_private_urls)
        except oauth_clients.ClientMetadataError as exc:
            detail = f"The application's metadata document: {exc.description}"
            return None, _invalid(UNREADABLE_DOCUMENT, detail)
    try:
        grant = server().get_consent_grant(end_user=None)
        check_resource(request.values.get("resource"), mcp_resource())
    except OAuth2Error as error:
        return None, _refused(error)
    except ValueError:  # an error description Authlib built from the request's text
        return None, _invalid(MALFORMED)
    return grant, grant.request.client.row


def _choices(session):
    members = people.memberships(session.login)
    chosen = next(
        (m.user_id for m in members if m.user_id == session.user_id and m.plan == "ENTERPRISE"),
        next((m.user_id for m in members if m.plan == "ENTERPRISE"), None),
    )
    return members, chosen


def _page(grant, client, status=200, error=None, chosen_scopes=None, chosen_user=None):
    members, default_user = _choices(g.web_session)
    requested = grant.request.scope.split()
    target = urlsplit(grant.redirect_uri)
    # The form's submission redirects to the client: allow that destination.
    destination = f"{target.scheme}://{target.netloc}" if target.netloc else f"{target.scheme}:"
    body, code = render(
        "oauth_consent.html",
        status,
        client_name=oauth_clients.display_name(client),
        client_uri=client.metadata.get("client_uri"),
        client_id=client.id,
        redirect_host=target.netloc or f"{target.scheme}:",
        scopes=[(s, SCOPE_TEXT[s]) for s in requested],
        chosen_scopes=chosen_scopes if chosen_scopes is not None else requested,
        members=members,
        chosen_user=chosen_user or default_user,
        error=error,
        action=request.full_path if request.query_string else request.path,
    )
    csp = CSP.replace("form-action 'self'", f"form-action 'self' {destination}")
    return body, code, {"Content-Security-Policy": csp}


@bp.route("/oauth/authorize", methods=["GET", "POST"])
def oauth_authorize():
    grant, client = _validated()
    if grant is None:
        return client  # the response that ends the request
    if g.web_session is None:
        return redirect(url_for("pages.signin", next=request.full_path))
    if request.method == "GET":
        return _page(grant, client)
    if request.form.get("decision") != "allow":
        return server().create_authorization_response(grant_user=None, grant=grant)
    requested = grant.request.scope.split()
    scopes = [s for s in requested if s in request.form.getlist("grant_scope")]
    user_id = request.form.get("user_id", "")
    if not any(m.user_id == user_id for m in people.memberships(g.web_session.login)):
        return _page(grant, client, 400, "Choose one of your workspaces.", scopes)
    try:
        connection = oauth_tokens.connect(client, user_id, scopes, mcp_resource())
    except ServiceError as exc:
        return _page(grant, client, exc.status, safe_text(exc.message), scopes, user_id)
    return server().create_authorization_response(grant_user=connection, grant=grant)
