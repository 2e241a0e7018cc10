"""Jobs across processes (issue 15): claims that never collide, leases that their runner
renews, expired leases failed by any live process, the one-active-job rule under parallel
enqueues, and a real ``ci-service worker`` (run end to end; SIGKILLed and taken over).

Both backends unless a test says otherwise; the clock is injected where leases expire.
"""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path

import pytest

from ci_service.jobs.background import start_background
from ci_service.jobs.queue import enqueue
from ci_service.jobs.registry import REGISTRY
from ci_service.jobs.runner import JobRunner
from ci_service.store import jobs as store
from ci_service.store.db import WRITE_LOCK, connection, database, transaction
from ci_service.store.events import Event
from ci_service.store.jobs import INTERRUPTED_ERROR, INTERRUPTED_STEP, Job
from ci_service.timeutil import utcnow
from tests.concurrency_support import all_at_once
from tests.jobs_support import Clock, competitor, fetch
from tests.waiting import wait_for
from tests.worker_live import WorkerProcess

pytest_plugins = ["tests.jobs_fixtures"]


def test_parallel_claims_never_take_one_job_twice(make_workspace, job_type):
    job_type("t-claim", [("one", "One")])
    ws = make_workspace()
    with connection():
        queued = {enqueue(ws.id, "t-claim").id for _ in range(30)}

    def drain(i):
        taken = []
        while (job := store.claim(f"test:{i}", lease_seconds=60)) is not None:
            taken.append(job.id)
        return taken

    results = all_at_once(8, drain, context=connection)
    errors = [r for r in results if isinstance(r, Exception)]
    assert not errors, errors
    claimed = [job_id for taken in results for job_id in taken]
    assert sorted(claimed) == sorted(queued)  # every job once, none twice
    with connection():
        rows = list(Job.select().where(Job.id.in_(list(queued))))
    assert all(r.claimed_at and r.lease_expires_at > r.claimed_at for r in rows)
    owners = {r.id: r.claimed_by for r in rows}
    assert all(owners[job_id] == f"test:{i}" for i, t in enumerate(results) for job_id in t)


@pytest.mark.backends("postgresql")
def test_claims_do_not_wait_on_the_write_lock(backend, make_workspace, job_type):
    """PostgreSQL: a claim takes a row lock (SKIP LOCKED), not the global write lock, so a
    long write transaction elsewhere does not hold the workers up."""
    job_type("t-claim", [("one", "One")])
    ws = make_workspace()
    with connection():
        job = enqueue(ws.id, "t-claim")
    holding, release = threading.Event(), threading.Event()

    def writer():
        with connection(), transaction():  # holds WRITE_LOCK until release
            holding.set()
            release.wait(30)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    try:
        assert holding.wait(10)
        with connection():
            locked = database.execute_sql(
                "SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database "
                "WHERE d.datname = current_database() AND l.locktype = 'advisory' "
                "AND l.objid = %s AND l.granted",
                (WRITE_LOCK,),
            ).fetchone()[0]
            assert locked == 1
            claimed = store.claim("test:1", lease_seconds=60)
        assert claimed is not None and claimed.id == job.id
    finally:
        release.set()
        thread.join(10)


def blocking_type(job_type, gate: threading.Event, started: threading.Event):
    def wait(ctx):
        started.set()
        while not gate.wait(0.02):
            ctx.check_cancelled()

    return job_type("t-long", [("wait", "Waiting"), ("after", "After")], handlers={"wait": wait})


