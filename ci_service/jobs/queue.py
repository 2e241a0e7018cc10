"""Putting jobs on the queue (a row in the ``job`` table that a worker later claims)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from peewee import IntegrityError

from ci_service.jobs.registry import get_type
from ci_service.store.db import transaction
from ci_service.store.jobs import DEFAULT_MAX_ATTEMPTS, Job

log = logging.getLogger("ci_service.jobs")

_listeners: list[Callable[[], None]] = []
_listeners_lock = threading.Lock()


def add_listener(fn: Callable[[], None]) -> None:
    """Call ``fn()`` whenever a job is enqueued in this process (the runner wakes up)."""
    with _listeners_lock:
        _listeners.append(fn)


def remove_listener(fn: Callable[[], None]) -> None:
    with _listeners_lock:
        if fn in _listeners:
            _listeners.remove(fn)


def _notify() -> None:
    with _listeners_lock:
        listeners = list(_listeners)
    for fn in listeners:
        try:
            fn()
        except Exception:  # a listener must never break the caller's request
            log.exception("job queue listener failed")


def configured_max_attempts() -> int:
    """``job_max_attempts`` as this process's environment sets it (``CI_SERVICE_*``, the
    settings every process reads at start; a job keeps the value it was queued with)."""
    from ci_service.settings import load_settings

    try:
        return max(int(load_settings().job_max_attempts), 1)
    except ValueError:  # a malformed value stops serve and worker at start; not here
        return DEFAULT_MAX_ATTEMPTS


def active_job(workspace_id: str, job_type: str, competitor_id: str) -> Job | None:
    """The running (or queued) job of ``job_type`` for a competitor, if any."""
    return (
        Job.select()
        .where(
            Job.workspace == workspace_id,
            Job.competitor_id == competitor_id,
            Job.type == job_type,
            Job.status == "running",
        )
        .first()
    )


def enqueue(
    workspace_id: str,
    job_type: str,
    *,
    competitor_id: str | None = None,
    metadata: dict[str, Any] | None = None,
    payload: dict[str, Any] | None = None,
    max_attempts: int | None = None,
) -> Job:
    """Queue a job, or return the active one of the same type for the same competitor.

    ``max_attempts``: how many runs an interruption may cost it before it fails (default:
    the ``job_max_attempts`` setting); a step error fails it at once whatever this says.

    Runs inside the caller's transaction when there is one (it nests as a savepoint), so a
    resource and the job it starts are written together. The check and the insert share one
    IMMEDIATE transaction, so parallel requests get the same job; a partial unique index
    backs the rule up. Workspace-level jobs (no competitor) are never deduplicated here.
    """
    definition = get_type(job_type)
    if definition.competitor and competitor_id is None:
        raise ValueError(f"job type '{job_type}' needs a competitor_id")
    metadata = dict(metadata or {})
    attempts = max(int(max_attempts), 1) if max_attempts is not None else None
    try:
        title = definition.title.format_map(_Defaulting(metadata)).strip()
    except (ValueError, IndexError, AttributeError, KeyError):
        title = job_type
    try:
        with transaction():
            if competitor_id is not None:
                active = active_job(workspace_id, job_type, competitor_id)
                if active is not None:
                    return active
            job = Job.create(
                workspace=workspace_id,
                competitor_id=competitor_id,
                type=job_type,
                display_title=(title or job_type)[:300],
                steps=[{"id": s.id, "name": s.name, "status": "pending"} for s in definition.steps],
                metadata=metadata,
                payload=payload or {},
                max_attempts=attempts or configured_max_attempts(),
            )
    except IntegrityError:
        active = active_job(workspace_id, job_type, competitor_id) if competitor_id else None
        if active is None:
            raise
        return active
    _notify()
    return job


class _Defaulting(dict):
    def __missing__(self, key):
        return ""
