"""``ci-service workspaces``: create and list workspaces (a thin layer over
``services.workspace.workspaces``).

Example::

    ci-service workspaces create acme --plan ENTERPRISE
    ci-service workspaces list
"""

from __future__ import annotations

import click

from ci_service.cli.common import emit_json, emit_table, json_option, service_errors
from ci_service.store.identity import PLANS


@click.group()
def workspaces():
    """Create and list workspaces."""


@workspaces.command("create")
@click.argument("name")
@click.option(
    "--plan",
    type=click.Choice(PLANS, case_sensitive=False),
    default="STARTER",
    show_default=True,
    help="The tenant's plan.",
)
@json_option
@click.pass_obj
@service_errors
def workspaces_create(state, name, plan, as_json):
    """Create a workspace (and its tenant); prints the id as the last line.

    Example: ci-service workspaces create acme --plan ENTERPRISE
    """
    from ci_service.services.workspace.workspaces import create_workspace, workspace_to_dict

    state.open()
    workspace = create_workspace(name, plan)
    if as_json:
        emit_json(workspace_to_dict(workspace))
    else:
        click.echo(f"Created workspace '{workspace.name}' on plan {workspace.tenant.plan}")
        click.echo(workspace.id)


@workspaces.command("list")
@json_option
@click.pass_obj
def workspaces_list(state, as_json):
    """List workspaces."""
    from ci_service.services.workspace.workspaces import list_workspaces, workspace_to_dict

    state.open()
    rows = [workspace_to_dict(w) for w in list_workspaces()]
    if as_json:
        emit_json(rows)
    else:
        emit_table(rows, ["id", "name", "plan", "createdAt"])
