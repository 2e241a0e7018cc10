"""What ``ci-service serve`` runs beside the web server (and ``ci-service worker`` alone):
recovery, the runner, the scheduler.

``create_app`` starts none of this (tests build apps with ``job_workers=0`` and step the
runner by hand); ``serve`` calls ``start_background`` after building the app and
``stop_background`` in its ``finally``; ``worker`` calls ``start_background`` without an app.

Recovery at start: on SQLite (one process per database file) every claimed job still
running was left by a dead process and is recovered at once: queued again while it has
attempts left, else failed as interrupted. On PostgreSQL other processes may be running
jobs right now, so only expired leases are recovered (by the runner, at start and then
periodically). ``jobs=False`` (``serve --no-jobs``) runs no runner and
recovers nothing: a web-only process may run beside a worker on SQLite too.

Extra job types or step handlers can be loaded without changing the engine: the env
``CI_SERVICE_JOB_MODULES`` names comma-separated modules imported before workers start.
"""

from __future__ import annotations

import importlib
import logging
import os
from dataclasses import dataclass

from flask import Flask

from ci_service.jobs import lifecycle, registry
from ci_service.jobs.leadership import bound_database_url
from ci_service.jobs.runner import JobRunner
from ci_service.jobs.scheduler import Scheduler
from ci_service.settings import Settings
from ci_service.store.db import connection, is_postgres_url

log = logging.getLogger("ci_service.jobs")

JOB_MODULES_ENV = "CI_SERVICE_JOB_MODULES"


def load_job_modules(environ: dict[str, str] | None = None) -> list[str]:
    """Import the modules named in ``CI_SERVICE_JOB_MODULES``; return their names."""
    environ = os.environ if environ is None else environ
    names = [n.strip() for n in environ.get(JOB_MODULES_ENV, "").split(",") if n.strip()]
    for name in names:
        importlib.import_module(name)
    return names


@dataclass
class Background:
    runner: JobRunner
    scheduler: Scheduler | None = None
    stopped: bool = False

    def stop(self, timeout: float = 10.0) -> bool:
        """Scheduler first (no new jobs), then the workers within ``timeout``. Idempotent."""
        if self.stopped:
            return True
        self.stopped = True
        if self.scheduler is not None:
            self.scheduler.stop()
        return self.runner.stop(timeout)


def start_background(app: Flask | None, settings: Settings, *, jobs: bool = True) -> Background:
    """Recover orphaned jobs (SQLite), then start the runner (unless ``jobs`` is False) and
    the scheduler (unless disabled). ImportError: a module of ``CI_SERVICE_JOB_MODULES``;
    ValueError: a bad lease, retry setting or scheduler period."""
    load_job_modules()
    if jobs and settings.job_workers and not registry.wired():
        raise RuntimeError(
            "no job step handlers are registered: import ci_service.services (which registers"
            " them) before starting job workers"
        )
    if settings.job_max_attempts < 1:
        raise ValueError(f"job_max_attempts must be 1 or more, not {settings.job_max_attempts}")
    workers = settings.job_workers if jobs else 0
    runner = JobRunner(
        workers,
        concurrency=settings.crawl_concurrency if workers else 0,
        lease_seconds=settings.job_lease_seconds,
        retry_delay_seconds=settings.job_retry_delay_seconds,
    )
    scheduler = None
    if settings.scheduler:
        scheduler = Scheduler(
            database_url=bound_database_url(), lease_seconds=settings.scheduler_lease_seconds
        )
    postgres = is_postgres_url(settings.database)
    if jobs and not postgres:
        with connection():
            orphans = lifecycle.recover_orphans(delay_seconds=settings.job_retry_delay_seconds)
        for job in orphans:
            log.warning("job %s (%s) was interrupted by a previous shutdown", job.id, job.type)
    background = Background(runner, scheduler)
    # Every process keeps watch over leases, web-only ones too: a worker that dies is noticed
    # by whichever process is alive, whatever the layout.
    background.runner.start(keep_leases=True)
    if scheduler is not None:
        scheduler.start()
    if app is not None:
        app.extensions["ci_jobs"] = background.runner
        app.extensions["ci_background"] = background
    return background


def stop_background(app: Flask, timeout: float = 10.0) -> bool:
    background = app.extensions.get("ci_background")
    return background.stop(timeout) if background is not None else True
