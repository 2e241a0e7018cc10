"""``ci-service reindex`` and ``ci-service optimize-index``: upkeep of the embeddings and
the full-text indexes.

Example::

    CI_SERVICE_EMBEDDINGS=minilm ci-service reindex --workspace acme
    ci-service --database ./ci.db optimize-index
"""

from __future__ import annotations

import click

from ci_service.cli.common import emit_json, json_option, service_errors


@click.command("reindex")
@click.option("--workspace", default=None, help="Workspace name or id (default: all).")
@click.option("--all", "force", is_flag=True, help="Re-embed everything, not only stale rows.")
@click.option("--rebuild-fts", is_flag=True, help="Also rebuild the intel full-text index.")
@json_option
@click.pass_obj
@service_errors
def reindex(state, workspace, force, rebuild_fts, as_json):
    """Re-embed intel items and knowledge-tree nodes with the current embedding provider.

    Only rows embedded by another model (or not at all) unless --all.

    Example: CI_SERVICE_EMBEDDINGS=minilm ci-service reindex --workspace acme
    """
    from ci_service.services.intel.items import rebuild_intel_fts
    from ci_service.services.search import intel_search
    from ci_service.services.workspace.workspaces import find_workspace
    from ci_service.store.db import connection

    state.open()
    with connection():
        workspace_id = find_workspace(workspace).id if workspace else None
        counts = intel_search.reindex_counts(workspace_id, force=force)
        if rebuild_fts:
            rebuild_intel_fts()
    counts["ftsRebuilt"] = bool(rebuild_fts)
    if as_json:
        emit_json(counts)
    else:
        click.echo(
            f"Re-embedded {counts['intelItems']} intel items and {counts['treeNodes']} tree "
            f"nodes ({counts['trees']} trees) with {counts['model']} ({counts['dimension']} dims)"
            + ("; rebuilt the full-text index" if rebuild_fts else "")
        )


@click.command("optimize-index")
@json_option
@click.pass_obj
@service_errors
def optimize_index(state, as_json):
    """Merge the full-text search indexes into one segment each (SQLite).

    What the scheduler does daily; safe while `serve` runs (one short write transaction
    per step). Worth running after a large import. On PostgreSQL there is nothing to do.

    Example: ci-service --database ./ci.db optimize-index
    """
    from ci_service.services.search.upkeep import optimize_indexes
    from ci_service.store.db import connection

    state.open()
    with connection():
        report = optimize_indexes()
    if as_json:
        emit_json(report)
    elif not report:
        click.echo("Nothing to do: PostgreSQL maintains its trigram indexes itself")
    else:
        for table, row in report.items():
            click.echo(
                f"{table}: {row['before']} → {row['after']} segments "
                f"in {row['steps']} steps, {row['seconds']:.2f}s"
            )
