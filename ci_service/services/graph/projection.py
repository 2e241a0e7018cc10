"""A new deal's nodes in the knowledge graph, written after the deal and many at a time
(issue 31: fewer statements per deal).

``create_deal`` stores the deal with ``graph_pending`` set and no graph rows, in its one
transaction. Its DEAL, ARGUMENT and prospect nodes and their edges are written by
:func:`project_pending`, which does every waiting deal of a workspace in the same three
statements (``sync.add_new_deals``) and clears their flags, in one transaction:

- serve's :class:`DealProjector` thread runs it as soon as a deal commits (the commit
  wakes it); under load each run takes all the deals that committed meanwhile;
- every read of the graph runs it first for its workspace (``catch_up``, registered as a
  read hook of ``nodes``), so whoever reads the graph after creating a deal finds the
  deal in it, whichever process wrote the deal and whether or not a projector runs there
  (the CLI, tests);
- the flag is in the deal's row, so a deal committed just before a crash is projected by
  the next run, and a deal is never projected twice: the flag is read and cleared under
  the write lock (SQLite's, or PostgreSQL's ``WRITE_LOCK``), and updating or deleting a
  waiting deal settles it in its own transaction.

A write of the graph per request was the larger part of a deal's cost: 1.06 of 1.87 ms
of CPU (``python -m bench.deal_writes --part split``). Batched, it costs a fraction of
that per deal (docs/benchmarks.md).
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict

from ci_service.services.graph import sync
from ci_service.store import statements
from ci_service.store.competitors import Competitor
from ci_service.store.db import connection_lost, database, release_connection, transaction
from ci_service.store.resources import Deal

log = logging.getLogger(__name__)

BATCH = 500  # deals per transaction
IDLE_SECONDS = 60.0  # a projector with nothing to wake it looks anyway (another process's)
RETRY_SECONDS = 1.0  # after a failed run (the database restarting, say)
# Woken by a commit, the projector lets the deals committing meanwhile join the run: one
# deal at a time cost 0.94 ms of CPU a deal, a run of 200 deals 0.20 ms a deal (bench.
# deal_writes --part split), and no reader waits for it (reads catch up themselves).
GATHER_SECONDS = 0.2

_wake = threading.Event()

# The flag is compared with a literal, the form of the partial index's condition (store
# migration 0024), so that SQLite uses the index: it does not for a bound parameter.
_PENDING = "t.graph_pending = TRUE"


def wake() -> None:
    """Tell this process's projector that deals are waiting (after their commit)."""
    _wake.set()


def pending_count(workspace_id: str | None = None) -> int:
    sql = "SELECT COUNT(*) FROM deal t WHERE " + _PENDING
    params: list[str] = []
    if workspace_id is not None:
        sql += f" AND t.workspace_id = {database.param}"
        params.append(workspace_id)
    return database.execute_sql(sql, params).fetchone()[0]


def _has_pending(workspace_id: str) -> bool:
    sql = f"SELECT 1 FROM deal t WHERE {_PENDING} AND t.workspace_id = {database.param} LIMIT 1"
    return database.execute_sql(sql, (workspace_id,)).fetchone() is not None


def _waiting(workspace_id: str | None, limit: int) -> list[Deal]:
    where = _PENDING
    params: list[object] = []
    if workspace_id is not None:
        where += " AND t.workspace_id = {param}"
        params.append(workspace_id)
    where += f" ORDER BY t.created_at, t.id LIMIT {int(limit)}"
    scope = "one" if workspace_id is not None else "all"
    sql = statements.select_sql(Deal, where, f"graph-pending:{scope}:{int(limit)}")
    return statements.select_models(Deal, sql, params)


def _competitors(workspace_id: str, deals: list[Deal]) -> dict[str, Competitor]:
    ids = {cid for deal in deals for cid in [deal.competitor_id, *(deal.competitor_ids or [])]}
    ids.discard(None)
    if not ids:
        return {}
    rows = Competitor.select(Competitor.id, Competitor.name).where(
        Competitor.workspace == workspace_id, Competitor.id.in_(sorted(ids))
    )
    return {row.id: row for row in rows}


def project_pending(workspace_id: str | None = None, *, limit: int = BATCH) -> int:
    """Write the graph of up to ``limit`` waiting deals (of ``workspace_id``, or of every
    workspace), oldest first, in one transaction; the number done."""
    with transaction():
        deals = _waiting(workspace_id, limit)
        if not deals:
            return 0
        by_workspace: dict[str, list[Deal]] = defaultdict(list)
        for deal in deals:
            by_workspace[deal.workspace_id].append(deal)
        for ws, group in by_workspace.items():
            sync.add_new_deals(ws, group, _competitors(ws, group))
        done = [deal.id for deal in deals]
        marks = ", ".join([database.param] * len(done))
        database.execute_sql(f"UPDATE deal SET graph_pending = FALSE WHERE id IN ({marks})", done)
    return len(deals)


def catch_up(workspace_id: str) -> None:
    """Before a read of ``workspace_id``'s graph: its waiting deals, written now. One
    indexed look-up when none wait, which is the rule with a projector running."""
    if not _has_pending(workspace_id):
        return
    while project_pending(workspace_id) == BATCH:
        pass


class DealProjector:
    """The thread that writes waiting deals' graphs shortly after they commit (serve)."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.runs = 0  # transactions that wrote something (tests, the benchmark)

    def start(self) -> DealProjector:
        self._thread = threading.Thread(target=self._run, name="ci-graph-projector", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        _wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _run(self) -> None:
        wait = 0.0  # the first run at once: deals a stopped process left waiting
        while True:
            if wait:
                if _wake.wait(wait):
                    self._stop.wait(GATHER_SECONDS)
            _wake.clear()
            stopping = self._stop.is_set()  # then one last run: leave nothing waiting
            try:
                while project_pending() > 0:
                    self.runs += 1
                release_connection()  # PostgreSQL: back to the pool while idle
                wait = IDLE_SECONDS
            except Exception:  # the database restarting, say: the deals wait in their rows
                log.warning("writing waiting deals into the graph failed; retrying", exc_info=True)
                connection_lost()
                wait = RETRY_SECONDS
            if stopping:
                return
