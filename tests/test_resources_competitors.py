"""Competitors: defaults, the analysis job, the plan limit (also under a race), updates."""

from __future__ import annotations

import threading

import pytest

from ci_service.services.workspace import competitors
from ci_service.store.db import connection
from ci_service.store.jobs import Job
from tests.resource_helpers import error, make_competitor, make_deal, make_product, ok


def test_create_defaults_and_real_job(api):
    product = make_product(api)
    body = make_competitor(
        api, relevantProductIds=[product["id"]], isFirstRun=True, url="http://rival.example/x"
    )
    competitor = body["competitor"]
    assert competitor["status"] == "PENDING"
    assert competitor["priority"] == 1
    assert competitor["tier"] == "TIER_3"
    assert competitor["refreshRate"] == 90
    assert competitor["tags"] == [] and competitor["products"] == []
    assert competitor["relevantProductIds"] == [product["id"]]
    assert "lastRefreshAt" not in competitor and "lastBattlecardAt" not in competitor
    assert competitor["createdAt"].endswith("Z")
    with connection():
        job = Job.get_by_id(body["jobId"])
    assert job.workspace_id == api.workspace_id
    assert job.competitor_id == competitor["id"]
    assert job.type == "collect"
    assert job.metadata == {
        "competitorName": "Rival",
        "isFirstRun": True,
        "productIds": [product["id"]],
    }
    assert job.payload["isFirstRun"] is True


def test_get_returns_current_job_or_null(api):
    body = make_competitor(api)
    got = ok(api.get(f"/api/competitors/{body['competitor']['id']}"))
    assert got["competitor"] == body["competitor"]
    assert got["currentJob"]["id"] == body["jobId"]
    assert got["currentJob"]["status"] == "running"
    assert set(got["currentJob"]) == {"id", "status", "progress", "currentStep"}
    with connection():
        Job.update(status="completed").where(Job.id == body["jobId"]).execute()
    got = ok(api.get(f"/api/competitors/{body['competitor']['id']}"))
    assert got["currentJob"] is None


@pytest.mark.parametrize(
    "url",
    ["not a url", "ftp://rival.example", "https://", "javascript:alert(1)", "http://a b.com", ""],
)
def test_invalid_url_is_400(api, url):
    body = error(
        api.post("/api/competitors", json={"name": "X", "websiteUrl": url}),
        400,
        "VALIDATION_ERROR",
    )
    assert "websiteUrl" in body["details"]["fields"]


def test_unknown_relevant_product_is_400(api):
    body = error(
        api.post(
            "/api/competitors",
            json={"name": "X", "websiteUrl": "https://x.example", "relevantProductIds": ["no"]},
        ),
        400,
        "VALIDATION_ERROR",
    )
    assert "relevantProductIds" in body["details"]["fields"]


def test_starter_limit(make_api):
    api = make_api(plan="STARTER")
    for i in range(3):
        make_competitor(api, name=f"C{i}")
    body = error(
        api.post("/api/competitors", json={"name": "C4", "websiteUrl": "https://c4.example"}),
        403,
        "UPGRADE_REQUIRED",
    )
    assert body["requiredPlan"] == "PRO"
    assert body["currentPlan"] == "STARTER"
    assert body["limit"] == 3
    assert body["currentCount"] == 3
    assert len(ok(api.get("/api/competitors"))["competitors"]) == 3


def test_parallel_creates_never_overshoot_the_limit(app, make_workspace):
    workspace = make_workspace(plan="STARTER")
    results, barrier = [], threading.Barrier(8)

    def create(i):
        barrier.wait()
        with connection():
            try:
                competitors.create_competitor(
                    workspace.id,
                    {"name": f"C{i}", "websiteUrl": f"https://c{i}.example"},
                    plan="STARTER",
                    limit=3,
                )
                results.append("ok")
            except Exception as exc:  # the limit error, by code
                results.append(getattr(exc, "code", repr(exc)))

    threads = [threading.Thread(target=create, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(results) == ["UPGRADE_REQUIRED"] * 5 + ["ok"] * 3
    with connection():
        assert len(competitors.list_competitors(workspace.id)) == 3


def test_patch_every_listed_field(api):
    product = make_product(api)
    competitor = make_competitor(api)["competitor"]
    body = {
        "name": "Rival Inc",
        "websiteUrl": "https://rival.example/new",
        "tags": ["enterprise"],
        "priority": 5,
        "tier": "TIER_1",
        "products": [{"name": "Rival One", "price": "$10"}],
        "categories": [{"name": "Security"}],
        "relevantProductIds": [product["id"]],
        "companyProfile": {"yearFounded": 1999, "industry": "Software"},
        "companyStrengths": ["brand"],
        "companyWeaknesses": ["price"],
        "referenceLinks": [{"label": "Pricing", "url": "https://rival.example/pricing"}],
        "keyMessaging": ["fastest"],
    }
    got = ok(api.patch(f"/api/competitors/{competitor['id']}", json=body))["competitor"]
    for key, value in body.items():
        if key != "categories":
            assert got[key] == value, key
    assert got["refreshRate"] == 7
    assert got["categories"][0]["name"] == "Security" and got["categories"][0]["id"]
    # companyProfile is merged, other fields stay
    got = ok(
        api.patch(
            f"/api/competitors/{competitor['id']}", json={"companyProfile": {"revenue": "$1M"}}
        )
    )["competitor"]
    assert got["companyProfile"] == {"yearFounded": 1999, "industry": "Software", "revenue": "$1M"}
    assert got["tags"] == ["enterprise"]


def test_product_filter(api):
    p1, p2 = make_product(api, name="P1"), make_product(api, name="P2")
    a = make_competitor(api, name="A", relevantProductIds=[p1["id"]])["competitor"]
    b = make_competitor(api, name="B", relevantProductIds=[p1["id"], p2["id"]])["competitor"]
    make_competitor(api, name="C")
    names = lambda q: [c["name"] for c in ok(api.get(q))["competitors"]]  # noqa: E731
    assert names(f"/api/competitors?productId={p1['id']}") == [a["name"], b["name"]]
    assert names(f"/api/competitors?productId={p2['id']}") == ["B"]
    assert names("/api/competitors?productId=unknown") == []
    assert names("/api/competitors") == ["A", "B", "C"]
    assert names("/api/competitors?limit=1&offset=2") == ["C"]


def test_delete_detaches_deals_and_removes_offerings(api):
    from ci_service.services.workspace import offerings

    competitor = make_competitor(api)["competitor"]
    with connection():
        theirs = offerings.create_offering(
            api.workspace_id,
            {"name": "Theirs", "description": "", "audience": ""},
            competitor_id=competitor["id"],
        )
    deal = make_deal(api, outcome="LOST", competitorId=competitor["id"])
    ok(api.delete(f"/api/competitors/{competitor['id']}"))
    error(api.get(f"/api/competitors/{competitor['id']}"), 404, "NOT_FOUND")
    error(api.get(f"/api/offerings/{theirs.id}"), 404, "NOT_FOUND")
    assert ok(api.get(f"/api/deals/{deal['id']}"))["deal"]["competitorId"] is None
    assert ok(api.get(f"/api/deals?competitorId={competitor['id']}"))["deals"] == []
    # the detached LOST deal can still be edited
    ok(api.patch(f"/api/deals/{deal['id']}", json={"dealSize": "$5k"}))


@pytest.mark.parametrize("method", ["get", "patch", "delete"])
def test_missing_competitor_is_404(api, method):
    error(getattr(api, method)("/api/competitors/nope"), 404, "NOT_FOUND")
