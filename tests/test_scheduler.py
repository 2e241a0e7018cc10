"""The scheduler picks due competitors and the daily organization news; it only enqueues."""

from __future__ import annotations

import threading
from datetime import timedelta

from ci_service.jobs.registry import COLLECT, ORGANIZATION_NEWS
from ci_service.jobs.scheduler import Scheduler, enqueue_due_news, enqueue_due_refreshes, scan
from ci_service.services.workspace import jobs as job_service
from ci_service.store.db import connection
from ci_service.store.jobs import Job
from ci_service.store.resources import Organization
from ci_service.timeutil import utcnow
from tests.jobs_support import competitor
from tests.waiting import wait_for

pytest_plugins = ["tests.jobs_fixtures"]


def due_ids(now):
    with connection():
        return sorted(job.competitor_id for job in enqueue_due_refreshes(now))


def test_due_competitors_are_picked(make_workspace, runner):
    ws = make_workspace()
    now = utcnow()
    overdue = competitor(ws, "Overdue", refresh_rate=7, last_refresh_at=now - timedelta(days=8))
    exact = competitor(ws, "Exact", refresh_rate=30, last_refresh_at=now - timedelta(days=30))
    fresh = competitor(ws, "Fresh", refresh_rate=7, last_refresh_at=now - timedelta(days=6))
    manual = competitor(ws, "Manual", refresh_rate=0, last_refresh_at=now - timedelta(days=999))
    never = competitor(ws, "Never")  # never refreshed and no job yet: due at once
    assert due_ids(now) == sorted([overdue.id, exact.id, never.id])
    with connection():
        queued = Job.select().where(Job.type == COLLECT).first()
    assert queued.metadata["competitorName"] in {"Overdue", "Exact", "Never"}
    assert queued.metadata["isFirstRun"] is False
    # Active jobs are not queued twice.
    assert due_ids(now + timedelta(hours=12)) == []
    # Once they have run, the next due date is a refresh period later.
    runner.run_until_idle()
    assert due_ids(utcnow() + timedelta(days=6)) == [fresh.id]
    runner.run_until_idle()
    later = utcnow() + timedelta(days=7, minutes=1)
    assert due_ids(later) == sorted([overdue.id, fresh.id])
    assert manual.id not in due_ids(later + timedelta(days=999))


def test_a_failed_refresh_waits_a_period_before_retrying(make_workspace, runner):
    ws = make_workspace()
    now = utcnow()
    rival = competitor(ws, refresh_rate=7, last_refresh_at=now - timedelta(days=30))
    with connection():
        job = job_service.start_competitor_refresh(ws.id, rival.id)
        job_service.cancel_job(job.id, ws.id)  # the attempt failed
    assert due_ids(utcnow() + timedelta(days=1)) == []
    assert due_ids(utcnow() + timedelta(days=7, minutes=1)) == [rival.id]


def test_daily_news_for_workspaces_with_an_organization(make_workspace, runner):
    with_org, without = make_workspace(), make_workspace()
    with connection():
        Organization.create(workspace=with_org, name="Us", website_url="https://us.example")
        first = enqueue_due_news(utcnow())
        assert [(j.workspace_id, j.type) for j in first] == [(with_org.id, ORGANIZATION_NEWS)]
        assert first[0].competitor_id is None
        assert enqueue_due_news(utcnow() + timedelta(hours=30)) == []  # still active
    runner.run_until_idle()
    with connection():
        assert enqueue_due_news(utcnow() + timedelta(hours=23)) == []
        assert len(enqueue_due_news(utcnow() + timedelta(hours=25))) == 1
    assert without.id not in {j.workspace_id for j in Job.select()}


def test_background_scheduler_scans_at_start_and_stops(make_workspace):
    ws = make_workspace()
    rival = competitor(ws)
    before = set(threading.enumerate())
    scheduler = Scheduler()
    scheduler.start()
    try:
        assert scheduler.running
        wait_for(
            lambda: Job.select().where(Job.competitor_id == rival.id).exists(),
            10,
            message="the start-up scan",
        )
        scheduler.rescan_soon()
    finally:
        scheduler.stop()
        scheduler.stop()  # idempotent
    assert not scheduler.running
    wait_for(lambda: set(threading.enumerate()) <= before, 5, message="scheduler threads")


def test_scan_survives_a_failing_part(make_workspace, monkeypatch, caplog):
    import ci_service.jobs.scheduler as module

    def broken(now=None):
        raise RuntimeError("boom")

    ws = make_workspace()
    competitor(ws)
    monkeypatch.setattr(module, "enqueue_due_news", broken)
    assert len(scan()) == 1
    assert "boom" in caplog.text
