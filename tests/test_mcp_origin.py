"""The MCP streamable HTTP transport rules on /mcp (issue 25): the ``Origin`` check, the
``MCP-Protocol-Version`` header and CORS for allowed browser origins."""

from __future__ import annotations

import pytest

from ci_service.mcp import tools as registry
from ci_service.web.mcp_http import normalize_origin

EVIL = "https://evil.example"
LISTED = "https://agent.example"  # in allowed_origins, written there with odd case and :443
PUBLIC = "http://localhost"  # the settings fixture's public_url
CALL = {"jsonrpc": "2.0", "id": 7, "method": "tools/call"}


@pytest.fixture
def settings(settings):
    return settings.with_overrides(
        allowed_origins=" HTTPS://Agent.Example:443/ , http://tools.example:8080"
    )


@pytest.fixture
def calls():
    """A test-only tool that records every call, to prove a refused request runs nothing."""
    seen: list[dict] = []

    def record(context, args):
        seen.append(args)
        return {"ok": True}

    registry.tool("t_record", "Test tool that records calls")(record)
    yield seen
    registry.TOOLS.pop("t_record", None)


def post(api, headers=None, body=None):
    body = body or {**CALL, "params": {"name": "t_record", "arguments": {}}}
    return api.post("/mcp", json=body, headers=headers or {})


def cors_headers(response) -> dict:
    return {k: v for k, v in response.headers.items() if k.lower().startswith("access-control")}


@pytest.mark.parametrize(
    "origin", [EVIL, "null", "https://agent.example.evil.example", "http://agent.example"]
)
def test_a_foreign_origin_is_refused_before_anything_runs(api, calls, origin):
    first = post(api)
    assert first.status_code == 200 and len(calls) == 1
    remaining = int(first.headers["X-RateLimit-Remaining"])

    refused = post(api, {"Origin": origin})
    assert refused.status_code == 403
    body = refused.get_json()
    assert body["jsonrpc"] == "2.0" and body["id"] is None
    assert body["error"]["code"] == 403 and "Origin" in body["error"]["message"]
    assert cors_headers(refused) == {}
    assert "X-RateLimit-Remaining" not in refused.headers  # not even authenticated
    assert len(calls) == 1  # the tool never ran

    after = post(api)
    assert int(after.headers["X-RateLimit-Remaining"]) == remaining - 1  # no count wasted


def test_a_bad_key_from_a_foreign_origin_is_still_a_403_not_a_challenge(client):
    refused = client.post("/mcp", json=CALL, headers={"Origin": EVIL, "X-API-Key": "nope"})
    assert refused.status_code == 403 and "WWW-Authenticate" not in refused.headers


@pytest.mark.parametrize(
    "origin", [PUBLIC, "http://LOCALHOST:80", LISTED, "https://agent.example:443"]
)
def test_allowed_origins_are_served_with_cors_headers(api, calls, origin):
    answer = post(api, {"Origin": origin})
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["result"]["isError"] is False and len(calls) == 1
    assert answer.headers["Access-Control-Allow-Origin"] == origin
    assert "Origin" in answer.headers["Vary"]
    exposed = {
        h.strip().lower() for h in answer.headers["Access-Control-Expose-Headers"].split(",")
    }
    assert {
        "www-authenticate",
        "mcp-session-id",
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
    } <= exposed
    assert "X-RateLimit-Remaining" in answer.headers


def test_an_allowed_origin_reads_the_401_challenge(client):
    answer = client.post("/mcp", json=CALL, headers={"Origin": LISTED})
    assert answer.status_code == 401
    assert answer.headers["Access-Control-Allow-Origin"] == LISTED
    assert "WWW-Authenticate" in answer.headers
    assert "WWW-Authenticate" in answer.headers["Access-Control-Expose-Headers"]


def test_no_origin_is_fine_and_gets_no_cors_headers(api, calls):
    answer = post(api)
    assert answer.status_code == 200 and len(calls) == 1
    assert cors_headers(answer) == {}


def test_preflight_from_an_allowed_origin(client):
    answer = client.options(
        "/mcp",
        headers={
            "Origin": "http://tools.example:8080",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type, mcp-protocol-version",
        },
    )
    assert answer.status_code == 204 and answer.get_data() == b""
    assert answer.headers["Access-Control-Allow-Origin"] == "http://tools.example:8080"
    assert "Origin" in answer.headers["Vary"]
    methods = {m.strip() for m in answer.headers["Access-Control-Allow-Methods"].split(",")}
    assert {"POST", "OPTIONS"} <= methods
    allowed = {h.strip().lower() for h in answer.headers["Access-Control-Allow-Headers"].split(",")}
    assert {
        "authorization",
        "content-type",
        "mcp-protocol-version",
        "mcp-session-id",
        "x-api-key",
        "last-event-id",
    } <= allowed
    assert int(answer.headers["Access-Control-Max-Age"]) > 0


def test_preflight_from_a_foreign_origin_is_refused(client):
    answer = client.options(
        "/mcp", headers={"Origin": EVIL, "Access-Control-Request-Method": "POST"}
    )
    assert answer.status_code == 403
    assert answer.get_json()["error"]["code"] == 403
    assert cors_headers(answer) == {}


def test_options_without_an_origin_is_not_a_preflight(client):
    answer = client.options("/mcp")
    assert answer.status_code == 204 and "POST" in answer.headers["Allow"]
    assert cors_headers(answer) == {}


@pytest.mark.parametrize("version", ["1999-01-01", "not-a-version", "2025-11-25, 2025-06-18"])
def test_an_unsupported_protocol_version_is_a_400(api, calls, version):
    answer = post(api, {"MCP-Protocol-Version": version})
    assert answer.status_code == 400
    body = answer.get_json()
    assert body["jsonrpc"] == "2.0" and body["id"] is None
    assert body["error"]["code"] == -32022
    assert body["error"]["data"]["requested"] == version
    assert "2025-11-25" in body["error"]["data"]["supported"]
    assert calls == []


@pytest.mark.parametrize("version", [None, "2025-03-26", "2025-06-18", "2025-11-25"])
def test_supported_or_absent_protocol_versions_are_served(api, calls, version):
    headers = {"MCP-Protocol-Version": version} if version else {}
    answer = post(api, headers)
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["result"]["isError"] is False and len(calls) == 1


def test_the_modern_version_header_is_served(api):
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    answer = post(
        api,
        {"MCP-Protocol-Version": "2026-07-28"},
        {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}},
    )
    assert (
        answer.status_code == 200
        and "2026-07-28" in answer.get_json()["result"]["supportedVersions"]
    )


@pytest.mark.parametrize("method", ["get", "delete"])
def test_get_and_delete_from_a_foreign_origin_are_refused_too(client, method):
    send = getattr(client, method)
    assert send("/mcp", headers={"Origin": EVIL}).status_code == 403
    allowed = send("/mcp", headers={"Origin": LISTED})
    assert allowed.status_code == 405 and allowed.headers["Access-Control-Allow-Origin"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("https://Agent.Example", "https://agent.example"),
        ("https://agent.example:443/", "https://agent.example"),
        ("http://agent.example:80", "http://agent.example"),
        ("http://agent.example:8080", "http://agent.example:8080"),
        ("http://[::1]:8000", "http://[::1]:8000"),
        ("null", None),
        ("file://x", None),
        ("https://agent.example/path", None),
        ("https://user@agent.example", None),
        ("https://agent.example:99999", None),
    ],
)
def test_origins_are_compared_after_normalising(text, expected):
    assert normalize_origin(text) == expected
