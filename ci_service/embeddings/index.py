"""In-memory cosine-similarity index, one per workspace.

``VectorIndex`` keeps the vectors of one workspace in a dense matrix (rows are
L2-normalised on insert, so cosine similarity is a dot product) and answers top-k queries
by brute force: one matrix-vector product plus ``np.argpartition``. At 100k × 256 that is
about 10 ms on this project's reference machine (see bench/vector_index.py),
which is why no ANN library or sqlite extension is needed.

Storage (``storage=``): ``"float32"`` (the default; exact) or ``"int8"``: each normalised
row quantised to int8 with its own scale (``max |x| / 127``), a quarter of the memory
(100k × 256: 26 MB instead of 102 MB). An int8 index scores in float32, in chunks of
``SCORE_CHUNK`` rows (each chunk converted, multiplied, then scaled), which is also faster
than the float32 product since it reads a quarter of the bytes. The rounding error of a
score is below 0.005; recall@10 against float32 is measured by
``bench/vector_recall.py`` and checked by tests/test_vector_compact.py (issue 16).

* Capacity grows geometrically (×1.5, at least the needed size), so inserts are amortised
  O(d) and never ``np.vstack`` the whole matrix.
* ``remove`` moves the last row into the hole, so the live rows stay contiguous.
* Every public method takes the index lock; searches are consistent with concurrent writes.
* Ids are any hashable values (database primary keys, usually ``int``).

``IndexRegistry`` maps workspace ids to their ``VectorIndex`` and can populate a new index
from a ``loader`` callback (for example: read the stored vectors of that workspace).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Hashable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

Filter = Collection[Hashable] | Callable[[Hashable], bool] | None
Loader = Callable[[Hashable], tuple[Sequence[Hashable], Any] | None]

_GROWTH = 1.5
_MIN_CAPACITY = 64
SCORE_CHUNK = 1024  # rows converted to float32 at a time (256 kB at dimension 256)
STORAGES = ("float32", "int8")


def normalised_query(query: Any, dimension: int) -> np.ndarray | None:
    """The normalised float32 query, or None for a zero (or non-finite) vector; a
    ValueError when its dimension is not ``dimension``."""
    q = np.asarray(query, dtype=np.float32).reshape(-1)
    if q.shape[0] != dimension:
        raise ValueError(f"query has dimension {q.shape[0]}, expected {dimension}")
    norm = float(np.linalg.norm(q))
    if norm == 0.0 or not np.isfinite(norm):
        return None
    return q / norm


class VectorIndex:
    """Dense in-memory vector index for one workspace (thread-safe)."""

    def __init__(
        self,
        dimension: int,
        *,
        model: str | None = None,
        initial_capacity: int = _MIN_CAPACITY,
        storage: str = "float32",
    ) -> None:
        if dimension <= 0:
            raise ValueError("dimension must be positive")
        if storage not in STORAGES:
            raise ValueError(f"storage must be one of {', '.join(STORAGES)}")
        self.dimension = int(dimension)
        self.model = model  # provider name the vectors came from, for the caller's checks
        self.storage = storage
        self._dtype = np.int8 if storage == "int8" else np.float32
        capacity = max(1, initial_capacity)
        self._matrix = np.zeros((capacity, self.dimension), dtype=self._dtype)
        # int8: row i holds round(v / scale[i]); float32: unused (empty)
        self._scale = np.zeros(capacity if storage == "int8" else 0, dtype=np.float32)
        self._ids: list[Hashable] = []  # row -> id
        self._rows: dict[Hashable, int] = {}  # id -> row
        self._lock = threading.RLock()

    # -- inspection -----------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, item_id: object) -> bool:
        return item_id in self._rows

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self.ids())

    def ids(self) -> list[Hashable]:
        with self._lock:
            return list(self._ids)

    @property
    def capacity(self) -> int:
        return self._matrix.shape[0]

    @property
    def nbytes(self) -> int:
        return int(self._matrix.nbytes + self._scale.nbytes)

    def get(self, item_id: Hashable) -> np.ndarray | None:
        """A copy of the stored (normalised) vector as float32, or None."""
        with self._lock:
            row = self._rows.get(item_id)
            return None if row is None else self._vectors(np.array([row]))[0]

    def scores(self, query: Any, ids: Iterable[Hashable]) -> dict[Hashable, float]:
        """Cosine of ``query`` with each of ``ids`` that is in the index (one product)."""
        q = self._query(query)
        if q is None:
            return {}
        with self._lock:
            found = [(item_id, self._rows[item_id]) for item_id in ids if item_id in self._rows]
            if not found:
                return {}
            values = self._score_rows(np.array([row for _, row in found], dtype=np.int64), q)
        return {item_id: float(v) for (item_id, _), v in zip(found, values, strict=True)}

    def _vectors(self, rows: np.ndarray) -> np.ndarray:
        if self.storage == "float32":
            return self._matrix[rows].copy()
        return self._matrix[rows].astype(np.float32) * self._scale[rows, None]

    def __repr__(self) -> str:
        return f"<VectorIndex n={len(self)} dimension={self.dimension} model={self.model!r}>"

    # -- writes ---------------------------------------------------------------------------

    def add(self, ids: Sequence[Hashable], vectors: Any) -> None:
        """Insert new ids; raises ``KeyError`` (and changes nothing) if any id exists."""
        ids, matrix = self._prepare(ids, vectors)
        with self._lock:
            present = [item_id for item_id in ids if item_id in self._rows]
            if present:
                raise KeyError(f"ids already in the index: {present[:5]}")
            self._write(ids, matrix)

    def upsert(self, ids: Sequence[Hashable], vectors: Any) -> None:
        """Insert or replace the vectors of ``ids``."""
        ids, matrix = self._prepare(ids, vectors)
        with self._lock:
            self._write(ids, matrix)

    def remove(self, ids: Iterable[Hashable]) -> int:
        """Remove ids (unknown ids are ignored); returns how many were removed."""
        removed = 0
        with self._lock:
            for item_id in ids:
                row = self._rows.pop(item_id, None)
                if row is None:
                    continue
                last = len(self._ids) - 1
                if row != last:
                    moved = self._ids[last]
                    self._matrix[row] = self._matrix[last]
                    if self._scale.size:
                        self._scale[row] = self._scale[last]
                    self._ids[row] = moved
                    self._rows[moved] = row
                self._ids.pop()
                self._matrix[last] = 0
                if self._scale.size:
                    self._scale[last] = 0.0
                removed += 1
            self._maybe_shrink()
        return removed

    def clear(self) -> None:
        with self._lock:
            self._ids.clear()
            self._rows.clear()
            self._matrix = np.zeros((_MIN_CAPACITY, self.dimension), dtype=self._dtype)
            self._scale = np.zeros(_MIN_CAPACITY if self._scale.size else 0, dtype=np.float32)

    def _prepare(self, ids: Sequence[Hashable], vectors: Any) -> tuple[list, np.ndarray]:
        ids = list(ids)
        if not ids:
            return [], np.zeros((0, self.dimension), dtype=np.float32)
        matrix = np.array(vectors, dtype=np.float32, copy=True, ndmin=2)
        if matrix.ndim != 2 or matrix.shape != (len(ids), self.dimension):
            raise ValueError(
                f"expected {len(ids)} vectors of dimension {self.dimension}, "
                f"got shape {np.shape(vectors)}"
            )
        if len(set(ids)) != len(ids):
            raise ValueError("duplicate ids in one call")
        if not np.isfinite(matrix).all():
            raise ValueError("vectors contain NaN or infinity")
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        np.divide(matrix, norms, out=matrix, where=norms > 0)
        return ids, matrix

    def _write(self, ids: list[Hashable], matrix: np.ndarray) -> None:
        if not ids:
            return
        known = self._rows
        new = sum(1 for item_id in ids if item_id not in known)
        self._reserve(len(self._ids) + new)
        rows = np.empty(len(ids), dtype=np.int64)
        for i, item_id in enumerate(ids):
            row = known.get(item_id)
            if row is None:
                row = len(self._ids)
                self._ids.append(item_id)
                known[item_id] = row
            rows[i] = row
        if self.storage == "float32":
            self._matrix[rows] = matrix
            return
        quantised, scale = quantise(matrix)
        self._matrix[rows] = quantised
        self._scale[rows] = scale

    def _reserve(self, needed: int) -> None:
        capacity = self._matrix.shape[0]
        if needed <= capacity:
            return
        new_capacity = max(needed, int(capacity * _GROWTH) + 1)
        grown = np.zeros((new_capacity, self.dimension), dtype=self._dtype)
        grown[: len(self._ids)] = self._matrix[: len(self._ids)]
        self._matrix = grown
        if self._scale.size:
            scale = np.zeros(new_capacity, dtype=np.float32)
            scale[: len(self._ids)] = self._scale[: len(self._ids)]
            self._scale = scale

    def _maybe_shrink(self) -> None:
        size, capacity = len(self._ids), self._matrix.shape[0]
        if capacity > _MIN_CAPACITY and size < capacity // 4:
            new_capacity = max(_MIN_CAPACITY, size * 2)
            self._matrix = self._matrix[:new_capacity].copy()
            if self._scale.size:
                self._scale = self._scale[:new_capacity].copy()

    # -- scoring --------------------------------------------------------------------------

    def _query(self, query: Any) -> np.ndarray | None:
        return normalised_query(query, self.dimension)

    def _score_all(self, n: int, q: np.ndarray) -> np.ndarray:
        if self.storage == "float32":
            return self._matrix[:n] @ q
        scores = np.empty(n, dtype=np.float32)
        buffer = np.empty((min(n, SCORE_CHUNK), self.dimension), dtype=np.float32)
        for start in range(0, n, SCORE_CHUNK):
            stop = min(n, start + SCORE_CHUNK)
            chunk = buffer[: stop - start]
            chunk[...] = self._matrix[start:stop]  # int8 -> float32, no temporary
            np.dot(chunk, q, out=scores[start:stop])
        scores *= self._scale[:n]
        return scores

    def _score_rows(self, rows: np.ndarray, q: np.ndarray) -> np.ndarray:
        if self.storage == "float32":
            return self._matrix[rows] @ q
        scores = np.empty(rows.size, dtype=np.float32)
        for start in range(0, rows.size, SCORE_CHUNK):
            part = rows[start : start + SCORE_CHUNK]
            scores[start : start + part.size] = self._matrix[part].astype(np.float32) @ q
        scores *= self._scale[rows]
        return scores

    # -- search ---------------------------------------------------------------------------

    def search(
        self,
        query: Any,
        k: int = 10,
        *,
        filter_ids: Filter = None,
        min_score: float | None = None,
    ) -> list[tuple[Hashable, float]]:
        """The ``k`` best ``(id, cosine)`` pairs, best first (ties: lower row first).

        ``filter_ids`` restricts the candidates: a collection of allowed ids (only those
        rows are scored) or a predicate ``id -> bool`` (applied to candidates in score
        order until ``k`` pass; it runs outside the index lock, on a snapshot of the ids).
        ``min_score`` drops weaker matches. A zero query vector returns ``[]``.
        """
        q = self._query(query)
        if k <= 0 or q is None:
            return []
        with self._lock:
            n = len(self._ids)
            if n == 0:
                return []
            if filter_ids is None or callable(filter_ids):
                rows = None
                scores = self._score_all(n, q)
            else:
                rows = np.unique(
                    np.fromiter(
                        (r for r in map(self._rows.get, filter_ids) if r is not None),
                        dtype=np.int64,
                    )
                )
                if rows.size == 0:
                    return []
                scores = self._score_rows(rows, q)
            if callable(filter_ids):
                # The predicate may be slow (a database lookup): run it on a snapshot,
                # outside the lock.
                snapshot = list(self._ids)
            else:
                order = _top_k(scores, k)
                result = []
                for position in order:
                    score = float(scores[position])
                    if min_score is not None and score < min_score:
                        break
                    row = int(position) if rows is None else int(rows[position])
                    result.append((self._ids[row], score))
                return result
        return _top_k_predicate(scores, snapshot, k, filter_ids, min_score)


def quantise(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows of float32 ``matrix`` as int8 and one float32 scale per row (``max |x| / 127``;
    0 for a zero row): ``row ≈ int8_row * scale``, each element within ``scale / 2``."""
    peak = np.abs(matrix).max(axis=1) if matrix.size else np.zeros(len(matrix), np.float32)
    scale = (peak / 127.0).astype(np.float32)
    safe = np.where(scale > 0, scale, 1.0).astype(np.float32)
    quantised = np.rint(matrix / safe[:, None]).clip(-127, 127).astype(np.int8)
    return quantised, scale


