"""``ci-service oauth``: MCP clients connected to the tool server with OAuth (issue 17), a
thin layer over ``services.identity.oauth_tokens`` and ``services.identity.oauth_clients``.

Example::

    ci-service oauth connections list --workspace acme
    ci-service oauth connections revoke 3f2a...
    ci-service oauth clients list
"""

from __future__ import annotations

import click

from ci_service.cli.common import emit_json, emit_table, json_option, service_errors

CONNECTION_COLUMNS = ["id", "clientName", "userEmail", "scopes", "createdAt", "lastUsedAt"]


@click.group()
def oauth():
    """OAuth for the tool server: registered clients and people's connections."""


@oauth.group()
def connections():
    """Connections: a person in a workspace allowed an MCP client to act as them."""


@connections.command("list")
@click.option("--workspace", default=None, help="Workspace name or id (default: all).")
@click.option("--email", default=None, help="Only this person's connections.")
@json_option
@click.pass_obj
@service_errors
def connections_list(state, workspace, email, as_json):
    """List live connections (never their tokens).

    Example: ci-service oauth connections list --workspace acme --email ana@acme.example
    """
    from ci_service.services.identity import oauth_tokens
    from ci_service.services.workspace.workspaces import find_workspace

    state.open()
    if workspace is not None:
        rows = oauth_tokens.list_connections(find_workspace(workspace).id)
    else:
        rows = oauth_tokens.list_all_connections()
    items = [oauth_tokens.connection_to_dict(row) for row in rows]
    if email is not None:
        items = [i for i in items if (i["userEmail"] or "") == email.strip().lower()]
    if as_json:
        emit_json(items)
    else:
        emit_table([{**i, "scopes": ",".join(i["scopes"])} for i in items], CONNECTION_COLUMNS)


@connections.command("revoke")
@click.argument("connection_id")
@json_option
@click.pass_obj
@service_errors
def connections_revoke(state, connection_id, as_json):
    """Revoke a connection by id: its access and refresh tokens stop working at once.

    Example: ci-service oauth connections revoke 3f2a9c...
    """
    from ci_service.services.identity import oauth_tokens

    state.open()
    grant = oauth_tokens.revoke_connection(connection_id)
    if as_json:
        emit_json(oauth_tokens.connection_to_dict(grant))
    else:
        click.echo(f"Revoked connection {grant.id} ({grant.client.client_name or grant.client.id})")


@oauth.group()
def clients():
    """Registered clients (dynamic registration or client ID metadata documents)."""


@clients.command("list")
@json_option
@click.pass_obj
@service_errors
def clients_list(state, as_json):
    """List the OAuth clients the server knows (never their secrets).

    A registration nobody connected within oauth_unused_client_hours has expired and is
    not listed; firstConnectedAt is empty for a client never connected.
    """
    from ci_service.services.identity import oauth_clients
    from ci_service.settings import load_settings

    state.open()
    rows = oauth_clients.list_clients(load_settings().oauth_unused_client_hours)
    items = [oauth_clients.client_to_dict(row) for row in rows]
    if as_json:
        emit_json(items)
    else:
        emit_table(
            [{**i, "redirectUris": " ".join(i["redirectUris"])} for i in items],
            ["id", "name", "source", "createdAt", "firstConnectedAt", "redirectUris"],
        )
