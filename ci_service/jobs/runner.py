"""The job runner: a small pool of worker threads fed from the ``job`` table.

Each worker loops on ``run_once()``: claim the oldest queued job (one IMMEDIATE
transaction), run its steps in order, record the outcome. ``run_once(now=None)`` is also
what tests call by hand with ``job_workers=0`` (no threads at all).

- Workers wake at once when a job is enqueued in this process (a queue listener sets an
  event); jobs enqueued by another process (the CLI, another server) are found by a poll,
  with an idle back-off from ``MIN_IDLE`` to ``poll_interval`` (2 s) seconds. An idle
  worker waits no longer than until the earliest ``run_after`` of a queued job, so a job
  queued for later (a delivery retry, issue 29) is claimed at its time, not up to a poll
  late.
- Leases (issue 15): every claim carries a lease of ``lease_seconds``. A keeper thread
  renews the leases of the jobs this runner holds every ``lease_seconds / 3`` and, at start
  and on the same beat, recovers the jobs of any process whose lease expired (that process
  died). ``renew_leases(now)`` and ``recover_expired(now)`` are the single steps, for tests
  with an injected clock.
- Retries (issue 25): a recovered job, or one this runner stops at shutdown, runs again
  while it has attempts left, ``retry_delay_seconds`` later (doubling per attempt); the
  steps are safe to repeat. Only an interruption is retried: a step that fails with an
  error fails the job at once, since running it again would fail the same way.
- One bad job never kills the loop: anything a job raises is caught, logged and recorded
  as that job's failure.
- ``stop(timeout)`` is idempotent: it asks the workers to stop, and a job still running
  stops at its next step boundary (or ``ctx.check_cancelled()``) and is queued again (or,
  on its last attempt, failed as Interrupted).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from datetime import datetime

from peewee import fn

from ci_service.errors import ServiceError
from ci_service.jobs import lanes, lifecycle, queue
from ci_service.jobs.registry import REGISTRY
from ci_service.jobs.types import JobCancelled, JobContext, ServiceStopping, StepError
from ci_service.store import jobs as store
from ci_service.store.db import (
    connection,
    connection_lost,
    discard_connection,
    outage,
    release_connection,
)
from ci_service.store.jobs import DEFAULT_LEASE_SECONDS, DEFAULT_RETRY_DELAY_SECONDS, Job
from ci_service.timeutil import utcnow

log = logging.getLogger("ci_service.jobs")

FAILED_STEP = "Failed"
STOPPED_ERROR = "The service was stopped while this job was running; start it again"
DATABASE_ERROR = "The database went away while this job was running; start it again"


_FINISHED: list[Callable[[str], None]] = []


def on_job_finished(listener: Callable[[str], None]) -> None:
    """Call ``listener(job_id)`` whenever this process stops running a job, whatever the
    outcome (what a job kept in memory between its steps can go then)."""
    if listener not in _FINISHED:
        _FINISHED.append(listener)


def _message(step_name: str, exc: BaseException) -> str:
    if isinstance(exc, StepError | ServiceError):
        text = str(exc) or "failed"
        return f"{step_name}: {text}" if step_name else text
    return f"{step_name}: unexpected error ({type(exc).__name__}); see the service log"


def execute(
    job: Job,
    *,
    stopping: Callable[[], bool] = lambda: False,
    clock: Callable[[], datetime] = utcnow,
    retry_delay_seconds: float = DEFAULT_RETRY_DELAY_SECONDS,
) -> str:
    """Run a claimed job's steps; return its outcome: completed, failed, cancelled (also:
    no longer this run's, see ``JobCancelled``) or requeued (stopped by the service, to run
    again)."""
    steps = [dict(s) for s in job.steps or []]
    job_type = REGISTRY.get(job.type)
    if job_type is None:
        lifecycle.fail(
            job, f"Unknown job type '{job.type}'", steps, clock(), current_step=FAILED_STEP
        )
        return "failed"
    ctx = JobContext(job, stopping=stopping, clock=clock)
    step_name = ""
    try:
        lifecycle.start(job, clock())
        for index, step in enumerate(steps):
            ctx.step_index = index
            step_name = step.get("name", step.get("id", ""))
            ctx.check_cancelled()
            step["status"] = "running"
            if not store.update_running(
                job.id,
                job.attempt,
                steps=steps,
                current_step=step_name,
                progress_message=None,
                progress=ctx.overall_progress(0),
            ):
                raise JobCancelled()
            lifecycle.before_step(job)
            handler = job_type.handlers.get(step.get("id"))
            if handler is not None:
                _run_step(ctx, handler, step.get("id") in job_type.fetch_steps)
            step["status"] = "completed"
            if index < len(steps) - 1:
                if not store.update_running(
                    job.id, job.attempt, steps=steps, progress=ctx.overall_progress(1)
                ):
                    raise JobCancelled()
        step_name = ""
        if not lifecycle.complete(job, steps, clock()):
            return "cancelled"
        return "completed"
    except JobCancelled:
        log.info("job %s (%s) stopped: cancelled", job.id, job.type)
        return "cancelled"
    except ServiceStopping:
        _mark_running_failed(steps)
        outcome = lifecycle.interrupt(job, STOPPED_ERROR, steps, clock(), retry_delay_seconds)
        return outcome or "cancelled"
    except Exception as exc:
        if outage(exc) is not None:
            # The database restarted, failed over or stayed locked: not the job's fault, so
            # an interruption, run again like a killed worker's job (the steps are safe to
            # repeat), recorded on a new connection.
            log.warning("job %s (%s): database unavailable in step %r", job.id, job.type,
                        step_name)  # fmt: skip
            connection_lost()
            _mark_running_failed(steps)
            outcome = lifecycle.interrupt(
                job, DATABASE_ERROR, steps, clock(), retry_delay_seconds,
                why="the database went away",
            )  # fmt: skip
            return outcome or "cancelled"
        if not isinstance(exc, StepError | ServiceError):
            log.exception("job %s (%s) failed in step %r", job.id, job.type, step_name)
        _mark_running_failed(steps)
        # Outside a step (start or completion hooks): say Failed rather than a stale name.
        where = None if step_name else FAILED_STEP
        lifecycle.fail(job, _message(step_name, exc), steps, clock(), current_step=where)
        return "failed"


def _run_step(ctx: JobContext, handler: Callable, fetches: bool) -> None:
    """Run one step in its lane. A fetch step holds no database connection while it waits
    on websites (its context opens one for each progress write or cancel check); any
    other step holds a processing slot, given up while it waits for one."""
    if fetches:
        release_connection()
        ctx.release_connections = True
        try:
            handler(ctx)
        finally:
            ctx.release_connections = False
        return
    if lanes.holding():
        handler(ctx)
        return
    release_connection()  # not held while waiting for a slot
    with lanes.processing():
        ctx.check_cancelled()  # it may have been cancelled meanwhile
        handler(ctx)


def _mark_running_failed(steps: list[dict]) -> None:
    for step in steps:
        if step.get("status") == "running":
            step["status"] = "failed"


class JobRunner:
    """``workers`` threads claim jobs; 0 workers: step it by hand with ``run_once()``.

    With ``concurrency`` above ``workers``, a claimed job runs on a thread of its own and
    the claimers go on claiming while fewer than ``concurrency`` jobs run: most of them
    wait on websites (fetch steps), while at most ``workers`` at a time are in the
    processing lane (``ci_service.jobs.lanes``). Only the claimers poll the database.
    """

    MIN_IDLE = 0.05

    def __init__(
        self,
        workers: int = 0,
        *,
        concurrency: int = 0,
        poll_interval: float = 2.0,
        clock: Callable[[], datetime] = utcnow,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        retry_delay_seconds: float = DEFAULT_RETRY_DELAY_SECONDS,
    ):
        if not lease_seconds > 0:
            raise ValueError(f"the job lease must be more than 0 seconds, not {lease_seconds}")
        if not retry_delay_seconds >= 0:
            raise ValueError(
                f"the retry delay must be 0 seconds or more, not {retry_delay_seconds}"
            )
        self.workers = workers
        # Jobs this runner runs at once: each beyond the claimers' own on a thread of its own.
        self.concurrency = max(workers, concurrency)
        self._capacity = threading.BoundedSemaphore(max(self.concurrency, 1))
        self._job_threads: set[threading.Thread] = set()
        self._job_threads_lock = threading.Lock()  # not _lock: stop() holds that while joining
        self.retry_delay_seconds = float(retry_delay_seconds)
        self.poll_interval = poll_interval
        self.clock = clock
        self.lease_seconds = float(lease_seconds)
        self.identity = f"{socket.gethostname()}:{os.getpid()}"
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._held: dict[str, str] = {}  # job id -> worker name, while this runner runs it
        self._held_lock = threading.Lock()

    # -- one step, usable without threads
    def run_once(self, now: datetime | None = None) -> str | None:
        """Claim and run the oldest queued job; return its id, or None if none was queued."""
        worker = f"{self.identity}:{threading.current_thread().name}"
        with connection():
            job = self._claim(worker, now)
            if job is None:
                return None
            self._run(job, worker)
            return job.id

    def _claim(self, worker: str, now: datetime | None = None) -> Job | None:
        try:
            job = store.claim(worker, now or self.clock(), lease_seconds=self.lease_seconds)
        except Exception:
            log.exception("could not claim a job")
            return None
        if job is not None:
            with self._held_lock:
                self._held[job.id] = worker
        return job

    def _run(self, job: Job, worker: str) -> None:
        """Run a claimed job to its outcome (within a connection scope)."""
        try:
            outcome = execute(
                job,
                stopping=self._stopping.is_set,
                clock=self.clock,
                retry_delay_seconds=self.retry_delay_seconds,
            )
            log.info("job %s (%s) %s", job.id, job.type, outcome)
        except Exception:
            # The engine itself failed (e.g. the database went away mid-write).
            log.exception("job %s (%s): engine error", job.id, job.type)
            discard_connection()  # it may be the broken one: record on a new one
            try:
                lifecycle.fail(job, "Internal error while running the job", job.steps, utcnow())
            except Exception:
                log.exception("job %s: could not record the failure", job.id)
        finally:
            with self._held_lock:
                self._held.pop(job.id, None)
            for listener in _FINISHED:
                try:
                    listener(job.id)
                except Exception:
                    log.exception("job %s: a finish listener failed", job.id)

    # -- leases, usable without threads
    @property
    def held(self) -> list[str]:
        """Ids of the jobs this runner is running now."""
        with self._held_lock:
            return list(self._held)

    def renew_leases(self, now: datetime | None = None) -> int:
        """Extend the leases of the jobs this runner holds (one UPDATE); how many."""
        with self._held_lock:
            job_ids, workers = list(self._held), sorted(set(self._held.values()))
        if not job_ids:
            return 0
        with connection():
            return store.renew_leases(job_ids, workers, self.lease_seconds, now or self.clock())

    def recover_expired(self, now: datetime | None = None) -> list[Job]:
        """Recover the jobs whose lease expired (any process's): queued again, or failed as
        interrupted after their last attempt; return them as they were."""
        with connection():  # lifecycle logs each job it recovers
            return lifecycle.recover_expired(now or self.clock(), self.retry_delay_seconds)

    def _keep_leases(self) -> None:
        while True:
            for step in (self.renew_leases, self.recover_expired):
                try:
                    step()
                except Exception:  # the database may be away for a moment: try next beat
                    log.exception("job lease %s failed", step.__name__)
            if self._stopping.wait(self.lease_seconds / 3):
                return

    def run_until_idle(self, max_jobs: int = 1000) -> int:
        """Run queued jobs until none is left (tests); returns how many ran."""
        count = 0
        while count < max_jobs and self.run_once() is not None:
            count += 1
        return count

    # -- the thread pool
    @property
    def running(self) -> bool:
        return any(t.is_alive() for t in self._threads)

    def nudge(self) -> None:
        """Wake idle workers now (a job was enqueued)."""
        self._wake.set()

    def start(self, *, keep_leases: bool = False) -> None:
        """Start the worker threads and the lease keeper. ``keep_leases``: start the keeper
        even with 0 workers, so a web-only process still fails the jobs of dead ones."""
        with self._lock:
            if self._threads or (self.workers <= 0 and not keep_leases):
                return
            self._stopping.clear()
            if self.workers > 0:
                lanes.configure(self.workers)
            queue.add_listener(self.nudge)
            keeper = threading.Thread(target=self._keep_leases, name="ci-job-leases", daemon=True)
            self._threads.append(keeper)
            keeper.start()
            for number in range(self.workers):
                thread = threading.Thread(
                    target=self._loop, name=f"ci-job-worker-{number + 1}", daemon=True
                )
                self._threads.append(thread)
                thread.start()

    def _loop(self) -> None:
        idle = self.MIN_IDLE
        while not self._stopping.is_set():
            # Cleared before looking, so a nudge that arrives meanwhile is not lost.
            self._wake.clear()
            try:
                ran = self._claim_next()
            except Exception:  # pragma: no cover - run_once already catches everything
                log.exception("job worker error")
                ran = None
            if ran is not None:
                idle = self.MIN_IDLE
                continue
            if self._wake.wait(self._until_due(idle)):
                idle = self.MIN_IDLE
            else:
                idle = min(idle * 2, self.poll_interval)

    def _claim_next(self) -> str | None:
        """One claim: with no room beyond the claimers, run the job on this thread; else
        on a thread of its own, once fewer than ``concurrency`` jobs run (waiting for that
        first, so no job is claimed that would then wait for a thread)."""
        if self.concurrency <= self.workers:
            return self.run_once()
        while not self._capacity.acquire(timeout=self.poll_interval):
            if self._stopping.is_set():
                return None
        worker = f"{self.identity}:{threading.current_thread().name}"
        try:
            with connection():
                job = self._claim(worker)
        except BaseException:
            self._capacity.release()
            raise
        if job is None:
            self._capacity.release()
            return None
        thread = threading.Thread(
            target=self._run_alone, args=(job, worker), name=f"ci-job-{job.id}", daemon=True
        )
        with self._job_threads_lock:
            self._job_threads.add(thread)
        thread.start()
        return job.id

    def _run_alone(self, job: Job, worker: str) -> None:
        try:
            with connection():
                self._run(job, worker)
        except Exception:  # pragma: no cover - _run already catches everything
            log.exception("job %s: worker error", job.id)
        finally:
            with self._job_threads_lock:
                self._job_threads.discard(threading.current_thread())
            self._capacity.release()

    def _until_due(self, idle: float) -> float:
        """``idle``, or less when a queued job's ``run_after`` comes sooner."""
        try:
            with connection():
                soonest = (
                    Job.select(fn.MIN(Job.run_after))
                    .where(Job.status == "running", Job.claimed_at.is_null())
                    .scalar()
                )
        except Exception:  # the database may be away for a moment: the poll finds out
            return idle
        if soonest is None:
            return idle
        if not isinstance(soonest, datetime):
            soonest = Job.run_after.python_value(soonest)
        return min(idle, max((soonest - self.clock()).total_seconds(), self.MIN_IDLE))

    def stop(self, timeout: float = 10.0) -> bool:
        """Stop the workers within ``timeout`` seconds; True if all of them ended. Idempotent."""
        with self._lock:
            queue.remove_listener(self.nudge)
            self._stopping.set()
            self._wake.set()
            deadline = time.monotonic() + max(timeout, 0)
            for thread in self._threads:
                thread.join(max(deadline - time.monotonic(), 0))
            with self._job_threads_lock:
                job_threads = list(self._job_threads)
            for thread in job_threads:
                thread.join(max(deadline - time.monotonic(), 0))
            alive = [t for t in self._threads + job_threads if t.is_alive()]
            if alive:
                log.warning("%d job worker(s) still busy at shutdown", len(alive))
            self._threads = alive
            return not alive
