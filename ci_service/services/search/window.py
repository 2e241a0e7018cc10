"""Exact in-memory text windows for ``/api/search`` (issue 16).

A window is one kind of a workspace's searchable text, case-folded into one string, with
the rows a match shows: every competitor name, every battlecard's text, and the newest
``SHORT_SCAN_ROWS`` intel items (what a 2-character query scans). A substring search is
then ``str.find`` over that string, about 0.1 ms for a megabyte, instead of ``LIKE`` or
a trigram lookup that reads the same pages back into SQLite's per-connection cache.

Why this pays over HTTP: every commit in the process (a deal, a job, even the usage
flush) makes each connection drop its page cache at its next read, and ``serve`` keeps one
connection per thread; a 2-character scan of 1,000 intel items and 1,000 battlecards took
4.7-5.0 ms cold and 1.0-1.2 ms warm, 0.002-0.004 ms from the windows, which took 17-29 ms
to build (``python -m bench.search_window DB``): the slow tail of ``/api/search``.

Exactness: a window is keyed by the workspace's ``data_version`` (store/data_version.py),
which triggers bump in the transaction of every write to the workspace's data, in every
process. It is built by reading the version first and then the rows (each statement sees
everything committed before it), so its rows are never older than its version; a request
uses the window of the version it read (the API key's lookup reads it), so a search after
a committed write never misses it. Entries of older versions are replaced, and the least
recently used windows go when the cache's memory budget (``search_cache_mb``) is full.

A window over ``WINDOW_MAX_CHARS`` characters is not kept (the caller falls back to SQL),
so one workspace with very many or very long battlecards cannot crowd out the others.

Case: text and query are compared ``casefold()``-ed (Unicode caseless matching), on
both backends.
"""

from __future__ import annotations

import threading
import weakref
from bisect import bisect_right
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

from ci_service.sized_lru import SizedLRU
from ci_service.store.data_version import read_version
from ci_service.store.db import database

WINDOW_MAX_CHARS = 4_000_000
DEFAULT_BUDGET_BYTES = 32 * 1024 * 1024
ROW_OVERHEAD = 200  # bytes per row besides its text: the tuple, ids, titles


class TextWindow:
    """Rows in result order and their case-folded texts joined by NUL (a query never
    holds a NUL, so no match spans two rows), with a bitmap of the character pairs that
    occur: a query with a pair the window lacks matches nothing, found without a scan
    (what makes a 2-character query that matches nothing cheap; a scan of a megabyte
    costs 0.3-1 ms in ``str.find``)."""

    __slots__ = ("rows", "starts", "folded", "pairs", "size")

    def __init__(self, pairs: Iterable[tuple[str, tuple]]):
        self.rows: list[tuple] = []
        self.starts: list[int] = []
        parts: list[str] = []
        at = 0
        for text, row in pairs:
            folded = (text or "").casefold()
            self.rows.append(row)
            self.starts.append(at)
            parts.append(folded)
            at += len(folded) + 1
        self.folded = "\x00".join(parts)
        self.pairs = _pair_bitmap(self.folded)
        # The folded string once and the originals held by the rows, about as long.
        self.size = 2 * len(self.folded) + ROW_OVERHEAD * len(self.rows) + len(self.pairs)

    def find(self, needle: str, limit: int) -> list[tuple]:
        """The rows whose text contains ``needle`` (case-insensitive), in window order,
        at most ``limit`` (all when ``limit`` < 0)."""
        target = needle.casefold()
        found: list[tuple] = []
        if not target or limit == 0 or "\x00" in target or not self._may_hold(target):
            return found  # (NUL separates the rows: callers strip it from queries)
        folded, starts, count = self.folded, self.starts, len(self.rows)
        pos = 0
        while True:
            at = folded.find(target, pos)
            if at < 0:
                return found
            index = bisect_right(starts, at) - 1
            found.append(self.rows[index])
            if len(found) == limit or index + 1 >= count:
                return found
            pos = starts[index + 1]  # one result per row: go on from the next row

    def _may_hold(self, target: str) -> bool:
        """False when a character pair of ``target`` occurs nowhere in the window (plain
        Python: a query's few pairs cost less than a numpy call)."""
        bits, wide = self.pairs, len(self.pairs) > NARROW_BITS // 8
        for first, second in zip(target, target[1:], strict=False):
            a, b = ord(first), ord(second)
            if wide:
                key = ((((a << 32) | b) * HASH) & MASK64) >> SHIFT
            elif a > 0xFF or b > 0xFF:
                return False  # the window is all Latin-1
            else:
                key = (a << 8) | b
            if not bits[key >> 3] & (0x80 >> (key & 7)):
                return False
        return True


NARROW_BITS = 1 << 16  # Latin-1 text: a pair of bytes is its own bucket
WIDE_BITS = 1 << 20  # other text: pairs of code points hashed into 2^20 buckets
HASH, SHIFT, MASK64 = 0x9E3779B97F4A7C15, 64 - 20, (1 << 64) - 1


def _numpy():
    """numpy, imported on the first window built rather than when ``serve`` starts."""
    import numpy

    return numpy


