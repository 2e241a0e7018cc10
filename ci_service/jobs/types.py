"""What a step handler sees: the ``JobContext``, and the errors it may raise.

A handler is ``fn(ctx)``. It reads its inputs from ``ctx`` (job, workspace_id,
competitor_id, metadata, payload), reports progress with ``ctx.progress(fraction,
message)``, and calls ``ctx.check_cancelled()`` between units of work so a cancel (or a
service shutdown) stops it promptly. It raises ``StepError("clear message")`` to fail its
step with that message; any other exception fails the step with a generic message (the
traceback goes to the server log, never into the API).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from ci_service.store import jobs as store
from ci_service.store.db import database, release_connection
from ci_service.store.jobs import Job


class StepError(Exception):
    """Fails the current step and the job; the message is shown to users as ``error``."""


class _Stop(BaseException):
    """Private control flow, not an error: leaves the handler at once.

    A BaseException, so a handler's ``except Exception`` cannot swallow it.
    """


class JobCancelled(_Stop):
    """The job is no longer this worker's to run (cancelled, or queued again after this
    worker's lease ran out): stop and write nothing."""


class ServiceStopping(_Stop):
    """The service is shutting down: the engine marks the job Interrupted."""


class JobContext:
    """The running job, as its step handlers see it."""

    #: seconds between progress writes when the rounded value keeps changing
    PROGRESS_WRITE_INTERVAL = 0.25

    def __init__(
        self,
        job: Job,
        *,
        stopping: Callable[[], bool] = lambda: False,
        clock: Callable[[], datetime] | None = None,
    ):
        self.job = job
        self.workspace_id: str = job.workspace_id
        self.competitor_id: str | None = job.competitor_id
        self.metadata: dict[str, Any] = dict(job.metadata or {})
        self.payload: dict[str, Any] = dict(job.payload or {})
        self.connection = database  # the worker thread's open connection
        self.step_index = 0
        self.step_count = max(len(job.steps or []), 1)
        self._stopping = stopping
        self.clock = clock
        self._last_write = 0.0
        self._last_value: float | None = None
        # Set by the runner during a fetch step: each progress write or cancel check gives
        # the connection back to the pool, so a crawl waiting on a website holds none.
        self.release_connections = False

    @property
    def step_id(self) -> str | None:
        steps = self.job.steps or []
        return steps[self.step_index]["id"] if self.step_index < len(steps) else None

    def overall_progress(self, fraction: float) -> float:
        """Job progress (0-99) for ``fraction`` (0-1) of the current step done."""
        fraction = min(max(float(fraction), 0.0), 1.0)
        value = (self.step_index + fraction) / self.step_count * 100
        return round(min(value, 99.0), 1)  # 100 is reserved for a completed job

    def progress(self, fraction: float, message: str | None = None) -> None:
        """Report that ``fraction`` (0-1) of the current step is done; also a cancel check."""
        value = self.overall_progress(fraction)
        moment = time.monotonic()
        if value == self._last_value and message is None:
            self.check_cancelled()
            return
        if moment - self._last_write < self.PROGRESS_WRITE_INTERVAL and fraction < 1:
            self.check_cancelled()
            return
        self._last_write, self._last_value = moment, value
        fields: dict[str, Any] = {"progress": value}
        if message is not None:
            fields["progress_message"] = str(message)[:500]
        try:
            written = store.update_running(self.job.id, self.job.attempt, **fields)
        finally:
            self._released()
        if not written:
            raise JobCancelled()
        if self._stopping():
            raise ServiceStopping()

    def _released(self) -> None:
        if self.release_connections:
            release_connection()

    def check_cancelled(self) -> None:
        """Raise (and leave the handler) if the job was cancelled, was queued again while this
        worker was away (its lease ran out), or the service is stopping."""
        try:
            running = store.is_running(self.job.id, self.job.attempt)
        finally:
            self._released()
        if not running:
            raise JobCancelled()
        if self._stopping():
            raise ServiceStopping()
