"""A cap on the memory that crawled sites hold while they wait to be processed.

Many crawls run at once (``crawl_concurrency``) and each keeps its pages' markup in a
:class:`~ci_service.pipeline.site.SiteSnapshot` until its job's processing step has read
it. When processing falls behind (a slow extractor, a burst of new competitors), those
snapshots pile up. So every snapshot is counted here, by the size of the text it holds,
from the moment it is read until it is garbage (its job done with it, or dropped from
the step stash); a crawl starts only while the counted total is under
``crawl_memory_mb``, waiting otherwise. It is a cap on starting, not a hard ceiling:
crawls already running finish (each bounded by ``crawl_max_pages`` and
``fetch_max_bytes``), so no crawl ever waits on another that waits on it.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable

WAIT_STEP = 1.0  # seconds between cancel checks while a crawl waits for room


class SnapshotMemory:
    """Bytes held by live snapshots, with a wait-for-room for new crawls."""

    def __init__(self) -> None:
        # Re-entrant: a finalizer may run (garbage collection) while this thread holds it.
        self._changed = threading.Condition(threading.RLock())
        self._held = 0
        self._count = 0

    @property
    def held(self) -> int:
        return self._held

    @property
    def count(self) -> int:
        return self._count

    def track(self, snapshot: object, size: int) -> None:
        """Count ``size`` bytes until ``snapshot`` is garbage."""
        with self._changed:
            self._held += size
            self._count += 1
        weakref.finalize(snapshot, self._release, size)

    def _release(self, size: int) -> None:
        with self._changed:
            self._held -= size
            self._count -= 1
            self._changed.notify_all()

    def wait_for_room(self, limit: int, check: Callable[[], None] | None = None) -> bool:
        """Return once fewer than ``limit`` bytes are held (at once when ``limit`` is 0 or
        no snapshot is held); ``check`` runs every ``WAIT_STEP`` seconds of waiting (a
        cancel check that raises). True when it had to wait."""
        waited = False
        with self._changed:
            while limit > 0 and self._count and self._held >= limit:
                waited = True
                self._changed.wait(WAIT_STEP)
                if check is not None:
                    self._changed.release()
                    try:
                        check()
                    finally:
                        self._changed.acquire()
        return waited


LIVE = SnapshotMemory()


def snapshot_size(snapshot: object) -> int:
    """Roughly the bytes a snapshot's text takes (characters of markup and text)."""
    pages = getattr(snapshot, "pages", [])
    documents = getattr(snapshot, "documents", [])
    return sum(len(p.html) + len(p.text) for p in pages) + sum(len(d.text) for d in documents)


__all__ = ["LIVE", "SnapshotMemory", "snapshot_size"]
