"""Interrupted work is retried (issue 25): a job whose process died or stopped runs again,
up to its ``maxAttempts``, after a back-off that doubles per attempt; only its last
interruption fails it. A cancelled job and a step error are never retried. Attempts are on
the job in REST, the tools and ``ci-service jobs show``; a refresh starts over REST too.

Both backends; the clock is injected where time matters. ``tests/test_pipeline_retry.py``
shows the collect job's steps are safe to repeat; ``tests/test_jobs_retry_live.py`` kills
real workers.
"""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from click.testing import CliRunner

from ci_service.cli import cli
from ci_service.jobs import lifecycle
from ci_service.jobs.queue import enqueue
from ci_service.jobs.runner import JobRunner
from ci_service.jobs.types import StepError
from ci_service.store import jobs as store
from ci_service.store.competitors import Competitor
from ci_service.store.db import connection
from ci_service.store.events import Event
from ci_service.store.jobs import (
    CANCELLED_STEP,
    INTERRUPTED_ERROR,
    INTERRUPTED_STEP,
    Job,
    retry_delay,
    retry_step,
)
from tests.jobs_support import Clock, competitor, fetch
from tests.waiting import wait_for

pytest_plugins = ["tests.jobs_fixtures"]

STEPS = [("one", "Step One"), ("two", "Step Two")]


def queue(workspace_id, job_type, **options):
    with connection():
        return enqueue(workspace_id, job_type, **options)


def status_of(competitor_id):
    with connection():
        return Competitor.get_by_id(competitor_id).status


def failed_events():
    with connection():
        return Event.select().where(Event.type == "job.failed").count()


def test_backoff_doubles_per_attempt_and_stops_at_an_hour():
    assert [retry_delay(30, n) for n in (1, 2, 3, 4)] == [30, 60, 120, 240]
    assert retry_delay(30, 20) == 3600
    assert retry_delay(0, 3) == 0
    assert retry_step(2, 3) == "Retrying (attempt 2 of 3)"


def test_an_interrupted_job_runs_again_until_its_last_attempt(make_workspace, job_type):
    """Recovery after a dead process: queued again (steps pending, competitor PROCESSING,
    no event), not claimed before its back-off; the third interruption fails it."""
    job_type("t-retry", STEPS, analysis=True)
    ws = make_workspace()
    rival = competitor(ws)
    clock = Clock()
    job = queue(ws.id, "t-retry", competitor_id=rival.id, max_attempts=3)
    assert (job.attempt, job.max_attempts) == (1, 3)
    with connection():
        claimed = store.claim("dead:1:worker", clock.now, lease_seconds=60)
        lifecycle.start(claimed, clock.now)  # PROCESSING, as a worker does
        store.update_running(job.id, 1, steps=[{**s, "status": "running"} for s in job.steps])
        assert [j.id for j in lifecycle.recover_orphans(clock.now, 30)] == [job.id]

    row = fetch(job.id)
    assert (row.status, row.attempt, row.current_step) == ("running", 2, retry_step(2, 3))
    assert row.claimed_at is None and row.claimed_by is None and row.lease_expires_at is None
    assert row.run_after == clock.now + timedelta(seconds=30)
    assert [s["status"] for s in row.steps] == ["pending", "pending"]
    assert (row.progress, row.error, row.completed_at) == (0, None, None)
    assert status_of(rival.id) == "PROCESSING"
    assert failed_events() == 0

    with connection():
        assert store.claim("w:1:a", clock.now + timedelta(seconds=29)) is None  # backing off
        clock.advance(30)
        assert store.claim("w:1:a", clock.now, lease_seconds=60).id == job.id
        lifecycle.recover_orphans(clock.now, 30)  # the second run's process died too
    row = fetch(job.id)
    assert (row.attempt, row.run_after) == (3, clock.now + timedelta(seconds=60))  # doubled
    assert row.current_step == "Retrying (attempt 3 of 3)"

    clock.advance(60)
    with connection():
        assert store.claim("w:2:a", clock.now, lease_seconds=60).id == job.id
        lifecycle.recover_orphans(clock.now, 30)
    row = fetch(job.id)
    assert (row.status, row.attempt, row.current_step) == ("failed", 3, INTERRUPTED_STEP)
    assert row.error == INTERRUPTED_ERROR and row.completed_at == clock.now
    assert status_of(rival.id) == "ERROR"
    assert failed_events() == 1


