"""Upkeep of the SQLite full-text indexes: merge each into one segment (issue 16).

FTS5 adds a segment per committed batch of inserts and merges segments of one size
(``automerge``), so a growing index holds a dozen or more: the intel index seeded with
100k items in 100 transactions had 17. A query then walks every trigram's list in every
segment, and the pages it reads overflow a connection's 4 MB cache. Merged into one
segment, the ``/api/search`` queries of the benchmark took half to a quarter of the time
(``"kubernetes"`` 1.23 → 0.44 ms, ``"Encryption Audit"`` 2.56 → 1.36 ms, p50 on one
connection running the query mix in turn; ``python -m bench.fts_segments DB``).

Merging is FTS5's incremental optimize, ``INSERT INTO t(t, rank) VALUES ('merge', -N)``:
each call merges up to N leaf pages toward a single segment, in its own write transaction
(80 ms for 500 pages here), so writers wait at most one step; 100k intel items took 131
steps, 10 s. The scheduler runs it daily (``jobs/scheduler.py``) for indexes with more than
one segment, ``ci-service optimize-index`` runs it now.

PostgreSQL's ``pg_trgm`` GIN indexes are PostgreSQL's to maintain (autovacuum flushes
their pending lists): nothing to do there.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ci_service.store.db import database, is_postgres, transaction

FTS_TABLES = ("intel_fts", "competitor_fts", "battlecard_fts")  # literals, never user text
STEP_PAGES = 500
MAX_STEPS = 100_000  # a bound on the loop, far beyond any index (100k items: 130 steps)


def segments(table: str) -> int:
    """How many segments ``table``'s index has now."""
    sql = f"SELECT count(DISTINCT segid) FROM {table}_idx"
    return int(database.execute_sql(sql).fetchone()[0])


def optimize_indexes(
    *,
    min_segments: int = 2,
    step_pages: int = STEP_PAGES,
    stopping: Callable[[], bool] = lambda: False,
) -> dict[str, dict[str, float]]:
    """Merge every FTS index with at least ``min_segments`` segments into one, a step at
    a time; ``stopping()`` is asked between steps. Returns per table ``{"before",
    "after", "steps", "seconds"}`` (empty on PostgreSQL)."""
    report: dict[str, dict[str, float]] = {}
    if is_postgres():
        return report
    for table in FTS_TABLES:
        before = segments(table)
        began, steps = time.monotonic(), 0
        if before >= min_segments:
            while steps < MAX_STEPS and not stopping():
                steps += 1
                if not _merge_step(table, step_pages):
                    break
        report[table] = {
            "before": before,
            "after": segments(table) if steps else before,
            "steps": steps,
            "seconds": round(time.monotonic() - began, 3),
        }
    return report


def _merge_step(table: str, pages: int) -> bool:
    """One incremental merge step; False when the index is down to one segment."""
    with transaction():
        database.execute_sql(f"INSERT INTO {table}({table}, rank) VALUES ('merge', ?)", [-pages])
    return segments(table) > 1
