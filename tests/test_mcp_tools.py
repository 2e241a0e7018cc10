"""Every tool, called directly and through tools/call, against real service data."""

from __future__ import annotations

import pytest

from tests.analysis_support import run_jobs, seed_rival

pytest_plugins = ["tests.jobs_fixtures"]


@pytest.fixture
def call(api):
    """call(name, args) -> result (direct JSON-RPC method) checked against tools/call."""

    def invoke(name, args=None, key=None, both=True):
        """``both=False``: only the direct call (for tools that create something)."""
        headers = {"X-API-Key": key or api.key}
        direct = api.client.post(
            "/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": name, "params": args or {}},
            headers=headers,
        ).json
        if not both:
            return direct
        via_mcp = api.client.post(
            "/mcp",
            json={
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": name, "arguments": args or {}},
            },
            headers=headers,
        ).json["result"]
        if "error" in direct:
            assert via_mcp["isError"] is True
            assert via_mcp["structuredContent"]["error"]["code"] == direct["error"]["code"]
            return direct
        assert via_mcp["isError"] is False
        structured = via_mcp["structuredContent"]
        if isinstance(direct["result"], dict):
            # Tools that write return fresh timestamps; compare what is stable.
            assert structured.keys() == direct["result"].keys()
        else:
            assert list(structured.values())[0] == direct["result"]
        return direct

    return invoke


@pytest.fixture
def product(api):
    body = {
        "name": "Our CRM",
        "description": "CRM",
        "audience": "Sales",
        "categories": [{"name": "Analytics"}, {"name": "Automation"}],
    }
    return api.post("/api/products", json=body).json["product"]


@pytest.fixture
def competitor(api, product):
    body = {
        "name": "Rival",
        "websiteUrl": "https://rival.example",
        "relevantProductIds": [product["id"]],
    }
    return api.post("/api/competitors", json=body).json["competitor"]


def test_tools_list_has_the_catalog(api):
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    names = {t["name"] for t in api.post("/mcp", json=body).json["result"]["tools"]}
    assert {
        "get_competitor",
        "list_competitors",
        "list_solutions",
        "get_solution",
        "create_solution",
        "update_solution",
        "generate_solutions",
    } <= names


def test_get_and_list_competitors(call, competitor, product):
    got = call("get_competitor", {"competitorId": competitor["id"]})["result"]
    assert got["id"] == competitor["id"] and got["name"] == "Rival"
    listed = call("list_competitors")["result"]
    assert [c["id"] for c in listed] == [competitor["id"]]
    assert call("list_competitors", {"offeringId": product["id"]})["result"][0]["id"] == got["id"]
    assert call("list_competitors", {"offeringId": "other"})["result"] == []


def test_competitor_errors(call, make_api, competitor):
    assert call("get_competitor", {"competitorId": "missing"})["error"]["code"] == 404
    error = call("get_competitor", {})["error"]
    assert error["code"] == -32602 and "competitorId" in error["data"]["details"]
    assert call("get_competitor", {"competitorId": 5})["error"]["code"] == -32602
    other = make_api()
    foreign = call("get_competitor", {"competitorId": competitor["id"]}, key=other.key)
    assert foreign["error"]["code"] == 404


def test_solution_tools(call, product):
    category = product["categories"][0]["id"]
    mapping = {"categoryId": category, "productId": product["id"], "weight": 0.5}
    args = {"name": "Insight", "productIds": [product["id"]], "categoryMappings": [mapping]}
    created = call("create_solution", args, both=False)["result"]
    assert created["isAiGenerated"] is False and created["categoryMappings"] == [mapping]
    got = call("get_solution", {"solutionId": created["id"]})["result"]
    assert got["name"] == "Insight"
    updated = call("update_solution", {"solutionId": created["id"], "name": "Insights"})["result"]
    assert updated["name"] == "Insights" and updated["categoryMappings"] == [mapping]
    assert [s["id"] for s in call("list_solutions")["result"]] == [created["id"]]
    via_mcp = call("tools/call", {"name": "create_solution", "arguments": args}, both=False)
    assert via_mcp["result"]["structuredContent"]["name"] == "Insight"
    assert len(call("list_solutions")["result"]) == 2


@pytest.mark.parametrize(
    "args, argument",
    [
        ({"productIds": [], "categoryMappings": []}, "name"),
        ({"name": "x", "productIds": []}, "categoryMappings"),
        ({"name": "x", "productIds": [], "categoryMappings": []}, "categoryMappings"),
        (
            {
                "name": "x",
                "productIds": [],
                "categoryMappings": [{"categoryId": "c", "productId": "p", "weight": 2}],
            },
            "categoryMappings.0.weight",
        ),
    ],
)
def test_create_solution_invalid_arguments(call, args, argument):
    error = call("create_solution", args)["error"]
    assert error["code"] == -32602
    assert argument in error["data"]["details"]


