"""The standalone pipeline jobs and the routes that start them: discovery, capabilities,
offering discover/enrich/upload/reanalyze and the organization refreshes."""

from __future__ import annotations

import io

import pytest

from ci_service.jobs.queue import enqueue
from ci_service.store.db import connection
from tests.intel_support import make_pdf
from tests.pipeline_fixtures.support import (
    DATASHEET_LINES,
    add_competitor,
    graph_labels,
    job,
    run_jobs,
)
from tests.resource_helpers import error, make_product, ok

pytest_plugins = ["tests.pipeline_fixtures.plugin"]


def idle_competitor(api, url):
    """A competitor whose automatic collect job is cancelled (nothing crawled yet)."""
    competitor_id, job_id = add_competitor(api, url, first_run=False)
    ok(api.post(f"/api/jobs/{job_id}/cancel"))
    return competitor_id


def start(api, job_type, competitor_id=None, **options):
    with connection():
        return enqueue(api.workspace_id, job_type, competitor_id=competitor_id, **options).id


def competitor_offerings(api, competitor_id):
    offerings = ok(api.get("/api/offerings"))["offerings"]
    return {o["name"]: o for o in offerings if o["competitorId"] == competitor_id}


def test_discovery_jobs_one_by_one(api, site):
    own = make_product(
        api,
        "Our Desk",
        capabilities=[{"name": "Single Sign-On"}],
        categories=[{"name": "Customer support"}],
    )
    own_capability, own_category = own["capabilities"][0]["id"], own["categories"][0]["id"]
    competitor_id = idle_competitor(api, site.url("/"))

    too_early = start(api, "analyze-product-capabilities", competitor_id)
    run_jobs()
    failed = job(api, too_early)
    assert failed["status"] == "failed" and "has no products yet" in failed["error"]

    profile_job = start(api, "discover-profile", competitor_id)
    run_jobs()
    assert job(api, profile_job)["status"] == "completed"
    profile = ok(api.get(f"/api/competitors/{competitor_id}"))["competitor"]["companyProfile"]
    assert profile["yearFounded"] == 2011 and profile["employeeCount"] == "250"
    assert profile["newsFeed"][0]["title"] == "FlowDesk 3 launches with workflow automation"

    products_job = start(api, "discover-products", competitor_id)
    run_jobs()
    assert job(api, products_job)["status"] == "completed"
    found = competitor_offerings(api, competitor_id)
    assert set(found) == {"FlowDesk", "InsightBoard"}
    assert found["FlowDesk"]["capabilityIds"] == []

    capabilities_job = start(api, "analyze-product-capabilities", competitor_id)
    run_jobs()
    assert job(api, capabilities_job)["status"] == "completed"
    flowdesk = competitor_offerings(api, competitor_id)["FlowDesk"]
    # our product's capability of the same name is reused: one shared CAPABILITY node
    assert own_capability in flowdesk["capabilityIds"]
    assert "cap-audit-logs" in flowdesk["capabilityIds"]
    assert graph_labels(api)["CAPABILITY"].count("Single Sign-On") == 1
    categories = ok(api.get(f"/api/competitors/{competitor_id}"))["competitor"]["categories"]
    assert {"id": own_category, "name": "Customer support", "description": ""} in categories
    assert "Customer Support" not in {c["name"] for c in categories}
    edges = ok(api.get("/api/knowledge-graph"))["elements"]["edges"]
    assert sum(1 for e in edges if e["data"]["label"] == "IMPLEMENTS") >= 8


def test_offerings_discover_route(api, site):
    competitor_id = idle_competitor(api, "https://globex.example")
    response = ok(
        api.post(
            "/api/offerings/discover",
            json={"websiteUrl": site.url("/products/"), "competitorId": competitor_id},
        )
    )
    run_jobs()
    done = job(api, response["jobId"])
    assert done["type"] == "discover-products" and done["status"] == "completed"
    assert done["metadata"]["websiteUrl"] == site.url("/products/")
    assert set(competitor_offerings(api, competitor_id)) == {"FlowDesk", "InsightBoard"}
    items = ok(api.get(f"/api/intel?competitorId={competitor_id}"))["intelItems"]
    assert {i["url"] for i in items} == {
        site.url("/products/flowdesk"),
        site.url("/products/insightboard"),
    }


