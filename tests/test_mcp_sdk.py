"""The official MCP SDK client against a real ``ci-service serve`` (and over stdio)."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest

from tests.live import LiveServer, run_cli

mcp = pytest.importorskip("mcp")
httpx2 = pytest.importorskip("httpx2")
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    database = str(tmp_path_factory.mktemp("mcp") / "mcp.db")
    assert run_cli(database, "workspaces", "create", "acme", "--plan", "ENTERPRISE").returncode == 0
    key = run_cli(database, "keys", "create", "--workspace", "acme", "--name", "agent")
    with LiveServer(database) as server:
        yield server, key.stdout.strip().splitlines()[-1], database


async def _session(url: str, key: str, mode: str, work):
    async with httpx2.AsyncClient(headers={"X-API-Key": key}) as http:
        transport = streamable_http_client(url + "/mcp", http_client=http)
        async with Client(transport, mode=mode) as client:
            return await work(client)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_sdk_lists_and_calls_tools(live, mode):
    server, key, _ = live

    async def work(client):
        listed = await client.list_tools()
        return client.protocol_version, {t.name: t for t in listed.tools}

    version, tools = asyncio.run(_session(server.url, key, mode, work))
    assert version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
    for described in tools.values():
        assert described.description and described.input_schema["type"] == "object"


def test_sdk_rejects_a_bad_key(live):
    server, _, _ = live

    async def work(client):
        return await client.list_tools()

    with pytest.raises(Exception):  # noqa: B017 - the SDK surfaces the 401 as its own error
        asyncio.run(_session(server.url, "svc_live_" + "0" * 32, "legacy", work))


def test_stdio_session(live):
    from mcp import StdioServerParameters

    _, _, database = live
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "ci_service", "--database", database, "mcp", "--workspace", "acme"],
    )

    async def run():
        async with Client(params, mode="legacy") as client:
            listed = await client.list_tools()
            return client.protocol_version, [t.name for t in listed.tools]

    version, names = asyncio.run(run())
    assert version == "2025-11-25"
    assert isinstance(names, list)
    json.dumps(names)