def test_renewed_lease_is_kept_and_expired_one_is_failed_by_another_runner(
    make_workspace, job_type
):
    gate, started = threading.Event(), threading.Event()
    blocking_type(job_type, gate, started)
    ws = make_workspace()
    clock = Clock()
    holder = JobRunner(0, clock=clock, lease_seconds=60)
    other = JobRunner(0, clock=clock, lease_seconds=60)  # "another process"
    with connection():
        job = enqueue(ws.id, "t-long", max_attempts=1)  # its last attempt: failed, not retried
    outcome: list = []
    thread = threading.Thread(target=lambda: outcome.append(holder.run_once()), daemon=True)
    thread.start()
    try:
        assert started.wait(10)
        assert holder.held == [job.id]
        first_lease = fetch(job.id).lease_expires_at
        assert first_lease == clock.now + timedelta(seconds=60)

        clock.advance(50)
        assert holder.renew_leases() == 1  # the keeper's beat
        clock.advance(50)  # past the first lease, within the renewed one
        assert other.recover_expired() == []
        assert fetch(job.id).status == "running"
        assert fetch(job.id).lease_expires_at == first_lease + timedelta(seconds=50)

        clock.advance(61)  # the holder stopped renewing (its process hung or died)
        recovered = other.recover_expired()
        assert [j.id for j in recovered] == [job.id]
        assert other.recover_expired() == []  # failed once, by one process
    finally:
        gate.set()
        thread.join(10)
    row = fetch(job.id)
    assert (row.status, row.current_step, row.error) == (
        "failed",
        INTERRUPTED_STEP,
        INTERRUPTED_ERROR,
    )
    assert [s["status"] for s in row.steps] == ["failed", "pending"]
    assert row.completed_at == clock.now
    assert outcome == [job.id] and holder.held == []  # the holder stopped without writing
    assert fetch(job.id).status == "failed"
    assert holder.renew_leases() == 0
    with connection():
        assert Event.select().where(Event.type == "job.failed").count() == 1


def test_the_keeper_thread_renews_a_long_job_in_real_time(make_workspace, job_type):
    gate, started = threading.Event(), threading.Event()
    blocking_type(job_type, gate, started)
    ws = make_workspace()
    lease = 1.5
    holder = JobRunner(1, lease_seconds=lease)
    other = JobRunner(0, lease_seconds=lease)
    with connection():
        job = enqueue(ws.id, "t-long")
    holder.start()
    try:
        assert started.wait(10)
        first = fetch(job.id).lease_expires_at

        def renewed_twice():
            return fetch(job.id).lease_expires_at >= first + timedelta(seconds=2 * lease / 3)

        wait_for(renewed_twice, 10, message="two renewals")
        # Three lease periods have passed since the claim: only renewals keep it alive.
        wait_for(lambda: utcnow() > first + timedelta(seconds=2 * lease), 10, message="time")
        assert other.recover_expired() == []
        gate.set()
        wait_for(lambda: fetch(job.id).status == "completed", 10, message="the job")
    finally:
        gate.set()
        assert holder.stop(10)


def test_a_claim_without_a_lease_is_recovered_at_once(make_workspace, job_type):
    job_type("t-claim", [("one", "One")])
    ws = make_workspace()
    with connection():
        job = enqueue(ws.id, "t-claim")
        assert store.claim("gone:1:worker") is not None  # nobody renews it
    assert [j.id for j in JobRunner(0).recover_expired()] == [job.id]


def test_start_recovers_only_expired_leases_on_postgres(backend, app, settings, make_workspace):
    """SQLite: one process per file, so a running claimed job at start is an orphan.
    PostgreSQL: it may belong to a live process; only its lease tells."""
    import tests.jobs_plugin as plugin

    saved = dict(REGISTRY)
    plugin.register_types()
    try:
        ws = make_workspace()
        with connection():
            alive = enqueue(ws.id, "test-quick", max_attempts=1)
            store.claim("elsewhere:1:worker", lease_seconds=600)
            dead = enqueue(ws.id, "test-quick", max_attempts=1)
            store.claim("elsewhere:2:worker", utcnow() - timedelta(seconds=120), lease_seconds=60)
        background = start_background(app, settings.with_overrides(job_workers=1))
        try:
            wait_for(lambda: fetch(dead.id).status == "failed", 10, message="the expired job")
            expected = "running" if backend == "postgresql" else "failed"
            assert fetch(alive.id).status == expected
        finally:
            assert background.stop(10)
        if backend == "postgresql":
            assert fetch(alive.id).claimed_by == "elsewhere:1:worker"
    finally:
        REGISTRY.clear()
        REGISTRY.update(saved)


