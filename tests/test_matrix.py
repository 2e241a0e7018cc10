"""GET /api/matrix and the build-matrix scoring rule (issue 6)."""

from __future__ import annotations

import pytest

from ci_service.jobs.registry import REGISTRY
from ci_service.services.analysis import matrix
from ci_service.store.analysis import MatrixCell
from ci_service.store.db import connection
from tests.analysis_support import seed_rival
from tests.resource_helpers import error, make_competitor, make_product, ok

pytest_plugins = ["tests.jobs_fixtures"]


def build(api, competitor_id):
    with connection():
        return matrix.build_matrix(api.workspace_id, competitor_id)


def statuses(body, competitor_id):
    return {
        cid: row[competitor_id]["capabilityStatus"]
        for cid, row in body["cellMap"].items()
        if competitor_id in row
    }


def test_fixture_competitor_is_scored_by_the_documented_rule(make_api):
    api = make_api(plan="PRO")
    product, rival, pages = seed_rival(api)
    result = build(api, rival["id"])
    assert result["cells"] == 8 and result["productIds"] == [product["id"]]
    body = ok(api.get(f"/api/matrix?productId={product['id']}"))
    assert [c["id"] for c in body["categories"]][:3] == [
        "core-features",
        "integrations",
        "security-compliance",
    ]
    assert body["competitors"] == [{"id": rival["id"], "name": "Rival", "status": "PENDING"}]
    assert statuses(body, rival["id"]) == {
        "core-features": "UNKNOWN",
        "integrations": "INFERIOR",
        "security-compliance": "SUPERIOR",
        "analytics-reporting": "INFERIOR",
        "pricing-packaging": "UNKNOWN",
        "support-services": "UNKNOWN",
        "usability": "UNKNOWN",
        "scalability-performance": "UNKNOWN",
    }
    security = body["cellMap"]["security-compliance"][rival["id"]]
    assert security["evidenceIds"] == [pages["security"]]
    assert security["features"]["oursOnly"] == [
        {
            "name": "Single sign-on",
            "read": "their site says they do not offer it",
            "quotes": [
                {
                    "evidenceId": pages["security"],
                    "quote": "Rival does not support SAML single sign-on.",
                    "url": security["features"]["oursOnly"][0]["quotes"][0]["url"],
                }
            ],
        }
    ]
    assert security["summary"][0] == (
        "Only Acme Cloud: Single sign-on (their site says they do not offer it)"
    )
    analytics = body["cellMap"]["analytics-reporting"][rival["id"]]
    assert analytics["evidenceIds"] == [pages["analytics"]]
    assert [t["name"] for t in analytics["features"]["theirsOnly"]] == ["Dashboards", "Reports"]
    integrations = body["cellMap"]["integrations"][rival["id"]]
    (both,) = integrations["features"]["matched"]
    assert both["ours"] == "REST API" and "REST API" in both["quotes"][0]["quote"]
    assert [t["name"] for t in integrations["features"]["theirsOnly"]] == ["Zapier"]
    # No feature of theirs in a category: UNKNOWN, never SUPERIOR on our word alone.
    usability = body["cellMap"]["usability"][rival["id"]]
    assert usability["features"] == {"matched": [], "theirsOnly": [], "oursOnly": [], "soon": []}
    assert set(security) >= {
        "id",
        "workspaceId",
        "competitorId",
        "productId",
        "categoryId",
        "summary",
        "capabilityStatus",
    }
    assert security["productId"] == product["id"] and security["workspaceId"] == api.workspace_id
    assert len(body["cells"]) == 8 and "ourProduct" not in body


def test_build_matrix_is_idempotent_and_drops_stale_cells(make_api):
    api = make_api(plan="PRO")
    product, rival, _ = seed_rival(api)
    build(api, rival["id"])
    with connection():
        first = {c.category_id: (c.id, c.updated_at) for c in MatrixCell.select()}
    build(api, rival["id"])
    with connection():
        again = {c.category_id: (c.id, c.updated_at) for c in MatrixCell.select()}
    assert again == first  # same rows, untouched when nothing changed
    ok(
        api.patch(
            f"/api/products/{product['id']}",
            json={"categories": [{"id": "sec", "name": "Security"}]},
        )
    )
    build(api, rival["id"])
    with connection():
        assert [c.category_id for c in MatrixCell.select()] == ["sec"]
        assert MatrixCell.get().capability_status == "SUPERIOR"


