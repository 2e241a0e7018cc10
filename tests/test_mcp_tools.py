"""Every tool, called directly and through tools/call, against real service data."""

from __future__ import annotations

import pytest


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
