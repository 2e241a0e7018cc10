"""``ci-service migrate-data``: copy an installation to another database (a thin layer over
``store.transfer``).

Example::

    ci-service migrate-data --from ./ci-service.db --to postgresql://ci@db.internal/ci
"""

from __future__ import annotations

import click

from ci_service.cli.common import emit_json, emit_table


@click.command("migrate-data")
@click.option(
    "--from",
    "source",
    default=None,
    help="Database to copy: a SQLite path, sqlite:///path or postgresql://... "
    "(default: --database).",
)
@click.option(
    "--to",
    "dest",
    required=True,
    help="Empty database to copy into: postgresql://user@host/db, a SQLite path or URL.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@click.pass_obj
def migrate_data(state, source, dest, as_json):
    """Copy every row of one database into an empty one (ids kept, counts checked).

    Safe while `serve` runs on the source: it is read in one consistent snapshot and never
    written. The destination is brought to the current schema and must hold no data; the
    copy is one transaction, so a failure leaves it empty. Stored alert secrets are
    re-encrypted with the destination's key. Exit code 2: refused, nothing written.

    Example: ci-service migrate-data --from ./ci-service.db --to postgresql://ci@db/ci
    """
    from ci_service.store.transfer import TransferError, copy_database

    try:
        result = copy_database(source or state.database, dest)
    except TransferError as exc:
        error = click.ClickException(str(exc))
        error.exit_code = exc.exit_code
        raise error from None
    if as_json:
        emit_json(result)
        return
    emit_table(
        [{"table": t["table"], "rows": str(t["rows"])} for t in result["tables"]], ["table", "rows"]
    )
    line = (
        f"Copied {result['rows']} rows in {len(result['tables'])} tables from "
        f"{result['from']} to {result['to']} in {result['seconds']:.2f}s; counts checked"
    )
    if result["secretsReencrypted"]:
        line += (
            f"; {result['secretsReencrypted']} stored secrets re-encrypted with the key in "
            f"{result['secretKey']} (every process on the new database needs it)"
        )
    click.echo(line)
