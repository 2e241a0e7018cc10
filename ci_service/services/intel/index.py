"""The in-memory vector index of intel items, one per workspace, kept in step with writes.

One registry per (database file, model name, dimension), created lazily and shared by
every thread of the process, maps workspace ids to a
:class:`~ci_service.embeddings.index.VectorIndex` (not ``IndexRegistry``: loading here is
sized and chunked, see ``_load``, to keep 100k vectors near 26 MB). A workspace's index
is loaded from its ``IntelEmbedding`` rows on first search; only rows made by the current
provider's model are loaded (after a model change, ``ci-service reindex`` re-embeds). The
stored blobs stay float32; the index holds them as int8 with a per-vector scale (a quarter
of the memory: 26 MB for 100k × 256; recall checked in tests/test_vector_compact.py).

Writers change the index after their transaction commits (``database.after_commit``), so a
rolled-back write never reaches it. The index is a cache: search results are re-read from
the database, and ids that no longer exist are skipped and dropped from the index.

Other processes (PostgreSQL) write vectors this process never hears of. Every stored vector
carries a ``stamp`` handed out in commit order under the write lock (``upsert_embeddings``),
so each loaded index remembers the highest stamp it holds and, before each search, reads the
vectors stamped after it (one indexed query, usually empty): a version check, so
``search_intel`` in any process sees every committed item. Items deleted elsewhere are
dropped when a search meets them, as above.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ci_service.embeddings import EmbeddingProvider, get_provider
from ci_service.store.db import database, is_postgres

if TYPE_CHECKING:
    import numpy as np

    from ci_service.embeddings.index import VectorIndex

log = logging.getLogger("ci_service.intel")

_lock = threading.Lock()


def provider() -> EmbeddingProvider:
    """The configured embedding provider (environment ``CI_SERVICE_EMBEDDINGS*``)."""
    return get_provider()


def embed(texts: Sequence[str]) -> np.ndarray:
    return provider().embed(list(texts))


def to_bytes(vector) -> bytes:
    import numpy as np

    return np.asarray(vector, dtype=np.float32).tobytes()


def from_bytes(blob: bytes, dimension: int | None = None) -> np.ndarray:
    import numpy as np

    vector = np.frombuffer(bytes(blob), dtype=np.float32)
    if dimension is not None and vector.shape[0] != dimension:
        raise ValueError("stored vector has the wrong dimension")
    return vector


def item_text(title: str, content: str) -> str:
    """What an intel item's vector is made from."""
    return f"{title}\n{content}".strip()


def db_key() -> str:
    db = database.obj
    return str(getattr(db, "database", "") or id(db))


_LOAD_CHUNK = 2048
STORAGE = "int8"  # vectors held as int8 with a per-vector scale (issue 16; see index.py)


def _stored_batches(workspace_id: str, model: str, dimension: int, after_stamp: int = 0):
    """Lists of ``(item_id, vector blob, stamp)``, ``_LOAD_CHUNK`` rows at a time, of the
    vectors stamped after ``after_stamp`` (0: all).

    SQLite steps its cursor (rows are read as they are fetched); psycopg2 would buffer a
    whole result in the client, so PostgreSQL pages by item id instead."""
    p = database.param
    sql = (
        f"SELECT item_id, vector, stamp FROM intel_embedding WHERE workspace_id = {p} "
        f"AND model = {p} AND dimension = {p} AND stamp > {p}"
    )
    params: list = [workspace_id, model, dimension, after_stamp]
    if not is_postgres():
        cursor = database.execute_sql(sql, params)
        while batch := cursor.fetchmany(_LOAD_CHUNK):
            yield batch
        return
    last = ""
    while True:
        page = sql + f" AND item_id > {p} ORDER BY item_id LIMIT {_LOAD_CHUNK}"
        batch = database.execute_sql(page, [*params, last]).fetchall()
        if not batch:
            return
        yield batch
        last = batch[-1][0]


def _load(workspace_id: str, model: str, dimension: int) -> VectorIndex:
    """A new index holding the workspace's stored vectors of ``model``.

    Sized exactly and filled in chunks straight from the cursor's blobs (no model object
    per row), so loading 100k vectors holds the final int8 matrix plus one float32 chunk.
    A blob of the wrong length (never written by this service) is skipped."""
    from ci_service.embeddings.index import VectorIndex
    from ci_service.store.db import connection

    with connection():
        p = database.param
        (total,) = database.execute_sql(
            f"SELECT count(*) FROM intel_embedding WHERE workspace_id = {p} AND model = {p} "
            f"AND dimension = {p}",
            [workspace_id, model, dimension],
        ).fetchone()
        index = VectorIndex(
            dimension, model=model, initial_capacity=max(64, total + 64), storage=STORAGE
        )
        index.stamp = 0
        _fill(index, _stored_batches(workspace_id, model, dimension))
    return index


