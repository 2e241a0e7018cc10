"""``ci-service backup`` and ``ci-service restore``: a consistent copy of the database, and
back (a thin layer over ``store.backup``).

Example::

    ci-service --database ./ci.db backup ./backups/ci-2026-03-31.db
    ci-service --database ./ci.db restore ./backups/ci-2026-03-31.db --force
"""

from __future__ import annotations

import click

from ci_service.cli.common import emit_json, json_option
from ci_service.store.db import UnsupportedDatabase


@click.command("backup")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--force", is_flag=True, help="Overwrite PATH if it exists.")
@json_option
@click.pass_obj
def backup(state, path, force, as_json):
    """Copy the database to the file PATH; safe while `serve` is writing.

    Uses SQLite's online backup API (a consistent snapshot of committed data), checks the
    copy's integrity and only then moves it into place. On PostgreSQL: pg_dump
    --format=custom (one snapshot), listed back before it is moved into place.

    Example: ci-service --database ./ci.db backup ./backups/ci-2026-03-31.db
    """
    from ci_service.store.backup import BackupError, backup_database

    try:
        result = backup_database(state.database, path, force=force)
    except (BackupError, UnsupportedDatabase) as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        emit_json(result)
    else:
        what = f"{result['pages']} pages" if "pages" in result else result["format"]
        click.echo(
            f"Backed up {what} ({result['size']} bytes) to "
            f"{result['path']} in {result['seconds']:.2f}s"
        )


@click.command("restore")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--force", is_flag=True, help="Replace the database if it already exists.")
@json_option
@click.pass_obj
def restore(state, path, force, as_json):
    """Restore the backup file PATH into the database (--database); stop `serve` first.

    The backup must be an intact ci-service database; it is upgraded to the current schema.
    A database that exists is replaced only with --force, and never while a server has it
    open. On PostgreSQL: pg_restore --clean --if-exists --no-owner of a pg_dump archive made
    by `backup`, in one transaction, refused while other sessions are connected.

    Example: ci-service --database ./ci.db restore ./backups/ci-2026-03-31.db --force
    """
    from ci_service.store.backup import BackupError, restore_database

    try:
        result = restore_database(path, state.database, force=force)
    except (BackupError, UnsupportedDatabase) as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        emit_json(result)
    else:
        applied = len(result["migrationsApplied"])
        what = f"{result['pages']} pages" if "pages" in result else result["format"]
        click.echo(
            f"Restored {path} into {result['path']} ({what}"
            + (f", {applied} migrations applied" if applied else "")
            + ")"
        )