@pytest.mark.parametrize("path", ["/api/matrix", "/api/matrix/solutions"])
def test_plan_gate(make_api, path):
    starter = make_api(plan="STARTER")
    assert error(starter.get(path), 403, "UPGRADE_REQUIRED")["requiredPlan"] == "PRO"


def test_query_errors(make_api):
    api = make_api(plan="PRO")
    body = error(api.get("/api/matrix?includeOurProduct=true"), 400, "VALIDATION_ERROR")
    assert "productId" in body["details"]["fields"]
    body = error(api.get("/api/matrix?includeOurProduct=maybe"), 400, "VALIDATION_ERROR")
    assert "includeOurProduct" in body["details"]["fields"]
    error(api.get("/api/matrix?productId=nope"), 404, "NOT_FOUND")
    other = make_api(plan="PRO")
    foreign = make_product(other, name="Theirs")
    error(api.get(f"/api/matrix?productId={foreign['id']}"), 404, "NOT_FOUND")


def test_our_product_only_when_asked(make_api):
    api = make_api(plan="PRO")
    product, rival, _ = seed_rival(api)
    build(api, rival["id"])
    body = ok(api.get(f"/api/matrix?productId={product['id']}&includeOurProduct=true"))
    ours = body["ourProduct"]
    assert ours["productId"] == product["id"]
    assert set(ours["capabilities"]) == {c["id"] for c in body["categories"]}
    security = ours["capabilities"]["security-compliance"]
    assert security["capabilityStatus"] == "SUPERIOR"
    assert security["summary"][0].startswith("Ours: Single sign-on")
    assert ours["capabilities"]["analytics-reporting"]["capabilityStatus"] == "INFERIOR"
    assert ours["capabilities"]["usability"] == {"summary": [], "capabilityStatus": "UNKNOWN"}
    no = ok(api.get(f"/api/matrix?productId={product['id']}&includeOurProduct=false"))
    assert "ourProduct" not in no


def test_priority_1_product_categories(make_api):
    api = make_api(plan="PRO")
    product = make_product(api, categories=[{"id": "p1", "name": "Security"}])
    rival = make_competitor(api, relevantProductIds=[product["id"]])["competitor"]
    ok(api.patch(f"/api/competitors/{rival['id']}", json={"categories": [{"name": "Mobile"}]}))
    build(api, rival["id"])
    body = ok(api.get(f"/api/matrix?productId={product['id']}"))
    assert body["categories"] == [{"id": "p1", "name": "Security"}]
    assert set(body["cellMap"]) == {"p1"} and rival["id"] in body["cellMap"]["p1"]


def test_priority_2_first_competitors_categories(make_api):
    api = make_api(plan="PRO")
    product = make_product(api, categories=[{"id": "p1", "name": "Security"}])
    first = make_competitor(api, name="First")["competitor"]
    ok(
        api.patch(
            f"/api/competitors/{first['id']}",
            json={"categories": [{"id": "m1", "name": "Mobile"}]},
        )
    )
    make_competitor(api, name="Second", url="https://second.example")
    build(api, first["id"])
    body = ok(api.get("/api/matrix"))
    assert body["categories"] == [{"id": "m1", "name": "Mobile"}]
    assert [c["name"] for c in body["competitors"]] == ["First", "Second"]
    assert first["id"] in body["cellMap"]["m1"]
    # with the product's id, its own categories win again (priority 1)
    body = ok(api.get(f"/api/matrix?productId={product['id']}"))
    assert body["categories"] == [{"id": "p1", "name": "Security"}]


def test_priority_3_categories_of_the_cells(make_api):
    api = make_api(plan="PRO")
    product = make_product(api, categories=[{"id": "p1", "name": "Security"}])
    rival = make_competitor(api)["competitor"]  # no categories of its own
    build(api, rival["id"])
    body = ok(api.get("/api/matrix"))  # no productId: priority 1 does not apply
    assert body["categories"] == [{"id": "p1", "name": "Security"}]
    assert body["cellMap"]["p1"][rival["id"]]["productId"] == product["id"]


def test_priority_4_default_categories(make_api):
    api = make_api(plan="PRO")
    make_competitor(api)
    body = ok(api.get("/api/matrix"))
    assert [c["name"] for c in body["categories"]] == [
        "Core Features",
        "Integrations",
        "Security & Compliance",
        "Analytics & Reporting",
        "Pricing & Packaging",
        "Support & Services",
        "Usability",
        "Scalability & Performance",
    ]
    assert body["cells"] == [] and all(row == {} for row in body["cellMap"].values())