def _fill(index: VectorIndex, batches) -> None:
    """Put stored vectors into ``index`` and move its stamp past theirs. A blob of the wrong
    length (never written by this service) is skipped."""
    import numpy as np

    size = 4 * index.dimension
    for batch in batches:
        rows = [row for row in batch if len(row[1]) == size]
        if not rows:
            continue
        vectors = np.frombuffer(b"".join(row[1] for row in rows), dtype=np.float32)
        index.upsert([row[0] for row in rows], vectors.reshape(len(rows), index.dimension))
        index.stamp = max(index.stamp, max(row[2] or 0 for row in rows))


class _Registry:
    """Workspace id -> VectorIndex for one (database, model, dimension).

    Writes committed while a workspace's index is loading are queued and applied to it
    when the load finishes, so a vector committed mid-load is never lost."""

    def __init__(self, model: str, dimension: int) -> None:
        self.model = model
        self.dimension = dimension
        self.indexes: dict[str, VectorIndex] = {}
        self.lock = threading.Lock()  # one loader at a time; loading is rare (first search)
        self._pending_lock = threading.Lock()
        self._pending: dict[str, list[Callable[[VectorIndex], None]]] = {}

    def get(self, workspace_id: str) -> VectorIndex:
        index = self.indexes.get(workspace_id)
        if index is not None:
            if is_postgres():
                self._catch_up(workspace_id, index)
            return index
        with self.lock:
            index = self.indexes.get(workspace_id)
            if index is not None:
                return index
            with self._pending_lock:
                self._pending[workspace_id] = []
            loaded = None
            try:
                loaded = _load(workspace_id, self.model, self.dimension)
            finally:
                with self._pending_lock:
                    queued = self._pending.pop(workspace_id, [])
                    if loaded is not None:
                        for change in queued:
                            change(loaded)
                        self.indexes[workspace_id] = loaded
            return loaded

    def _catch_up(self, workspace_id: str, index: VectorIndex) -> None:
        """Add the vectors other processes committed since ``index.stamp``."""
        _fill(index, _stored_batches(workspace_id, self.model, self.dimension, index.stamp))

    def apply(self, workspace_id: str, change: Callable[[VectorIndex], None]) -> None:
        """Run ``change`` on the workspace's index if loaded (or queue it while loading)."""
        with self._pending_lock:
            index = self.indexes.get(workspace_id)
            if index is None:
                if workspace_id in self._pending:
                    self._pending[workspace_id].append(change)
                return  # not in memory: it will be loaded from the database
        change(index)

    def peek(self, workspace_id: str) -> VectorIndex | None:
        return self.indexes.get(workspace_id)

    def drop(self, workspace_id: str) -> None:
        with self._pending_lock:
            self.indexes.pop(workspace_id, None)

    def clear(self) -> None:
        with self._pending_lock:
            self.indexes.clear()


_registries: dict[tuple[str, str, int], _Registry] = {}
_generation = 0  # see generation()
_bumps = itertools.count(1)  # next() is atomic: no bump is lost to a race


def registry() -> _Registry:
    """The registry of the current database and provider (created on first use)."""
    p = provider()
    key = (db_key(), p.name, p.dimension)
    found = _registries.get(key)
    if found is None:
        with _lock:
            # A process serves one database at a time: forget the indexes of any other
            # (tests open a new file per test; this keeps them from piling up).
            for other in [k for k in _registries if k[0] != key[0]]:
                del _registries[other]
            found = _registries.setdefault(key, _Registry(p.name, p.dimension))
    return found


def workspace_index(workspace_id: str) -> VectorIndex:
    """The workspace's index, loaded from the database on first use."""
    return registry().get(workspace_id)


def reset_index_cache() -> None:
    """Forget every in-memory index and what is cached from the items (tests; or after
    editing the database by hand)."""
    global _generation
    with _lock:
        _registries.clear()
        _generation = next(_bumps)


def generation() -> int:
    """A counter bumped after every intel vector write this process commits (inserts,
    deletes, reindexing): with ``max(seq)`` it keys caches derived from the items
    (``intel_search``'s document frequencies), so this process's own writes invalidate them
    at once and other processes' inserts through the seq high-water mark."""
    return _generation


def _safely(fn: Callable[[], None]) -> Callable[[], None]:
    def run() -> None:
        global _generation
        _generation = next(_bumps)
        try:
            fn()
        except Exception:  # the commit happened; a stale cache entry is only a cache miss
            log.exception("could not update the in-memory intel index")

    return run


def after_commit_upsert(workspace_id: str, ids: list[str], vectors, model: str) -> None:
    """Put vectors into the workspace index once the current transaction commits."""
    if not ids:
        return

    def change(index: VectorIndex) -> None:
        if index.model == model and index.dimension == len(vectors[0]):
            index.upsert(ids, vectors)

    database.after_commit(_safely(lambda: registry().apply(workspace_id, change)))


def after_commit_remove(workspace_id: str, ids: list[str]) -> None:
    if not ids:
        return

    def change(index: VectorIndex) -> None:
        index.remove(ids)

    database.after_commit(_safely(lambda: registry().apply(workspace_id, change)))


def after_commit_drop(workspace_id: str | None = None) -> None:
    """Reload the workspace's (or every) index on next use, once the transaction commits."""

    def apply() -> None:
        reg = registry()
        if workspace_id is None:
            reg.clear()
        else:
            reg.drop(workspace_id)

    database.after_commit(_safely(apply))
