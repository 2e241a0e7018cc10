"""``ci-service mcp`` and ``ci-service tools``: the tool server over stdin and stdout for
desktop agents, and the list of its tools.

Example::

    ci-service --database ./ci.db mcp --workspace acme
    ci-service tools list
"""

from __future__ import annotations

import sys

import click

from ci_service.cli.common import emit_json, json_option, service_errors
from ci_service.settings import load_settings


@click.command("mcp")
@click.option("--workspace", required=True, help="Workspace name or id the agent works in.")
@click.pass_obj
@service_errors
def mcp_stdio(state, workspace):
    """Serve the tool server (MCP / JSON-RPC) over stdin and stdout, for desktop agents.

    The session acts as the workspace's owner (no API key: it reads the database file
    directly). Jobs it starts are picked up by a running `ci-service serve`.

    Example: ci-service --database ./ci.db mcp --workspace acme
    """
    import logging

    from ci_service.mcp.stdio import local_principal, serve_stdio
    from ci_service.mcp.tools import ToolContext
    from ci_service.services.workspace.workspaces import find_workspace

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)  # stdout is the protocol
    state.open()
    principal = local_principal(find_workspace(workspace))
    context = ToolContext(principal, load_settings(database=state.database))
    serve_stdio(context, sys.stdin, sys.stdout)


@click.group()
def tools():
    """The tool server's tools."""


@tools.command("list")
@json_option
def tools_list(as_json):
    """List the tools agents can call, with their arguments (* = required).

    Example: ci-service tools list
    """
    from ci_service.mcp.catalog import list_tools

    described = [t.describe() for t in list_tools()]
    if as_json:
        emit_json(described)
        return
    for item in described:
        schema = item["inputSchema"]
        required = set(schema.get("required", []))
        arguments = ", ".join(
            f"{name}{'*' if name in required else ''}: {spec.get('type', 'any')}"
            for name, spec in schema.get("properties", {}).items()
        )
        click.echo(f"{item['name']}({arguments})")
        click.echo(f"    {item['description']}")