def test_filters_competitor_ids_and_product_relevance(make_api):
    api = make_api(plan="PRO")
    product, rival, _ = seed_rival(api)
    other_product = make_product(api, name="Other")
    second = make_competitor(
        api, name="Second", url="https://second.example", relevantProductIds=[other_product["id"]]
    )["competitor"]
    anywhere = make_competitor(api, name="Anywhere", url="https://any.example")["competitor"]
    body = ok(api.get(f"/api/matrix?productId={product['id']}"))
    # as GET /api/competitors?productId=: only those whose relevantProductIds name it
    # (Anywhere, with an empty list, is listed without productId only)
    assert [c["id"] for c in body["competitors"]] == [rival["id"]]
    listed = ok(api.get(f"/api/competitors?productId={product['id']}"))["competitors"]
    assert [c["id"] for c in listed] == [rival["id"]]
    body = ok(api.get(f"/api/matrix?competitorIds={second['id']}, nope,{anywhere['id']}"))
    assert [c["id"] for c in body["competitors"]] == [second["id"], anywhere["id"]]
    foreign = make_competitor(make_api(plan="PRO"), name="Foreign")["competitor"]
    body = ok(api.get(f"/api/matrix?competitorIds={foreign['id']}"))
    assert body["competitors"] == [] and body["cells"] == []


def test_collect_job_builds_cells_and_cards(make_api, runner, monkeypatch):
    # The crawl steps belong to the pipeline and need the network: stub them here.
    handlers = REGISTRY["collect"].handlers
    monkeypatch.setitem(handlers, "collect", lambda ctx: None)
    monkeypatch.setitem(handlers, "ingest", lambda ctx: None)
    api = make_api(plan="PRO")
    product, rival, _ = seed_rival(api)
    runner.run_until_idle()
    detail = ok(api.get(f"/api/competitors/{rival['id']}"))["competitor"]
    assert detail["status"] == "COMPLETE" and "lastBattlecardAt" in detail
    body = ok(api.get(f"/api/matrix?productId={product['id']}"))
    assert statuses(body, rival["id"])["security-compliance"] == "SUPERIOR"
    cards = ok(api.get("/api/battlecards"))["battlecards"]
    assert len(cards) == 1 and cards[0]["mode"] == "ATTACK" and cards[0]["status"] == "READY"
    jobs = ok(api.get(f"/api/jobs?competitorId={rival['id']}"))["jobs"]
    assert jobs[0]["status"] == "completed"


@pytest.mark.parametrize("what", ["competitor", "product"])
def test_deleting_the_competitor_or_product_removes_its_cells(make_api, what):
    api = make_api(plan="PRO")
    product, rival, _ = seed_rival(api)
    build(api, rival["id"])
    with connection():
        assert MatrixCell.select().count() == 8
    path = (
        f"/api/competitors/{rival['id']}"
        if what == "competitor"
        else (f"/api/products/{product['id']}")
    )
    ok(api.delete(path))
    with connection():
        assert MatrixCell.select().count() == 0


def test_tool_view_has_basic_cells(make_api):
    api = make_api(plan="PRO")
    product, rival, pages = seed_rival(api)
    build(api, rival["id"])
    with connection():
        view = matrix.cells_for_tool(api.workspace_id, product["id"], None, True)
    cell = next(c for c in view["cells"] if c["categoryId"] == "security-compliance")
    assert cell["evidenceIds"] == [pages["security"]] and cell["competitorId"] == rival["id"]
    assert "ourProduct" in view


def test_a_refiner_may_change_status_but_not_invent_evidence(make_api):
    from ci_service.services.analysis import scoring

    assert scoring.llm_refiner() is None  # no CI_SERVICE_LLM_* configured: deterministic
    api = make_api(plan="PRO")
    product, rival, pages = seed_rival(api)

    def refine(cell):
        if cell["categoryName"] == "Security & Compliance":
            return {
                **cell,
                "capabilityStatus": "MATCH",
                "evidenceIds": ["made-up", pages["security"]],
            }
        return cell

    scoring.set_refiner(refine)
    try:
        build(api, rival["id"])
    finally:
        scoring.set_refiner(None)
    body = ok(api.get(f"/api/matrix?productId={product['id']}"))
    security = body["cellMap"]["security-compliance"][rival["id"]]
    assert security["capabilityStatus"] == "MATCH"
    assert security["evidenceIds"] == [pages["security"]]
    assert statuses(body, rival["id"])["analytics-reporting"] == "INFERIOR"
