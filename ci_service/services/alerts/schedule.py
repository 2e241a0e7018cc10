"""When the ``deliver-notifications`` job runs: now, or queued for a retry's time.

The job is a row with a ``run_after`` (``store.jobs``), so it can wait in the queue for a
retry's ``next_attempt_at`` without a worker thread sleeping, and any process's worker
claims it at its time (an idle worker waits no longer than the earliest ``run_after`` of a
queued job, ``jobs.runner``). A workspace has one
delivery job at a time: a queued one is brought forward when something is due sooner, a
running one arms its successor as it ends (:func:`arm_next`), and the scheduler's
30-second scan (:func:`wake`, run by the leader only) arms every workspace whose earliest
pending delivery is due within ``ARM_HORIZON``, so a retry further off is armed before its
time too. Nothing lives only in one process's memory: a leader change or a crash loses no
timer.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from peewee import fn

from ci_service.store.alerts import Delivery, Subscription
from ci_service.store.db import transaction
from ci_service.store.jobs import Job
from ci_service.timeutil import utcnow

JOB_TYPE = "deliver-notifications"
ARM_HORIZON = timedelta(seconds=60)  # more than the scan's 30 s: every retry is armed ahead


def _due(now: datetime):
    return (
        (Delivery.status == "pending")
        & (Delivery.next_attempt_at <= now)
        & ((Subscription.status == "active") | (Delivery.kind == "test"))
    )


def active_job(workspace_id: str) -> Job | None:
    return (
        Job.select()
        .where(Job.workspace == workspace_id, Job.type == JOB_TYPE, Job.status == "running")
        .first()
    )


def ensure_job(workspace_id: str, at: datetime | None = None, *, besides: str | None = None) -> Job:
    """The workspace's delivery job that runs by ``at`` (None: now).

    A queued one that would wait longer is brought forward; a claimed one that is running
    is enough (it arms its successor as it ends, :func:`arm_next`); else a new one, queued
    to run at ``at``. ``besides``: the running job that is arming its successor. Workspace-
    level jobs are not deduplicated by ``enqueue``; the check and the insert share one
    IMMEDIATE transaction here instead.
    """
    from ci_service.jobs.queue import _notify, enqueue

    with transaction():
        query = Job.select().where(
            Job.workspace == workspace_id, Job.type == JOB_TYPE, Job.status == "running"
        )
        if besides is not None:
            query = query.where(Job.id != besides)
        active = list(query.order_by(Job.created_at, Job.id))
        waiting = [job for job in active if job.claimed_at is None]
        if waiting:
            job = waiting[0]
            if job.run_after is not None and (at is None or job.run_after > at):
                Job.update(run_after=at).where(Job.id == job.id, Job.claimed_at.is_null()).execute()
                job.run_after = at
                brought_forward = True
            else:
                brought_forward = False
        elif active:
            return active[0]
        else:
            trigger = "delivery" if at is None else "retry"
            job = enqueue(workspace_id, JOB_TYPE, metadata={"trigger": trigger})
            if at is not None:
                Job.update(run_after=at).where(Job.id == job.id).execute()
                job.run_after = at
            return job
    if brought_forward:
        _notify()  # idle workers of this process look again now (others poll)
    return job


def earliest_pending(workspace_id: str | None, by: datetime) -> datetime | None:
    """When the workspace's first pending delivery that may be sent is due, if by ``by``."""
    query = Delivery.select(fn.MIN(Delivery.next_attempt_at)).join(Subscription).where(_due(by))
    if workspace_id is not None:
        query = query.where(Delivery.workspace == workspace_id)
    value = query.scalar()
    return _as_datetime(value)


def _as_datetime(value) -> datetime | None:
    # peewee converts MIN() with the field's python_value on some versions only.
    if value is None or isinstance(value, datetime):
        return value
    return Delivery.next_attempt_at.python_value(value)


def arm_next(workspace_id: str, now: datetime, besides: str | None = None) -> datetime | None:
    """Queue the workspace's next delivery run for its earliest pending delivery, if that is
    due within ``ARM_HORIZON``; returns that time (None: nothing to arm)."""
    earliest = earliest_pending(workspace_id, now + ARM_HORIZON)
    if earliest is not None:
        ensure_job(workspace_id, at=earliest, besides=besides)
    return earliest


def wake(now: datetime | None = None) -> list[Job]:
    """The 30 s scan: arm the delivery job of every workspace with a pending delivery due
    within ``ARM_HORIZON`` (at once for the due ones); returns the jobs it queued."""
    now = now or utcnow()
    rows = (
        Delivery.select(Delivery.workspace, fn.MIN(Delivery.next_attempt_at))
        .join(Subscription)
        .where(_due(now + ARM_HORIZON))
        .group_by(Delivery.workspace)
        .tuples()
    )
    queued = []
    for workspace_id, earliest in list(rows):
        earliest = _as_datetime(earliest)
        before = active_job(workspace_id)
        job = ensure_job(workspace_id, at=earliest if earliest and earliest > now else None)
        if before is None:
            queued.append(job)
    return queued


__all__ = [
    "ARM_HORIZON",
    "JOB_TYPE",
    "active_job",
    "arm_next",
    "earliest_pending",
    "ensure_job",
    "wake",
]
