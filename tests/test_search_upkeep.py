"""Full-text index upkeep (services/search/upkeep.py): merged to one segment, same answers."""

from __future__ import annotations

import json

import pytest

from ci_service.jobs import scheduler as scheduler_module
from ci_service.services.intel import items as intel
from ci_service.services.search import upkeep as search_upkeep
from ci_service.store.db import connection, is_postgres
from tests.resource_helpers import make_competitor, ok
from tests.waiting import wait_for


def search(api, q):
    return ok(api.get("/api/search", query_string={"q": q}))["results"]


@pytest.fixture
def fragmented(make_api):
    """A workspace whose intel index has several segments: one per committed insert."""
    api = make_api()
    rival = make_competitor(api)["competitor"]
    with connection():
        for n in range(3):
            intel.record_evidence(
                api.workspace_id,
                source_type="WEB_PAGE",
                url=f"https://rival.example/p{n}",
                title=f"Page {n}",
                content=f"Kubernetes operator release {n}, with audit logging",
                competitor_id=rival["id"],
            )
    return api


def test_merges_every_index_into_one_segment(fragmented):
    api = fragmented
    before = {q: search(api, q) for q in ("kubernetes", "audit logging", "release 1", "ku")}
    with connection():
        report = search_upkeep.optimize_indexes()
    if is_postgres():
        assert report == {}  # pg_trgm's GIN indexes are PostgreSQL's to maintain
    else:
        assert report["intel_fts"]["before"] >= 2, report
        assert report["intel_fts"]["steps"] >= 1
        with connection():
            assert {t: search_upkeep.segments(t) for t in search_upkeep.FTS_TABLES} == {
                "intel_fts": 1,
                "competitor_fts": 1,
                "battlecard_fts": 0,  # no battlecards: an empty index
            }
            again = search_upkeep.optimize_indexes()
        assert all(row["steps"] == 0 for row in again.values())
    assert {q: search(api, q) for q in before} == before
    assert len(before["kubernetes"]) == 3


def test_stops_between_steps(fragmented):
    with connection():
        report = search_upkeep.optimize_indexes(stopping=lambda: True)
    assert all(row["steps"] == 0 and row["after"] == row["before"] for row in report.values())


def test_cli_reports_what_it_did(run):
    result = run("optimize-index", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    if run.database.startswith("postgresql"):
        assert report == {}
        assert "Nothing to do" in run("optimize-index").output
    else:
        assert set(report) == set(search_upkeep.FTS_TABLES)
        assert "segments" in run("optimize-index").output


def test_scheduler_runs_it_on_its_own_thread(app, monkeypatch):
    monkeypatch.setattr(scheduler_module, "UPKEEP_DELAY", scheduler_module.timedelta(hours=1))
    scheduler = scheduler_module.Scheduler(minutes=60)
    scheduler.start()
    try:
        # On PostgreSQL the scans are added once this process takes the lead.
        wait_for(lambda: scheduler._scheduler.get_job(scheduler_module.UPKEEP_JOB_ID))
        job = scheduler._scheduler.get_job(scheduler_module.UPKEEP_JOB_ID)
        assert job.executor == "upkeep"
        assert job.trigger.interval.total_seconds() == scheduler_module.UPKEEP_HOURS * 3600
    finally:
        scheduler.stop()


def test_upkeep_failure_is_logged_not_raised(app, monkeypatch, caplog):
    def broken(**_kwargs):
        raise RuntimeError("disk on fire")

    # The scheduler calls the work ci_service.services provided at load (scheduler.provide).
    monkeypatch.setitem(scheduler_module._WORK, "upkeep", broken)
    assert scheduler_module.search_index_upkeep() == {}
    assert "search index upkeep failed" in caplog.text
