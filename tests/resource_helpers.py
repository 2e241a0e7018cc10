"""Small builders shared by the resource tests (not a test module)."""

from __future__ import annotations


def ok(response, status=200):
    assert response.status_code == status, response.get_json()
    return response.get_json()


def make_product(api, name="Widget", **extra):
    body = {"name": name, "description": "d", "audience": "a", **extra}
    return ok(api.post("/api/products", json=body))["product"]


def make_offering(api, name="Suite", **extra):
    body = {"name": name, "description": "d", "audience": "a", **extra}
    return ok(api.post("/api/offerings", json=body))["offering"]


def make_competitor(api, name="Rival", url="https://rival.example", **extra):
    body = {"name": name, "websiteUrl": url, **extra}
    return ok(api.post("/api/competitors", json=body))


def make_deal(api, **extra):
    body = {"prospectCompanyName": "Prospect Co", "outcome": "WON", **extra}
    return ok(api.post("/api/deals", json=body))["deal"]


def make_solution(api, product_id, **extra):
    body = {
        "name": "Security",
        "productIds": [product_id],
        "categoryMappings": [{"categoryId": "c1", "productId": product_id, "weight": 0.5}],
        **extra,
    }
    return ok(api.post("/api/solutions", json=body), 201)["solution"]


def error(response, status, code):
    assert response.status_code == status, response.get_json()
    body = response.get_json()["error"]
    assert body["code"] == code, body
    return body


def tool(api, name, args):
    """A tool's result, called through tools/call as MCP clients do (must not be an error)."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": args},
    }
    result = ok(api.post("/mcp", json=body))["result"]
    assert result["isError"] is False, result
    return result["structuredContent"]
