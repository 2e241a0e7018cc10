"""The vector index of intel items, one per workspace and model, kept in step with writes.

Since issue 31 (a million items) the index lives in memory-mapped files
(:class:`~ci_service.embeddings.mapped.MappedVectorIndex`), one directory per (workspace,
model, dimension) under ``vector_dir()``: beside a SQLite database (``<file>.vectors/``),
or for PostgreSQL in the temp directory (``ci-service-vectors/<hash of the URL>/``). Every
process maps the same files, so the vectors are in the page cache once, not copied into
each process; rows are keyed by the item's ``seq`` (a search never needs a table of ids).
The files are a cache of the ``IntelEmbedding`` rows of the current provider's model
(after a model change, ``ci-service reindex`` re-embeds), held as int8 with a per-vector
scale and sign bits (recall checked in tests/test_vector_mmap.py and
tests/test_vector_compact.py).

Opening: the files are used when their ``meta.json`` matches and the ``(seq, id)`` pairs it
samples are still the database's (otherwise, e.g. after a restore, they are rebuilt); the
vectors stamped after the files' stamp are then added (``_catch_up``). Building (no files
yet): a workspace of up to ``INLINE_BUILD`` stored vectors is built in the request; a larger
one in a background thread, and until it is done ``workspace_index`` returns None and
``search_intel`` ranks by its lexical signals alone (start-up never waits for a build; the
first searches are lexical). Writes committed meanwhile are queued and applied when it ends.

Writers change the index after their transaction commits (``database.after_commit``), so a
rolled-back write never reaches it; a row is written in place in the shared files, so
every process sees it. The index is a cache: search results are re-read from the
database, and ids that no longer exist are skipped and removed from the index.

Other processes (PostgreSQL) write vectors this process never hears of. Every stored vector
carries a ``stamp`` handed out in commit order under the write lock (``upsert_embeddings``),
so each process remembers the highest stamp it holds and, before each search, reads the
vectors stamped after it (one indexed query, usually empty): a version check, so
``search_intel`` in any process sees every committed item. Items deleted elsewhere are
dropped when a search meets them, as above.
"""

from __future__ import annotations

import itertools
import logging
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ci_service.embeddings import EmbeddingProvider, get_provider
from ci_service.store.db import database, is_postgres, redact_url

if TYPE_CHECKING:
    import numpy as np

    from ci_service.embeddings.mapped import MappedVectorIndex

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
INLINE_BUILD = 20_000  # stored vectors a request builds itself; more: a background build


def vector_dir() -> Path:
    """Where the current database's vector files live (see the module docstring): under
    the ``vector_dir`` setting when set (one directory per database in it)."""
    import hashlib
    import tempfile

    from ci_service.settings import load_settings

    name = db_key()
    digest = hashlib.sha256(redact_url(name).encode()).hexdigest()[:16]
    chosen = load_settings().vector_dir
    if chosen:
        return Path(chosen).expanduser() / digest
    if is_postgres() or not name or name == ":memory:" or name.startswith("file:"):
        return Path(tempfile.gettempdir()) / "ci-service-vectors" / digest
    return Path(name + ".vectors")


def _index_path(workspace_id: str, model: str, dimension: int) -> Path:
    import hashlib

    slug = re.sub(r"[^A-Za-z0-9._-]", "_", model)[:40]
    digest = hashlib.sha256(model.encode()).hexdigest()[:8]
    return vector_dir() / f"{workspace_id}-{slug}-{digest}-{dimension}"


def _stored_batches(workspace_id: str, model: str, dimension: int, after_stamp: int | None = None):
    """Lists of ``(seq, item id, vector blob, stamp)``, ``_LOAD_CHUNK`` rows at a time, of
    the vectors stamped after ``after_stamp`` (None: all), in ``seq`` order.

    SQLite steps its cursor (rows are read as they are fetched); psycopg2 would buffer a
    whole result in the client, so PostgreSQL pages by seq instead."""
    p = database.param
    sql = (
        "SELECT i.seq, e.item_id, e.vector, e.stamp FROM intel_embedding e "
        f"JOIN intel_item i ON i.id = e.item_id WHERE e.workspace_id = {p} "
        f"AND e.model = {p} AND e.dimension = {p} AND e.stamp > {p}"
    )
    params: list = [workspace_id, model, dimension, after_stamp]
    if after_stamp is None:  # everything: walk the workspace's items in seq order
        sql = (
            "SELECT i.seq, e.item_id, e.vector, e.stamp FROM intel_item i "
            f"JOIN intel_embedding e ON e.item_id = i.id WHERE i.workspace_id = {p} "
            f"AND e.model = {p} AND e.dimension = {p}"
        )
        params.pop()
    if not is_postgres():
        cursor = database.execute_sql(sql + " ORDER BY i.seq", params)
        while batch := cursor.fetchmany(_LOAD_CHUNK):
            yield batch
        return
    last = -1
    while True:
        page = sql + f" AND i.seq > {p} ORDER BY i.seq LIMIT {_LOAD_CHUNK}"
        batch = database.execute_sql(page, [*params, last]).fetchall()
        if not batch:
            return
        yield batch
        last = batch[-1][0]


