"""Recovery after a crash: a real ``ci-service serve`` is killed with SIGKILL mid-job and
restarted; the interrupted job is failed/Interrupted, the queued one still runs, and nothing
stays running. Also a clean SIGTERM shutdown with a job in progress."""

from __future__ import annotations

import signal
import time

import httpx
import pytest

from ci_service.jobs.registry import REGISTRY
from ci_service.services.identity import api_keys as apikeys
from ci_service.services.workspace.workspaces import create_workspace
from ci_service.store.competitors import Competitor
from ci_service.store.db import connection, open_database
from ci_service.store.jobs import Job
from tests.live import LiveServer
from tests.waiting import wait_for
from tests.worker_live import REPO

# serve loads the test job types (tests/jobs_plugin.py) the way a deployment adds its own.
# One job at a time (crawl_concurrency 1): the second job stays queued behind the first.
JOB_TYPES = {
    "CI_SERVICE_JOB_MODULES": "tests.jobs_plugin",
    "PYTHONPATH": str(REPO),
    "CI_SERVICE_CRAWL_CONCURRENCY": "1",
}


def get(server: LiveServer, path: str, key: str) -> dict:
    answer = httpx.get(server.url + path, headers={"X-API-Key": key}, timeout=5)
    assert answer.status_code == 200, answer.text
    return answer.json()


@pytest.fixture
def setup_db(tmp_path):
    """A database with a workspace and key; the test job types registered in-process."""
    import tests.jobs_plugin as plugin

    saved = dict(REGISTRY)
    plugin.register_types()
    database = tmp_path / "ci.db"
    open_database(str(database))
    with connection():
        workspace = create_workspace("crash", "ENTERPRISE")
        user = apikeys.ensure_user(workspace, None, "OWNER")
        _, key = apikeys.create_key(user, name="test")
    yield database, workspace, key
    REGISTRY.clear()
    REGISTRY.update(saved)


def enqueue_jobs(workspace, tmp_path):
    from ci_service.jobs.queue import enqueue

    payload = {"started": str(tmp_path / "started"), "release": str(tmp_path / "release")}
    with connection():
        # One attempt, so the crash fails it (tests/test_jobs_retry*.py: jobs that retry).
        blocking = enqueue(workspace.id, "test-block", payload=payload, max_attempts=1)
        waiting = enqueue(workspace.id, "test-quick")
    return blocking, waiting


def test_sigkill_mid_job_then_restart_recovers(setup_db, tmp_path):
    database, workspace, key = setup_db
    blocking, waiting = enqueue_jobs(workspace, tmp_path)
    first = LiveServer(str(database), "--job-workers", "1", "--no-scheduler", env=JOB_TYPES)
    first.start()
    try:
        wait_for((tmp_path / "started").exists, 20, message="the blocking step to start")
        job = get(first, f"/api/jobs/{blocking.id}", key)["job"]
        assert (job["status"], job["currentStep"]) == ("running", "Waiting")
        queued = get(first, f"/api/jobs/{waiting.id}", key)["job"]
        assert (queued["status"], queued["currentStep"]) == ("running", "Queued")
    finally:
        first.kill()  # SIGKILL: no cleanup at all
    assert first.process.returncode == -signal.SIGKILL
    with connection():
        left = Job.get_by_id(blocking.id)
    assert left.status == "running" and left.claimed_at is not None  # what a crash leaves

    with LiveServer(str(database), "--job-workers", "1", "--no-scheduler", env=JOB_TYPES) as second:
        jobs = wait_for(
            lambda: get(second, "/api/jobs", key)["jobs"],
            20,
            message="jobs to settle",
            until=lambda jobs: jobs and all(j["status"] != "running" for j in jobs),
        )
        jobs = {j["id"]: j for j in jobs}
        crashed = jobs[blocking.id]
        assert (crashed["status"], crashed["currentStep"]) == ("failed", "Interrupted")
        assert crashed["steps"][0]["status"] == "failed" and crashed["completedAt"]
        assert "stopped" in crashed["error"]
        assert jobs[waiting.id]["status"] == "completed"  # queued work survives the crash
        assert get(second, "/api/jobs?status=running", key)["jobs"] == []
    assert second.process.returncode == 0  # leaving the block stopped it with SIGTERM
    assert "ci-service stopped" in "".join(second.stderr_lines)


def test_sigterm_stops_promptly_and_interrupts_the_running_job(setup_db, tmp_path):
    """Also: serve's scheduler scans at start and a second worker runs what it queued."""
    database, workspace, key = setup_db
    blocking, _ = enqueue_jobs(workspace, tmp_path)
    with connection():
        rival = Competitor.create(
            workspace=workspace, name="Due", website_url="https://due.example"
        )  # never refreshed, no job yet: due at once
    serve = LiveServer(str(database), "--job-workers", "2", env=JOB_TYPES).start()
    try:
        wait_for((tmp_path / "started").exists, 20, message="the blocking step to start")

        def scheduled_job_ended():
            with connection():
                job = Job.get_or_none(Job.competitor_id == rival.id)
                return job is not None and job.status != "running"

        # The real pipeline runs it; due.example never resolves, so it fails honestly.
        wait_for(scheduled_job_ended, 30, message="the scheduled refresh")
    finally:
        started = time.monotonic()
        try:
            code = serve.stop(timeout=20)  # SIGTERM
        finally:
            serve.kill()  # if it did not stop
    assert code == 0 and time.monotonic() - started < 15
    with connection():
        row = Job.get_by_id(blocking.id)
        scheduled = Job.get(Job.competitor_id == rival.id)
    assert (row.status, row.current_step) == ("failed", "Interrupted")
    assert scheduled.metadata["trigger"] == "schedule" and scheduled.status == "failed"
    assert "due.example" in scheduled.error
    with connection():
        assert Competitor.get_by_id(rival.id).status == "ERROR"
