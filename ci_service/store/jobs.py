"""Background jobs, persisted so they survive a busy pool and a restart.

The storage interface is a handful of verbs with contracts (after huey's ``BaseStorage``):
``claim``, ``update_running``, ``complete``, ``fail``, ``cancel`` and ``recover_orphans``
(``enqueue`` lives in ``ci_service.jobs.queue`` because it needs the job-type registry).
Rows are never deleted on dequeue: a claimed job keeps its row, so a crash can be seen and
recovered.

Every write that changes a job is guarded with ``status = 'running'``: once a job is
completed, failed or cancelled, no later write (from a slow worker, say) can resurrect it.

Internal states: a job is exposed as ``running`` from the moment it is queued. While no
worker has claimed it, ``claimed_at`` is null and ``current_step`` is ``Queued``.

Leases (issue 15): a claim stamps ``lease_expires_at``, which the claiming process renews
(``renew_leases``) while it runs the job. Several processes share one PostgreSQL database,
so a job whose lease ran out (its process died) is recovered by any live process
(``recover_expired``), not by the next one to start. A claimed job without a lease has no
one renewing it and counts as expired.

Retries (issue 25): a job whose process died (``recover_orphans``, ``recover_expired``) or
stopped (``requeue``) runs again while it has attempts left: ``attempt`` goes up by one,
its steps go back to pending and it is not claimed before ``run_after`` (a back-off that
doubles per attempt). Only after its ``max_attempts``-th run is it failed as
``Interrupted``. Every write a worker makes on its job is guarded by the attempt it runs
too (``attempt=``), so a worker that was frozen and comes back after its job was queued
again (a SIGSTOPped process, say) can no longer write on it: it stops at its next check.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from peewee import (
    BlobField,
    BooleanField,
    CharField,
    FloatField,
    ForeignKeyField,
    IntegerField,
    TextField,
)

from ci_service.store.base import BaseModel, JSONField, UTCDateTimeField
from ci_service.store.engine import database, is_postgres, transaction
from ci_service.store.identity import Workspace
from ci_service.timeutil import utcnow

JOB_STATUSES = ("running", "completed", "failed")
STEP_STATUSES = ("pending", "running", "completed", "failed")

QUEUED_STEP = "Queued"
COMPLETED_STEP = "Completed"
CANCELLED_STEP = "Cancelled"
INTERRUPTED_STEP = "Interrupted"

CANCELLED_ERROR = "The job was cancelled"
INTERRUPTED_ERROR = "The service stopped while this job was running; start it again"

DEFAULT_LEASE_SECONDS = 60.0
DEFAULT_MAX_ATTEMPTS = 3
DEFAULT_RETRY_DELAY_SECONDS = 30.0
MAX_RETRY_DELAY_SECONDS = 3600.0  # the doubling stops at an hour


def retry_step(attempt: int, max_attempts: int) -> str:
    """``currentStep`` of a job queued again, waiting for its next run."""
    return f"Retrying (attempt {attempt} of {max_attempts})"


def retry_delay(base_seconds: float, failed_attempt: int) -> float:
    """Seconds before the run after ``failed_attempt`` (1-based): base, 2x base, 4x base..."""
    exponent = min(max(failed_attempt, 1) - 1, 30)
    return min(max(float(base_seconds), 0.0) * 2**exponent, MAX_RETRY_DELAY_SECONDS)


class Job(BaseModel):
    workspace = ForeignKeyField(Workspace, backref="jobs", on_delete="CASCADE")
    # Plain id, not a foreign key: a job's history outlives a deleted competitor.
    competitor_id = CharField(max_length=64, null=True, index=True)
    type = CharField(max_length=64, index=True)
    display_title = CharField(max_length=300)
    status = CharField(max_length=20, default="running", index=True)
    progress = FloatField(default=0)
    current_step = CharField(max_length=200, default=QUEUED_STEP)
    progress_message = TextField(null=True)  # what the current step says it is doing
    steps = JSONField(default=list)  # [{id, name, status}]
    metadata = JSONField(default=dict)
    payload = JSONField(default=dict)  # arguments for the handler (JSON, never pickle)
    error = TextField(null=True)  # why a failed job failed (user-facing, no tracebacks)
    cancel_requested = BooleanField(default=False)
    created_at = UTCDateTimeField(default=utcnow, index=True)
    started_at = UTCDateTimeField(default=utcnow)  # reset when a worker claims the job
    claimed_at = UTCDateTimeField(null=True)  # None: queued, waiting for a worker
    claimed_by = CharField(max_length=200, null=True)  # "host:pid:thread" of the worker
    completed_at = UTCDateTimeField(null=True)
    lease_expires_at = UTCDateTimeField(null=True)  # renewed by the worker (migration 0013)
    # Retries (migration 0017): the run this is (1-based), how many runs it may have, and
    # the earliest time a worker may claim it again after an interruption.
    attempt = IntegerField(default=1)
    max_attempts = IntegerField(default=DEFAULT_MAX_ATTEMPTS)
    run_after = UTCDateTimeField(null=True)

    class Meta:
        indexes = ((("status", "claimed_at", "created_at"), False),)


# At most one active job of a type per competitor, enforced by the database too: enqueue
# checks first inside an IMMEDIATE transaction, and this partial index is the backstop.
Job.add_index(
    Job.index(
        Job.workspace,
        Job.competitor_id,
        Job.type,
        unique=True,
        where=(Job.status == "running") & Job.competitor_id.is_null(False),
        name="job_one_active_per_competitor",
    )
)


class JobUpload(BaseModel):
    """An uploaded document waiting for its job, in the database (PostgreSQL), so a worker
    on another machine can read it; SQLite installations spool it to a file beside the
    database instead (services/collection/offering_jobs.py)."""

    data = BlobField()
    created_at = UTCDateTimeField(default=utcnow)


def _running(job_id: str, attempt: int | None = None):
    """The job, still running (and still on run ``attempt`` when given)."""
    where = (Job.id == job_id) & (Job.status == "running")
    return where if attempt is None else where & (Job.attempt == attempt)


def is_running(job_id: str, attempt: int | None = None) -> bool:
    """Whether the job still runs (on run ``attempt``, when given: a worker's own run)."""
    return Job.select().where(_running(job_id, attempt)).exists()


def claim(
    worker: str, now: datetime | None = None, *, lease_seconds: float | None = None
) -> Job | None:
    """Take the oldest queued job for ``worker``, or None when the queue is empty.

    Stamps ``claimed_at``/``claimed_by`` and a lease of ``lease_seconds`` (None: no lease, so
    any process may recover the job at once; the runner always passes one). A job queued
    again after an interruption is not taken before its ``run_after``. Two workers
    (threads or processes) never claim the same job, and the row stays in place:

    - SQLite: one IMMEDIATE transaction (one writer at a time) selects and stamps the job.
    - PostgreSQL: ``SELECT ... FOR UPDATE SKIP LOCKED`` in a plain transaction, so parallel
      claims take different rows at once, without waiting on the global write lock.
    """
    now = now or utcnow()
    lease = now + timedelta(seconds=lease_seconds) if lease_seconds is not None else None
    queued = (
        Job.select()
        .where(
            Job.status == "running",
            Job.claimed_at.is_null(),
            Job.run_after.is_null() | (Job.run_after <= now),  # a retry waits its back-off
        )
        .order_by(Job.created_at, Job.id)
        .limit(1)
    )
    postgres = is_postgres()
    with database.atomic() if postgres else transaction():
        if postgres:
            queued = queued.for_update(skip_locked=True)
        job = queued.first()
        if job is None:
            return None
        stamped = (
            Job.update(claimed_at=now, claimed_by=worker, started_at=now, lease_expires_at=lease)
            .where(_running(job.id), Job.claimed_at.is_null())
            .execute()
        )
        if stamped != 1:  # cancelled meanwhile (the row lock or the write lock says so)
            return None
    job.claimed_at = job.started_at = now
    job.claimed_by = worker
    job.lease_expires_at = lease
    return job


def renew_leases(
    job_ids: list[str], workers: list[str], lease_seconds: float, now: datetime | None = None
) -> int:
    """Extend the leases of ``job_ids`` still running and claimed by one of ``workers``
    (one statement, no write lock); returns how many were renewed."""
    if not job_ids:
        return 0
    expires = (now or utcnow()) + timedelta(seconds=lease_seconds)
    return (
        Job.update(lease_expires_at=expires)
        .where(Job.id.in_(job_ids), Job.status == "running", Job.claimed_by.in_(workers))
        .execute()
    )


def _expired(now: datetime):
    return (
        (Job.status == "running")
        & Job.claimed_at.is_null(False)
        & (Job.lease_expires_at.is_null() | (Job.lease_expires_at < now))
    )


def update_running(job_id: str, attempt: int | None = None, **fields: Any) -> bool:
    """Write ``fields`` on a job that is still running (on run ``attempt``, when given);
    False (nothing written) if not."""
    with transaction():
        return Job.update(**fields).where(_running(job_id, attempt)).execute() == 1


def complete(
    job_id: str, steps: list[dict], now: datetime | None = None, *, attempt: int | None = None
) -> bool:
    """Mark a running job completed at 100%; False if it already finished (e.g. cancelled)
    or, with ``attempt``, was queued again meanwhile."""
    return update_running(
        job_id,
        attempt,
        status="completed",
        progress=100.0,
        current_step=COMPLETED_STEP,
        progress_message=None,
        steps=steps,
        completed_at=now or utcnow(),
    )


def fail(
    job_id: str,
    error: str,
    steps: list[dict],
    now: datetime | None = None,
    *,
    current_step: str | None = None,
    attempt: int | None = None,
) -> bool:
    """Mark a running job failed with ``error``; False if it already finished (or, with
    ``attempt``, was queued again meanwhile).

    ``current_step`` stays at the failed step's name unless given (e.g. ``Interrupted``).
    """
    fields: dict[str, Any] = {
        "status": "failed",
        "error": error[:2000],
        "steps": steps,
        "progress_message": None,
        "completed_at": now or utcnow(),
    }
    if current_step is not None:
        fields["current_step"] = current_step
    return update_running(job_id, attempt, **fields)


def _fail_running_steps(steps: list[dict]) -> list[dict]:
    return [{**s, "status": "failed"} if s.get("status") == "running" else s for s in steps]


def cancel(job_id: str, now: datetime | None = None) -> bool:
    """Cancel a running job at once: failed, currentStep ``Cancelled``, in one transaction.

    The worker sees ``status`` at its next step boundary or check and stops without writing.
    Returns False when the job is not running (nothing changed).
    """
    with transaction():
        job = Job.get_or_none(_running(job_id))
        if job is None:
            return False
        return update_running(
            job_id,
            status="failed",
            current_step=CANCELLED_STEP,
            cancel_requested=True,
            error=CANCELLED_ERROR,
            progress_message=None,
            steps=_fail_running_steps(job.steps),
            completed_at=now or utcnow(),
        )


def _reset_steps(steps: list[dict]) -> list[dict]:
    return [{**s, "status": "pending"} for s in steps]


def _this_run(job: Job, now: datetime, expired_only: bool):
    """The job still on run ``job.attempt`` (and, ``expired_only``, with its lease expired)."""
    guard = _running(job.id, job.attempt)
    return guard & _expired(now) if expired_only else guard


def requeue(job: Job, now: datetime, delay_seconds: float, *, expired_only: bool = False) -> bool:
    """Queue ``job`` (as read, on run ``job.attempt``) again as its next run: unclaimed, its
    steps pending, progress 0, ``currentStep`` ``Retrying (attempt n of N)``, not claimed
    before ``now`` + the back-off of ``retry_delay(delay_seconds, job.attempt)``.

    The caller checks that an attempt is left. False (nothing written) when the job is no
    longer on that run: finished, cancelled, or recovered by another process already; with
    ``expired_only``, also when its lease was renewed meanwhile."""
    attempt = job.attempt + 1
    changed = (
        Job.update(
            attempt=attempt,
            run_after=now + timedelta(seconds=retry_delay(delay_seconds, job.attempt)),
            claimed_at=None,
            claimed_by=None,
            lease_expires_at=None,
            progress=0,
            current_step=retry_step(attempt, job.max_attempts),
            progress_message=None,
            steps=_reset_steps(job.steps or []),
        )
        .where(_this_run(job, now, expired_only))
        .execute()
    )
    return changed == 1


def _recover(job: Job, now: datetime, delay_seconds: float, *, expired_only: bool) -> str | None:
    """Queue a claimed job whose process is gone again, or fail it as Interrupted after its
    last attempt: "requeued", "failed", or None when another process got there first."""
    if job.attempt < job.max_attempts:
        return "requeued" if requeue(job, now, delay_seconds, expired_only=expired_only) else None
    changed = (
        Job.update(
            status="failed",
            error=INTERRUPTED_ERROR,
            steps=_fail_running_steps(job.steps),
            progress_message=None,
            current_step=INTERRUPTED_STEP,
            completed_at=now,
        )
        .where(_this_run(job, now, expired_only))
        .execute()
    )
    return "failed" if changed == 1 else None


def recover_orphans(
    now: datetime | None = None, delay_seconds: float = DEFAULT_RETRY_DELAY_SECONDS
) -> list[tuple[Job, str]]:
    """Recover every claimed job that is still running: call it when no worker is alive.

    A job with attempts left is queued again (``requeue``); one on its last attempt is
    failed with currentStep ``Interrupted``. Queued (unclaimed) jobs are left alone and
    run. Returns ``(job as it was before, "requeued" or "failed")`` pairs.
    """
    now = now or utcnow()
    recovered = []
    with transaction():
        orphans = Job.select().where(Job.status == "running", Job.claimed_at.is_null(False))
        for job in list(orphans.order_by(Job.created_at)):
            outcome = _recover(job, now, delay_seconds, expired_only=False)
            if outcome is not None:
                recovered.append((job, outcome))
    return recovered


def any_expired(now: datetime | None = None) -> bool:
    """Whether a claimed job's lease expired before ``now`` (a read, no lock)."""
    return Job.select().where(_expired(now or utcnow())).exists()


def recover_expired(
    now: datetime | None = None, delay_seconds: float = DEFAULT_RETRY_DELAY_SECONDS
) -> list[tuple[Job, str]]:
    """Recover every claimed job whose lease expired before ``now`` (its process died), as
    ``recover_orphans`` does: queued again while it has attempts left, else failed as
    ``Interrupted``.

    Safe to call from every process at once: each job is recovered by exactly one of them,
    and a lease renewed meanwhile is left alone (the guarded update re-checks it). Returns
    ``(job as it was before, "requeued" or "failed")`` pairs.
    """
    now = now or utcnow()
    recovered = []
    with transaction():
        for job in Job.select().where(_expired(now)).order_by(Job.created_at):
            outcome = _recover(job, now, delay_seconds, expired_only=True)
            if outcome is not None:
                recovered.append((job, outcome))
    return recovered