def _top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Positions of the k largest scores, best first (stable on ties)."""
    n = scores.shape[0]
    if k >= n:
        return np.argsort(-scores, kind="stable")
    part = np.argpartition(-scores, k - 1)[:k]
    return part[np.lexsort((part, -scores[part]))]


def _top_k_predicate(
    scores: np.ndarray,
    ids: list[Hashable],
    k: int,
    predicate: Callable[[Hashable], bool],
    min_score: float | None,
) -> list[tuple[Hashable, float]]:
    n = scores.shape[0]
    result: list[tuple[Hashable, float]] = []
    window = min(n, max(4 * k, 64))
    seen = 0
    while True:
        order = _top_k(scores, window)
        for position in order[seen:]:
            score = float(scores[position])
            if min_score is not None and score < min_score:
                return result
            item_id = ids[int(position)]
            if predicate(item_id):
                result.append((item_id, score))
                if len(result) == k:
                    return result
        seen = len(order)
        if window >= n:
            return result
        window = min(n, window * 4)


class IndexRegistry:
    """Workspace id → ``VectorIndex``, created on first use (thread-safe).

    ``loader(workspace_id)`` (optional) returns ``(ids, vectors)`` to fill a newly created
    index, or ``None`` for an empty one; it runs once per workspace, under a per-workspace
    lock, so concurrent first requests do not load twice.
    """

    def __init__(
        self, dimension: int, *, model: str | None = None, loader: Loader | None = None
    ) -> None:
        self.dimension = int(dimension)
        self.model = model
        self.loader = loader
        self._indexes: dict[Hashable, VectorIndex] = {}
        self._locks: dict[Hashable, threading.Lock] = {}
        self._lock = threading.Lock()

    def get(self, workspace_id: Hashable) -> VectorIndex:
        """The workspace's index, creating (and loading) it if needed."""
        index = self._indexes.get(workspace_id)
        if index is not None:
            return index
        with self._lock:
            lock = self._locks.setdefault(workspace_id, threading.Lock())
        with lock:
            index = self._indexes.get(workspace_id)
            if index is not None:
                return index
            index = VectorIndex(self.dimension, model=self.model)
            if self.loader is not None:
                loaded = self.loader(workspace_id)
                if loaded is not None:
                    ids, vectors = loaded
                    if len(ids):
                        index.upsert(ids, vectors)
            with self._lock:
                self._indexes[workspace_id] = index
            return index

    def peek(self, workspace_id: Hashable) -> VectorIndex | None:
        """The workspace's index if it is already in memory (never loads)."""
        return self._indexes.get(workspace_id)

    def drop(self, workspace_id: Hashable) -> bool:
        """Forget a workspace's index (deleted workspace, or to force a reload)."""
        with self._lock:
            self._locks.pop(workspace_id, None)
            return self._indexes.pop(workspace_id, None) is not None

    def clear(self) -> None:
        with self._lock:
            self._indexes.clear()
            self._locks.clear()

    def workspaces(self) -> list[Hashable]:
        with self._lock:
            return list(self._indexes)

    def __contains__(self, workspace_id: object) -> bool:
        return workspace_id in self._indexes

    def __len__(self) -> int:
        return len(self._indexes)
