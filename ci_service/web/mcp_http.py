"""POST /mcp: the tool server over HTTP (JSON-RPC 2.0 and MCP streamable HTTP, JSON answers).

This blueprint lives in the web layer, not in ci_service/mcp: it is the Flask side of the
tool server, and it needs web's request pipeline (web/auth.py) and the OAuth resource URLs
(web/oauth/). From here it imports mcp's protocol, catalog and tools, so the arrow runs one
way (web -> mcp -> services) and mcp stays free of Flask. Moving this one module was the
least code moved: the other way, mcp getting all it needs from services, would have pushed
the Flask request pipeline down a layer. stdio (mcp/stdio.py) is the other transport.

The same key pipeline as REST runs first (key, IP allowlist, rate limit with its headers,
ENTERPRISE plan); its failures come back as JSON-RPC errors with the HTTP-style codes 401,
403 and 429 and the matching HTTP status.

``/mcp`` is also an OAuth 2.1 protected resource (issue 17): an ``Authorization: Bearer``
token minted for it by this server's authorization server (web/oauth/) stands for a
key. Every 401 names the resource metadata in ``WWW-Authenticate`` (RFC 9728) so an MCP
client can discover where to sign in; a bearer token lacking the scope a single request
needs gets 403 with ``error="insufficient_scope"`` (the MCP scope challenge).

Each HTTP request counts once against the rate limit, whether it holds one message or a
batch. Notifications get 202 with no body. The server keeps no sessions, so there is no GET
stream and no DELETE: both answer 405.

Transport rules of MCP streamable HTTP (issue 25), checked before anything else, so a
refused request runs nothing and costs no rate limit:
- ``Origin``: a browser's request is served only from an allowed origin, the service's own
  public origin (``public_url``) or one listed in ``allowed_origins``, compared after
  normalising (lower-case scheme and host, default port dropped). Any other origin, ``null``
  included, gets 403: a web page must not drive a key's tools (nor, by DNS rebinding, reach
  a server on a private network). Requests without ``Origin`` (the SDKs, curl) pass.
- ``MCP-Protocol-Version``: absent means 2025-03-26, as the transport says; a version this
  server does not speak gets 400.
- CORS: allowed origins get ``Access-Control-Allow-Origin`` (theirs) on every answer and a
  204 to an ``OPTIONS`` preflight; the OAuth endpoints keep their own any-origin rule.
"""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import urlsplit

from flask import Blueprint, Response, current_app, json, request

from ci_service.errors import Forbidden, InsufficientScope, ServiceError
from ci_service.mcp import protocol
from ci_service.mcp.catalog import get_tool
from ci_service.mcp.tools import TOOL_SERVER, ToolContext
from ci_service.services.identity.auth import Principal
from ci_service.services.identity.oauth_clients import SCOPES
from ci_service.web.auth import authenticate_request, bearer_token, public
from ci_service.web.oauth.common import mcp_resource
from ci_service.web.oauth.routes import resource_metadata_url

bp = Blueprint("mcp", __name__)

