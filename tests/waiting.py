"""The one polling helper of the test suite: ``wait_for(condition, timeout, interval, message)``.

Every test that waits for something to happen (a job to end, a server to answer, a file to
appear) polls through it, so a wait that runs out fails the same way everywhere: an
``AssertionError`` naming what was waited for, how long, and the last value seen. Helpers
that wait for one specific thing (``Live.wait_for_job``, ``LiveServer.start``) are thin
wrappers over it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def wait_for(
    condition: Callable[[], T],
    timeout: float = 10.0,
    interval: float = 0.05,
    message: str = "the condition",
    *,
    until: Callable[[T], Any] = bool,
    sleep: Callable[[float], Any] = time.sleep,
) -> T:
    """Call ``condition()`` every ``interval`` seconds until ``until(value)`` holds (by
    default: until the value is truthy) and return that value. After ``timeout`` seconds
    raise ``AssertionError`` with ``message`` and the last value. An exception that
    ``condition`` raises is not caught: it ends the wait at once (a process that died).
    ``sleep`` is what waits between calls (a browser test passes the page's own wait, so
    the page's events go on being handled)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if until(value):
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(
                f"timed out after {timeout:g} s waiting for {message}; last value: {value!r}"
            )
        sleep(interval)