def _max_stamp() -> int:
    row = database.execute_sql("SELECT COALESCE(MAX(stamp), 0) FROM intel_embedding").fetchone()
    return int(row[0] or 0)


def _usable(index: MappedVectorIndex) -> bool:
    """Whether the files still describe this database (not one restored since, or the
    emptied database a test reuses): the stamp has not gone back and the sampled rows'
    ids are the items' of those seqs."""
    meta = index.read_meta()
    if not meta or meta.get("model") != index.model:
        return False
    if int(meta.get("stamp", 0)) > _max_stamp():
        return False
    checks = meta.get("checks") or []
    if not checks:
        return int(meta.get("count", 0)) == 0
    p = database.param
    rows = database.execute_sql(
        f"SELECT seq, id FROM intel_item WHERE seq IN ({', '.join([p] * len(checks))})",
        [seq for seq, _ in checks],
    ).fetchall()
    found = dict(rows)
    return bool(found) and all(found.get(seq, item_id) == item_id for seq, item_id in checks)


def _load(workspace_id: str, model: str, dimension: int) -> MappedVectorIndex | None:
    """The workspace's index of ``model``: its files if usable (caught up with the vectors
    stamped since), else built now (up to ``INLINE_BUILD`` vectors) or None while a
    background build runs (``_build_in_background``)."""
    from ci_service.embeddings.mapped import MappedVectorIndex
    from ci_service.store.db import connection

    path = _index_path(workspace_id, model, dimension)
    with connection():
        if (path / "meta.json").exists():
            index = MappedVectorIndex(path, dimension, model=model)
            if _usable(index):
                index.stamp = int(index.read_meta().get("stamp", 0))
                _fill(index, _stored_batches(workspace_id, model, dimension, index.stamp))
                return index
        p = database.param
        (total,) = database.execute_sql(
            f"SELECT count(*) FROM intel_embedding WHERE workspace_id = {p} AND model = {p} "
            f"AND dimension = {p}",
            [workspace_id, model, dimension],
        ).fetchone()
        if total > INLINE_BUILD:
            return None
        return _build(workspace_id, model, dimension)


def _build(workspace_id: str, model: str, dimension: int) -> MappedVectorIndex:
    """Write the workspace's files from its stored vectors (call inside a connection)."""
    import numpy as np

    from ci_service.embeddings.mapped_build import build

    stamp = _max_stamp()  # before the rows: a later write is caught up afterwards
    size = 4 * dimension

    def batches():
        for batch in _stored_batches(workspace_id, model, dimension):
            rows = [row for row in batch if len(row[2]) == size]
            if rows:
                blob = b"".join(bytes(row[2]) for row in rows)
                vectors = np.frombuffer(blob, dtype=np.float32).reshape(len(rows), dimension)
                yield [row[0] for row in rows], [row[1] for row in rows], vectors

    index = build(_index_path(workspace_id, model, dimension), dimension, batches(),
                  model=model, stamp=stamp)  # fmt: skip
    index.stamp = stamp
    _fill(index, _stored_batches(workspace_id, model, dimension, stamp))
    return index


def _fill(index: MappedVectorIndex, batches) -> None:
    """Put stored vectors into ``index`` and move its stamp past theirs. A blob of the wrong
    length (never written by this service) is skipped."""
    import numpy as np

    size = 4 * index.dimension
    for batch in batches:
        rows = [row for row in batch if len(row[2]) == size]
        if not rows:
            continue
        vectors = np.frombuffer(b"".join(bytes(row[2]) for row in rows), dtype=np.float32)
        index.upsert(
            [row[0] for row in rows],
            vectors.reshape(len(rows), index.dimension),
            [row[1] for row in rows],
        )
        index.stamp = max(index.stamp, max(row[3] or 0 for row in rows))
        index.set_stamp(index.stamp)


