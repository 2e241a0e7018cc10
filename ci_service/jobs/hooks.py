"""Lifecycle hooks: what a job type does to other resources as its job starts and ends.

The engine calls every hook of a job's type at fixed points, inside the same transaction as
the job's own state change, so a cancelled job never marks its competitor COMPLETE:

- ``on_start(job, now)`` when a worker has claimed the job, before the first step;
- ``before_step(job)`` at every step boundary;
- ``on_success(job, now)`` in the transaction that completes the job;
- ``on_failure(job, now)`` in the transaction that fails, cancels or interrupts it for good;
- ``on_retry(job, now)`` in the transaction that queues an interrupted job again (its
  process died or stopped and it has attempts left): it is not over, so not a failure.

``on_start``, ``before_step`` and ``on_success`` may raise ``StepError`` to fail the job.
"""

from __future__ import annotations

from datetime import datetime

from ci_service.jobs.types import StepError
from ci_service.store.competitors import Competitor
from ci_service.store.jobs import Job

COMPETITOR_GONE = "The competitor was deleted while this job was queued or running"


class JobHooks:
    def on_start(self, job: Job, now: datetime) -> None:
        pass

    def before_step(self, job: Job) -> None:
        pass

    def on_success(self, job: Job, now: datetime) -> None:
        pass

    def on_failure(self, job: Job, now: datetime) -> None:
        pass

    def on_retry(self, job: Job, now: datetime) -> None:
        pass


class RequiresCompetitor(JobHooks):
    """The job works on one competitor of its workspace; fail cleanly if it is gone."""

    def _check(self, job: Job) -> None:
        if job.competitor_id is None:
            raise StepError("This job type needs a competitor")
        if not Competitor.select().where(_match(job)).exists():
            raise StepError(COMPETITOR_GONE)

    def on_start(self, job: Job, now: datetime) -> None:
        self._check(job)

    def before_step(self, job: Job) -> None:
        self._check(job)


class CompetitorAnalysis(RequiresCompetitor):
    """The competitor's status follows its analysis job.

    PROCESSING while the job runs or waits to run again after an interruption, COMPLETE
    with ``last_refresh_at`` on success, ERROR when the job fails, is cancelled or is
    interrupted on its last attempt.
    """

    def on_start(self, job: Job, now: datetime) -> None:
        self._check(job)
        Competitor.update(status="PROCESSING").where(_match(job)).execute()

    def on_success(self, job: Job, now: datetime) -> None:
        updated = (
            Competitor.update(status="COMPLETE", last_refresh_at=now).where(_match(job)).execute()
        )
        if not updated:
            raise StepError(COMPETITOR_GONE)

    def on_failure(self, job: Job, now: datetime) -> None:
        if job.competitor_id is not None:
            Competitor.update(status="ERROR").where(_match(job)).execute()

    def on_retry(self, job: Job, now: datetime) -> None:
        if job.competitor_id is not None:
            Competitor.update(status="PROCESSING").where(_match(job)).execute()


def _match(job: Job):
    return (Competitor.id == job.competitor_id) & (Competitor.workspace == job.workspace_id)
