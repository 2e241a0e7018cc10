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

    __slots__ = ("rows", "starts", "folded", "pairs", "grams", "_gram_scans", "_gram_lock", "size")

    def __init__(self, pairs: Iterable[tuple[str, tuple]], *, grams: bool = False):
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
        # Row trigrams (RowGrams), built once the window has been scanned for 3 characters
        # or more a few times: a window is rebuilt after every write to the workspace, and
        # under a stream of writes most versions are never searched that often. Counted
        # in the size from the start, so the cache's budget holds either way.
        self.grams: RowGrams | None = None
        self._gram_scans = 0
        self._gram_lock = None  # None: no trigrams for this window
        if grams and len(self.folded) >= GRAMS_MIN_CHARS:
            self._gram_lock = threading.Lock()
            self.size += RowGrams.planned_size(len(self.folded), len(self.rows))

    def find(self, needle: str, limit: int) -> list[tuple]:
        """The rows whose text contains ``needle`` (case-insensitive), in window order,
        at most ``limit`` (all when ``limit`` < 0)."""
        target = needle.casefold()
        found: list[tuple] = []
        if not target or limit == 0 or "\x00" in target or not self._may_hold(target):
            return found  # (NUL separates the rows: callers strip it from queries)
        grams = self._trigrams() if len(target) >= 3 and self._gram_lock is not None else None
        runs = grams.runs(target) if grams is not None else None
        if runs is None:
            self._scan(target, limit, 0, len(self.rows), found)
            return found
        for first, last in runs:  # only the rows that can hold it
            if self._scan(target, limit, first, last, found):
                break
        return found

    def _trigrams(self) -> RowGrams | None:
        """The rows' trigrams, built by the ``GRAMS_AFTER_SCANS``-th search that asks (by
        one thread; the others scan meanwhile)."""
        if self.grams is None:
            self._gram_scans += 1
            if self._gram_scans >= GRAMS_AFTER_SCANS and self._gram_lock.acquire(False):
                try:
                    if self.grams is None:
                        self.grams = RowGrams(self.folded, self.starts)
                finally:
                    self._gram_lock.release()
        return self.grams

    def _scan(self, target: str, limit: int, first: int, last: int, found: list) -> bool:
        """Append the rows ``first`` to ``last - 1`` that contain ``target``, one result
        per row, until ``limit``; whether it was reached."""
        folded, starts = self.folded, self.starts
        pos = starts[first]
        end = starts[last] - 1 if last < len(starts) else len(folded)
        while True:
            at = folded.find(target, pos, end)
            if at < 0:
                return False
            index = bisect_right(starts, at) - 1
            found.append(self.rows[index])
            if len(found) == limit:
                return True
            if index + 1 >= last:
                return False
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


GRAMS_MIN_CHARS = 64 * 1024  # below this a scan of the whole window costs under 30 µs
GRAM_BLOCK_ROWS = 256  # rows whose bits are set at once (a bounded temporary array)
# Odd 64-bit multipliers, one per character of a trigram and of a span around a space.
TRIGRAM = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9)
SPAN = tuple((0x9E3779B97F4A7C15 * (2 * i + 3) + 0x632BE59BD9B4E019) % 2**64 | 1 for i in range(9))
GRAMS_PER_QUERY = 4  # the rarest trigrams of a query that pick its rows
GRAMS_AFTER_SCANS = 3  # searches of 3+ characters of one window version before they pay


