"""Recovery after a crash: a real ``ci-service serve`` is killed with SIGKILL mid-job and
restarted; the interrupted job is failed/Interrupted, the queued one still runs, and nothing
stays running. Also a clean SIGTERM shutdown with a job in progress."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from ci_service.jobs.registry import REGISTRY
from ci_service.services.identity import api_keys as apikeys
from ci_service.services.workspace.workspaces import create_workspace
from ci_service.store.competitors import Competitor
from ci_service.store.db import connection, open_database
from ci_service.store.jobs import Job
from tests.jobs_support import wait_for

REPO = Path(__file__).resolve().parent.parent
CI_SERVICE = Path(sys.executable).with_name("ci-service")
pytestmark = pytest.mark.skipif(not CI_SERVICE.exists(), reason="ci-service script not installed")


class Serve:
    """``ci-service serve --port 0`` in a subprocess; parses the port from stderr."""

    def __init__(self, database: Path, *extra: str):
        env = {
            **os.environ,
            "CI_SERVICE_JOB_MODULES": "tests.jobs_plugin",
            "PYTHONPATH": str(REPO),
        }
        self.process = subprocess.Popen(
            [str(CI_SERVICE), "--database", str(database), "serve", "--port", "0", *extra],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=str(REPO),
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.stderr: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.base = self._wait_for_port()

    def _read(self):
        for line in self.process.stderr:
            self.stderr.append(line)
            self.lines.put(line)

    def _wait_for_port(self, timeout=20.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.1)
            except queue.Empty:
                if self.process.poll() is not None:
                    break
                continue
            match = re.search(r"serving on (http://\S+)", line)
            if match:
                return match.group(1)
        self.kill()
        pytest.fail("serve did not start:\n" + "".join(self.stderr))

    def get(self, path: str, key: str) -> dict:
        request = urllib.request.Request(self.base + path, headers={"X-API-Key": key})
        with urllib.request.urlopen(request, timeout=5) as response:
            return json.loads(response.read())

    def _finish(self, timeout: float) -> int:
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait(10)
        self.reader.join(5)  # stderr reaches EOF once the process is gone
        self.process.stderr.close()
        return code

    def kill(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        return self._finish(10)

    def terminate(self, timeout=20.0) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self._finish(timeout)


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
    first = Serve(database, "--job-workers", "1", "--no-scheduler")
    try:
        wait_for((tmp_path / "started").exists, 20, message="the blocking step to start")
        job = first.get(f"/api/jobs/{blocking.id}", key)["job"]
        assert (job["status"], job["currentStep"]) == ("running", "Waiting")
        queued = first.get(f"/api/jobs/{waiting.id}", key)["job"]
        assert (queued["status"], queued["currentStep"]) == ("running", "Queued")
    finally:
        first.kill()  # SIGKILL: no cleanup at all
    assert first.process.returncode == -signal.SIGKILL
    with connection():
        left = Job.get_by_id(blocking.id)
    assert left.status == "running" and left.claimed_at is not None  # what a crash leaves

    second = Serve(database, "--job-workers", "1", "--no-scheduler")
    try:

        def settled():
            jobs = second.get("/api/jobs", key)["jobs"]
            return all(j["status"] != "running" for j in jobs) and jobs

        jobs = {j["id"]: j for j in wait_for(settled, 20, message="jobs to settle")}
        crashed = jobs[blocking.id]
        assert (crashed["status"], crashed["currentStep"]) == ("failed", "Interrupted")
        assert crashed["steps"][0]["status"] == "failed" and crashed["completedAt"]
        assert "stopped" in crashed["error"]
        assert jobs[waiting.id]["status"] == "completed"  # queued work survives the crash
        assert second.get("/api/jobs?status=running", key)["jobs"] == []
    finally:
        assert second.terminate() == 0
    assert "ci-service stopped" in "".join(second.stderr)


def test_sigterm_stops_promptly_and_interrupts_the_running_job(setup_db, tmp_path):
    """Also: serve's scheduler scans at start and a second worker runs what it queued."""
    database, workspace, key = setup_db
    blocking, _ = enqueue_jobs(workspace, tmp_path)
    with connection():
        rival = Competitor.create(
            workspace=workspace, name="Due", website_url="https://due.example"
        )  # never refreshed, no job yet: due at once
    serve = Serve(database, "--job-workers", "2")
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
        code = serve.terminate()
    assert code == 0 and time.monotonic() - started < 15
    with connection():
        row = Job.get_by_id(blocking.id)
        scheduled = Job.get(Job.competitor_id == rival.id)
    assert (row.status, row.current_step) == ("failed", "Interrupted")
    assert scheduled.metadata["trigger"] == "schedule" and scheduled.status == "failed"
    assert "due.example" in scheduled.error
    with connection():
        assert Competitor.get_by_id(rival.id).status == "ERROR"
