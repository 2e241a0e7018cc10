"""JSON-RPC 2.0 and Model Context Protocol messages, independent of the transport.

Dispatch goes through jsonrpcserver, with three of its habits designed around:
- it validates a batch as a whole and rejects unknown top-level members, so each message
  is checked here first (a bad item gets its own -32600; unknown members are dropped);
- an uncaught exception's text would be sent to the client, so every method is wrapped
  and internals are only logged;
- MCP clients put ``_meta`` into ``params``, so methods take ``**params`` and pop it.

Both MCP revisions are served on one endpoint: the ``initialize`` handshake (2025-11-25 and
older) and the stateless 2026-07-28 requests that carry their version in ``params._meta``
(with ``server/discover``). No session state is kept either way.

jsonrpcserver is imported by the first message handled, not with this module: it brings
asyncio and more, which ``serve`` would otherwise pay for at start-up.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from ci_service import __version__
from ci_service.errors import (
    Conflict,
    Forbidden,
    InsufficientScope,
    IpNotAllowed,
    NotFound,
    RateLimited,
    ServiceError,
    Unauthorized,
    UpgradeRequired,
    ValidationFailed,
)
from ci_service.mcp.catalog import get_tool, list_tools
from ci_service.mcp.tools import ToolContext

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_ERROR = -32000
UNSUPPORTED_PROTOCOL_VERSION = -32022

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSIONS = ("2026-07-28",)
SUPPORTED_VERSIONS = HANDSHAKE_VERSIONS + MODERN_VERSIONS
PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion"
SERVER_INFO = {"name": "ci-service", "title": "Competitive intelligence", "version": __version__}
INSTRUCTIONS = (
    "Competitive intelligence for this workspace: competitors, battlecards, feature and "
    "solution matrices, and collected intel. Read tools are safe; trigger_refresh, "
    "generate_battlecard and the solution writers start work or change data."
)
CAPABILITIES = {"tools": {"listChanged": False}}
_MEMBERS = ("jsonrpc", "method", "params", "id")


class RpcError(Exception):
    def __init__(self, code: int, message: str, data: Any = None):
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


def error_body(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def service_error_code(error: ServiceError) -> int:
    """The JSON-RPC code of a service error: HTTP-style codes for auth, plan, missing, rate."""
    if isinstance(error, ValidationFailed):
        return INVALID_PARAMS
    if isinstance(error, Unauthorized):
        return 401
    if isinstance(error, Forbidden | InsufficientScope | IpNotAllowed | UpgradeRequired):
        return 403
    if isinstance(error, NotFound):
        return 404
    if isinstance(error, Conflict):
        return 409
    if isinstance(error, RateLimited):
        return 429
    return SERVER_ERROR


def service_error_data(error: ServiceError) -> dict[str, Any]:
    details = error.details
    if isinstance(details, dict) and "fields" in details and len(details) == 1:
        details = details["fields"]  # -32602: details names the argument directly
    data: dict[str, Any] = {"details": details if details is not None else {}}
    data["details"] = data["details"] or {"code": error.code}
    data.update(error.extra)
    return data


def service_error_body(request_id: Any, error: ServiceError) -> dict[str, Any]:
    return error_body(
        request_id, service_error_code(error), error.message, service_error_data(error)
    )


def _request_version(meta: Any) -> str | None:
    """The 2026-07-28 per-request version from ``_meta``, or None for handshake requests."""
    if not isinstance(meta, dict) or PROTOCOL_VERSION_META not in meta:
        return None
    version = meta[PROTOCOL_VERSION_META]
    if version not in MODERN_VERSIONS:
        raise RpcError(
            UNSUPPORTED_PROTOCOL_VERSION,
            f"Unsupported protocol version {version!r}",
            {"supported": list(SUPPORTED_VERSIONS), "requested": str(version)},
        )
    return version


def _complete(result: dict[str, Any], version: str | None, cacheable: bool = False) -> dict:
    if version in MODERN_VERSIONS:
        result["resultType"] = "complete"
        if cacheable:
            result.update(ttlMs=0, cacheScope="private")
    return result


# --- MCP methods: fn(context, params, version) -> result --------------------------------


def initialize(context: ToolContext, params: dict, version: str | None) -> dict:
    requested = params.get("protocolVersion")
    if not isinstance(requested, str):
        raise RpcError(
            INVALID_PARAMS, "Invalid params", {"details": {"protocolVersion": ["is required"]}}
        )
    negotiated = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    return {
        "protocolVersion": negotiated,
        "capabilities": CAPABILITIES,
        "serverInfo": SERVER_INFO,
        "instructions": INSTRUCTIONS,
    }


def discover(context: ToolContext, params: dict, version: str | None) -> dict:
    result = {
        "supportedVersions": list(SUPPORTED_VERSIONS),
        "capabilities": CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO},
    }
    return _complete(result, version or MODERN_VERSIONS[-1], cacheable=True)


def ping(context: ToolContext, params: dict, version: str | None) -> dict:
    return {}


def initialized(context: ToolContext, params: dict, version: str | None) -> None:
    return None


def tools_list(context: ToolContext, params: dict, version: str | None) -> dict:
    return _complete({"tools": [t.describe() for t in list_tools()]}, version, cacheable=True)


def tools_call(context: ToolContext, params: dict, version: str | None) -> dict:
    name = params.get("name")
    if not isinstance(name, str):
        raise RpcError(INVALID_PARAMS, "Invalid params", {"details": {"name": ["is required"]}})
    found = get_tool(name)
    if found is None:
        raise RpcError(
            INVALID_PARAMS,
            f"Unknown tool: {name}",
            {"details": {"name": [f"no tool named {name!r}"]}},
        )
    try:
        value = found.call(context, params.get("arguments"))
    except ServiceError as error:
        # Tool execution errors are results with isError, so an agent can read and retry.
        error_object = {"error": service_error_body(None, error)["error"]}
        return _tool_result(error_object, error_object, True, version)
    structured = value if isinstance(value, dict) else {found.result_key: value}
    return _tool_result(value, structured, False, version)


def _tool_result(value: Any, structured: dict, is_error: bool, version: str | None) -> dict:
    text = json.dumps(value, ensure_ascii=False)
    result = {
        "content": [{"type": "text", "text": text}],
        "structuredContent": structured,
        "isError": is_error,
    }
    return _complete(result, version)


MCP_METHODS = {
    "initialize": initialize,
    "server/discover": discover,
    "ping": ping,
    "notifications/initialized": initialized,
    "tools/list": tools_list,
    "tools/call": tools_call,
}


def _rpc(fn):
    """Adapt ``fn(context, params, version)`` to a jsonrpcserver method that never leaks."""
    from jsonrpcserver import Error, Success  # not at start-up: see the module doc

    def method(context, *args, **params):
        if args:
            return Error(
                INVALID_PARAMS,
                "Invalid params",
                {"details": {"params": ["must be an object, not an array"]}},
            )
        meta = params.pop("_meta", None)
        try:
            return Success(fn(context, params, _request_version(meta)))
        except RpcError as error:
            return Error(error.code, error.message, error.data)
        except ServiceError as error:
            body = service_error_body(None, error)["error"]
            return Error(body["code"], body["message"], body.get("data"))
        except Exception:
            log.exception("tool server method failed")
            return Error(INTERNAL_ERROR, "Internal error")

    return method


def _direct_tool(tool_name: str):
    def call(context: ToolContext, params: dict, version: str | None):
        return get_tool(tool_name).call(context, params)

    return call


def methods() -> dict[str, Any]:
    """MCP methods plus every tool callable directly as a JSON-RPC method."""
    table = {name: _rpc(fn) for name, fn in MCP_METHODS.items()}
    for registered in list_tools():
        table[registered.name] = _rpc(_direct_tool(registered.name))
    return table


def _normalize(item: Any) -> tuple[dict | None, str | None]:
    if not isinstance(item, dict):
        return None, "a request must be an object"
    if item.get("jsonrpc") != "2.0":
        return None, 'jsonrpc must be "2.0"'
    if not isinstance(item.get("method"), str) or not item["method"]:
        return None, "method must be a non-empty string"
    if "id" in item and (
        isinstance(item["id"], bool) or not isinstance(item["id"], str | int | float | None)
    ):
        return None, "id must be a string, a number or null"
    if "params" in item and not isinstance(item["params"], dict | list):
        return None, "params must be an object or an array"
    return {k: item[k] for k in _MEMBERS if k in item}, None


def _id_of(item: Any) -> Any:
    if isinstance(item, dict):
        value = item.get("id")
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            return value
    return None


def is_notification(item: Any) -> bool:
    return isinstance(item, dict) and "id" not in item


def handle_one(item: Any, context: ToolContext, table: dict | None = None) -> dict | None:
    request, problem = _normalize(item)
    if problem:
        return error_body(
            _id_of(item), INVALID_REQUEST, "Invalid Request", {"details": {"request": [problem]}}
        )
    table = table if table is not None else methods()
    if request["method"] not in table:
        if "id" not in request:
            return None  # an unknown notification is ignored, as JSON-RPC requires
        return error_body(
            request["id"],
            METHOD_NOT_FOUND,
            "Method not found",
            {"details": {"method": [f"no method named {request['method']!r}"]}},
        )
    from jsonrpcserver import dispatch_to_serializable  # not at start-up: see the module doc

    return dispatch_to_serializable(
        request,
        methods=table,
        context=context,
        deserializer=lambda value: value,
        validator=lambda value: value,
    )


def handle(payload: Any, context: ToolContext) -> dict | list | None:
    """A decoded JSON body in, the response body out (None: nothing to send back)."""
    table = methods()
    if isinstance(payload, list):
        if not payload:
            return error_body(
                None, INVALID_REQUEST, "Invalid Request", {"details": {"request": ["empty batch"]}}
            )
        responses = [r for item in payload if (r := handle_one(item, context, table)) is not None]
        return responses or None
    return handle_one(payload, context, table)


def parse(text: str | bytes) -> Any:
    """Decode a body; raises RpcError(-32700) when it is not JSON."""
    try:
        return json.loads(text)
    except (ValueError, UnicodeDecodeError):
        raise RpcError(PARSE_ERROR, "Parse error") from None
