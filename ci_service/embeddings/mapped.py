"""A vector index in memory-mapped files, shared by every process through the page cache
(issue 31: a million intel items).

One directory per index holds fixed-size rows, appended in order, one file per column:

- ``seq.bin`` the row's key (an int64: the intel item's ``seq``), ``ids.bin`` its id
  (fixed-width ASCII, for the rare look-ups by id);
- ``vec.bin`` the L2-normalised vector as int8 with ``scale.bin`` one float32 scale per row
  (``row ≈ int8 * scale``, as ``VectorIndex``'s int8 storage); a removed row's scale is -1;
- ``bits.bin`` the row's sign bits (``v - mean > 0``, ``mean`` the centre of the vectors when
  the index was built), ``dimension / 8`` bytes: the coarse pass of a search;
- ``meta.json`` the row count, the key order (``sorted``: the rows before it are in
  increasing key order), the stamp the rows are complete up to, ``mean``, and a few
  ``(key, id)`` pairs that tell whether the files still belong to the database.

Nothing is copied into the process: ``np.memmap`` maps the files (``MAP_SHARED``), so every
process on the machine reads the same page-cache pages, and a row written in place (an
update, a removal) is seen by all of them at once. Appends and in-place writes take an
exclusive ``flock`` on ``<directory>.lock``; appending writes the rows past the count first and then
replaces ``meta.json`` (rename), so a reader never sees a half-written row.

Search: up to ``EXACT_ROWS`` rows, every row is scored exactly (int8, in chunks). Above,
the Hamming distance of the query's sign bits to every row's (XOR and popcount over
``dimension / 8`` bytes a row: 32 MB at a million × 256) picks ``max(RERANK_MIN,
RERANK_FACTOR * k)`` candidates, which are scored exactly from the int8 rows; recall@10
against exact search is checked by tests/test_vector_mmap.py.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from collections.abc import Hashable, Iterable, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from .index import SCORE_CHUNK, _top_k, normalised_query, quantise

EXACT_ROWS = 50_000
RERANK_MIN = 2_000
RERANK_FACTOR = 40
BITS_CHUNK = 1 << 15  # rows per XOR/popcount step (1 MB of bits at dimension 256)
FORMAT = 1
REMOVED = -1.0  # the scale of a removed row
MEAN_SAMPLE = 10_000
_COLUMNS = ("seq", "ids", "scale", "vec", "bits")


class MappedVectorIndex:
    """Vectors of one workspace and model in memory-mapped files (see the module doc).

    Keys are ``int`` (the row key, an item's ``seq``); ``str`` keys are ids, looked up by
    a scan of the id column (tests, rare paths). Thread-safe; several processes may open
    the same directory."""

    storage = "int8"

    def __init__(self, path: Path | str, dimension: int, *, model: str | None = None):
        self.path = Path(path)
        self.dimension = int(dimension)
        self.model = model
        self.stamp = 0  # this process's catch-up point (see services/intel/index.py)
        self._lock = threading.RLock()
        self._n = -1
        self._meta: dict[str, Any] = {}
        self.path.mkdir(parents=True, exist_ok=True)
        self._width = 0
        self._remap()

    # -- files ----------------------------------------------------------------------------

    def _file(self, column: str) -> Path:
        return self.path / f"{column}.bin"

    def read_meta(self) -> dict[str, Any]:
        try:
            meta = json.loads((self.path / "meta.json").read_text())
        except (OSError, ValueError):
            return {}
        ok = meta.get("format") == FORMAT and meta.get("dimension") == self.dimension
        return meta if ok else {}

    def _write_meta(self, meta: dict[str, Any]) -> None:
        temp = self.path / f"meta.json.{os.getpid()}.{threading.get_ident()}"
        temp.write_text(json.dumps(meta))
        os.replace(temp, self.path / "meta.json")
        self._meta = meta

    @contextmanager
    def _exclusive(self):
        """The process lock and the directory's file lock (other processes)."""
        # Beside the directory, not in it: a rebuild replaces the directory.
        with self._lock, open(self.path.with_name(self.path.name + ".lock"), "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _remap(self) -> None:
        """Map the files at the count ``meta.json`` gives (cheap when it is unchanged)."""
        meta = self.read_meta()
        n = int(meta.get("count", 0))
        if n == self._n and meta == self._meta:
            return
        self._meta = meta
        self._width = int(meta.get("id_width", 32))
        d, w = self.dimension, self._width
        shapes = {
            "seq": ((n,), np.int64),
            "ids": ((n,), np.dtype(f"S{w}")),
            "scale": ((n,), np.float32),
            "vec": ((n, d), np.int8),
            "bits": ((n, (d + 7) // 8), np.uint8),
        }
        for column, (shape, dtype) in shapes.items():
            if n == 0:
                array = np.zeros(shape, dtype=dtype)
            else:
                array = np.memmap(self._file(column), dtype=dtype, mode="r+", shape=shape)
                if column == "vec":
                    _random_access(array)
            setattr(self, f"_{column}", array)
        self._mean = np.asarray(meta.get("mean") or np.zeros(d), dtype=np.float32)
        self._sorted = int(meta.get("sorted", n))
        self._n = n

    def refresh(self) -> None:
        """See rows other processes appended."""
        with self._lock:
            self._remap()

    # -- inspection -----------------------------------------------------------------------

    def __len__(self) -> int:
        with self._lock:
            self._remap()
            return int(np.count_nonzero(self._scale[: self._n] != REMOVED))

    def __contains__(self, key: object) -> bool:
        return self._find_one(key) is not None

    @property
    def nbytes(self) -> int:
        """Bytes of the mapped files (shared, not this process's own)."""
        n, d = self._n, self.dimension
        return n * (8 + self._width + 4 + d + (d + 7) // 8)

    def get(self, key: Hashable) -> np.ndarray | None:
        row = self._find_one(key)
        if row is None:
            return None
        return self._vec[row].astype(np.float32) * self._scale[row]

    def _find_one(self, key: object) -> int | None:
        with self._lock:
            self._remap()
            rows = self._rows([key])
            return None if rows[0] < 0 else int(rows[0])

    def _rows(self, keys: Sequence[Hashable]) -> np.ndarray:
        """Row of each key (-1: none, or removed)."""
        n = self._n
        out = np.full(len(keys), -1, dtype=np.int64)
        if n == 0 or not keys:
            return out
        ints = [(i, k) for i, k in enumerate(keys) if isinstance(k, int | np.integer)]
        if ints:
            wanted = np.array([k for _, k in ints], dtype=np.int64)
            head = self._seq[: self._sorted]
            at = np.searchsorted(head, wanted)
            at_ok = at < head.shape[0]
            hit = np.zeros(len(ints), dtype=bool)
            hit[at_ok] = head[at[at_ok]] == wanted[at_ok]
            found = np.where(hit, at, -1)
            if self._sorted < n:  # the unsorted tail: scanned (it is short)
                tail = self._seq[self._sorted : n]
                for j in np.flatnonzero(~hit):
                    match = np.flatnonzero(tail == wanted[j])
                    if match.size:
                        found[j] = self._sorted + int(match[-1])
            for (i, _), row in zip(ints, found, strict=True):
                out[i] = row
        for i, k in enumerate(keys):
            if isinstance(k, str):
                match = np.flatnonzero(self._ids[:n] == k.encode("ascii", "replace"))
                if match.size:
                    out[i] = int(match[-1])
        live = out >= 0
        out[live] = np.where(self._scale[out[live]] == REMOVED, -1, out[live])
        return out

    # -- writes ---------------------------------------------------------------------------

    def upsert(self, keys: Sequence[int], vectors: Any, ids: Sequence[str] = ()) -> None:
        """Insert or replace the vectors of ``keys`` (``ids``: their item ids, stored for
        look-ups by id). A key already in the files is written in place; new keys are
        appended (after the last key: the rows stay sorted)."""
        keys = [int(k) for k in keys]
        if not keys:
            return
        matrix = _normalised(vectors, len(keys), self.dimension)
        ids = list(ids) or [""] * len(keys)
        quantised, scale = quantise(matrix)
        with self._exclusive():
            self._remap()
            rows = self._rows_any(keys)
            old = rows >= 0
            if old.any():
                at = rows[old]
                self._vec[at] = quantised[old]
                self._scale[at] = scale[old]
                self._bits[at] = self._signs(matrix[old])
                self._ids[at] = [ids[i].encode("ascii", "replace") for i in np.flatnonzero(old)]
            new = np.flatnonzero(~old)
            if new.size:
                self._append(
                    [keys[i] for i in new], quantised[new], scale[new], matrix[new],
                    [ids[i] for i in new],
                )  # fmt: skip

    def _rows_any(self, keys: list[int]) -> np.ndarray:
        """Rows of ``keys`` including removed ones (an upsert revives its row)."""
        n = self._n
        if n == 0:
            return np.full(len(keys), -1, dtype=np.int64)
        saved = self._scale
        try:
            self._scale = np.zeros(n, dtype=np.float32)  # no row looks removed
            return self._rows(keys)
        finally:
            self._scale = saved

    def _signs(self, matrix: np.ndarray) -> np.ndarray:
        return np.packbits(matrix - self._mean > 0, axis=1)

    def _append(self, keys, quantised, scale, matrix, ids) -> None:
        n = self._n
        order = np.argsort(np.asarray(keys, dtype=np.int64), kind="stable")
        keys = np.asarray(keys, dtype=np.int64)[order]
        width = self._width if n else max(32, max(len(i) for i in ids))
        columns = {
            "seq": keys,
            "ids": np.array([ids[i].encode("ascii", "replace") for i in order], f"S{width}"),
            "scale": scale[order].astype(np.float32),
            "vec": quantised[order],
            "bits": self._signs(matrix[order]),
        }
        for column, values in columns.items():
            data = np.ascontiguousarray(values).tobytes()
            with open(self._file(column), "r+b" if n else "wb") as handle:
                handle.seek(n * (len(data) // len(keys)))
                handle.write(data)
                handle.truncate()
        last = int(self._seq[n - 1]) if n else None
        in_order = last is None or keys[0] > last
        meta = {
            **self._meta,
            "format": FORMAT,
            "dimension": self.dimension,
            "model": self.model,
            "id_width": width,
            "count": n + len(keys),
            "sorted": (self._sorted + len(keys))
            if in_order and self._sorted == n
            else self._sorted,
        }
        meta.setdefault("mean", self._mean.tolist())
        meta.setdefault("stamp", 0)
        self._write_meta(meta)
        self._n = -1
        self._remap()

    def remove(self, keys: Iterable[Hashable]) -> int:
        """Mark rows removed (in place: every process sees it); how many were live."""
        keys = list(keys)
        with self._exclusive():
            self._remap()
            rows = self._rows(keys)
            rows = rows[rows >= 0]
            self._scale[rows] = REMOVED
            return int(rows.size)

    def set_stamp(self, stamp: int) -> None:
        """Record that the files hold every vector stamped up to ``stamp``."""
        with self._exclusive():
            self._remap()
            if stamp > int(self._meta.get("stamp", 0)) and self._n:
                self._write_meta({**self._meta, "stamp": int(stamp)})
                self._n = -1
                self._remap()

    # -- search ---------------------------------------------------------------------------

    def _query(self, query: Any) -> np.ndarray | None:
        return normalised_query(query, self.dimension)

    def _read_rows(self, rows: np.ndarray) -> np.ndarray:
        """The int8 rows ``rows``, read with ``pread`` from the page cache rather than
        through the mapping: a fault on a mapped page maps the cached pages around it too
        (fault-around), so a few thousand scattered rows would put most of the file in the
        process's RSS."""
        d = self.dimension
        out = np.empty((rows.size, d), dtype=np.int8)
        view = memoryview(out).cast("B")
        fd = os.open(self._file("vec"), os.O_RDONLY)
        try:
            for i, row in enumerate(rows.tolist()):
                os.preadv(fd, [view[i * d : (i + 1) * d]], row * d)
        finally:
            os.close(fd)
        return out

    def _score_rows(self, rows: np.ndarray, q: np.ndarray) -> np.ndarray:
        scores = np.empty(rows.size, dtype=np.float32)
        for start in range(0, rows.size, SCORE_CHUNK):
            part = rows[start : start + SCORE_CHUNK]
            scores[start : start + part.size] = self._read_rows(part).astype(np.float32) @ q
        scale = self._scale[rows]
        scores *= scale
        scores[scale == REMOVED] = -np.inf
        return scores

    def _score_all(self, n: int, q: np.ndarray) -> np.ndarray:
        scores = np.empty(n, dtype=np.float32)
        buffer = np.empty((min(n, SCORE_CHUNK), self.dimension), dtype=np.float32)
        for start in range(0, n, SCORE_CHUNK):
            stop = min(n, start + SCORE_CHUNK)
            chunk = buffer[: stop - start]
            chunk[...] = self._vec[start:stop]
            np.dot(chunk, q, out=scores[start:stop])
        scale = self._scale[:n]
        scores *= scale
        scores[scale == REMOVED] = -np.inf
        return scores

    def _coarse(self, n: int, q: np.ndarray, count: int) -> np.ndarray:
        """Rows of the ``count`` smallest Hamming distances to the query's sign bits."""
        qbits = np.packbits(q - self._mean > 0)
        wide = qbits.size % 8 == 0
        if wide:
            qwords = qbits.view(np.uint64)
        distances = np.empty(n, dtype=np.uint16)
        for start in range(0, n, BITS_CHUNK):
            stop = min(n, start + BITS_CHUNK)
            block = np.asarray(self._bits[start:stop])
            if wide:
                counts = np.bitwise_count(np.bitwise_xor(block.view(np.uint64), qwords))
            else:
                counts = np.bitwise_count(np.bitwise_xor(block, qbits))
            if counts.shape[1] == 4:  # dimension 256: the four counts as one uint32,
                # summed by one multiply (a sum over a short axis is slow in numpy)
                packed = counts.view(np.uint32).reshape(-1)
                part = (packed * np.uint32(0x01010101)) >> np.uint32(24)
                zero = np.flatnonzero(part == 0)  # 0, or 256 wrapped round: every bit differs
                part[zero[packed[zero] != 0]] = 256
                distances[start:stop] = part
            else:
                distances[start:stop] = counts.sum(axis=1, dtype=np.uint16)
        if count >= n:
            return np.arange(n)
        # Distances are small integers: the cut-off comes from their histogram (a partition
        # of a million values costs several times more). Rows at the cut-off distance are
        # taken in row order until ``count`` rows are chosen.
        histogram = np.cumsum(np.bincount(distances, minlength=2))
        cut = int(np.searchsorted(histogram, count))
        below = np.flatnonzero(distances < cut) if cut else np.zeros(0, dtype=np.int64)
        at = np.flatnonzero(distances == cut)[: count - below.size]
        return np.sort(np.concatenate((below, at)))

    def search(
        self, query: Any, k: int = 10, *, filter_ids: Any = None, min_score: float | None = None
    ) -> list[tuple[int, float]]:
        """The ``k`` best ``(key, cosine)`` pairs, best first; ``filter_ids``: only these
        keys (scored exactly). Removed rows never appear."""
        q = self._query(query)
        if k <= 0 or q is None:
            return []
        with self._lock:
            self._remap()
            n = self._n
            if n == 0:
                return []
            if filter_ids is not None:
                rows = np.unique(self._rows(list(filter_ids)))
                rows = rows[rows >= 0]
            elif n <= EXACT_ROWS:
                rows = None
            else:
                rows = self._coarse(n, q, max(RERANK_MIN, RERANK_FACTOR * k))
            if rows is not None and rows.size == 0:
                return []
            scores = self._score_all(n, q) if rows is None else self._score_rows(rows, q)
            result = []
            for position in _top_k(scores, k):
                score = float(scores[position])
                if score == -np.inf or (min_score is not None and score < min_score):
                    break
                row = int(position) if rows is None else int(rows[position])
                result.append((int(self._seq[row]), score))
            return result

    def scores(self, query: Any, keys: Iterable[Hashable]) -> dict[Hashable, float]:
        """Cosine of ``query`` with each of ``keys`` in the index (one product)."""
        q = self._query(query)
        keys = list(keys)
        if q is None or not keys:
            return {}
        with self._lock:
            self._remap()
            rows = self._rows(keys)
            found = rows >= 0
            if not found.any():
                return {}
            values = self._score_rows(rows[found], q)
        return {
            k: float(v)
            for k, v in zip([keys[i] for i in np.flatnonzero(found)], values, strict=True)
        }

    def __repr__(self) -> str:
        return f"<MappedVectorIndex {self.path} n={self._n} model={self.model!r}>"


def _random_access(array: np.memmap) -> None:
    """No readahead on the vectors: a search reads a few thousand scattered rows, and the
    kernel would otherwise map (and count in the process's RSS) the pages around each."""
    import mmap

    handle = getattr(array, "_mmap", None)
    if handle is not None and hasattr(mmap, "MADV_RANDOM"):
        try:
            handle.madvise(mmap.MADV_RANDOM)
        except OSError:  # an advice only
            pass


def _normalised(vectors: Any, count: int, dimension: int) -> np.ndarray:
    matrix = np.array(vectors, dtype=np.float32, copy=True, ndmin=2)
    if matrix.shape != (count, dimension):
        raise ValueError(f"expected {count} vectors of dimension {dimension}, got {matrix.shape}")
    if not np.isfinite(matrix).all():
        raise ValueError("vectors contain NaN or infinity")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    np.divide(matrix, norms, out=matrix, where=norms > 0)
    return matrix