@pytest.mark.parametrize(
    "body, field",
    [
        ({}, "websiteUrl"),
        ({"websiteUrl": "https://x.example"}, "competitorId"),
        ({"websiteUrl": "ftp://x.example", "competitorId": "c"}, "websiteUrl"),
        ({"websiteUrl": 5, "competitorId": "c"}, "websiteUrl"),
    ],
)
def test_offerings_discover_rejects_bad_bodies(api, body, field):
    body = error(api.post("/api/offerings/discover", json=body), 400, "VALIDATION_ERROR")
    assert field in body["details"]["fields"]


@pytest.mark.parametrize(
    "send",
    [
        lambda api, foreign: api.post(
            "/api/offerings/discover",
            json={"websiteUrl": "https://a.example", "competitorId": "nope"},
        ),
        lambda api, foreign: api.post("/api/offerings/enrich", json={"offeringIds": [foreign]}),
        lambda api, foreign: api.post(f"/api/offerings/{foreign}/reanalyze"),
        lambda api, foreign: api.post("/api/offerings/missing/reanalyze"),
        lambda api, foreign: api.post(
            f"/api/offerings/{foreign}/upload",
            data={"file": (io.BytesIO(make_pdf([["x"]])), "a.pdf", "application/pdf")},
            content_type="multipart/form-data",
        ),
    ],
    ids=["discover", "enrich", "reanalyze-foreign", "reanalyze-missing", "upload-foreign"],
)
def test_offering_job_routes_answer_404_for_unknown_or_foreign_ids(api, make_api, send):
    other = make_api()
    foreign = ok(
        other.post("/api/offerings", json={"name": "F", "description": "", "audience": ""})
    )["offering"]["id"]
    error(send(api, foreign), 404, "NOT_FOUND")


def test_static_segments_win_over_offering_ids(api):
    # GET/PATCH on /discover and /enrich are offering ids, POST is the job route.
    error(api.get("/api/offerings/discover"), 404, "NOT_FOUND")
    error(api.patch("/api/offerings/enrich", json={"name": "x"}), 404, "NOT_FOUND")
    body = error(api.post("/api/offerings/enrich", json={}), 400, "VALIDATION_ERROR")
    assert "offeringIds" in body["details"]["fields"]
    body = error(
        api.post("/api/offerings/enrich", json={"offeringIds": []}), 400, "VALIDATION_ERROR"
    )
    assert "offeringIds" in body["details"]["fields"]


def test_enrich_fills_what_is_missing_from_the_evidence(api, site):
    competitor_id = idle_competitor(api, site.url("/"))
    start(api, "discover-products", competitor_id)
    run_jobs()
    board = competitor_offerings(api, competitor_id)["InsightBoard"]
    ok(api.patch(f"/api/offerings/{board['id']}", json={"description": "", "features": []}))
    response = ok(api.post("/api/offerings/enrich", json={"offeringIds": [board["id"]]}))
    run_jobs()
    assert job(api, response["jobId"])["status"] == "completed"
    enriched = ok(api.get(f"/api/offerings/{board['id']}"))["offering"]
    assert enriched["description"].startswith("InsightBoard turns support data")
    assert {"Custom dashboards", "Real-time analytics"} <= {f["name"] for f in enriched["features"]}


def test_upload_extracts_features_and_capabilities(api, crawl_env):
    offering = ok(
        api.post("/api/offerings", json={"name": "FlowDesk", "description": "", "audience": ""})
    )["offering"]
    pdf = make_pdf([DATASHEET_LINES], title="FlowDesk Datasheet")
    response = api.post(
        f"/api/offerings/{offering['id']}/upload",
        data={"file": (io.BytesIO(pdf), "datasheet.pdf", "application/pdf")},
        content_type="multipart/form-data",
    )
    job_id = ok(response)["jobId"]
    run_jobs()
    done = job(api, job_id)
    assert done["type"] == "analyze-offering-document" and done["status"] == "completed", done
    updated = ok(api.get(f"/api/offerings/{offering['id']}"))["offering"]
    assert {"Visual workflow builder", "SLA management", "Audit logs"} <= {
        f["name"] for f in updated["features"]
    }
    assert "cap-sla-management" in updated["capabilityIds"]
    tree = ok(api.get(f"/api/offerings/{offering['id']}/knowledge-tree"))["tree"]
    assert tree["nodeCount"] >= 4
    items = ok(api.get("/api/intel"))["intelItems"]
    uploaded = [i for i in items if i["offeringId"] == offering["id"]]
    assert uploaded and uploaded[0]["sourceType"] == "DOCUMENT"
    assert "Visual workflow builder" in uploaded[0]["content"]

    again = ok(api.post(f"/api/offerings/{offering['id']}/reanalyze"))["jobId"]
    run_jobs()
    assert job(api, again)["status"] == "completed"
    assert (
        ok(api.get(f"/api/offerings/{offering['id']}"))["offering"]["capabilityIds"]
        == (updated["capabilityIds"])
    )


