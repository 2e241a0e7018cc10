"""``ci-service users``: people who sign in to the web app (a thin layer over
``services.identity.users``).

Example::

    ci-service users create --workspace acme --email ana@acme.example --role EDITOR
    ci-service users invite bo@acme.example --workspace acme --role VIEWER
"""

from __future__ import annotations

import sys

import click

from ci_service.cli.common import emit_json, emit_table, service_errors
from ci_service.settings import DEFAULT_PUBLIC_URL
from ci_service.store.identity import ROLES


def _read_password(from_stdin: bool) -> str:
    """The password from standard input (one line) or a hidden prompt, asked twice."""
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    return click.prompt("Password", hide_input=True, confirmation_prompt=True)


@click.group()
def users():
    """People who sign in to the web app: create, set passwords, list, invite."""


@users.command("create")
@click.option("--workspace", required=True, help="Workspace name or id.")
@click.option("--email", required=True, help="The person's e-mail address (their sign-in).")
@click.option(
    "--role", type=click.Choice(ROLES, case_sensitive=False), default="VIEWER", show_default=True
)
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
@click.option("--no-password", is_flag=True, help="Create without a password (set it later).")
@click.pass_obj
@service_errors
def users_create(state, workspace, email, role, password_stdin, no_password):
    """Add a person to a workspace (or change their role there), with a password.

    Example: echo 's3cret-pass' | ci-service users create --workspace acme
    --email ana@acme.example --role EDITOR --password-stdin
    """
    from ci_service.services.identity import users as people
    from ci_service.services.workspace.workspaces import find_workspace

    state.open()
    ws = find_workspace(workspace)
    password = None if no_password else _read_password(password_stdin)
    user = people.create_user(ws.id, email, role.upper(), password)
    click.echo(f"User {user.email} is {user.role} in workspace '{ws.name}' ({user.id})")


@users.command("set-password")
@click.option("--email", required=True, help="The person's e-mail address.")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
@click.pass_obj
@service_errors
def users_set_password(state, email, password_stdin):
    """Set a person's password; every session they have and every app they connected to
    the tool server (OAuth) end.

    Example: ci-service users set-password --email ana@acme.example
    """
    from ci_service.services.identity import users as people

    state.open()
    people.set_password(email, _read_password(password_stdin))
    click.echo(f"Password set for {email.strip().lower()}; their sessions and connected apps ended")


@users.command("list")
@click.option("--workspace", required=True, help="Workspace name or id.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@click.pass_obj
@service_errors
def users_list(state, workspace, as_json):
    """List a workspace's people with their role and whether they can sign in."""
    from ci_service.services.identity import users as people
    from ci_service.services.workspace.workspaces import find_workspace

    state.open()
    rows = people.list_users(find_workspace(workspace).id)
    if as_json:
        emit_json(rows)
    else:
        emit_table(rows, ["id", "email", "role", "canSignIn", "createdAt"])


@users.command("invite")
@click.argument("email")
@click.option("--workspace", required=True, help="Workspace name or id.")
@click.option(
    "--role", type=click.Choice(ROLES, case_sensitive=False), default="VIEWER", show_default=True
)
@click.option(
    "--base-url",
    envvar="CI_SERVICE_PUBLIC_URL",
    default=DEFAULT_PUBLIC_URL,
    show_default=True,
    help="Where people open the app, the link's start (env CI_SERVICE_PUBLIC_URL: the "
    "public_url setting).",
)
@click.option("--hours", type=click.IntRange(1, 24 * 30), default=72, show_default=True)
@click.pass_obj
@service_errors
def users_invite(state, email, workspace, role, base_url, hours):
    """Print a one-time invite link (last line of output) that expires after --hours.

    Example: ci-service users invite bo@acme.example --workspace acme --role EDITOR
    """
    from datetime import timedelta

    from ci_service.services.identity import users as people
    from ci_service.services.workspace.workspaces import find_workspace

    state.open()
    ws = find_workspace(workspace)
    token, row = people.invite(ws.id, email, role.upper(), timedelta(hours=hours))
    click.echo(f"Invite for {row.email} as {row.role} in '{ws.name}', valid {hours} h:")
    click.echo(f"{base_url.rstrip('/')}/invite/{token}")