def test_create_solution_with_unknown_product_names_the_field(call):
    mapping = {"categoryId": "c", "productId": "nope", "weight": 1}
    error = call(
        "create_solution", {"name": "x", "productIds": ["nope"], "categoryMappings": [mapping]}
    )["error"]
    assert error["code"] == -32602 and "productIds" in error["data"]["details"]


def test_solution_not_found(call):
    assert call("get_solution", {"solutionId": "nope"})["error"]["code"] == 404
    assert call("update_solution", {"solutionId": "nope", "name": "x"})["error"]["code"] == 404


def test_generate_solutions_really_generates(call, api, product):
    second = api.post(
        "/api/products",
        json={
            "name": "Our BI",
            "description": "BI",
            "audience": "Analysts",
            "categories": [{"name": "analytics", "description": "Dashboards"}],
            "capabilities": [{"name": "SSO"}],
        },
    ).json["product"]
    api.patch(f"/api/products/{product['id']}", json={"capabilities": [{"name": "sso"}]})
    result = call("generate_solutions")["result"]
    names = sorted(s["name"].lower() for s in result["created"])
    assert names == ["analytics", "automation", "sso"]
    assert "3 new" in result["message"]
    analytics = next(s for s in result["created"] if s["name"] == "Analytics")
    assert analytics["isAiGenerated"] is True
    assert sorted(analytics["productIds"]) == sorted([product["id"], second["id"]])
    assert {m["weight"] for m in analytics["categoryMappings"]} == {1.0}
    # Running again changes nothing and creates no duplicates.
    again = call("generate_solutions")["result"]
    assert again["created"] == [] and again["updated"] == []
    assert len(call("list_solutions")["result"]) == 3


def test_generate_solutions_without_products_says_so(call):
    result = call("generate_solutions")["result"]
    assert result["created"] == [] and "No products" in result["message"]


def test_write_tools_need_write_scope_and_editor(call, make_api, product):
    reader = make_api(scopes=["read"])
    assert call("generate_solutions", key=reader.key)["error"]["code"] == 403
    viewer = make_api(role="VIEWER")
    assert call("generate_solutions", key=viewer.key)["error"]["code"] == 403
    assert call("list_solutions", key=viewer.key)["result"] == []


@pytest.fixture
def evidence(api, competitor):
    from ci_service.services.intel.items import record_evidence
    from ci_service.store.db import connection

    with connection():
        pricing = record_evidence(
            api.workspace_id,
            source_type="WEB_PAGE",
            url="https://rival.example/pricing",
            title="Rival pricing",
            content="Rival Pro costs 49 dollars per seat per month.",
            competitor_id=competitor["id"],
        ).item
        office = record_evidence(
            api.workspace_id,
            source_type="WEB_PAGE",
            url="https://rival.example/about",
            title="About Rival",
            content="Our headquarters are in Berlin, founded 2009.",
            competitor_id=competitor["id"],
        ).item
    return {"pricing": pricing.id, "office": office.id}


def test_get_intel(call, competitor, evidence):
    items = call("get_intel", {"competitorId": competitor["id"]})["result"]
    assert {i["id"] for i in items} == set(evidence.values())
    assert all(i["type"] == "EVIDENCE" and i["metadata"]["sourceType"] == "WEB_PAGE" for i in items)
    one = call("get_intel", {"ids": [evidence["pricing"]]})["result"]
    assert [i["id"] for i in one] == [evidence["pricing"]]
    assert call("get_intel", {"competitorId": "nope"})["error"]["code"] == 404
    assert call("get_intel", {"ids": "x"})["error"]["code"] == -32602


def test_search_intel(call, competitor, evidence):
    results = call("search_intel", {"query": "how much does it cost per seat"})["result"]
    assert results[0]["id"] == evidence["pricing"]
    assert 0 <= results[-1]["relevanceScore"] <= results[0]["relevanceScore"] <= 1
    limited = call("search_intel", {"query": "Rival", "limit": 1})["result"]
    assert len(limited) == 1
    scoped = call("search_intel", {"query": "Berlin", "competitorId": competitor["id"]})
    assert scoped["result"][0]["id"] == evidence["office"]
    assert call("search_intel", {"query": "x", "competitorId": "nope"})["error"]["code"] == 404
    error = call("search_intel", {})["error"]
    assert error["code"] == -32602 and "query" in error["data"]["details"]
    assert call("search_intel", {"query": "x", "limit": 0})["error"]["code"] == -32602


