"""Jobs as the REST API, the CLI and the tool server see them.

``workspace_id=None`` is the operator's view (the CLI): every workspace. REST and tools
always pass the caller's workspace, and another workspace's job is a 404.
"""

from __future__ import annotations

from typing import Any

from ci_service.errors import NotFound, ValidationFailed
from ci_service.jobs import lifecycle
from ci_service.jobs.queue import enqueue
from ci_service.jobs.registry import COLLECT
from ci_service.services.common.records import get_competitor as _competitor
from ci_service.store.jobs import JOB_STATUSES, Job
from ci_service.timeutil import iso

LIST_CAP = 1000


def _number(value: float) -> float | int:
    value = round(float(value or 0), 1)
    return int(value) if value.is_integer() else value


def job_to_dict(job: Job) -> dict[str, Any]:
    """The spec's Job object; ``error`` is added when the job failed. Beyond the spec
    (issue 25): ``attempt`` (the run it is on, from 1) and ``maxAttempts`` (how many runs
    interruptions may cost it), and ``retryAt`` while it waits to run again."""
    data: dict[str, Any] = {
        "id": job.id,
        "workspaceId": job.workspace_id,
        "competitorId": job.competitor_id,
        "type": job.type,
        "displayTitle": job.display_title,
        "status": job.status,
        "progress": _number(job.progress),
        "currentStep": job.current_step,
        "steps": [
            {"id": s.get("id"), "name": s.get("name"), "status": s.get("status")}
            for s in job.steps or []
        ],
        "startedAt": iso(job.started_at),
        "completedAt": iso(job.completed_at),
        "metadata": dict(job.metadata or {}),
        "attempt": job.attempt,
        "maxAttempts": job.max_attempts,
    }
    if job.status == "running" and job.claimed_at is None and job.run_after is not None:
        data["retryAt"] = iso(job.run_after)
    if job.status == "running" and job.progress_message:
        data["progressMessage"] = job.progress_message
    if job.status == "failed":
        data["error"] = job.error or "The job failed"
    return data


def job_summary(job: Job) -> dict[str, Any]:
    """``{id, status, progress, currentStep}``: the cancel response and a competitor's
    ``currentJob``."""
    return {
        "id": job.id,
        "status": job.status,
        "progress": _number(job.progress),
        "currentStep": job.current_step,
    }


def list_jobs(
    workspace_id: str | None,
    *,
    competitor_id: str | None = None,
    job_type: str | None = None,
    status: str | None = None,
    limit: int | None = None,
) -> list[Job]:
    """Jobs newest first. With ``competitor_id``: that competitor's jobs (404 unless it is a
    competitor of the workspace); without: all of the workspace's jobs."""
    if status is not None and status not in JOB_STATUSES:
        raise ValidationFailed.field("status", f"must be one of {', '.join(JOB_STATUSES)}")
    if limit is not None and not (1 <= limit <= LIST_CAP):
        raise ValidationFailed.field("limit", f"must be between 1 and {LIST_CAP}")
    query = Job.select()
    if workspace_id is not None:
        query = query.where(Job.workspace == workspace_id)
        if competitor_id is not None:
            _competitor(workspace_id, competitor_id)
    if competitor_id is not None:
        query = query.where(Job.competitor_id == competitor_id)
    if job_type is not None:
        query = query.where(Job.type == job_type)
    if status is not None:
        query = query.where(Job.status == status)
    return list(query.order_by(Job.created_at.desc(), Job.id.desc()).limit(limit or LIST_CAP))


def get_job(job_id: str, workspace_id: str | None) -> Job:
    query = Job.select().where(Job.id == job_id)
    if workspace_id is not None:
        query = query.where(Job.workspace == workspace_id)
    job = query.first()
    if job is None:
        raise NotFound.of("Job")
    return job


def cancel_job(job_id: str, workspace_id: str | None) -> Job:
    """Cancel a running job at once (failed, currentStep Cancelled); 400 if it has ended."""
    job = get_job(job_id, workspace_id)
    if not lifecycle.cancel(job.id):
        job = get_job(job_id, workspace_id)
        raise ValidationFailed(f"Job is already {job.status}; only a running job can be cancelled")
    return get_job(job_id, workspace_id)


def start_competitor_refresh(
    workspace_id: str, competitor_id: str, *, is_first_run: bool = False
) -> Job:
    """Queue a collect job for a competitor of the workspace (404 otherwise); an active one
    is returned instead of a duplicate."""
    competitor = _competitor(workspace_id, competitor_id)
    return enqueue(
        workspace_id,
        COLLECT,
        competitor_id=competitor.id,
        metadata={
            "competitorName": competitor.name,
            "isFirstRun": bool(is_first_run),
            "productIds": list(competitor.relevant_product_ids or []),
        },
    )
