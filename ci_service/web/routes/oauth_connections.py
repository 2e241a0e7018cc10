"""/api/connected-clients: the tool server's OAuth connections (issue 17).

A connection is one person in this workspace allowing an MCP client to act as them. Each
person sees and revokes their own; an ADMIN or OWNER those of everyone in the workspace.
Scope ``admin`` as for API keys (who may act as you), on every plan and role: a
connection must stay revocable after a downgrade.
"""

from __future__ import annotations

import marshmallow as ma
from flask import current_app

from ci_service.services.identity import oauth_tokens
from ci_service.services.identity.auth import Access, role_at_least
from ci_service.web.api import Blueprint, SuccessSchema
from ci_service.web.auth import principal, requires

blp = Blueprint(
    "connected-clients",
    __name__,
    url_prefix="/api/connected-clients",
    description="MCP clients connected to the tool server with OAuth",
)

CONNECTIONS = Access(scope="admin")


class ConnectionSchema(ma.Schema):
    id = ma.fields.String(required=True)
    clientId = ma.fields.String(required=True)
    clientName = ma.fields.String(required=True)
    userId = ma.fields.String(required=True)
    userEmail = ma.fields.String(allow_none=True, required=True)
    workspaceId = ma.fields.String(required=True)
    scopes = ma.fields.List(ma.fields.String(), required=True)
    createdAt = ma.fields.DateTime(required=True)
    lastUsedAt = ma.fields.DateTime(allow_none=True, required=True)


class ConnectionListSchema(ma.Schema):
    connectedClients = ma.fields.List(ma.fields.Nested(ConnectionSchema), required=True)


def visible_connections(who) -> list:
    """The caller's own connections; an ADMIN's or OWNER's: the whole workspace's."""
    current_app.extensions["ci_usage"].flush()  # so lastUsedAt is current
    everyone = role_at_least(who.role, "ADMIN")
    return oauth_tokens.list_connections(who.workspace_id, None if everyone else who.user_id)


@blp.route("", methods=["GET"])
@blp.alt_response(200, schema=ConnectionListSchema, success=True)
@blp.errors(401, 403, 429)
@requires(CONNECTIONS)
def list_connected_clients():
    rows = visible_connections(principal())
    return {"connectedClients": [oauth_tokens.connection_to_dict(row) for row in rows]}


@blp.route("/<connection_id>", methods=["DELETE"])
@blp.alt_response(200, schema=SuccessSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(CONNECTIONS)
def revoke_connected_client(connection_id):
    oauth_tokens.revoke_connection(connection_id, principal())
    return {"success": True}
