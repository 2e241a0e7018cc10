"""Large allocations straight from the kernel and back, in the long-running processes.

glibc serves an allocation above ``M_MMAP_THRESHOLD`` (128 KiB) with its own ``mmap`` and
unmaps it on ``free``, but raises that threshold each time such a block is freed, up to
32 MiB. numpy's temporaries (a search's scores, a batch of embeddings) then come from the
heap of whichever thread made them, and a heap keeps what it once held: four server
threads doing searches kept over 20 MB more resident than the same work with the
threshold fixed (issue 31: serve's RSS after searches at 100,000 intel items, 204 → 181
MB, docs/benchmarks.md). Setting the
threshold explicitly is what fixes it (``mallopt``'s documented effect); the cost is a
``mmap``/``munmap`` pair per large temporary, which the benchmark's search figures do
not show.
"""

from __future__ import annotations

import ctypes
import logging

log = logging.getLogger(__name__)

M_MMAP_THRESHOLD = -3  # from glibc's malloc.h
MMAP_THRESHOLD_BYTES = 128 * 1024  # glibc's starting value, now kept


def fix_mmap_threshold() -> bool:
    """Keep glibc's mmap threshold at 128 KiB in this process; False where the C library
    has no ``mallopt`` (macOS), which has no such threshold to fix."""
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the C library the interpreter runs on
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    done = mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES) == 1
    if not done:
        log.debug("mallopt(M_MMAP_THRESHOLD) refused")
    return done
