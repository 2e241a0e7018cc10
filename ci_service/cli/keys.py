"""``ci-service keys``: mint, list and revoke API keys (a thin layer over
``services.identity.api_keys``).

Example::

    ci-service keys create --workspace acme --name laptop --role EDITOR
    ci-service keys revoke 3f2a...
"""

from __future__ import annotations

import click

from ci_service.cli.common import emit_json, emit_table, json_option, service_errors
from ci_service.store.identity import ROLES, SCOPES


@click.group()
def keys():
    """Create, list and revoke API keys."""


def _split_scopes(value):
    if value is None:
        return None
    return [s.strip() for s in value.split(",") if s.strip()]


@keys.command("create")
@click.option("--workspace", required=True, help="Workspace name or id.")
@click.option("--name", required=True, help="A label for the key (max 100 characters).")
@click.option("--email", default=None, help="The user the key acts for (created if new).")
@click.option(
    "--role",
    type=click.Choice(ROLES, case_sensitive=False),
    default=None,
    help="The user's role (default OWNER for a new user).",
)
@click.option("--scopes", default=None, help=f"Comma-separated subset of {','.join(SCOPES)}.")
@click.option("--expires-at", default=None, help="ISO 8601 date-time; default never.")
@click.option("--rate-limit", type=int, default=None, help="Requests per hour (default 1000).")
@click.option(
    "--allowed-ip",
    "allowed_ips",
    multiple=True,
    help="Allowed client IP or CIDR; repeat for several.",
)
@json_option
@click.pass_obj
@service_errors
def keys_create(
    state, workspace, name, email, role, scopes, expires_at, rate_limit, allowed_ips, as_json
):
    """Mint an API key; prints the full key, alone, as the last line (shown only once).

    Example: ci-service keys create --workspace acme --name laptop --role EDITOR
    """
    from ci_service.services.identity import api_keys as apikeys
    from ci_service.services.workspace.workspaces import find_workspace
    from ci_service.store.db import transaction

    state.open()
    ws = find_workspace(workspace)
    # Validate before creating a user, so a bad option leaves nothing behind.
    apikeys.validate_key_options(
        name=name,
        expires_at=expires_at,
        scopes=_split_scopes(scopes),
        rate_limit=rate_limit,
        allowed_ips=list(allowed_ips) or None,
    )
    with transaction():
        user = apikeys.ensure_user(ws, email, role.upper() if role else None)
        row, key = apikeys.create_key(
            user,
            name=name,
            expires_at=expires_at,
            scopes=_split_scopes(scopes),
            rate_limit=rate_limit,
            allowed_ips=list(allowed_ips) or None,
        )
    if as_json:
        emit_json({**apikeys.key_to_dict(row, detail=True), "role": user.role, "key": key})
        return
    click.echo(
        f"Created API key {row.id} ({row.prefix}...) in workspace '{ws.name}', "
        f"role {user.role}, scopes {','.join(row.scopes)}"
    )
    click.echo(key)


@keys.command("list")
@click.option("--workspace", required=True, help="Workspace name or id.")
@json_option
@click.pass_obj
@service_errors
def keys_list(state, workspace, as_json):
    """List a workspace's API keys (never the keys themselves)."""
    from ci_service.services.identity import api_keys as apikeys
    from ci_service.services.workspace.workspaces import find_workspace

    state.open()
    ws = find_workspace(workspace)
    rows = [apikeys.key_to_dict(r, detail=False) for r in apikeys.list_keys(ws.id)]
    if as_json:
        emit_json(rows)
    else:
        emit_table(
            rows, ["id", "name", "prefix", "createdAt", "lastUsedAt", "expiresAt", "revokedAt"]
        )


@keys.command("revoke")
@click.argument("key_id")
@json_option
@click.pass_obj
@service_errors
def keys_revoke(state, key_id, as_json):
    """Revoke an API key by id (it cannot be restored)."""
    from ci_service.services.identity import api_keys as apikeys

    state.open()
    row = apikeys.revoke_key(key_id)
    if as_json:
        emit_json(apikeys.key_to_dict(row, detail=False))
    else:
        click.echo(f"Revoked API key {row.id} ({row.prefix}...)")
