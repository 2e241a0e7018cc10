"""What serve starts beside the web server: recovery, runner threads, scheduler; and that
stopping them leaves no thread behind."""

from __future__ import annotations

import threading

import pytest

from ci_service.jobs.background import load_job_modules, start_background, stop_background
from ci_service.jobs.queue import enqueue
from ci_service.store import jobs as store
from ci_service.store.competitors import Competitor
from ci_service.store.db import connection
from ci_service.store.jobs import Job
from tests.jobs_support import competitor, fetch
from tests.waiting import wait_for

pytest_plugins = ["tests.jobs_fixtures"]


def idle():
    with connection():
        return not Job.select().where(Job.status == "running").exists()


def collect_jobs(competitor_id):
    with connection():
        return Job.select().where(Job.competitor_id == competitor_id).count()


def test_start_and_stop_leave_no_threads(app, settings, make_workspace, job_type, offline_collect):
    job_type("t-bg", [("one", "One")])
    ws = make_workspace()
    with connection():
        orphan = enqueue(ws.id, "t-bg", max_attempts=1)  # its interruption is final
        store.claim("gone:1:worker")  # claimed by a process that no longer exists
    due = competitor(ws)  # never refreshed: the start-up scan queues its collect job
    before = set(threading.enumerate())
    for _ in range(3):  # repeated start/stop cycles stay flat
        background = start_background(app, settings.with_overrides(job_workers=2, scheduler=True))
        assert app.extensions["ci_jobs"] is background.runner
        assert background.runner.running and background.scheduler.running
        with connection():
            job = enqueue(ws.id, "t-bg")
        wait_for(lambda job=job: fetch(job.id).status == "completed", 10, message="a job")
        wait_for(lambda: collect_jobs(due.id), 10, message="the start-up scan")
        wait_for(idle, 10, message="the scheduled collect job")
        assert stop_background(app, timeout=10) and stop_background(app, timeout=10)
        wait_for(lambda: set(threading.enumerate()) <= before, 5, message="threads to end")
    assert (fetch(orphan.id).status, fetch(orphan.id).current_step) == ("failed", "Interrupted")
    with connection():
        assert Competitor.get_by_id(due.id).status == "COMPLETE"
    assert collect_jobs(due.id) == 1  # not due again after its refresh


def test_job_modules_come_from_the_environment(job_type):
    assert load_job_modules({}) == []
    assert load_job_modules({"CI_SERVICE_JOB_MODULES": " json , "}) == ["json"]
    with pytest.raises(ImportError):
        load_job_modules({"CI_SERVICE_JOB_MODULES": "no_such_module_here"})
