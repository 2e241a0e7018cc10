"""The official MCP SDK client against a real ``ci-service serve`` (and over stdio)."""

from __future__ import annotations

import sys

import pytest

from tests.async_support import run_coroutine
from tests.live import LiveServer, create_our_product, run_cli, solution_arguments

mcp = pytest.importorskip("mcp")
httpx2 = pytest.importorskip("httpx2")
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402


@pytest.fixture(scope="module")
def live(module_database_url):
    database = module_database_url
    assert run_cli(database, "workspaces", "create", "acme", "--plan", "ENTERPRISE").returncode == 0
    key = run_cli(database, "keys", "create", "--workspace", "acme", "--name", "agent")
    key = key.stdout.strip().splitlines()[-1]
    with LiveServer(database) as server:
        product = create_our_product(server.url, key)
        yield server, key, database, product


async def _session(url: str, key: str, mode: str, work):
    async with httpx2.AsyncClient(headers={"X-API-Key": key}) as http:
        transport = streamable_http_client(url + "/mcp", http_client=http)
        async with Client(transport, mode=mode) as client:
            return await work(client)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_sdk_lists_and_calls_tools(live, mode):
    server, key, _, product = live
    arguments = solution_arguments(f"Insight {mode}", product)

    async def work(client):
        listed = await client.list_tools()
        created = await client.call_tool("create_solution", arguments)
        missing = await client.call_tool("get_competitor", {"competitorId": "nope"})
        return client.protocol_version, {t.name: t for t in listed.tools}, created, missing

    version, tools, created, missing = run_coroutine(_session(server.url, key, mode, work))
    assert version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
    assert {"get_competitor", "create_solution", "trigger_refresh"} <= set(tools)
    for described in tools.values():
        assert described.description and described.input_schema["type"] == "object"
    assert created.is_error is False
    assert created.structured_content["name"] == f"Insight {mode}"
    assert created.structured_content["categoryMappings"] == arguments["categoryMappings"]
    assert missing.is_error is True
    assert missing.structured_content["error"]["code"] == 404


def test_sdk_rejects_a_bad_key(live):
    server, _, _, _ = live

    async def work(client):
        return await client.list_tools()

    with pytest.raises(Exception):  # noqa: B017 - the SDK surfaces the 401 as its own error
        run_coroutine(_session(server.url, "svc_live_" + "0" * 32, "legacy", work))


def test_stdio_session(live):
    _, _, database, product = live
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "ci_service", "--database", database, "mcp", "--workspace", "acme"],
    )

    async def run():
        async with Client(params, mode="legacy") as client:
            listed = await client.list_tools()
            solutions = await client.call_tool("list_solutions", {})
            return client.protocol_version, [t.name for t in listed.tools], solutions

    version, names, solutions = run_coroutine(run())
    assert version == "2025-11-25"
    assert "list_solutions" in names
    assert solutions.is_error is False
    assert isinstance(solutions.structured_content["solutions"], list)


def test_stdio_refuses_a_non_enterprise_workspace(make_database_url):
    database = make_database_url(name="starter.db")
    run_cli(database, "workspaces", "create", "small", "--plan", "STARTER")
    result = run_cli(database, "mcp", "--workspace", "small")
    assert result.returncode == 1
    assert "Enterprise" in result.stderr and "Traceback" not in result.stderr
