"""POST /mcp: the tool server over HTTP (JSON-RPC 2.0 and MCP streamable HTTP, JSON answers).

The same key pipeline as REST runs first (key, IP allowlist, rate limit with its headers,
ENTERPRISE plan); its failures come back as JSON-RPC errors with the HTTP-style codes 401,
403 and 429 and the matching HTTP status. Each HTTP request counts once against the rate
limit, whether it holds one message or a batch. Notifications get 202 with no body. The
server keeps no sessions, so there is no GET stream and no DELETE: both answer 405.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, json, request

from ci_service.errors import ServiceError
from ci_service.mcp import protocol
from ci_service.mcp.tools import ToolContext
from ci_service.services.auth import Access
from ci_service.web.auth import authenticate_request, public

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
        principal = authenticate_request(TOOL_SERVER)
    except ServiceError as error:
        request_id = protocol._id_of(payload)
        return _json(protocol.service_error_body(request_id, error), error.status, error.headers)
    if payload is protocol.RpcError:
        return _json(protocol.error_body(None, protocol.PARSE_ERROR, "Parse error"), 400)
    context = ToolContext(principal, settings, extras={"app": current_app._get_current_object()})
    result = protocol.handle(payload, context)
    if result is None:
        return Response(status=202)
    return _json(result)


@bp.route("/mcp", methods=["GET", "DELETE"])
@public
def mcp_no_stream():
    body = protocol.error_body(
        None, -32000, "Method not allowed: this server answers JSON on POST and keeps no sessions"
    )
    return _json(body, 405, {"Allow": "POST"})