def test_claims_honour_the_retry_time_and_keep_queue_order(make_workspace, job_type):
    job_type("t-order", STEPS)
    ws = make_workspace()
    clock = Clock()
    older = queue(ws.id, "t-order")
    with connection():
        store.claim("dead:1:w", clock.now, lease_seconds=60)
        lifecycle.recover_orphans(clock.now, 10)
    younger = queue(ws.id, "t-order")
    with connection():
        assert store.claim("w:1:a", clock.now).id == younger.id  # the older one waits
        assert store.claim("w:1:b", clock.now) is None
        clock.advance(10)
        assert store.claim("w:1:c", clock.now).id == older.id  # then goes first again


def test_a_cancelled_job_is_never_retried(make_workspace, job_type):
    job_type("t-cancel", STEPS)
    ws = make_workspace()
    clock = Clock()
    running = queue(ws.id, "t-cancel")
    waiting = queue(ws.id, "t-cancel")
    with connection():
        store.claim("dead:1:w", clock.now, lease_seconds=1)
        store.claim("dead:1:v", clock.now, lease_seconds=1)
        assert lifecycle.cancel(running.id, clock.now)
        clock.advance(5)  # both leases ran out
        recovered = lifecycle.recover_expired(clock.now, 0)
    assert [j.id for j in recovered] == [waiting.id]  # the cancelled one stays cancelled
    row = fetch(running.id)
    assert (row.status, row.current_step, row.attempt) == ("failed", CANCELLED_STEP, 1)
    with connection():  # cancelled while waiting to run again: still over for good
        assert lifecycle.cancel(waiting.id, clock.now)
        clock.advance(60)
        assert store.claim("w:1:a", clock.now) is None
        assert lifecycle.recover_orphans(clock.now) == []
    assert (fetch(waiting.id).status, fetch(waiting.id).current_step) == ("failed", CANCELLED_STEP)


def test_a_step_error_fails_at_once(make_workspace, runner, job_type):
    """An error is not an interruption: running the step again would fail the same way."""

    def broken(ctx):
        raise StepError("no such page")

    job_type("t-error", STEPS, {"two": broken})
    job = queue(make_workspace().id, "t-error", max_attempts=3)
    runner.run_once()
    row = fetch(job.id)
    assert (row.status, row.attempt, row.error) == ("failed", 1, "Step Two: no such page")
    assert runner.run_once() is None


def test_a_job_that_loses_the_database_runs_again(backend, make_workspace, runner, job_type):
    """A database restart (PostgreSQL: the job's own connection terminated) or a write lock
    held past the busy timeout (SQLite) mid-step is an interruption, not the job's failure:
    it is queued again, recorded on a new connection, and the next run completes."""
    from peewee import OperationalError

    from ci_service.store.db import database

    lost = []

    def flaky(ctx):
        if lost:
            return
        lost.append(True)
        if backend == "postgresql":
            database.execute_sql("SELECT pg_terminate_backend(pg_backend_pid())")
        raise OperationalError("database is locked")

    job_type("t-db-lost", STEPS, {"two": flaky})
    job = queue(make_workspace().id, "t-db-lost", max_attempts=2)
    runner.retry_delay_seconds = 0
    runner.run_once()
    row = fetch(job.id)
    assert (row.status, row.attempt, row.current_step) == ("running", 2, retry_step(2, 2))
    assert runner.run_once() == job.id
    assert (fetch(job.id).status, fetch(job.id).attempt) == ("completed", 2)


def blocking_type(job_type, gate: threading.Event, started: threading.Event, analysis=False):
    def wait(ctx):
        started.set()
        while not gate.wait(0.02):
            ctx.check_cancelled()

    return job_type("t-long", STEPS, handlers={"one": wait}, analysis=analysis)