class RowGrams:
    """For each row of a window, the buckets of the character trigrams it holds, and of
    the 9 characters around each of its spaces, as a bitmap of its own (about 16 bits per
    character of the average row, a power of two); and how many rows hold each bucket.

    A query can only match in a row that holds every trigram of it, and the 9 characters
    around each space it has with 4 on either side. Issue 31: a query whose character
    pairs all occur (a competitor's name, a two-word phrase) made ``str.find`` scan all of
    1,000 battlecards, 0.45 ms with the GIL held, on every search. Its rarest buckets name
    the rows worth searching (no false negatives; about one row in twenty passes that
    lacks one of them); a query whose rarest bucket is in most rows is searched by the
    plain scan, which finds it early. (Around a space because a phrase's words are each
    common where the phrase is not.)"""

    __slots__ = ("bits", "shift", "columns", "counts", "rows")

    @staticmethod
    def bits_per_row(chars: int, rows: int) -> int:
        average = max(1, chars // max(1, rows))
        return 1 << max(10, min(15, (16 * average - 1).bit_length()))

    @classmethod
    def planned_size(cls, chars: int, rows: int) -> int:
        """The bytes the trigrams of a window of ``chars`` characters in ``rows`` take."""
        bits = cls.bits_per_row(chars, rows)
        return rows * bits // 8 + 4 * bits

    def __init__(self, folded: str, starts: list[int]):
        np = _numpy()
        self.rows = rows = len(starts)
        self.bits = self.bits_per_row(len(folded), rows)
        self.shift = 64 - (self.bits.bit_length() - 1)
        # Bucket-major: the rows' bits of one bucket byte are contiguous, for the gather.
        self.columns = np.zeros((self.bits // 8, rows), dtype=np.uint8)
        self.counts = np.zeros(self.bits, dtype=np.int32)  # rows holding each bucket
        points = np.frombuffer(folded.encode("utf-32-le"), dtype="<u4").astype(np.uint64)
        keys = self._keys(np, points, TRIGRAM)  # the trigram at each position
        # The spans around spaces, and their rows (a span never crosses a row's NUL
        # in a query, so one that does in the text only sets a bit no query asks for).
        side = len(SPAN) // 2
        spaces = np.flatnonzero(points[side : len(points) - side] == 32) + side
        span_keys = self._keys(np, points, SPAN, at=spaces - side)
        span_rows = np.searchsorted(np.asarray(starts), spaces, side="right") - 1
        bounds = [*starts, len(folded)]
        for first in range(0, rows, GRAM_BLOCK_ROWS):
            last = min(rows, first + GRAM_BLOCK_ROWS)
            begin, end = bounds[first], min(bounds[last], len(keys))
            present = np.zeros((last - first, self.bits), dtype=bool)
            flat = present.reshape(-1)
            if begin < end:
                # Each position's row within the block, from the rows' lengths.
                lengths = np.diff(np.asarray(bounds[first : last + 1], dtype=np.int64))
                row_of = np.repeat(np.arange(last - first, dtype=np.int64), lengths)
                flat[row_of[: end - begin] * self.bits + keys[begin:end]] = True
            lo, hi = np.searchsorted(span_rows, (first, last))
            flat[(span_rows[lo:hi] - first) * self.bits + span_keys[lo:hi]] = True
            self.counts += present.sum(axis=0, dtype=np.int32)
            self.columns[:, first:last] = np.packbits(present, axis=1, bitorder="little").T

    def _keys(self, np, points, factors: tuple[int, ...], at=None):
        """The bucket of the ``len(factors)`` characters starting at each position, or at
        the positions ``at`` only (as ``_key``)."""
        width = len(factors)
        if at is None:
            count = max(0, len(points) - width + 1)
            pick = lambda i: points[i : i + count]  # noqa: E731 - one slice per factor
        else:
            count = len(at)
            pick = lambda i: points[at + i]  # noqa: E731 - one gather per factor
        mixed = np.zeros(count, dtype=np.uint64)
        if count:
            for i, factor in enumerate(factors):  # uint64 arithmetic wraps, as _key masks
                mixed += pick(i) * np.uint64(factor)
        return (mixed >> np.uint64(self.shift)).astype(np.int64)

    def _key(self, text: str, factors: tuple[int, ...]) -> int:
        mixed = sum(ord(ch) * factor for ch, factor in zip(text, factors, strict=True))
        return (mixed & MASK64) >> self.shift

    def query_keys(self, target: str) -> set[int]:
        """The buckets every row holding ``target`` (3+ characters) has."""
        codes = [ord(ch) for ch in target]
        a, b, c = TRIGRAM
        shift = self.shift
        keys = {
            ((x * a + y * b + z * c) & MASK64) >> shift
            for x, y, z in zip(codes, codes[1:], codes[2:], strict=False)
        }
        side = len(SPAN) // 2
        for at in range(side, len(target) - side):
            if target[at] == " ":
                keys.add(self._key(target[at - side : at + side + 1], SPAN))
        return keys

    def runs(self, target: str) -> list[tuple[int, int]] | None:
        """``(first, last)`` row ranges, in order, outside which no row holds every bucket
        of ``target`` (3+ characters, case-folded); None when its rarest bucket is in
        half the rows or more (then a scan is cheaper)."""
        np = _numpy()
        keys = np.fromiter(self.query_keys(target), dtype=np.int64)
        held_by = self.counts[keys]
        if 2 * int(held_by.min()) >= self.rows:
            return None
        keys = keys[np.argsort(held_by, kind="stable")]
        held = None
        for key in keys[:GRAMS_PER_QUERY].tolist():  # the rarest: each one more removes less
            hit = (self.columns[key >> 3] & (1 << (key & 7))) != 0
            held = hit if held is None else held & hit
        rows = np.flatnonzero(held)
        if not len(rows):
            return []
        # Consecutive rows are searched as one range.
        breaks = np.flatnonzero(np.diff(rows) != 1)
        firsts = np.concatenate(([rows[0]], rows[breaks + 1]))
        lasts = np.concatenate((rows[breaks], [rows[-1]])) + 1
        return list(zip(firsts.tolist(), lasts.tolist(), strict=True))


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
    *,
    grams: bool = False,
) -> TextWindow | None:
    """The workspace's ``kind`` window at ``version`` (None: read it now), built with
    ``load(workspace_id)`` (``(text, row)`` pairs in result order) when missing; None
    when windows are off, the workspace is gone, or the window is over its size cap.
    ``grams``: the window is searched for 3 characters and more (``RowGrams``)."""
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
    built = _build(load(workspace_id), grams)
    cache.store(key, current, built)
    return built if isinstance(built, TextWindow) else None


def _build(pairs: Iterable[tuple[str, tuple]], grams: bool = False) -> Any:
    """A window of ``pairs``, or ``TOO_LARGE`` as soon as their texts pass
    ``WINDOW_MAX_CHARS`` (the rest is not read: ``load`` may stream from a cursor)."""
    kept: list[tuple[str, tuple]] = []
    total = 0
    for text, row in pairs:
        total += len(text or "")
        if total > WINDOW_MAX_CHARS:
            return TOO_LARGE
        kept.append((text, row))
    return TextWindow(kept, grams=grams)
