"""A collect killed at any step and run again leaves what one uninterrupted run leaves
(issue 25): no duplicate intel items, offerings, graph nodes or edges, and no event raised
twice, on a first collect and on a refresh that finds changes.

The kill is simulated in-process: at a chosen point the worker thread raises ``Killed`` (a
BaseException nothing in the engine catches), so what was committed stays and nothing else
happens, as with SIGKILL; the job is then recovered as a dead process's job is and run
again. A twin workspace collects the same site without a kill; both must hold the same.
``tests/test_jobs_retry_live.py`` kills real worker processes.
"""

from __future__ import annotations

import pytest

from ci_service.jobs import lifecycle
from ci_service.jobs.runner import JobRunner
from ci_service.store.db import connection
from ci_service.store.jobs import Job
from tests.pipeline_fixtures.support import change_site, run_jobs
from tests.retry_support import CHANGE_EVENTS, duplicates, state

pytest_plugins = ["tests.pipeline_fixtures.plugin"]


class Killed(BaseException):
    """The worker died here (a BaseException: no ``except Exception`` stops it)."""


#: where the kill lands: (module, attribute, when, on which call)
POINTS = {
    "crawled": ("ci_service.services.collection.competitor_jobs", "stash", "before", 1),
    "evidence": ("ci_service.services.collection.ingest", "IngestStats.add", "after", 5),
    "tree": ("ci_service.services.collection.ingest", "link_graph", "before", 1),
    "people": ("ci_service.services.collection.ingest", "link_news", "before", 1),
    "products": ("ci_service.services.collection.pricing_store", "save_pricing", "before", 1),
    "pricing": ("ci_service.pipeline.products.integrations", "extract_supported", "before", 1),
    "matrix": ("ci_service.services.battlecards.cards", "refresh_for_competitor", "before", 1),
    "battlecard": ("ci_service.services.battlecards.cards", "refresh_for_competitor", "after", 1),
}


def arm(monkeypatch, point: str) -> list[str]:
    """Kill the worker once at ``point``; the returned list says whether it happened."""
    from importlib import import_module

    module_name, attribute, when, on_call = POINTS[point]
    owner = import_module(module_name)
    *path, name = attribute.split(".")
    for part in path:
        owner = getattr(owner, part)
    original = getattr(owner, name)
    fired: list[str] = []
    calls = [0]

    def killing(*args, **kwargs):
        calls[0] += 1
        due = not fired and calls[0] == on_call
        if due and when == "before":
            fired.append(point)
            raise Killed(point)
        result = original(*args, **kwargs)
        if due:
            fired.append(point)
            raise Killed(point)
        return result

    monkeypatch.setattr(owner, name, killing)
    return fired


def own_product(api) -> str:
    body = {
        "name": "Our Desk",
        "description": "Help desk",
        "audience": "Support teams",
        "categories": [{"name": "Customer Support"}, {"name": "Analytics & Reporting"}],
    }
    return api.post("/api/products", json=body).json["product"]["id"]


def add_rival(api, site) -> tuple[str, str]:
    body = {
        "name": "Globex",
        "websiteUrl": site.url("/"),
        "relevantProductIds": [own_product(api)],
        "isFirstRun": True,
    }
    answer = api.post("/api/competitors", json=body)
    assert answer.status_code == 200, answer.json
    return answer.json["competitor"]["id"], answer.json["jobId"]


def refresh(api, competitor_id: str) -> str:
    answer = api.post(f"/api/competitors/{competitor_id}/refresh")
    assert answer.status_code == 200, answer.json
    return answer.json["jobId"]


def killed_then_retried(job_id: str, fired: list[str]) -> Job:
    """Run the job until the kill, recover it as a dead process's job, run it again."""
    with pytest.raises(Killed):
        JobRunner(0).run_once()
    assert fired, "the kill point was never reached"
    with connection():
        assert Job.get_by_id(job_id).claimed_at is not None  # what the dead worker left
        assert [j.id for j in lifecycle.recover_orphans(delay_seconds=0)] == [job_id]
    assert run_jobs() == 1
    with connection():
        return Job.get_by_id(job_id)


def assert_same(killed: dict, clean: dict) -> None:
    assert duplicates(killed) == {}
    for what in clean:
        assert killed[what] == clean[what], what


@pytest.mark.parametrize("point", ["crawled", "evidence", "tree", "battlecard"])
def test_a_first_collect_killed_and_run_again_leaves_one_runs_worth(
    point, api, make_api, site, monkeypatch
):
    twin = make_api()
    add_rival(twin, site)
    assert run_jobs() == 1
    clean = state(twin.workspace_id)

    fired = arm(monkeypatch, point)
    competitor_id, job_id = add_rival(api, site)
    job = killed_then_retried(job_id, fired)
    assert (job.status, job.attempt) == ("completed", 2)
    competitor = api.get(f"/api/competitors/{competitor_id}").json["competitor"]
    assert competitor["status"] == "COMPLETE"
    assert_same(state(api.workspace_id), clean)


@pytest.mark.parametrize("point", ["evidence", "people", "products", "pricing", "battlecard"])
def test_a_refresh_killed_and_run_again_raises_each_change_once(
    point, api, make_api, site, monkeypatch
):
    twin = make_api()
    twin_rival, _ = add_rival(twin, site)
    rival, _ = add_rival(api, site)
    assert run_jobs() == 2
    change_site(site.root)
    refresh(twin, twin_rival)
    assert run_jobs() == 1
    clean = state(twin.workspace_id)
    assert {kind for kind, _title in clean["events"]} == CHANGE_EVENTS

    fired = arm(monkeypatch, point)
    job = killed_then_retried(refresh(api, rival), fired)
    assert (job.status, job.attempt) == ("completed", 2)
    assert_same(state(api.workspace_id), clean)


def test_a_product_another_run_made_meanwhile_is_not_made_twice(api, site, monkeypatch):
    """Two runs of one collect at once (a worker frozen past its lease wakes while the next
    run works): the products step looks the offering up again under the write lock, so a
    stale view of the competitor's offerings creates no second one."""
    from ci_service.services.collection import product_store

    rival, _ = add_rival(api, site)
    run_jobs()
    before = state(api.workspace_id)
    real = product_store.competitor_offerings
    looks: list[str] = []

    def stale_first_look(workspace_id, competitor_id):
        looks.append(competitor_id)
        return [] if len(looks) == 1 else real(workspace_id, competitor_id)

    monkeypatch.setattr(product_store, "competitor_offerings", stale_first_look)
    refresh(api, rival)
    assert run_jobs() == 1 and len(looks) > 1
    after = state(api.workspace_id)
    assert after["offerings"] == before["offerings"] and duplicates(after) == {}
    assert not [kind for kind, _title in after["events"] if kind == "competitor.product_added"]