def test_an_expired_lease_runs_the_job_again_and_fences_the_old_worker(make_workspace, job_type):
    """A worker frozen past its lease (SIGSTOP, a stalled machine) finds its job queued again
    when it wakes: it stops at its next check and writes nothing, and the next run
    completes."""
    gate, started = threading.Event(), threading.Event()
    blocking_type(job_type, gate, started, analysis=True)
    ws = make_workspace()
    rival = competitor(ws)
    clock = Clock()
    frozen = JobRunner(0, clock=clock, lease_seconds=60, retry_delay_seconds=5)
    other = JobRunner(0, clock=clock, lease_seconds=60, retry_delay_seconds=5)
    job = queue(ws.id, "t-long", competitor_id=rival.id)
    outcome: list = []
    thread = threading.Thread(target=lambda: outcome.append(frozen.run_once()), daemon=True)
    thread.start()
    try:
        assert started.wait(10)
        clock.advance(61)  # it never renewed
        assert [j.id for j in other.recover_expired()] == [job.id]
        assert other.recover_expired() == []  # once, by one process
        assert fetch(job.id).attempt == 2 and status_of(rival.id) == "PROCESSING"
        assert frozen.renew_leases() == 0  # not its job any more
    finally:
        gate.set()  # it wakes up ...
        thread.join(10)
    assert outcome == [job.id]
    row = fetch(job.id)  # ... and stopped without writing: still waiting for its next run
    assert (row.status, row.attempt, row.claimed_at) == ("running", 2, None)
    assert [s["status"] for s in row.steps] == ["pending", "pending"]
    started.clear()
    assert other.run_once() is None  # the back-off
    clock.advance(5)
    assert other.run_once() == job.id
    row = fetch(job.id)
    assert (row.status, row.attempt, row.progress) == ("completed", 2, 100)
    assert status_of(rival.id) == "COMPLETE"
    assert failed_events() == 0


def test_stopping_the_service_queues_the_running_job_again(make_workspace, job_type):
    gate, started = threading.Event(), threading.Event()
    blocking_type(job_type, gate, started)
    job = queue(make_workspace().id, "t-long", max_attempts=2)
    runner = JobRunner(1, retry_delay_seconds=0.2)
    runner.start()
    try:
        assert started.wait(10)
        stopper = threading.Thread(target=runner.stop, args=(10,))
        stopper.start()
        wait_for(runner._stopping.is_set, 5, message="stop requested")
        gate.set()
        stopper.join(10)
    finally:
        gate.set()
        runner.stop(10)
    row = fetch(job.id)
    assert (row.status, row.attempt, row.current_step) == ("running", 2, retry_step(2, 2))
    assert row.claimed_at is None and row.run_after is not None
    assert failed_events() == 0

    # The next process runs it; a stop during its last attempt fails it as before.
    gate.clear()
    started.clear()
    again = JobRunner(1, retry_delay_seconds=0.2)
    again.start()
    try:
        assert started.wait(10)
        again.stop(0)
    finally:
        gate.set()
        assert again.stop(10)
    row = fetch(job.id)
    assert (row.status, row.attempt, row.current_step) == ("failed", 2, INTERRUPTED_STEP)
    assert "stopped" in row.error
    assert failed_events() == 1


def test_max_attempts_come_from_the_setting(make_workspace, job_type, monkeypatch):
    job_type("t-setting", STEPS)
    ws = make_workspace()
    assert queue(ws.id, "t-setting").max_attempts == 3
    monkeypatch.setenv("CI_SERVICE_JOB_MAX_ATTEMPTS", "5")
    assert queue(ws.id, "t-setting").max_attempts == 5
    monkeypatch.setenv("CI_SERVICE_JOB_MAX_ATTEMPTS", "0")
    assert queue(ws.id, "t-setting").max_attempts == 1  # every job runs at least once
    assert queue(ws.id, "t-setting", max_attempts=2).max_attempts == 2


