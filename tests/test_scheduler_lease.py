"""The scheduler's lead is a lease with a heartbeat (issue 25): taken with one statement
when free or expired, renewed by the leader, lost when it runs out, taken over by another
candidate, and checked again right before every scan, so a leader that hung (SIGSTOP) and
comes back never scans on the lead it lost. PostgreSQL only (on SQLite the one process
always leads); the clock is injected, except in the live test at the end."""

from __future__ import annotations

import logging
import os
import re
import signal
import time

import pytest

from ci_service.jobs.leadership import Leadership
from ci_service.jobs.scheduler import SCAN_JOB_ID, Scheduler
from tests.waiting import wait_for
from tests.worker_live import WorkerProcess

LEASE = 30.0


class Clock:
    """Seconds since the epoch, moved by hand (the leases' clock in these tests)."""

    def __init__(self, now: float = 1_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def candidates(app, database_url):
    clock = Clock()
    made: list[Leadership] = []

    def make() -> Leadership:
        made.append(Leadership(database_url, lease_seconds=LEASE, clock=clock))
        return made[-1]

    yield clock, make
    for leadership in made:
        leadership.release()


@pytest.mark.backends("sqlite")
def test_sqlite_always_leads_and_confirms(backend, app):
    leadership = Leadership(None)
    assert leadership.try_lead() and leadership.confirm() and leadership.leading


@pytest.mark.backends("postgresql")  # the lead is contested there only
def test_take_renew_expire_and_steal(candidates, caplog):
    clock, make = candidates
    a, b = make(), make()
    assert a.try_lead() and not b.try_lead()
    assert a.heartbeat_seconds == LEASE / 3

    clock.advance(20)
    assert a.try_lead()  # renewed: now held until 20 + 30
    clock.advance(29)
    assert not b.try_lead()  # 49 s after the first take, but within the renewed lease
    assert a.confirm()  # renewed again, until 49 + 30

    clock.advance(LEASE + 0.5)  # a stopped renewing (hung)
    assert b.try_lead()  # expired: b takes it
    with caplog.at_level(logging.WARNING, logger="ci_service.scheduler"):
        assert not a.confirm() and not a.leading  # a finds another holder
    assert "scheduler leadership lost" in caplog.text
    assert not a.try_lead()  # and cannot take it back while b renews
    clock.advance(LEASE / 3)
    assert b.try_lead() and b.confirm()

    b.release()  # a clean stop hands over at once, before the lease would run out
    assert a.try_lead() and not b.try_lead()


@pytest.mark.backends("postgresql")  # the lead is contested there only
def test_a_lapsed_lease_is_lost_even_if_no_one_took_it(candidates):
    """A leader frozen past its lease must not act as leader when it wakes: it checks
    (``confirm``), finds its lease expired, and has to take the lead afresh."""
    clock, make = candidates
    a = make()
    assert a.try_lead()
    clock.advance(LEASE + 1)
    assert not a.confirm() and not a.leading
    assert not a.confirm()  # not leading: nothing to confirm
    assert a.try_lead()  # free and expired: taken again, as a new lead


@pytest.mark.backends("postgresql")  # the lead is contested there only
def test_two_candidates_racing_for_a_free_lease_make_one_leader(candidates):
    from tests.concurrency_support import all_at_once

    clock, make = candidates
    group = [make() for _ in range(6)]
    results = all_at_once(6, lambda i: group[i].try_lead())
    assert sorted(results) == [False] * 5 + [True]


@pytest.mark.backends("postgresql")
def test_a_scan_runs_only_on_a_confirmed_lead(app, database_url, caplog):
    clock = Clock()
    scheduler = Scheduler(database_url=database_url, lease_seconds=LEASE)
    scheduler.leadership.clock = clock
    other = Leadership(database_url, lease_seconds=LEASE, clock=clock)
    ran: list[str] = []
    caplog.set_level(logging.INFO, logger="ci_service.scheduler")
    try:
        scheduler._run(SCAN_JOB_ID, lambda: ran.append("not leading"))
        assert ran == []  # never led
        assert scheduler.leadership.try_lead()
        scheduler._run(SCAN_JOB_ID, lambda: ran.append("leading"))
        assert ran == ["leading"]

        clock.advance(LEASE + 1)  # frozen past the lease; another process took over
        assert other.try_lead()
        scheduler._run(SCAN_JOB_ID, lambda: ran.append("stale"))
        assert ran == ["leading"] and not scheduler.leadership.leading
        assert f"{SCAN_JOB_ID} skipped, this process no longer leads" in caplog.text
    finally:
        other.release()
        scheduler.leadership.release()


LEADER = re.compile(r"is the leader now \(pid (\d+)\)")
SCAN_RUNS = rf"{SCAN_JOB_ID} runs"
LEASE_SECONDS = 2.0


@pytest.mark.backends("postgresql")
def test_a_sigstopped_leader_loses_the_lead_and_does_not_scan_when_resumed(app, database_url):
    env = {
        "CI_SERVICE_SCHEDULER_RETRY_SECONDS": "0.2",
        "CI_SERVICE_SCHEDULER_SCAN_SECONDS": "0.3",
        "CI_SERVICE_SCHEDULER_LEASE_SECONDS": str(LEASE_SECONDS),
    }
    workers = [WorkerProcess(database_url, "--workers", "1", env=env) for _ in range(2)]
    stopped = None
    try:
        for worker in workers:
            worker.start()
        first = wait_for(lambda: next((w for w in workers if w.count(LEADER.pattern)), None), 15)
        other = workers[1 - workers.index(first)]
        first.wait_for_line(SCAN_RUNS, 10)

        os.kill(first.pid, signal.SIGSTOP)  # hung: its session (and sockets) stay open
        stopped, frozen_at = first, time.monotonic()
        match = other.wait_for_line(LEADER, 15)
        took_over = time.monotonic() - frozen_at
        scans_before = first.count(SCAN_RUNS)  # all it wrote before the stop is read by now
        assert int(match.group(1)) == other.pid
        assert took_over < LEASE_SECONDS + 3  # within about a lease (plus a retry)
        other.wait_for_line(SCAN_RUNS, 10)  # the new leader scans

        os.kill(first.pid, signal.SIGCONT)  # it wakes up believing it leads ...
        stopped = None
        first.wait_for_line(r"scheduler leadership lost|no longer the leader", 10)
        for _ in range(5):  # ... while the new leader goes on scanning
            other.wait_for_line(SCAN_RUNS, 10)
        assert first.count(SCAN_RUNS) == scans_before  # not one scan after it woke
        assert first.count(LEADER.pattern) == 1 and other.count(LEADER.pattern) == 1
        assert other.stop() == 0 and first.stop() == 0
    finally:
        if stopped is not None:
            os.kill(stopped.pid, signal.SIGCONT)
        for worker in workers:
            worker.kill()
