"""The tool server's JSON-RPC and MCP behaviour over POST /mcp, with test-only tools."""

from __future__ import annotations

import pytest

from ci_service.errors import NotFound
from ci_service.mcp import tools as registry
from ci_service.services.identity.auth import WRITE


@pytest.fixture
def test_tools():
    added = []

    def add(name, handler, **options):
        registry.tool(name, f"Test tool {name}", **options)(handler)
        added.append(name)

    def echo(context, args):
        return {"echo": args["text"], "workspaceId": context.workspace_id}

    def boom(context, args):
        raise RuntimeError("secret internal detail")

    def missing(context, args):
        raise NotFound.of("competitor")

    add("t_echo", echo, properties={"text": {"type": "string"}}, required=("text",))
    add("t_list", lambda c, a: [1, 2, 3], result_key="numbers")
    add("t_boom", boom)
    add("t_missing", missing)
    add("t_write", lambda c, a: {"ok": True}, access=WRITE)
    yield
    for name in added:
        registry.TOOLS.pop(name, None)


@pytest.fixture
def rpc(api, test_tools):
    def call(body, key=None, expect=200):
        response = api.client.post("/mcp", json=body, headers={"X-API-Key": key or api.key})
        assert response.status_code == expect, response.get_data(as_text=True)
        return response

    return call


def req(method, params=None, id=1):
    body = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        body["params"] = params
    return body


def test_initialize_negotiates_version(rpc):
    result = rpc(
        req(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        )
    ).json["result"]
    assert result["protocolVersion"] == "2025-06-18"
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["serverInfo"]["name"] == "ci-service"
    newer = rpc(req("initialize", {"protocolVersion": "2099-01-01"})).json["result"]
    assert newer["protocolVersion"] == "2025-11-25"
    error = rpc(req("initialize", {})).json["error"]
    assert error["code"] == -32602 and "protocolVersion" in error["data"]["details"]


def test_modern_discover_and_meta(rpc):
    meta = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
    result = rpc(req("server/discover", meta)).json["result"]
    assert (
        "2026-07-28" in result["supportedVersions"] and "2025-11-25" in result["supportedVersions"]
    )
    assert result["resultType"] == "complete" and result["capabilities"]["tools"] is not None
    listed = rpc(req("tools/list", meta)).json["result"]
    assert listed["resultType"] == "complete" and listed["ttlMs"] == 0
    bad = {"_meta": {"io.modelcontextprotocol/protocolVersion": "1999-01-01"}}
    error = rpc(req("tools/list", bad)).json["error"]
    assert error["code"] == -32022 and "2026-07-28" in error["data"]["supported"]


def test_ping_and_notifications(rpc, api):
    assert rpc(req("ping")).json == {"jsonrpc": "2.0", "result": {}, "id": 1}
    response = rpc({"jsonrpc": "2.0", "method": "notifications/initialized"}, expect=202)
    assert response.data == b""
    rpc({"jsonrpc": "2.0", "method": "notifications/unknown"}, expect=202)


def test_tools_list_describes_tools(rpc):
    tools = {t["name"]: t for t in rpc(req("tools/list")).json["result"]["tools"]}
    echo = tools["t_echo"]
    assert echo["description"] and echo["inputSchema"]["type"] == "object"
    assert echo["inputSchema"]["required"] == ["text"]


def test_tools_call_success_and_wrapping(rpc, api):
    result = rpc(req("tools/call", {"name": "t_echo", "arguments": {"text": "hi"}})).json["result"]
    assert result["isError"] is False
    assert result["structuredContent"] == {"echo": "hi", "workspaceId": api.workspace_id}
    assert result["content"][0]["type"] == "text" and '"echo": "hi"' in result["content"][0]["text"]
    listed = rpc(req("tools/call", {"name": "t_list", "arguments": {}})).json["result"]
    assert listed["structuredContent"] == {"numbers": [1, 2, 3]}


def test_tools_call_errors_are_results_or_rpc_errors(rpc):
    missing_arg = rpc(req("tools/call", {"name": "t_echo", "arguments": {}})).json["result"]
    assert missing_arg["isError"] is True
    assert missing_arg["structuredContent"]["error"]["data"]["details"] == {"text": ["is required"]}
    not_found = rpc(req("tools/call", {"name": "t_missing"})).json["result"]
    assert not_found["isError"] and not_found["structuredContent"]["error"]["code"] == 404
    unknown = rpc(req("tools/call", {"name": "nope"})).json["error"]
    assert unknown["code"] == -32602 and "name" in unknown["data"]["details"]