def test_attempts_are_shown_in_rest_tools_and_the_cli(api, job_type, database_url):
    job_type("t-shown", STEPS, analysis=True)
    with connection():
        rival = Competitor.create(
            workspace=api.workspace_id, name="Rival", website_url="https://rival.example"
        )
    job = queue(api.workspace_id, "t-shown", competitor_id=rival.id)
    body = api.get(f"/api/jobs/{job.id}").json["job"]
    assert (body["attempt"], body["maxAttempts"]) == (1, 3) and "retryAt" not in body

    clock = Clock()
    with connection():
        store.claim("dead:1:w", clock.now, lease_seconds=60)
        lifecycle.recover_orphans(clock.now, 30)
    body = api.get(f"/api/jobs/{job.id}").json["job"]
    assert (body["status"], body["attempt"], body["maxAttempts"]) == ("running", 2, 3)
    assert body["currentStep"] == "Retrying (attempt 2 of 3)"
    assert body["retryAt"].endswith("Z") and body["retryAt"] > body["startedAt"]
    listed = api.get(f"/api/jobs?competitorId={rival.id}").json["jobs"]
    assert [(j["id"], j["attempt"]) for j in listed] == [(job.id, 2)]

    tool = api.post(
        "/mcp",
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "trigger_refresh",
            "params": {"competitorId": rival.id},
        },  # fmt: skip
    ).json["result"]
    assert tool["type"] == "collect" and (tool["attempt"], tool["maxAttempts"]) == (1, 3)

    shown = CliRunner().invoke(cli, ["--database", database_url, "jobs", "show", job.id])
    assert shown.exit_code == 0, shown.output
    assert "attempt:   2 of 3" in shown.output and "retry at:  " in shown.output
    as_json = CliRunner().invoke(
        cli, ["--database", database_url, "jobs", "show", job.id, "--json"]
    )
    assert '"maxAttempts": 3' in as_json.output


# -- POST /api/competitors/{id}/refresh ------------------------------------------------------


def test_rest_refresh_starts_a_collect_and_reuses_an_active_one(
    api, make_api, offline_collect, runner
):
    created = api.post(
        "/api/competitors", json={"name": "Rival", "websiteUrl": "https://rival.example"}
    ).json
    competitor_id, first_job = created["competitor"]["id"], created["jobId"]
    path = f"/api/competitors/{competitor_id}/refresh"

    answer = api.post(path)
    assert answer.status_code == 200, answer.json
    assert answer.json["jobId"] == first_job == answer.json["job"]["id"]  # still queued
    assert answer.json["job"]["type"] == "collect" and answer.json["job"]["status"] == "running"
    runner.run_until_idle()

    answer = api.post(path)
    assert answer.status_code == 200
    fresh = answer.json["job"]
    assert fresh["id"] != first_job and fresh["currentStep"] == "Queued"
    assert (fresh["attempt"], fresh["maxAttempts"]) == (1, 3)
    assert fresh["metadata"]["competitorName"] == "Rival"
    with connection():
        assert Job.select().where(Job.competitor_id == competitor_id).count() == 2
    runner.run_until_idle()
    detail = api.get(f"/api/competitors/{competitor_id}").json
    assert detail["competitor"]["status"] == "COMPLETE" and detail["currentJob"] is None


@pytest.mark.parametrize(
    "who, status, code",
    [
        ("other-workspace", 404, "NOT_FOUND"),
        ("unknown-id", 404, "NOT_FOUND"),
        ("viewer", 403, "FORBIDDEN"),
        ("read-scope", 403, "INSUFFICIENT_SCOPE"),
        ("no-key", 401, "UNAUTHORIZED"),
    ],
)
def test_rest_refresh_errors(api, make_api, client, offline_collect, who, status, code):
    competitor_id = api.post(
        "/api/competitors", json={"name": "Rival", "websiteUrl": "https://rival.example"}
    ).json["competitor"]["id"]
    path = f"/api/competitors/{competitor_id}/refresh"
    if who == "other-workspace":
        answer = make_api().post(path)
    elif who == "unknown-id":
        answer = api.post("/api/competitors/nope/refresh")
    elif who == "viewer":
        answer = make_api(role="VIEWER", workspace=_workspace(api)).post(path)
    elif who == "read-scope":
        answer = make_api(workspace=_workspace(api), scopes=["read"]).post(path)
    else:
        answer = client.post(path)
    assert answer.status_code == status, answer.json
    assert answer.json["error"]["code"] == code
    with connection():  # nothing queued beyond the creation's own job
        assert Job.select().where(Job.competitor_id == competitor_id).count() == 1


def _workspace(api):
    from ci_service.store.identity import Workspace

    with connection():
        return Workspace.get_by_id(api.workspace_id)


def test_rest_refresh_is_in_the_openapi_document(client):
    operation = client.get("/openapi.json").json["paths"][
        "/api/competitors/{competitor_id}/refresh"
    ]
    assert {"200", "401", "403", "404", "429"} <= set(operation["post"]["responses"])
