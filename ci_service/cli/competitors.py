"""``ci-service competitors import``: add many competitors from a CSV file (a thin layer over
``services.workspace.competitor_import``, the service of the web app's import page too).

Example::

    ci-service competitors import rivals.csv --workspace acme --dry-run
    ci-service competitors import rivals.csv --workspace acme
"""

from __future__ import annotations

import click

from ci_service.cli.common import emit_json, emit_table, json_option

# What each row's action is called in the table.
ACTIONS = {"create": "create", "duplicate": "skip duplicate", "error": "error"}


class UsageError(click.ClickException):
    """A file or workspace the command cannot use: exit code 2, nothing was changed."""

    exit_code = 2


@click.group()
def competitors():
    """Competitors in bulk: import a CSV file."""


@competitors.command("import")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--workspace", required=True, help="Workspace name or id.")
@click.option("--dry-run", is_flag=True, help="Show what would be done; create nothing.")
@json_option
@click.pass_obj
def competitors_import(state, file, workspace, dry_run, as_json):
    """Add the competitors of a CSV file (FILE, or - for standard input), each with its
    analysis job; websites already tracked, or twice in the file, are skipped.

    Columns (a header row is required): name, website, and optionally tier (TIER_1, TIER_2,
    TIER_3) and relevantProducts (our products' names or ids separated by ; or |). Prints
    one line per row: create, skip duplicate, or error with the field and why. Exit code 0
    when it ran, 1 when every row failed, 2 when the file or options cannot be used.

    Example: ci-service competitors import rivals.csv --workspace acme --dry-run
    """
    from ci_service.errors import NotFound, ValidationFailed
    from ci_service.services.workspace import competitor_import
    from ci_service.services.workspace.workspaces import find_workspace
    from ci_service.settings import load_settings

    data = _read(file, competitor_import.MAX_BYTES + 1)  # enough to know it is too big
    state.open()
    try:
        ws = find_workspace(workspace)
    except NotFound as exc:
        raise UsageError(exc.message) from None
    plan = ws.tenant.plan
    limit = load_settings(database=state.database).competitor_limit(plan)
    run = competitor_import.preview if dry_run else competitor_import.apply
    try:
        result = run(ws.id, data, plan=plan, limit=limit)
    except ValidationFailed as exc:
        raise UsageError(f"{'<stdin>' if file == '-' else file}: {exc.message}") from None
    if as_json:
        emit_json(result.to_dict())
    else:
        _print(result, ws.name, dry_run)
    if result.all_failed:
        click.get_current_context().exit(1)


def _read(path: str, size: int) -> bytes:
    """At most ``size`` bytes of the file (``-``: standard input)."""
    try:
        with click.open_file(path, "rb") as handle:
            return handle.read(size)
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror or exc}") from None


def _print(result, workspace_name: str, dry_run: bool) -> None:
    rows = [
        {
            "row": str(r.row),
            "action": ACTIONS[r.action],
            "name": r.name,
            "website": r.website_url,
            "tier": r.tier or "",
            "products": "; ".join(r.product_names),
            "note": _note(r),
        }
        for r in result.rows
    ]
    emit_table(rows, ["row", "action", "name", "website", "tier", "products", "note"])
    if result.ignored_columns:
        click.echo(f"Ignored columns: {', '.join(result.ignored_columns)}")
    created, skipped, failed = (result.count(a) for a in ("create", "duplicate", "error"))
    if dry_run:
        click.echo(
            f"Dry run in workspace '{workspace_name}': would create {created}, "
            f"skip {skipped} duplicate(s), {failed} error(s); nothing was changed"
        )
    else:
        click.echo(
            f"Created {created} competitor(s) in workspace '{workspace_name}' and queued "
            f"{created} analysis job(s); skipped {skipped} duplicate(s); {failed} error(s)"
        )


def _note(row) -> str:
    if row.errors:
        return "; ".join(f"{e['field']}: {e['message']}" for e in row.errors)
    if row.competitor_id:
        return f"competitor {row.competitor_id}, job {row.job_id}"
    return row.note
