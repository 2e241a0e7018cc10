"""Job state changes together with their type's hooks, each in one transaction.

The storage verbs (``ci_service.store.jobs``) only change the job row; these functions run
the job type's hooks (e.g. the competitor's status) in the same transaction, and only when
the job's own change happened, so a job that was cancelled meanwhile changes nothing.
A failed job (not a cancelled one) is a ``job.failed`` event, written in the transaction
that fails it.
"""

from __future__ import annotations

from datetime import datetime

from ci_service.jobs.hooks import JobHooks
from ci_service.jobs.registry import REGISTRY
from ci_service.jobs.types import JobCancelled
from ci_service.store import jobs as store
from ci_service.store.db import transaction
from ci_service.store.jobs import Job
from ci_service.timeutil import utcnow


def hooks_of(job: Job) -> tuple[JobHooks, ...]:
    job_type = REGISTRY.get(job.type)
    return job_type.hooks if job_type is not None else ()


def start(job: Job, now: datetime) -> None:
    """Run the ``on_start`` hooks; JobCancelled if the job was cancelled since its claim."""
    with transaction():
        if not store.is_running(job.id):
            raise JobCancelled()
        for hook in hooks_of(job):
            hook.on_start(job, now)


def before_step(job: Job) -> None:
    for hook in hooks_of(job):
        hook.before_step(job)


def complete(job: Job, steps: list[dict], now: datetime) -> bool:
    """Complete the job and run ``on_success``; a StepError from a hook undoes both."""
    with transaction():
        if not store.complete(job.id, steps, now):
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
        if not store.fail(job.id, error, steps, now, current_step=current_step):
            return False
        for hook in hooks_of(job):
            hook.on_failure(job, now)
        _failed_event(job, error)
    return True


def _failed_event(job: Job, error: str) -> None:
    """The ``job.failed`` event, in the transaction that writes the failed status."""
    from ci_service.services import change_events

    change_events.job_failed(job, error)


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


def recover_orphans(now: datetime | None = None) -> list[Job]:
    """Fail jobs left running by a dead process (currentStep Interrupted); see the store."""
    now = now or utcnow()
    with transaction():
        orphans = store.recover_orphans(now)
        _run_failure_hooks(orphans, now)
    return orphans


def recover_expired(now: datetime | None = None) -> list[Job]:
    """Fail jobs whose lease expired (their process died; any live process may call this),
    with their hooks and ``job.failed`` events, in one transaction; see the store."""
    now = now or utcnow()
    if not store.any_expired(now):  # the usual answer, without taking the write lock
        return []
    with transaction():
        expired = store.recover_expired(now)
        _run_failure_hooks(expired, now)
    return expired


def _run_failure_hooks(jobs: list[Job], now: datetime) -> None:
    """The ``on_failure`` hooks and ``job.failed`` events of jobs the store just failed as
    interrupted, in the transaction that failed them."""
    for job in jobs:
        for hook in hooks_of(job):
            hook.on_failure(job, now)
        _failed_event(job, store.INTERRUPTED_ERROR)
