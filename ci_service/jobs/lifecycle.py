"""Job state changes together with their type's hooks, each in one transaction.

The storage verbs (``ci_service.store.jobs``) only change the job row; these functions run
the job type's hooks (e.g. the competitor's status) in the same transaction, and only when
the job's own change happened, so a job that was cancelled meanwhile changes nothing.
A failed job (not a cancelled one) is a ``job.failed`` event, written in the transaction
that fails it.

Interruptions (issue 25): a job whose process died or stopped runs again while it has
attempts left (``interrupt``, ``recover_orphans``, ``recover_expired``): its type's
``on_retry`` hooks run instead of ``on_failure`` (a collect's competitor stays PROCESSING)
and no event is written. After its last attempt it fails as ``Interrupted`` as before.
Functions that act for a worker pass the attempt it runs, so a worker whose job was queued
again meanwhile changes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from ci_service.jobs.hooks import JobHooks
from ci_service.jobs.registry import REGISTRY
from ci_service.jobs.types import JobCancelled
from ci_service.store import jobs as store
from ci_service.store.db import transaction
from ci_service.store.jobs import Job
from ci_service.timeutil import utcnow

log = logging.getLogger("ci_service.jobs")


def hooks_of(job: Job) -> tuple[JobHooks, ...]:
    job_type = REGISTRY.get(job.type)
    return job_type.hooks if job_type is not None else ()


def start(job: Job, now: datetime) -> None:
    """Run the ``on_start`` hooks; JobCancelled if the job was cancelled since its claim."""
    with transaction():
        if not store.is_running(job.id, job.attempt):
            raise JobCancelled()
        for hook in hooks_of(job):
            hook.on_start(job, now)


def before_step(job: Job) -> None:
    for hook in hooks_of(job):
        hook.before_step(job)


def complete(job: Job, steps: list[dict], now: datetime) -> bool:
    """Complete the job and run ``on_success``; a StepError from a hook undoes both."""
    with transaction():
        if not store.complete(job.id, steps, now, attempt=job.attempt):
            return False
        for hook in hooks_of(job):
            hook.on_success(job, now)
    return True


def fail(
    job: Job,
    error: str,
    steps: list[dict],
    now: datetime,
    *,
    current_step: str | None = None,
) -> bool:
    with transaction():
        if not store.fail(
            job.id, error, steps, now, current_step=current_step, attempt=job.attempt
        ):
            return False
        _failed(job, error, now)
    return True


def interrupt(
    job: Job,
    error: str,
    steps: list[dict],
    now: datetime,
    delay_seconds: float,
    why: str = "the service is stopping",
) -> str | None:
    """A worker's job stopped short (the service is stopping, the database went away):
    queued again as its next run while it has attempts left ("requeued", ``on_retry``
    hooks), else failed with currentStep ``Interrupted`` and ``error`` ("failed"). None when
    the job had already ended or was queued again by another process."""
    if job.attempt >= job.max_attempts:
        done = fail(job, error, steps, now, current_step=store.INTERRUPTED_STEP)
        return "failed" if done else None
    with transaction():
        if not store.requeue(job, now, delay_seconds):
            return None
        _retrying(job, now, why)
    return "requeued"


def _retrying(job: Job, now: datetime, why: str) -> None:
    log.warning(
        "job %s (%s) was interrupted (%s) on attempt %d of %d; it runs again",
        job.id,
        job.type,
        why,
        job.attempt,
        job.max_attempts,
    )
    for hook in hooks_of(job):
        hook.on_retry(job, now)


def _failed(job: Job, error: str, now: datetime) -> None:
    for hook in hooks_of(job):
        hook.on_failure(job, now)
    _failed_event(job, error)


# Called with (job, error) in the transaction that writes a failed status: the alerts'
# ``job.failed`` event, registered by ci_service.services (this layer never imports it).
_FAILED_LISTENERS: list[Callable[[Job, str], None]] = []


def on_job_failed(listener: Callable[[Job, str], None]) -> None:
    """Call ``listener(job, error)`` whenever a job fails for good, in that transaction."""
    if listener not in _FAILED_LISTENERS:
        _FAILED_LISTENERS.append(listener)


def _failed_event(job: Job, error: str) -> None:
    for listener in _FAILED_LISTENERS:
        listener(job, error)


def cancel(job_id: str, now: datetime | None = None) -> bool:
    """Cancel a running job (see ``store.jobs.cancel``) and run ``on_failure``."""
    now = now or utcnow()
    with transaction():
        if not store.cancel(job_id, now):
            return False
        job = Job.get_by_id(job_id)
        for hook in hooks_of(job):
            hook.on_failure(job, now)
    return True


def recover_orphans(
    now: datetime | None = None, delay_seconds: float = store.DEFAULT_RETRY_DELAY_SECONDS
) -> list[Job]:
    """Recover jobs left running by a dead process: queued again while they have attempts
    left, else failed as Interrupted (see the store), with their hooks and events, in one
    transaction. Returns them as they were before."""
    now = now or utcnow()
    with transaction():
        recovered = store.recover_orphans(now, delay_seconds)
        _run_recovery_hooks(recovered, now, lambda job: f"{job.claimed_by} is gone")
    return [job for job, _outcome in recovered]


def recover_expired(
    now: datetime | None = None, delay_seconds: float = store.DEFAULT_RETRY_DELAY_SECONDS
) -> list[Job]:
    """Recover jobs whose lease expired (their process died; any live process may call
    this) as ``recover_orphans`` does, in one transaction; see the store."""
    now = now or utcnow()
    if not store.any_expired(now):  # the usual answer, without taking the write lock
        return []
    with transaction():
        recovered = store.recover_expired(now, delay_seconds)
        _run_recovery_hooks(recovered, now, lambda job: f"the lease of {job.claimed_by} expired")
    return [job for job, _outcome in recovered]


def _run_recovery_hooks(
    recovered: list[tuple[Job, str]], now: datetime, why: Callable[[Job], str]
) -> None:
    """For each job the store just recovered, in the transaction that did it: ``on_retry``
    for one queued again; ``on_failure`` and the ``job.failed`` event for one failed as
    interrupted. Each is logged with ``why(job)``."""
    for job, outcome in recovered:
        if outcome == "requeued":
            _retrying(job, now, why(job))
            continue
        log.warning(
            "job %s (%s) failed as interrupted: %s (attempt %d of %d)",
            job.id,
            job.type,
            why(job),
            job.attempt,
            job.max_attempts,
        )
        _failed(job, store.INTERRUPTED_ERROR, now)
