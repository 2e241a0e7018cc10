"""The OAuth endpoints machines call (issue 17): metadata, token, registration, revocation.

- ``/.well-known/oauth-protected-resource`` (and ``.../mcp``, RFC 9728): ``/mcp`` is a
  protected resource whose authorization server is this same process.
- ``/.well-known/oauth-authorization-server`` (RFC 8414).
- ``POST /oauth/token``, ``POST /oauth/register`` (RFC 7591; a client address's hourly
  limit, then 429 with ``Retry-After``), ``POST /oauth/revoke`` (RFC 7009: 200 and an
  empty body for any token, known or not). Errors are OAuth's own bodies
  (``{"error": "invalid_grant", "error_description": ...}``), never the REST envelope.

The authorization endpoint, ``/oauth/authorize``, is a page for people: it lives with the
web app (web/pages/oauth_consent.py). Nothing here uses cookies, so any origin may call
these endpoints (browser-based MCP clients need CORS).
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

from flask import Blueprint, Flask, Response, current_app, request

from ci_service.services.identity import oauth_clients
from ci_service.store.db import transaction
from ci_service.web.oauth.common import CLIENT_AUTH_METHODS, issuer, mcp_resource, safe_text

if TYPE_CHECKING:  # Authlib is imported by the first request that needs it, not at start-up
    from ci_service.web.oauth.server import Server

log = logging.getLogger(__name__)
bp = Blueprint("oauth", __name__)

PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource"
# Parameters whose values must be printable ASCII without quote or backslash (all of them
# are URIs, codes, tokens or keywords): anything else is refused before Authlib sees it.
CHECKED_PARAMS = (
    "response_type", "client_id", "redirect_uri", "scope", "code_challenge",
    "code_challenge_method", "grant_type", "resource", "code", "code_verifier",
    "refresh_token", "token", "token_type_hint", "client_secret",
)  # fmt: skip
FORM = "application/x-www-form-urlencoded"


def server() -> Server:
    """The app's Authlib server, built on first use: importing Authlib (and joserfc) takes
    about 0.1 s, which app creation, and so start-up, does not pay."""
    found = current_app.extensions.get("ci_oauth")
    if found is None:
        from ci_service.web.oauth.server import Server

        # Two first requests at once may each build one; setdefault keeps a single server.
        found = current_app.extensions.setdefault("ci_oauth", Server())
    return found


def oauth_error(error: str, description: str, status: int = 400) -> Response:
    body = {"error": error, "error_description": description}
    return Response(
        json.dumps(body),
        status=status,
        mimetype="application/json",
        headers={"Cache-Control": "no-store", "Pragma": "no-cache"},
    )


def bad_parameter() -> Response | None:
    """An OAuth error for a repeated or malformed parameter, else None."""
    for name in CHECKED_PARAMS:
        values = request.values.getlist(name)
        if len(values) > 1:
            return oauth_error("invalid_request", f"Repeated parameter '{name}'")
        if values and (len(values[0]) > 2048 or safe_text(values[0], 4096) != values[0]):
            return oauth_error("invalid_request", f"Malformed parameter '{name}'")
    return None


def resource_metadata_url() -> str:
    return issuer() + PROTECTED_RESOURCE_PATH + "/mcp"


def authorization_server_metadata() -> dict:
    base = issuer()
    return {
        "issuer": base,
        "authorization_endpoint": base + "/oauth/authorize",
        "token_endpoint": base + "/oauth/token",
        "registration_endpoint": base + "/oauth/register",
        "revocation_endpoint": base + "/oauth/revoke",
        "scopes_supported": list(oauth_clients.SCOPES),
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": list(oauth_clients.GRANT_TYPES),
        "token_endpoint_auth_methods_supported": CLIENT_AUTH_METHODS,
        "revocation_endpoint_auth_methods_supported": CLIENT_AUTH_METHODS,
        "code_challenge_methods_supported": ["S256"],
        "client_id_metadata_document_supported": True,
        "authorization_response_iss_parameter_supported": True,
        "service_documentation": base + "/docs",
    }


@bp.get(PROTECTED_RESOURCE_PATH)
@bp.get(PROTECTED_RESOURCE_PATH + "/mcp")
def protected_resource():
    return {
        "resource": mcp_resource(),
        "authorization_servers": [issuer()],
        "scopes_supported": list(oauth_clients.SCOPES),
        "bearer_methods_supported": ["header"],
        "resource_name": "ci-service tool server (MCP)",
    }


@bp.get("/.well-known/oauth-authorization-server")
def authorization_server():
    return authorization_server_metadata()


def _limit_body() -> Response | None:
    limit = min(current_app.config["CI_SETTINGS"].max_json_bytes, 64 * 1024)
    request.max_content_length = limit
    if request.content_length is not None and request.content_length > limit:
        return oauth_error("invalid_request", f"The request body exceeds {limit} bytes", 413)
    return None


def _form_endpoint(run) -> Response:
    problem = _limit_body()
    if problem is not None:
        return problem
    if request.mimetype != FORM:
        return oauth_error("invalid_request", f"Send the parameters as {FORM}")
    problem = bad_parameter()
    if problem is not None:
        return problem
    try:
        with transaction():  # one write unit: a code or refresh token is used exactly once
            return run()
    except ValueError:  # an error description Authlib built from the request's text
        return oauth_error("invalid_request", "The request could not be understood")


@bp.post("/oauth/token")
def token():
    return _form_endpoint(lambda: server().create_token_response())


@bp.post("/oauth/revoke")
def revoke():
    return _form_endpoint(lambda: server().create_endpoint_response("revocation"))


@bp.post("/oauth/register")
def register():
    problem = _limit_body()
    if problem is not None:
        return problem
    if not (request.mimetype == "application/json" or request.mimetype.endswith("+json")):
        return oauth_error("invalid_client_metadata", "Send the client metadata as JSON")
    try:
        data = json.loads(request.get_data(cache=True) or b"null")
    except (ValueError, UnicodeDecodeError):
        return oauth_error("invalid_client_metadata", "The body is not valid JSON")
    if not isinstance(data, dict):
        return oauth_error("invalid_client_metadata", "The client metadata must be an object")
    response = server().create_endpoint_response("client_registration")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.after_request
def allow_any_origin(response: Response) -> Response:
    response.headers["Access-Control-Allow-Origin"] = "*"
    if request.method == "OPTIONS":
        response.headers["Access-Control-Allow-Methods"] = "GET, POST, OPTIONS"
        response.headers["Access-Control-Allow-Headers"] = (
            "Authorization, Content-Type, MCP-Protocol-Version"
        )
        response.headers["Access-Control-Max-Age"] = "86400"
    return response


def install(app: Flask) -> None:
    # The Authlib server itself is built by server() on the first request that needs it.
    app.register_blueprint(bp)
