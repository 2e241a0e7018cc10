"""Two kinds of job work: waiting on websites, and processing what they returned.

A crawl spends nearly all its time waiting: one request to a host per politeness delay
(1 s by default), about 20 ms of CPU per page. So the runner lets many jobs run at once
(``crawl_concurrency``) but lets only ``job_workers`` of them do CPU-bound work at a time:
a step runs in the *processing* lane unless its job type names it a fetch step
(``register(..., fetch_steps=...)``), and code inside a fetch step that does a burst of
CPU work (parsing every page of a site at the end of a crawl) takes a processing slot
for that burst with :func:`processing`.

Slots are per process and per thread re-entrant: a processing step that calls code which
asks for a slot again (a step that re-reads a site when the crawl it stashed is gone)
does not wait for itself.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_local = threading.local()
_slots_lock = threading.Lock()
_slots = threading.BoundedSemaphore(2)
_size = 2


def configure(slots: int) -> None:
    """Allow ``slots`` threads of this process in the processing lane at once (at least 1).

    Called by the runner when it starts; threads already holding a slot keep it.
    """
    global _slots, _size
    slots = max(1, int(slots))
    with _slots_lock:
        if slots != _size:
            _slots, _size = threading.BoundedSemaphore(slots), slots


def size() -> int:
    return _size


def holding() -> bool:
    """Does this thread hold a processing slot now?"""
    return getattr(_local, "depth", 0) > 0


@contextmanager
def processing() -> Iterator[None]:
    """Hold a processing slot for the block (waiting for one if all are taken)."""
    if holding():
        _local.depth += 1
        try:
            yield
        finally:
            _local.depth -= 1
        return
    semaphore = _slots
    semaphore.acquire()
    _local.depth = 1
    try:
        yield
    finally:
        _local.depth = 0
        semaphore.release()


__all__ = ["configure", "holding", "processing", "size"]