def test_direct_method_calls(rpc, api):
    body = rpc(req("t_echo", {"text": "x", "_meta": {"progressToken": 1}})).json
    assert body == {
        "jsonrpc": "2.0",
        "result": {"echo": "x", "workspaceId": api.workspace_id},
        "id": 1,
    }
    assert rpc(req("t_list")).json["result"] == [1, 2, 3]


@pytest.mark.parametrize(
    "params, argument",
    [({}, "text"), ({"text": 5}, "text"), ({"text": "x", "extra": 1}, "extra")],
)
def test_direct_call_invalid_params_name_the_argument(rpc, params, argument):
    error = rpc(req("t_echo", params)).json["error"]
    assert error["code"] == -32602
    assert argument in error["data"]["details"]


def test_positional_params_are_invalid(rpc):
    assert rpc(req("t_echo", ["x"])).json["error"]["code"] == -32602


def test_errors_from_tools(rpc):
    error = rpc(req("t_missing")).json["error"]
    assert error["code"] == 404 and error["message"] == "competitor not found"
    internal = rpc(req("t_boom"))
    assert internal.json["error"] == {"code": -32603, "message": "Internal error"}
    assert "secret" not in internal.get_data(as_text=True)


def test_parse_error_and_unknown_method(api, rpc):
    response = api.client.post(
        "/mcp", data="{nope", headers={"X-API-Key": api.key, "Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json["error"]["code"] == -32700 and response.json["id"] is None
    assert rpc(req("no/such/method")).json["error"]["code"] == -32601


@pytest.mark.parametrize(
    "body",
    [
        [],
        {"jsonrpc": "1.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1},
        {"jsonrpc": "2.0", "id": True, "method": "ping"},
        5,
    ],
    ids=["empty-batch", "version-1.0", "no-method", "boolean-id", "a-number"],
)
def test_invalid_requests(rpc, body):
    assert rpc(body).json["error"]["code"] == -32600


def test_unknown_top_level_members_are_tolerated(rpc):
    body = {**req("ping"), "extra": "ignored"}
    assert rpc(body).json["result"] == {}


def test_batches(rpc):
    body = [
        req("ping", id=1),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"bad": True},
        req("t_echo", {"text": "b"}, id="two"),
        req("missing/method", id=3),
    ]
    responses = rpc(body).json
    assert [r.get("id") for r in responses] == [1, None, "two", 3]
    assert responses[0]["result"] == {}
    assert responses[1]["error"]["code"] == -32600
    assert responses[2]["result"]["echo"] == "b"
    assert responses[3]["error"]["code"] == -32601
    rpc([{"jsonrpc": "2.0", "method": "notifications/initialized"}], expect=202)


def test_auth_plan_scope_and_rate_limit(client, make_api, test_tools):
    response = client.post("/mcp", json=req("ping", id=7))
    assert response.status_code == 401
    assert response.json["error"]["code"] == 401 and response.json["id"] == 7

    pro = make_api(plan="PRO")
    response = client.post("/mcp", json=req("ping"), headers={"X-API-Key": pro.key})
    assert response.status_code == 403 and response.json["error"]["code"] == 403
    assert response.json["error"]["data"]["requiredPlan"] == "ENTERPRISE"

    reader = make_api(scopes=["read"], rate_limit=3)
    headers = {"X-API-Key": reader.key}
    ok = client.post("/mcp", json=req("t_echo", {"text": "x"}), headers=headers)
    assert ok.status_code == 200 and ok.headers["X-RateLimit-Remaining"] == "2"
    denied = client.post("/mcp", json=req("t_write"), headers=headers).json["error"]
    assert denied["code"] == 403
    client.post("/mcp", json=req("ping"), headers=headers)
    limited = client.post("/mcp", json=req("ping"), headers=headers)
    assert limited.status_code == 429 and limited.json["error"]["code"] == 429
    assert int(limited.headers["Retry-After"]) >= 1


@pytest.mark.parametrize("method", ["get", "delete"])
def test_get_and_delete_answer_405(api, method):
    response = getattr(api, method)("/mcp")
    assert response.status_code == 405 and response.headers["Allow"] == "POST"
