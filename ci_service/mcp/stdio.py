"""The tool server over stdin/stdout, for desktop agents that launch a command.

Newline-delimited JSON-RPC messages in, one line per response out (MCP's stdio transport).
There is no API key on this path: whoever can run the command can read the database file,
so the session acts as the workspace's owner, with every scope and no rate limit. The
workspace's plan still applies (the tool server needs ENTERPRISE).
"""

from __future__ import annotations

import json
from typing import IO

from ci_service.mcp import protocol
from ci_service.mcp.tools import TOOL_SERVER, ToolContext
from ci_service.services.identity.auth import Principal, check_access
from ci_service.store.db import connection
from ci_service.store.identity import SCOPES, Workspace


def local_principal(workspace: Workspace) -> Principal:
    principal = Principal(
        key_id="stdio",
        user_id="stdio",
        workspace_id=workspace.id,
        tenant_id=workspace.tenant_id,
        role="OWNER",
        plan=workspace.tenant.plan,
        scopes=SCOPES,
        rate_limit=0,
        allowed_ips=(),
        expires_at=None,
    )
    check_access(principal, TOOL_SERVER)
    return principal


def serve_stdio(context: ToolContext, stdin: IO[str], stdout: IO[str]) -> None:
    """Answer messages until stdin closes."""
    for line in stdin:
        if not line.strip():
            continue
        try:
            payload = protocol.parse(line)
        except protocol.RpcError:
            result = protocol.error_body(None, protocol.PARSE_ERROR, "Parse error")
        else:
            with connection():
                result = protocol.handle(payload, context)
        if result is not None:
            stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
            stdout.flush()