def test_upload_rejects_what_it_cannot_take(api, app, crawl_env):
    offering_id = ok(
        api.post("/api/offerings", json={"name": "O", "description": "", "audience": ""})
    )["offering"]["id"]
    path = f"/api/offerings/{offering_id}/upload"

    def upload(data, name="a.pdf", kind="application/pdf"):
        return api.post(
            path, data={"file": (io.BytesIO(data), name, kind)}, content_type="multipart/form-data"
        )

    body = error(
        api.post(path, data={"other": "x"}, content_type="multipart/form-data"),
        400,
        "VALIDATION_ERROR",
    )
    assert "file" in body["details"]["fields"]
    error(upload(b"just text", "notes.txt", "text/plain"), 415, "UNSUPPORTED_MEDIA_TYPE")
    error(
        upload(b"PK\x03\x04 zip", "archive.zip", "application/zip"), 415, "UNSUPPORTED_MEDIA_TYPE"
    )
    error(api.post(path, json={"file": "x"}), 415, "UNSUPPORTED_MEDIA_TYPE")
    app.config["CI_SETTINGS"] = app.config["CI_SETTINGS"].with_overrides(max_upload_bytes=2000)
    error(upload(b"%PDF-1.4" + b"x" * 5000), 413, "PAYLOAD_TOO_LARGE")
    broken = ok(upload(b"%PDF-1.4 broken"))["jobId"]
    run_jobs()
    failed = job(api, broken)
    assert failed["status"] == "failed" and "could not read a.pdf" in failed["error"]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/offerings/discover", {"websiteUrl": "https://a.example", "competitorId": "c"}),
        ("/api/offerings/enrich", {"offeringIds": ["x"]}),
        ("/api/offerings/x/reanalyze", None),
        ("/api/organizations/refresh", None),
        ("/api/organizations/news/refresh", None),
    ],
)
def test_viewers_cannot_start_jobs(make_api, path, body):
    viewer = make_api(role="VIEWER")
    error(viewer.post(path, **({"json": body} if body else {})), 403, "FORBIDDEN")


def test_organization_refresh_and_news(api, site):
    error(api.post("/api/organizations/refresh"), 404, "NOT_FOUND")
    ok(api.patch("/api/organizations", json={"name": "Globex"}))
    body = error(api.post("/api/organizations/news/refresh"), 400, "VALIDATION_ERROR")
    assert "websiteUrl" in body["details"]["fields"]
    ok(api.patch("/api/organizations", json={"websiteUrl": site.url("/")}))

    refresh = ok(api.post("/api/organizations/refresh"))["jobId"]
    run_jobs()
    done = job(api, refresh)
    assert done["type"] == "refresh-organization" and done["status"] == "completed", done
    org = ok(api.get("/api/organizations"))["organization"]
    profile = org["companyProfile"]
    assert profile["yearFounded"] == 2011 and "Austin" in profile["headquarters"]
    titles = [n["title"] for n in profile["newsFeed"]]
    assert titles == [
        "FlowDesk 3 launches with workflow automation",
        "Globex raises Series B",
    ]
    tree = ok(api.get("/api/organizations/tree"))["tree"]
    assert tree["entityType"] == "ORGANIZATION" and tree["nodeCount"] > 5
    items = ok(api.get("/api/intel"))["intelItems"]
    assert items and all(i["scope"] == "organization" for i in items)
    labels = graph_labels(api)
    assert any("Globex raises Series B" in n for n in labels["MARKET_EVENT"])

    news = ok(api.post("/api/organizations/news/refresh"))["jobId"]
    run_jobs()
    assert job(api, news)["status"] == "completed"
    again = ok(api.get("/api/organizations"))["organization"]["companyProfile"]["newsFeed"]
    assert [n["title"] for n in again] == titles  # deduplicated
    assert len(ok(api.get("/api/intel"))["intelItems"]) == len(items)
    assert graph_labels(api)["MARKET_EVENT"] == labels["MARKET_EVENT"]


def test_daily_news_job_without_a_website_has_nothing_to_do(api, crawl_env):
    ok(api.patch("/api/organizations", json={"name": "No Site Co"}))
    job_id = start(api, "refresh-organization-news")
    run_jobs()
    done = job(api, job_id)
    assert done["status"] == "completed"
    assert ok(api.get("/api/organizations"))["organization"]["companyProfile"] == {}
