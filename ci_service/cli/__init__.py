"""The ``ci-service`` command line: a thin click layer over the services.

One module per command group; ``common`` holds what they share. This module only assembles
the root group, so no command module imports the group that imports it.

Example::

    ci-service workspaces create acme --plan ENTERPRISE
    ci-service keys create --workspace acme --name laptop
    ci-service serve --port 8000
"""

from __future__ import annotations

from ci_service.gc_tuning import collection_paused

# Loading the commands makes tens of thousands of objects that live as long as the
# process: collecting among them is wasted start-up (ci_service/gc_tuning.py).
with collection_paused():
    import click

    from ci_service import __version__
    from ci_service.cli.alerts import alerts
    from ci_service.cli.backup import backup, restore
    from ci_service.cli.common import CliState, RootGroup
    from ci_service.cli.competitors import competitors
    from ci_service.cli.data import migrate_data
    from ci_service.cli.index import optimize_index, reindex
    from ci_service.cli.jobs import jobs
    from ci_service.cli.keys import keys
    from ci_service.cli.oauth import oauth
    from ci_service.cli.serve import serve, worker
    from ci_service.cli.tools import mcp_stdio, tools
    from ci_service.cli.users import users
    from ci_service.cli.workspaces import workspaces

__all__ = ["cli", "main"]


@click.group(cls=RootGroup)
@click.option(
    "--database",
    envvar="CI_SERVICE_DATABASE",
    default="./ci-service.db",
    show_default=True,
    help="SQLite file path or sqlite:///path URL (env CI_SERVICE_DATABASE).",
)
@click.version_option(__version__, prog_name="ci-service")
@click.pass_context
def cli(ctx, database):
    """Self-hosted competitive intelligence service."""
    ctx.obj = CliState(database)


COMMANDS = (
    serve,
    worker,
    workspaces,
    competitors,
    keys,
    users,
    jobs,
    mcp_stdio,
    tools,
    reindex,
    optimize_index,
    backup,
    restore,
    migrate_data,
    alerts,
    oauth,
)
for _command in COMMANDS:
    cli.add_command(_command)


def main() -> None:  # pragma: no cover - console entry
    cli(prog_name="ci-service")