def test_all_tools_are_listed(api):
    # The spec's 14, and list_events (issue 14: events for agents).
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    names = {t["name"] for t in api.post("/mcp", json=body).json["result"]["tools"]}
    assert names == {
        "get_competitor", "list_competitors", "get_battlecard", "get_matrix", "get_intel",
        "trigger_refresh", "generate_battlecard", "search_intel", "list_solutions",
        "get_solution", "create_solution", "update_solution", "get_solution_matrix",
        "generate_solutions", "list_events",
    }  # fmt: skip


def test_trigger_refresh(call, competitor, offline_collect, runner):
    first = call("trigger_refresh", {"competitorId": competitor["id"]}, both=False)["result"]
    assert first["status"] == "running" and first["type"] == "collect"
    assert first["jobId"] == first["id"]
    # The analysis already queued at creation is returned, not a second one.
    again = call("trigger_refresh", {"competitorId": competitor["id"]})["result"]
    assert again["id"] == first["id"]
    assert call("trigger_refresh", {"competitorId": "nope"})["error"]["code"] == 404


def test_generate_and_get_battlecard_and_matrices(api, call, runner):
    product, rival, evidence = seed_rival(api)
    ids = {"competitorId": rival["id"], "offeringId": product["id"]}
    assert call("get_battlecard", ids)["error"]["code"] == 404  # none yet
    started = call("generate_battlecard", ids, both=False)["result"]
    assert started["jobId"] == started["id"] and started["battlecardId"]
    run_jobs(runner)

    card = call("get_battlecard", ids)["result"]
    assert card["id"] == started["battlecardId"] and card["mode"] == "ATTACK"
    assert card["content"]["whyWeWin"] and card["evidenceIds"]
    assert set(card["evidenceIds"]) <= set(evidence.values())

    from ci_service.services.analysis.matrix import build_matrix
    from ci_service.store.db import connection

    with connection():  # what the collect job's build-matrix step does
        build_matrix(api.workspace_id, rival["id"])
    cells = call("get_matrix", {"offeringId": product["id"]})["result"]["cells"]
    by_status = {c["capabilityStatus"] for c in cells}
    assert {"SUPERIOR", "INFERIOR"} <= by_status
    assert all(c["competitorId"] == rival["id"] for c in cells)
    with_ours = call("get_matrix", {"offeringId": product["id"], "includeOurOffering": True})
    assert with_ours["result"]["ourProduct"]["productId"] == product["id"]
    error = call("get_matrix", {"includeOurOffering": True})["error"]
    assert error["code"] == -32602 and "offeringId" in error["data"]["details"]

    category = next(c["categoryId"] for c in cells if c["capabilityStatus"] == "SUPERIOR")
    mapping = {"categoryId": category, "productId": product["id"], "weight": 1.0}
    solution = call(
        "create_solution",
        {"name": "Secure", "productIds": [product["id"]], "categoryMappings": [mapping]},
        both=False,
    )["result"]
    scored = call("get_solution_matrix", {"solutionIds": [solution["id"]]})["result"]
    cell = scored["cellMap"][solution["id"]][rival["id"]]
    assert cell["aggregatedScore"] == 4 and cell["contributingCategoryIds"]


@pytest.mark.parametrize("name", ["get_battlecard", "generate_battlecard"])
def test_battlecard_tools_need_a_known_competitor_and_an_offering(api, call, name):
    product, rival, _ = seed_rival(api)
    missing = call(name, {"competitorId": "nope", "offeringId": product["id"]}, both=False)
    assert missing["error"]["code"] == 404
    assert call(name, {"competitorId": rival["id"]}, both=False)["error"]["code"] == -32602


def test_generate_battlecard_through_tools_call(api, runner):
    product, rival, _ = seed_rival(api)
    arguments = {"competitorId": rival["id"], "offeringId": product["id"]}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "generate_battlecard", "arguments": arguments}}  # fmt: skip
    result = api.post("/mcp", json=body).json["result"]
    assert result["isError"] is False
    started = result["structuredContent"]
    assert started["type"] == "generate-battlecard" and started["battlecardId"]
    run_jobs(runner)
    card = api.get(f"/api/battlecards/{started['battlecardId']}").json["battlecard"]
    assert card["content"]["whyWeWin"]


def test_tools_list_cli():
    import json

    from click.testing import CliRunner

    from ci_service.cli import cli

    text = CliRunner().invoke(cli, ["tools", "list"])
    assert text.exit_code == 0
    assert "get_battlecard(competitorId*: string, offeringId*: string)" in text.output
    described = json.loads(CliRunner().invoke(cli, ["tools", "list", "--json"]).output)
    assert len(described) == 15 and all("inputSchema" in t for t in described)
