"""What ``ci-service serve`` runs beside the web server: recovery, the runner, the scheduler.

``create_app`` starts none of this (tests build apps with ``job_workers=0`` and step the
runner by hand); ``serve`` calls ``start_background`` after building the app and
``stop_background`` in its ``finally``.

Extra job types or step handlers can be loaded without changing the engine: the env
``CI_SERVICE_JOB_MODULES`` names comma-separated modules imported before workers start.
"""

from __future__ import annotations

import importlib
import logging
import os
from dataclasses import dataclass

from flask import Flask

from ci_service.jobs import lifecycle
from ci_service.jobs.runner import JobRunner
from ci_service.jobs.scheduler import Scheduler
from ci_service.settings import Settings
from ci_service.store.db import connection

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


def start_background(app: Flask, settings: Settings) -> Background:
    """Recover orphaned jobs, then start the runner and (unless disabled) the scheduler."""
    load_job_modules()
    with connection():
        orphans = lifecycle.recover_orphans()
    for job in orphans:
        log.warning("job %s (%s) was interrupted by a previous shutdown", job.id, job.type)
    background = Background(JobRunner(settings.job_workers))
    background.runner.start()
    if settings.scheduler:
        background.scheduler = Scheduler()
        background.scheduler.start()
    app.extensions["ci_jobs"] = background.runner
    app.extensions["ci_background"] = background
    return background


def stop_background(app: Flask, timeout: float = 10.0) -> bool:
    background = app.extensions.get("ci_background")
    return background.stop(timeout) if background is not None else True
