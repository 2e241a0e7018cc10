"""``run_coroutine``: ``asyncio.run`` for the tests that drive the MCP SDK's async client.

Tests run in parallel worker processes (pytest-xdist, ``--dist loadfile``), and a worker
runs whatever files it is given in whatever order: a browser test before an SDK test
leaves Playwright's sync API with an event loop running on the worker's main thread for
the rest of the session, where ``asyncio.run`` refuses to start. A thread of its own has
no loop, so the coroutine runs there, and its result or exception comes back here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run_coroutine(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coroutine)`` on a new thread; its result, or its exception raised."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="test-asyncio") as pool:
        return pool.submit(asyncio.run, coroutine).result()
