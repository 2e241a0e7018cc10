"""What every command group shares: the state the root group hands each command, the turning
of service errors into CLI errors, and the ``--json`` option with its two outputs.

This module imports no command: the groups import it, and ``ci_service.cli`` assembles them.
"""

from __future__ import annotations

import functools
import json

import click

from ci_service.errors import ServiceError
from ci_service.store.db import (
    MISSING_DRIVER,
    MissingDriver,
    UnsupportedDatabase,
    open_database,
)


class CliState:
    def __init__(self, database: str):
        self.database = database
        self._opened = False

    def open(self) -> None:
        """Open the database (creating or upgrading the schema) once per command."""
        if not self._opened:
            try:
                open_database(self.database)
            except UnsupportedDatabase as exc:
                raise click.ClickException(str(exc)) from None
            self._opened = True


class DriverMissing(click.ClickException):
    """A database whose driver is not installed: one line saying what to install, exit 2
    (the command was refused before it did anything)."""

    exit_code = 2


class RootGroup(click.Group):
    """The root group: a missing database driver, met by any command at any depth (opening
    the database, a backup, a copy), ends in one line instead of a traceback."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except MissingDriver as exc:
            raise DriverMissing(str(exc)) from None
        except ModuleNotFoundError as exc:
            # Code that imports psycopg2 itself (store/transfer.py, store/pg_backup.py).
            if (exc.name or "").partition(".")[0] != "psycopg2":
                raise
            raise DriverMissing(MISSING_DRIVER) from None


def service_errors(fn):
    """Turn service errors into clear CLI errors (non-zero exit, no traceback)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ServiceError as exc:
            fields = (exc.details or {}).get("fields") if isinstance(exc.details, dict) else None
            if fields:
                detail = "; ".join(f"{k}: {', '.join(v)}" for k, v in fields.items())
                raise click.ClickException(detail) from None
            raise click.ClickException(exc.message) from None

    return wrapper


def json_option(fn):
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")(fn)


def emit_json(data) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def emit_table(rows: list[dict], columns: list[str]) -> None:
    if not rows:
        click.echo("(none)")
        return
    widths = {c: max(len(c), *(len(str(r.get(c) or "")) for r in rows)) for c in columns}
    click.echo("  ".join(c.ljust(widths[c]) for c in columns).rstrip())
    for row in rows:
        click.echo("  ".join(str(row.get(c) or "").ljust(widths[c]) for c in columns).rstrip())