VERSION_HEADER = "MCP-Protocol-Version"
# Assumed when a request names no version (MCP streamable HTTP, "Protocol Version Header").
DEFAULT_HEADER_VERSION = "2025-03-26"
CORS_ALLOW_METHODS = "POST, GET, DELETE, OPTIONS"  # GET and DELETE so a browser sees the 405
CORS_ALLOW_HEADERS = (
    "Authorization, Content-Type, MCP-Protocol-Version, Mcp-Session-Id, X-API-Key, "
    "Last-Event-ID, Mcp-Method, Mcp-Name"
)
CORS_EXPOSE_HEADERS = (
    "WWW-Authenticate, Mcp-Session-Id, X-RateLimit-Limit, X-RateLimit-Remaining, "
    "X-RateLimit-Reset, Retry-After"
)
CORS_MAX_AGE = "86400"
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _json(body, status: int = 200, headers: dict | None = None) -> Response:
    response = current_app.response_class(
        json.dumps(body), status=status, mimetype="application/json"
    )
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def normalize_origin(text: str) -> str | None:
    """``scheme://host[:port]`` with scheme and host lower-cased and a default port dropped,
    or None when ``text`` is not an http(s) origin (``null``, a path, credentials...)."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if (
        scheme not in _DEFAULT_PORTS
        or not parts.hostname
        or "@" in parts.netloc
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
    ):
        return None
    host = parts.hostname.lower()
    host = f"[{host}]" if ":" in host else host
    return (
        f"{scheme}://{host}"
        if port in (None, _DEFAULT_PORTS[scheme])
        else f"{scheme}://{host}:{port}"
    )


@lru_cache(maxsize=8)
def _allowed(base_url: str, listed: str) -> frozenset[str]:
    origins = [base_url, *(item for item in listed.split(",") if item.strip())]
    return frozenset(found for item in origins if (found := normalize_origin(item)))


def origin_allowed(origin: str) -> bool:
    """May a browser page on ``origin`` call the tool server?"""
    settings = current_app.config["CI_SETTINGS"]
    allowed = _allowed(settings.base_url, str(settings.allowed_origins or ""))
    return normalize_origin(origin) in allowed


@bp.before_request
def transport_checks():
    """Origin, then the protocol version, before authentication and the rate limit."""
    origin = request.headers.get("Origin")
    if origin is not None and not origin_allowed(origin):
        error = Forbidden(
            f"Origin {origin[:200]!r} may not call the tool server; the operator can allow it "
            "with CI_SERVICE_ALLOWED_ORIGINS"
        )
        return _json(protocol.service_error_body(None, error), 403)
    if request.method == "OPTIONS":
        return None
    version = request.headers.get(VERSION_HEADER, DEFAULT_HEADER_VERSION).strip()
    if version not in protocol.SUPPORTED_VERSIONS:
        body = protocol.error_body(
            None,
            protocol.UNSUPPORTED_PROTOCOL_VERSION,
            f"Bad Request: unsupported {VERSION_HEADER} {version[:100]!r}",
            {"supported": list(protocol.SUPPORTED_VERSIONS), "requested": version[:100]},
        )
        return _json(body, 400)
    return None


@bp.after_request
def cors_headers(response: Response) -> Response:
    """CORS headers for an allowed ``Origin``, echoed as the browser sent it."""
    response.vary.add("Origin")
    origin = request.headers.get("Origin")
    if origin is None or not origin_allowed(origin):
        return response
    response.headers["Access-Control-Allow-Origin"] = origin
    response.headers["Access-Control-Expose-Headers"] = CORS_EXPOSE_HEADERS
    if request.method == "OPTIONS":
        response.headers["Access-Control-Allow-Methods"] = CORS_ALLOW_METHODS
        response.headers["Access-Control-Allow-Headers"] = CORS_ALLOW_HEADERS
        response.headers["Access-Control-Max-Age"] = CORS_MAX_AGE
    return response


@bp.route("/mcp", methods=["OPTIONS"])
@public
def mcp_preflight():
    """A CORS preflight (its origin already checked); without ``Origin``, just ``Allow``."""
    return Response(status=204, headers={"Allow": "POST, OPTIONS"})


@bp.route("/mcp", methods=["POST"], provide_automatic_options=False)
@public
def mcp_endpoint():
    settings = current_app.config["CI_SETTINGS"]
    request.max_content_length = settings.max_json_bytes
    raw = request.get_data(cache=True)
    try:
        payload = protocol.parse(raw)
    except protocol.RpcError:
        payload = protocol.RpcError  # decided after authentication
    try:
        principal = authenticate_request(TOOL_SERVER, bearer_resource=mcp_resource())
    except ServiceError as error:
        request_id = protocol._id_of(payload)
        headers = {**error.headers, **_challenge(error)}
        return _json(protocol.service_error_body(request_id, error), error.status, headers)
    if payload is protocol.RpcError:
        return _json(protocol.error_body(None, protocol.PARSE_ERROR, "Parse error"), 400)
    missing = _missing_scope(payload, principal)
    if missing is not None:
        error = InsufficientScope(f"This operation needs the '{missing}' scope")
        body = protocol.service_error_body(protocol._id_of(payload), error)
        return _json(body, 403, _challenge(error, [*principal.scopes, missing]))
    context = ToolContext(principal, settings, extras={"app": current_app._get_current_object()})
    result = protocol.handle(payload, context)
    if result is None:
        return Response(status=202)
    return _json(result)


def _challenge(error: ServiceError, scopes: list[str] | None = None) -> dict[str, str]:
    """``WWW-Authenticate`` for a 401, or for a bearer token's missing scope (403)."""
    bearer = request.headers.get("X-API-Key") is None and bearer_token() is not None
    if error.status == 401:
        params = [f'resource_metadata="{resource_metadata_url()}"', f'scope="{" ".join(SCOPES)}"']
        if bearer:
            params.insert(0, 'error="invalid_token"')
    elif isinstance(error, InsufficientScope) and bearer:
        wanted = [s for s in SCOPES if s in (scopes or SCOPES)]
        params = [
            'error="insufficient_scope"',
            f'scope="{" ".join(wanted)}"',
            f'resource_metadata="{resource_metadata_url()}"',
        ]
    else:
        return {}
    return {"WWW-Authenticate": "Bearer " + ", ".join(params)}


def _missing_scope(payload, principal: Principal) -> str | None:
    """A bearer token's scope that one tool request needs and the token lacks (a batch's
    items are each answered with their own error instead, as for a key)."""
    if principal.kind != "oauth" or not isinstance(payload, dict):
        return None
    method, params = payload.get("method"), payload.get("params")
    if method == "tools/call":
        name = params.get("name") if isinstance(params, dict) else None
    else:
        name = method
    tool = get_tool(name) if isinstance(name, str) else None
    if tool is None or tool.access.scope in principal.scopes:
        return None
    return tool.access.scope


@bp.route("/mcp", methods=["GET", "DELETE"], provide_automatic_options=False)
@public
def mcp_no_stream():
    body = protocol.error_body(
        None, -32000, "Method not allowed: this server answers JSON on POST and keeps no sessions"
    )
    return _json(body, 405, {"Allow": "POST"})