def test_one_active_job_under_parallel_enqueues(make_workspace, job_type):
    job_type("t-one", [("one", "One")], competitor=True)
    ws = make_workspace()
    rival = competitor(ws)
    results = all_at_once(
        12, lambda i: enqueue(ws.id, "t-one", competitor_id=rival.id).id, context=connection
    )
    assert not [r for r in results if isinstance(r, Exception)], results
    assert len(set(results)) == 1
    with connection():
        assert Job.select().where(Job.competitor_id == rival.id).count() == 1


# -- real processes -----------------------------------------------------------------


@pytest.fixture
def plugin_types(app):
    """The test job types of tests/jobs_plugin.py, registered here too (to enqueue them)."""
    import tests.jobs_plugin as plugin

    saved = dict(REGISTRY)
    plugin.register_types()
    yield
    REGISTRY.clear()
    REGISTRY.update(saved)


def blocking_payload(tmp_path: Path, name: str) -> dict:
    return {"started": str(tmp_path / f"{name}.started"), "release": str(tmp_path / f"{name}.go")}


def test_worker_runs_a_queued_job_and_stops_gracefully(
    database_url, plugin_types, make_workspace, tmp_path
):
    ws = make_workspace()
    with WorkerProcess(database_url, "--workers", "2", "--no-scheduler") as worker:
        assert "worker ready: 2 threads" in "".join(worker.lines)
        with connection():
            quick = enqueue(ws.id, "test-quick")  # enqueued by another process: polled
        wait_for(lambda: fetch(quick.id).status == "completed", 20, message="the quick job")
        payload = blocking_payload(tmp_path, "block")
        with connection():
            blocking = enqueue(ws.id, "test-block", payload=payload, max_attempts=1)
        wait_for(Path(payload["started"]).exists, 20, message="the blocking step")
        assert worker.stop() == 0  # SIGTERM mid-job: the job stops at its step, cleanly
    row = fetch(blocking.id)
    assert (row.status, row.current_step) == ("failed", INTERRUPTED_STEP)
    assert fetch(quick.id).claimed_by.split(":")[1] == str(worker.pid)
    assert "ci-service worker stopped" in "".join(worker.lines)


@pytest.mark.backends("postgresql")
def test_sigkilled_workers_job_is_taken_over_after_its_lease(
    backend, database_url, plugin_types, make_workspace, tmp_path
):
    lease = 2
    env = {"CI_SERVICE_JOB_LEASE_SECONDS": str(lease)}
    ws = make_workspace()
    payload = blocking_payload(tmp_path, "block")
    with connection():
        blocking = enqueue(ws.id, "test-block", payload=payload, max_attempts=1)
    first = WorkerProcess(database_url, "--workers", "1", "--no-scheduler", env=env).start()
    try:
        wait_for(Path(payload["started"]).exists, 20, message="the blocking step")
        with WorkerProcess(database_url, "--workers", "1", "--no-scheduler", env=env) as second:
            # A live process's job is not failed by the next one to start ...
            assert fetch(blocking.id).status == "running"
            wait_for(lambda: fetch(blocking.id).lease_expires_at > utcnow(), 5, message="lease")
            first.kill()
            killed_at = utcnow()
            # ... but once its lease has run out, a live process fails it cleanly.
            wait_for(lambda: fetch(blocking.id).status != "running", 20, message="the takeover")
            row = fetch(blocking.id)
            assert (row.status, row.current_step, row.error) == (
                "failed",
                INTERRUPTED_STEP,
                INTERRUPTED_ERROR,
            )
            assert row.completed_at >= row.lease_expires_at
            assert row.completed_at - killed_at < timedelta(seconds=lease * 4)
            second.wait_for_line(r"failed as interrupted: the lease of .*expired", 5)
            with connection():
                quick = enqueue(ws.id, "test-quick")
            wait_for(lambda: fetch(quick.id).status == "completed", 20, message="more work")
            assert fetch(quick.id).claimed_by.split(":")[1] == str(second.pid)
    finally:
        first.kill()
