"""One scheduler at a time (issues 15 and 25): on PostgreSQL the candidate holding the
``scheduler`` lease leads and scans; when it stops cleanly it hands over at once, and when it
dies another takes over once the lease runs out. On SQLite the one process always leads.
``tests/test_scheduler_lease.py`` covers the lease itself (clock injected) and a SIGSTOPped
leader."""

from __future__ import annotations

import logging

import psycopg2
import pytest

from ci_service.jobs.leadership import Leadership, bound_database_url
from ci_service.jobs.scheduler import SCAN_JOB_ID, Scheduler
from ci_service.store.jobs import Job
from tests.backends import admin_url
from tests.jobs_support import competitor
from tests.waiting import wait_for
from tests.worker_live import WorkerProcess


def lease_holder(url: str) -> str | None:
    """The holder of the scheduler lease in ``url``'s database, if any."""
    conn = psycopg2.connect(url)
    try:
        with conn.cursor() as cursor:
            cursor.execute("SELECT holder FROM lease WHERE name = 'scheduler'")
            row = cursor.fetchone()
            return row[0] if row else None
    finally:
        conn.close()


def backend_alive(pid: int) -> bool:
    conn = psycopg2.connect(admin_url())
    try:
        with conn.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", (pid,))
            return cursor.fetchone() is not None
    finally:
        conn.close()


def terminate(pid: int) -> None:
    conn = psycopg2.connect(admin_url())
    try:
        conn.autocommit = True
        with conn.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", (pid,))
    finally:
        conn.close()


@pytest.mark.backends("sqlite")
def test_sqlite_always_leads(backend, app):
    leadership = Leadership(bound_database_url())
    assert not leadership.contested and leadership.try_lead() and leadership.leading


@pytest.mark.backends("postgresql")  # leadership is contested on PostgreSQL only
def test_two_candidates_one_leader_and_takeover(app, database_url, caplog):
    first = Leadership(database_url, lease_seconds=1)
    second = Leadership(database_url, lease_seconds=1)
    try:
        assert first.contested and first.try_lead()
        assert not second.try_lead() and not second.leading
        assert first.try_lead() and not second.try_lead()  # stable, no flapping
        assert lease_holder(database_url) == first.holder

        # The leader's connection drops: it is not leading until it reconnects, and then
        # its unexpired lease is still its own.
        backend = first._conn.get_backend_pid()
        terminate(backend)
        wait_for(lambda: not backend_alive(backend), 10, message="the backend to end")
        with caplog.at_level(logging.WARNING, logger="ci_service.scheduler"):
            assert not first.try_lead()
        assert "leadership lost" in caplog.text
        assert first.try_lead() and not second.try_lead()

        # The leader stops renewing (its process died or hangs): once the lease has run
        # out, the other candidate takes it, and the old leader cannot renew it any more.
        wait_for(second.try_lead, 10, message="the second candidate to take over")
        assert not first.try_lead() and second.try_lead()

        second.release()  # a clean stop hands over at once
        assert lease_holder(database_url) is None
        assert first.try_lead() and not second.try_lead()
    finally:
        first.release()
        second.release()
    assert lease_holder(database_url) is None


@pytest.mark.backends("postgresql")  # leadership is contested on PostgreSQL only
def test_two_schedulers_scan_in_the_leader_only(app, make_workspace, database_url, caplog):
    rival = competitor(make_workspace())  # never refreshed: due at once
    caplog.set_level(logging.INFO, logger="ci_service.scheduler")
    schedulers = [Scheduler(database_url=database_url, retry_seconds=0.1) for _ in range(2)]
    try:
        for scheduler in schedulers:
            scheduler.start()
        leader = wait_for(
            lambda: next((s for s in schedulers if s.leading), None), 10, message="a leader"
        )
        follower = schedulers[1 - schedulers.index(leader)]
        wait_for(
            lambda: Job.select().where(Job.competitor_id == rival.id).exists(),
            10,
            message="the leader's first scan",
        )
        wait_for(lambda: "delivery-scan runs" in caplog.text, 10, message="another scan")
        assert not follower.leading
        assert leader._scheduler.get_job(SCAN_JOB_ID) is not None
        assert follower._scheduler.get_job(SCAN_JOB_ID) is None  # no scans queued there
        assert caplog.text.count("is the leader now") == 1

        leader.stop()  # gives the lead up; the follower scans at once
        wait_for(lambda: follower.leading, 10, message="the follower to take over")
        assert caplog.text.count("is the leader now") == 2
        wait_for(
            lambda: caplog.text.count(f"{SCAN_JOB_ID} runs") == 2, 10, message="its first scan"
        )
    finally:
        for scheduler in schedulers:
            scheduler.stop()
    assert lease_holder(database_url) is None


LEADER = r"is the leader now \(pid (\d+)\)"
SCAN_RUNS = rf"{SCAN_JOB_ID} runs"


@pytest.mark.backends("postgresql")  # leadership is contested on PostgreSQL only
def test_scheduler_runs_in_one_worker_and_moves_when_it_dies(app, database_url):
    env = {
        "CI_SERVICE_SCHEDULER_RETRY_SECONDS": "0.3",
        "CI_SERVICE_SCHEDULER_SCAN_SECONDS": "0.5",
        "CI_SERVICE_SCHEDULER_LEASE_SECONDS": "2",
    }
    workers = [WorkerProcess(database_url, "--workers", "1", env=env) for _ in range(2)]
    try:
        for worker in workers:
            worker.start()

        def leader():
            return next((w for w in workers if w.count(LEADER)), None)

        first = wait_for(leader, 15, message="a leader")
        other = workers[1 - workers.index(first)]
        for _ in range(4):  # four periods of the leader's refresh scan ...
            first.wait_for_line(SCAN_RUNS, 10)
        assert other.count(SCAN_RUNS) == 0 and other.count(LEADER) == 0  # ... none elsewhere
        assert first.count(LEADER) == 1

        first.kill()  # SIGKILL: its lease is not renewed any more and runs out
        match = other.wait_for_line(LEADER, 15)
        assert int(match.group(1)) == other.pid
        other.wait_for_line(SCAN_RUNS, 10)
        assert other.stop() == 0
        assert lease_holder(database_url) is None
    finally:
        for worker in workers:
            worker.kill()