def _pair_keys(text: str, *, wide: bool) -> np.ndarray | None:
    """The bucket of each adjacent character pair of ``text`` (None: not Latin-1 when
    ``wide`` is False). The pairs are read straight from the encoded bytes as big-endian
    integers at two offsets, with no arithmetic per character (a megabyte in 4 ms)."""
    np = _numpy()
    if not wide:
        try:
            data = text.encode("latin-1")
        except UnicodeEncodeError:
            return None
        n = len(data)
        if n < 2:
            return np.zeros(0, dtype=np.int64)
        return np.concatenate(
            (
                np.frombuffer(data, ">u2", count=n // 2),
                np.frombuffer(data, ">u2", count=(n - 1) // 2, offset=1),
            )
        ).astype(np.int64)
    data = text.encode("utf-32-be")
    n = len(data) // 4
    if n < 2:
        return np.zeros(0, dtype=np.int64)
    pairs = np.concatenate(
        (
            np.frombuffer(data, ">u8", count=n // 2),
            np.frombuffer(data, ">u8", count=(n - 1) // 2, offset=4),
        )
    )
    return ((pairs * np.uint64(HASH)) >> np.uint64(SHIFT)).astype(np.int64)


def _pair_bitmap(folded: str) -> bytes:
    """Packed bits: bit ``k`` set when some adjacent pair of ``folded`` has bucket ``k``
    (8 kB for Latin-1 text, 128 kB otherwise)."""
    np = _numpy()
    keys = _pair_keys(folded, wide=False)
    wide = keys is None
    if wide:
        keys = _pair_keys(folded, wide=True)
    present = np.zeros(WIDE_BITS if wide else NARROW_BITS, dtype=bool)
    present[keys] = True
    return np.packbits(present).tobytes()


# A window too large to keep: remembered per version so it is not rebuilt per request.
TOO_LARGE = object()


class WindowCache(SizedLRU):
    """``(workspace, kind) -> (version, window)``, least recently used first out."""

    def __init__(self, budget_bytes: int):
        super().__init__(budget_bytes, size=_entry_size)

    def lookup(self, key: tuple[str, str], version: int) -> Any:
        """The window (or ``TOO_LARGE``) stored for ``version``; None for another version."""
        entry = self.get(key)
        return entry[1] if entry is not None and entry[0] == version else None

    def store(self, key: tuple[str, str], version: int, window: Any) -> None:
        if _size(window) > self.max_bytes:
            window = TOO_LARGE
        # A newer window that got here first stays.
        self.put(key, (version, window), replaces=lambda old: old[0] <= version)


def _size(window: Any) -> int:
    return window.size if isinstance(window, TextWindow) else 0


def _entry_size(entry: tuple[int, Any]) -> int:
    return _size(entry[1])


_budget = DEFAULT_BUDGET_BYTES
_caches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_caches_lock = threading.Lock()


def configure(budget_mb: float) -> None:
    """Set the memory budget (``search_cache_mb``; 0 turns windows off) of the caches
    made from now on and of the current database's."""
    global _budget
    _budget = int(budget_mb * 1024 * 1024)
    with _caches_lock:
        for cache in _caches.values():
            cache.max_bytes = _budget
            if _budget <= 0:
                cache.clear()


def _cache() -> WindowCache:
    """The cache of the open database: windows live and die with it (a restore or a test's
    new database starts empty)."""
    db = database.obj
    with _caches_lock:
        cache = _caches.get(db)
        if cache is None:
            cache = _caches[db] = WindowCache(_budget)
        return cache


def window(
    workspace_id: str,
    kind: str,
    version: int | None,
    load: Callable[[str], Iterable[tuple[str, tuple]]],
) -> TextWindow | None:
    """The workspace's ``kind`` window at ``version`` (None: read it now), built with
    ``load(workspace_id)`` (``(text, row)`` pairs in result order) when missing; None
    when windows are off, the workspace is gone, or the window is over its size cap."""
    if _budget <= 0:
        return None
    cache = _cache()
    key = (workspace_id, kind)
    if version is not None:
        found = cache.lookup(key, version)
        if found is not None:
            return found if isinstance(found, TextWindow) else None
    current = read_version(workspace_id)  # before the rows: they are never older
    if current is None:
        return None
    if current != version:
        found = cache.lookup(key, current)
        if found is not None:
            return found if isinstance(found, TextWindow) else None
    built = _build(load(workspace_id))
    cache.store(key, current, built)
    return built if isinstance(built, TextWindow) else None


def _build(pairs: Iterable[tuple[str, tuple]]) -> Any:
    """A window of ``pairs``, or ``TOO_LARGE`` as soon as their texts pass
    ``WINDOW_MAX_CHARS`` (the rest is not read: ``load`` may stream from a cursor)."""
    kept: list[tuple[str, tuple]] = []
    total = 0
    for text, row in pairs:
        total += len(text or "")
        if total > WINDOW_MAX_CHARS:
            return TOO_LARGE
        kept.append((text, row))
    return TextWindow(kept)
