"""Putting jobs on the queue (a row in the ``job`` table that a worker later claims)."""

from __future__ import annotations

from typing import Any

from ci_service.jobs.registry import get_type
from ci_service.store.db import transaction
from ci_service.store.jobs import Job


def enqueue(
    workspace_id: str,
    job_type: str,
    *,
    competitor_id: str | None = None,
    metadata: dict[str, Any] | None = None,
    payload: dict[str, Any] | None = None,
) -> Job:
    """Queue a job, or return the active one of the same type for the same competitor.

    Runs inside the caller's transaction when there is one (it nests as a savepoint), so a
    resource and the job it starts are written together.
    """
    definition = get_type(job_type)
    metadata = dict(metadata or {})
    with transaction():
        if competitor_id is not None:
            active = (
                Job.select()
                .where(
                    Job.workspace == workspace_id,
                    Job.competitor_id == competitor_id,
                    Job.type == job_type,
                    Job.status == "running",
                )
                .first()
            )
            if active is not None:
                return active
        try:
            title = definition.title.format_map(_Defaulting(metadata))
        except (ValueError, IndexError):
            title = job_type
        return Job.create(
            workspace=workspace_id,
            competitor_id=competitor_id,
            type=job_type,
            display_title=title,
            steps=[{"id": s.id, "name": s.name, "status": "pending"} for s in definition.steps],
            metadata=metadata,
            payload=payload or {},
        )


class _Defaulting(dict):
    def __missing__(self, key):
        return ""
