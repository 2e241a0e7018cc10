"""``/oauth/authorize``: the authorization endpoint, a page for people (issue 17).

The request is validated first (Authlib: client, redirect URI, response type, scope, PKCE
S256; here: the resource), so a bad link never asks anyone to sign in. An unknown client or
redirect URI is shown as an error page (never a redirect to an unverified address, RFC 6749
§4.1.2.1); every other error goes back to the client's redirect URI with ``error``,
``state`` and ``iss``.

Signed in, the person sees the client's name, where it will send them back, the scopes
asked for (they may untick one) and picks a workspace they belong to; only ENTERPRISE
workspaces can be chosen (the tool server's plan). The form carries the session's CSRF
token. Allowing creates or updates the connection and redirects with a single-use code.

The page's Content-Security-Policy lets the form lead to the client's redirect URI: browsers
apply ``form-action`` to the redirect that follows the submission.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from flask import current_app, g, redirect, request, url_for

from ci_service.errors import ServiceError
from ci_service.services import oauth_clients, oauth_tokens, people
from ci_service.web.oauth_common import issuer, mcp_resource, safe_text
from ci_service.web.oauth_routes import bad_parameter, server
from ci_service.web.pages import bp
from ci_service.web.pages.context import CSP, render

if TYPE_CHECKING:  # Authlib is imported by the first request here, not at start-up
    from authlib.oauth2 import OAuth2Error

SCOPE_TEXT = {
    "read": "Read competitors, battlecards, matrices, solutions and collected intel",
    "write": "Start refreshes and battlecard generation; create and update solutions",
}


def _invalid(message: str):
    return render("oauth_error.html", 400, message=message)


def _send_back(error: OAuth2Error):
    """An error the client's verified redirect URI receives (with the issuer, RFC 9207)."""
    from authlib.common.urls import add_params_to_uri

    response = server().handle_error_response(None, error)
    if response.location:
        response.location = add_params_to_uri(response.location, {"iss": issuer()})
    return response


def _validated():
    """(Authlib grant, client row) for this request; or a response that ends it."""
    from authlib.oauth2 import OAuth2Error

    from ci_service.web.oauth_server import check_resource

    if bad_parameter() is not None:
        return None, _invalid("This authorization link is malformed.")
    client_id = request.values.get("client_id")
    if oauth_clients.is_metadata_document_id(client_id):
        settings = current_app.config["CI_SETTINGS"]
        try:
            oauth_clients.resolve_metadata_document(client_id, settings.allow_private_urls)
        except oauth_clients.ClientMetadataError as exc:
            return None, _invalid(f"The application's metadata document: {exc.description}")
    try:
        grant = server().get_consent_grant(end_user=None)
    except OAuth2Error as error:
        if error.redirect_uri:
            return None, _send_back(error)
        return None, _invalid(error.get_error_description() or "Invalid authorization request")
    except ValueError:  # an error description Authlib built from the request's text
        return None, _invalid("This authorization link is malformed.")
    try:
        check_resource(request.values.get("resource"), mcp_resource())
    except OAuth2Error as error:
        error.redirect_uri, error.state = grant.redirect_uri, request.values.get("state")
        return None, _send_back(error)
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
