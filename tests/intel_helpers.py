"""Builders shared by the intel, tree and search tests (not a test module)."""

from __future__ import annotations

from ci_service.services.intel import items as intel
from ci_service.services.workspace import competitors
from ci_service.store.db import connection


def competitor(workspace_id, name="Rival", url="https://rival.example"):
    with connection():
        row, _job = competitors.create_competitor(workspace_id, {"name": name, "websiteUrl": url})
    return row


def evidence(workspace_id, competitor_id, url, content, title="Page", **extra):
    with connection():
        return intel.record_evidence(
            workspace_id,
            source_type=extra.pop("source_type", "WEB_PAGE"),
            url=url,
            title=title,
            content=content,
            competitor_id=competitor_id,
            **extra,
        )


def fts_rowids(match):
    """The ``seq`` of the items the full-text index finds for the FTS5 phrase ``match``
    (on PostgreSQL: the same phrase through the pg_trgm-indexed ILIKE)."""
    from ci_service.services.search.text import like_pattern
    from ci_service.store.db import database, is_postgres

    with connection():
        if is_postgres():
            pattern = like_pattern(match.strip('"'))
            rows = database.execute_sql(
                "SELECT seq FROM intel_item WHERE title ILIKE %s OR content ILIKE %s",
                (pattern, pattern),
            ).fetchall()
        else:
            rows = database.execute_sql(
                "SELECT rowid FROM intel_fts WHERE intel_fts MATCH ?", (match,)
            ).fetchall()
    return sorted(r[0] for r in rows)


def fts_integrity():
    """SQLite: the FTS5 index passes its integrity check. PostgreSQL's trigram indexes are
    part of the table: nothing can drift."""
    from ci_service.store.db import database, is_postgres

    if is_postgres():
        return
    with connection():
        database.execute_sql("INSERT INTO intel_fts(intel_fts, rank) VALUES ('integrity-check', 1)")