class _Registry:
    """Workspace id -> index for one (database, model, dimension).

    Writes committed while a workspace's index is loading or building are queued and
    applied to it when that finishes, so a vector committed meanwhile is never lost."""

    def __init__(self, model: str, dimension: int) -> None:
        self.model = model
        self.dimension = dimension
        self.indexes: dict[str, MappedVectorIndex] = {}
        self.lock = threading.Lock()  # one loader at a time; loading is rare (first search)
        self._pending_lock = threading.Lock()
        self._pending: dict[str, list[Callable[[MappedVectorIndex], None]]] = {}
        self.building: dict[str, threading.Thread] = {}

    def get(self, workspace_id: str) -> MappedVectorIndex | None:
        """The workspace's index, or None while it is being built in the background."""
        index = self.indexes.get(workspace_id)
        if index is not None:
            if is_postgres():
                self._catch_up(workspace_id, index)
            return index
        if workspace_id in self.building:
            return None
        with self.lock:
            index = self.indexes.get(workspace_id)
            if index is not None or workspace_id in self.building:
                return index
            with self._pending_lock:
                self._pending[workspace_id] = []
            loaded = None
            try:
                loaded = _load(workspace_id, self.model, self.dimension)
            finally:
                if loaded is None:
                    self._build_in_background(workspace_id)
                else:
                    self._ready(workspace_id, loaded)
            return loaded

    def _ready(self, workspace_id: str, index: MappedVectorIndex) -> None:
        with self._pending_lock:
            queued = self._pending.pop(workspace_id, [])
            for change in queued:
                change(index)
            self.indexes[workspace_id] = index
            self.building.pop(workspace_id, None)

    def _build_in_background(self, workspace_id: str) -> None:
        from ci_service.store.db import connection

        def run() -> None:
            try:
                with connection():
                    index = _build(workspace_id, self.model, self.dimension)
                self._ready(workspace_id, index)
            except Exception:
                log.exception("could not build the vector index of workspace %s", workspace_id)
                with self._pending_lock:
                    self._pending.pop(workspace_id, None)
                    self.building.pop(workspace_id, None)

        thread = threading.Thread(target=run, name=f"vector-build-{workspace_id}", daemon=True)
        self.building[workspace_id] = thread
        thread.start()

    def wait(self, workspace_id: str, timeout: float | None = None) -> MappedVectorIndex | None:
        """The workspace's index once a background build is done (tests, the bench)."""
        thread = self.building.get(workspace_id)
        if thread is not None:
            thread.join(timeout)
        return self.get(workspace_id)

    def _catch_up(self, workspace_id: str, index: MappedVectorIndex) -> None:
        """Add the vectors other processes committed since ``index.stamp``."""
        _fill(index, _stored_batches(workspace_id, self.model, self.dimension, index.stamp))

    def apply(self, workspace_id: str, change: Callable[[MappedVectorIndex], None]) -> None:
        """Run ``change`` on the workspace's index if open (or queue it while loading)."""
        with self._pending_lock:
            index = self.indexes.get(workspace_id)
            if index is None:
                if workspace_id in self._pending:
                    self._pending[workspace_id].append(change)
                return  # not open: its files catch up from the database when opened
        change(index)

    def peek(self, workspace_id: str) -> MappedVectorIndex | None:
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


def workspace_index(workspace_id: str) -> MappedVectorIndex | None:
    """The workspace's index, opened (or built) on first use; None while a large one is
    built in the background."""
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


def _seqs(ids: list[str]) -> dict[str, int]:
    """item id -> seq, for the items among ``ids`` that exist."""
    from ci_service.store.db import connection

    p = database.param
    with connection():
        rows = database.execute_sql(
            f"SELECT id, seq FROM intel_item WHERE id IN ({', '.join([p] * len(ids))})", ids
        ).fetchall()
    return dict(rows)


def after_commit_upsert(
    workspace_id: str, ids: list[str], vectors, model: str, seqs: list[int] | None = None
) -> None:
    """Put vectors into the workspace index once the current transaction commits
    (``seqs``: the items' seqs, else read from the database then)."""
    if not ids:
        return

    def change(index: MappedVectorIndex) -> None:
        if index.model == model and index.dimension == len(vectors[0]):
            keys = seqs
            if keys is None:
                found = _seqs(ids)
                keys = [found.get(i, -1) for i in ids]
            pairs = [(k, i, v) for k, i, v in zip(keys, ids, vectors, strict=True) if k >= 0]
            if pairs:
                index.upsert([k for k, _, _ in pairs], [v for *_, v in pairs],
                             [i for _, i, _ in pairs])  # fmt: skip

    database.after_commit(_safely(lambda: registry().apply(workspace_id, change)))


def after_commit_remove(workspace_id: str, ids: list[str], seqs: list[int] | None = None) -> None:
    """Remove items from the workspace index once the transaction commits (``seqs``: their
    seqs, read before the rows go; else the ids are looked up in the index's id column)."""
    if not ids:
        return

    def change(index: MappedVectorIndex) -> None:
        index.remove(seqs if seqs is not None else ids)

    database.after_commit(_safely(lambda: registry().apply(workspace_id, change)))


def after_commit_drop(workspace_id: str | None = None) -> None:
    """Reopen the workspace's (or every) index on next use, once the transaction commits."""

    def apply() -> None:
        reg = registry()
        if workspace_id is None:
            reg.clear()
        else:
            reg.drop(workspace_id)

    database.after_commit(_safely(apply))
