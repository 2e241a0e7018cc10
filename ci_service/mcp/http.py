"""POST /mcp: the tool server over HTTP (JSON-RPC 2.0 and MCP streamable HTTP, JSON answers).

The same key pipeline as REST runs first (key, IP allowlist, rate limit with its headers,
ENTERPRISE plan); its failures come back as JSON-RPC errors with the HTTP-style codes 401,
403 and 429 and the matching HTTP status.

``/mcp`` is also an OAuth 2.1 protected resource (issue 17): an ``Authorization: Bearer``
token minted for it by this server's authorization server (web/oauth_*.py) stands for a
key. Every 401 names the resource metadata in ``WWW-Authenticate`` (RFC 9728) so an MCP
client can discover where to sign in; a bearer token lacking the scope a single request
needs gets 403 with ``error="insufficient_scope"`` (the MCP scope challenge).

Each HTTP request counts once against the rate limit, whether it holds one message or a
batch. Notifications get 202 with no body. The server keeps no sessions, so there is no GET
stream and no DELETE: both answer 405.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, json, request

from ci_service.errors import InsufficientScope, ServiceError
from ci_service.mcp import protocol
from ci_service.mcp.tools import ToolContext, get_tool
from ci_service.services.auth import Access, Principal
from ci_service.services.oauth_clients import SCOPES
from ci_service.web.auth import authenticate_request, bearer_token, public
from ci_service.web.oauth_common import mcp_resource
from ci_service.web.oauth_routes import resource_metadata_url

bp = Blueprint("mcp", __name__)

TOOL_SERVER = Access(
    plan="ENTERPRISE", plan_message="The tool server is only available for Enterprise customers"
)


def _json(body, status: int = 200, headers: dict | None = None) -> Response:
    response = current_app.response_class(
        json.dumps(body), status=status, mimetype="application/json"
    )
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


@bp.route("/mcp", methods=["POST"])
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


@bp.route("/mcp", methods=["GET", "DELETE"])
@public
def mcp_no_stream():
    body = protocol.error_body(
        None, -32000, "Method not allowed: this server answers JSON on POST and keeps no sessions"
    )
    return _json(body, 405, {"Allow": "POST"})
