"""Across resources: another workspace's ids are 404, VIEWER cannot write, wrong types are 400."""

from __future__ import annotations

import re

import pytest

from tests.resource_helpers import (
    error,
    make_competitor,
    make_deal,
    make_offering,
    make_product,
    make_solution,
    ok,
)

PREFIXES = (
    "/api/products",
    "/api/offerings",
    "/api/competitors",
    "/api/deals",
    "/api/organizations",
    "/api/solutions",
    "/api/knowledge-graph",
)

# Every route with an id, as (method, rule); a test checks the table against the app.
ID_ROUTES = [
    ("GET", "/api/products/<product_id>"),
    ("PATCH", "/api/products/<product_id>"),
    ("DELETE", "/api/products/<product_id>"),
    ("GET", "/api/offerings/<offering_id>"),
    ("PATCH", "/api/offerings/<offering_id>"),
    ("DELETE", "/api/offerings/<offering_id>"),
    ("GET", "/api/competitors/<competitor_id>"),
    ("PATCH", "/api/competitors/<competitor_id>"),
    ("DELETE", "/api/competitors/<competitor_id>"),
    ("POST", "/api/competitors/<competitor_id>/refresh"),
    ("GET", "/api/deals/<deal_id>"),
    ("PATCH", "/api/deals/<deal_id>"),
    ("DELETE", "/api/deals/<deal_id>"),
    ("GET", "/api/organizations/<organization_id>"),
    ("GET", "/api/solutions/<solution_id>"),
    ("PUT", "/api/solutions/<solution_id>"),
    ("DELETE", "/api/solutions/<solution_id>"),
]
COLLECTION_WRITES = [
    ("POST", "/api/products"),
    ("POST", "/api/offerings"),
    ("POST", "/api/competitors"),
    ("POST", "/api/deals"),
    ("PATCH", "/api/organizations"),
    ("POST", "/api/solutions"),
]
COLLECTION_READS = [
    ("GET", "/api/products"),
    ("GET", "/api/offerings"),
    ("GET", "/api/competitors"),
    ("GET", "/api/deals"),
    ("GET", "/api/organizations"),
    ("GET", "/api/solutions"),
    ("GET", "/api/knowledge-graph"),
]


# The resource blueprints this file covers; tree and pipeline routes under the same
# prefixes have their own isolation tests.
RESOURCE_BLUEPRINTS = {
    "products",
    "offerings",
    "competitors",
    "deals",
    "organizations",
    "solutions",
    "knowledge-graph",
}


def _my_routes(app):
    routes = set()
    for rule in app.url_map.iter_rules():
        blueprint = rule.endpoint.split(".")[0]
        if rule.rule.startswith(PREFIXES) and blueprint in RESOURCE_BLUEPRINTS:
            for method in rule.methods - {"HEAD", "OPTIONS"}:
                routes.add((method, rule.rule))
    return routes


def test_route_tables_cover_every_route(app):
    assert _my_routes(app) == set(ID_ROUTES + COLLECTION_WRITES + COLLECTION_READS)


def _filled(rule: str, ids: dict) -> str:
    """``rule`` with its ``<name>`` placeholder replaced by that id."""
    return re.sub(r"<(\w+)>", lambda match: ids[match.group(1)], rule)


def _call(api, method, path, body=None):
    kwargs = {"json": body} if method in ("POST", "PATCH", "PUT") else {}
    return getattr(api, method.lower())(path, **kwargs)


@pytest.fixture
def owner_data(make_api):
    owner = make_api(plan="PRO")
    product = make_product(owner)
    org = ok(owner.patch("/api/organizations", json={"name": "Owner Co"}))["organization"]
    competitor = make_competitor(owner, relevantProductIds=[product["id"]])["competitor"]
    ids = {
        "product_id": product["id"],
        "offering_id": make_offering(owner)["id"],
        "competitor_id": competitor["id"],
        "deal_id": make_deal(owner, outcome="LOST", competitorId=competitor["id"])["id"],
        "organization_id": org["id"],
        "solution_id": make_solution(owner, product["id"])["id"],
    }
    return owner, ids


BODIES = {
    "PATCH": {"name": "Hijacked"},
    "PUT": {"name": "Hijacked"},
}


@pytest.mark.parametrize("method, rule", ID_ROUTES)
def test_foreign_ids_are_404(make_api, owner_data, method, rule):
    owner, ids = owner_data
    intruder = make_api(plan="PRO")
    ok(intruder.patch("/api/organizations", json={"name": "Intruder"}))
    path = _filled(rule, ids)
    error(_call(intruder, method, path, BODIES.get(method)), 404, "NOT_FOUND")
    # nothing changed on the owner's side
    ok(_call(owner, "GET", path.removesuffix("/refresh")))
    if rule.startswith("/api/organizations"):
        assert ok(owner.get(path))["organization"]["name"] == "Owner Co"


def test_foreign_ids_never_leak_into_lists_or_references(make_api, owner_data):
    owner, ids = owner_data
    intruder = make_api(plan="PRO")
    for _, path in COLLECTION_READS:
        body = ok(intruder.get(path))
        assert ids["product_id"] not in str(body) and ids["competitor_id"] not in str(body)
    assert ok(intruder.get("/api/organizations")) == {"organization": None}
    mine = make_product(intruder)
    for path, body, field in (
        (
            "/api/competitors",
            {
                "name": "X",
                "websiteUrl": "https://x.example",
                "relevantProductIds": [ids["product_id"]],
            },
            "relevantProductIds",
        ),
        (
            "/api/deals",
            {"prospectCompanyName": "P", "outcome": "LOST", "competitorId": ids["competitor_id"]},
            "competitorId",
        ),
        (
            "/api/offerings",
            {
                "name": "X",
                "description": "",
                "audience": "",
                "childOfferingIds": [ids["offering_id"]],
            },
            "childOfferingIds",
        ),
        (
            "/api/solutions",
            {
                "name": "S",
                "productIds": [mine["id"]],
                "categoryMappings": [
                    {"categoryId": "c", "productId": ids["product_id"], "weight": 0.1}
                ],
            },
            "categoryMappings",
        ),
    ):
        got = error(intruder.post(path, json=body), 400, "VALIDATION_ERROR")
        assert field in got["details"]["fields"]
    assert ok(intruder.get(f"/api/competitors?productId={ids['product_id']}"))["competitors"] == []
    assert ok(intruder.get(f"/api/deals?competitorId={ids['competitor_id']}"))["deals"] == []


@pytest.mark.parametrize(
    "method, rule", [r for r in ID_ROUTES if r[0] != "GET"] + COLLECTION_WRITES
)
def test_viewer_cannot_write(make_api, owner_data, make_key, method, rule):
    owner, ids = owner_data
    from ci_service.store.db import connection
    from ci_service.store.identity import Workspace

    with connection():
        workspace = Workspace.get_by_id(owner.workspace_id)
    viewer = make_api(role="VIEWER", workspace=workspace)
    path = _filled(rule, ids)
    error(_call(viewer, method, path, {"name": "x"}), 403, "FORBIDDEN")
    for read_method, read_path in COLLECTION_READS:
        ok(_call(viewer, read_method, read_path))


WRONG_TYPES = [
    ("POST", "/api/products", {"name": 5, "description": "", "audience": ""}, "name"),
    ("POST", "/api/products", {"name": None, "description": "", "audience": ""}, "name"),
    ("POST", "/api/products", {"name": "n", "description": [], "audience": ""}, "description"),
    ("POST", "/api/products", {"name": "n", "description": "", "audience": True}, "audience"),
    ("PATCH", "/api/products/{product}", {"valueProps": "fast"}, "valueProps"),
    ("PATCH", "/api/products/{product}", {"valueProps": [1]}, "valueProps.0"),
    ("PATCH", "/api/products/{product}", {"features": "x"}, "features"),
    ("PATCH", "/api/products/{product}", {"features": ["x"]}, "features.0"),
    ("PATCH", "/api/products/{product}", {"categories": [{"name": 3}]}, "categories.0.name"),
    ("PATCH", "/api/products/{product}", {"capabilities": None}, "capabilities"),
    ("PATCH", "/api/offerings/{product}", {"isActive": "true"}, "isActive"),
    ("PATCH", "/api/offerings/{product}", {"isActive": 1}, "isActive"),
    ("PATCH", "/api/offerings/{product}", {"capabilityIds": "a,b"}, "capabilityIds"),
    ("PATCH", "/api/offerings/{product}", {"childOfferingIds": [None]}, "childOfferingIds.0"),
    ("POST", "/api/competitors", {"name": "x", "websiteUrl": 5}, "websiteUrl"),
    ("POST", "/api/competitors", {"name": ["x"], "websiteUrl": "https://x.io"}, "name"),
    (
        "POST",
        "/api/competitors",
        {"name": "x", "websiteUrl": "https://x.io", "isFirstRun": "yes"},
        "isFirstRun",
    ),
    (
        "POST",
        "/api/competitors",
        {"name": "x", "websiteUrl": "https://x.io", "relevantProductIds": "p"},
        "relevantProductIds",
    ),
    ("PATCH", "/api/competitors/{competitor}", {"priority": "1"}, "priority"),
    ("PATCH", "/api/competitors/{competitor}", {"priority": 1.5}, "priority"),
    ("PATCH", "/api/competitors/{competitor}", {"priority": True}, "priority"),
    ("PATCH", "/api/competitors/{competitor}", {"priority": 10**30}, "priority"),
    ("PATCH", "/api/competitors/{competitor}", {"tags": "a"}, "tags"),
    ("PATCH", "/api/competitors/{competitor}", {"tier": "TIER_9"}, "tier"),
    ("PATCH", "/api/competitors/{competitor}", {"products": ["x"]}, "products.0"),
    ("PATCH", "/api/competitors/{competitor}", {"companyProfile": "big"}, "companyProfile"),
    ("PATCH", "/api/competitors/{competitor}", {"referenceLinks": ["x"]}, "referenceLinks.0"),
    ("PATCH", "/api/competitors/{competitor}", {"name": None}, "name"),
    ("POST", "/api/deals", {"prospectCompanyName": "P", "outcome": 1}, "outcome"),
    (
        "POST",
        "/api/deals",
        {"prospectCompanyName": "P", "outcome": "WON", "dealSize": 5},
        "dealSize",
    ),
    (
        "POST",
        "/api/deals",
        {"prospectCompanyName": "P", "outcome": "WON", "decisionDate": 20260101},
        "decisionDate",
    ),
    ("PATCH", "/api/deals/{deal}", {"arguments": [1, 2]}, "arguments.0"),
    ("PATCH", "/api/deals/{deal}", {"outcome": None}, "outcome"),
    ("PATCH", "/api/organizations", {"companyWeaknesses": {"a": 1}}, "companyWeaknesses"),
    ("PATCH", "/api/organizations", {"websiteUrl": None}, "websiteUrl"),
    ("PUT", "/api/solutions/{solution}", {"description": 1}, "description"),
    ("PUT", "/api/solutions/{solution}", {"productIds": "p"}, "productIds"),
    ("PUT", "/api/solutions/{solution}", {"categoryMappings": {"a": 1}}, "categoryMappings"),
    (
        "PUT",
        "/api/solutions/{solution}",
        {"categoryMappings": [{"categoryId": 1, "productId": "p", "weight": 0.1}]},
        "categoryMappings.0.categoryId",
    ),
    (
        "PUT",
        "/api/solutions/{solution}",
        {"categoryMappings": [{"categoryId": "c", "productId": "p", "weight": True}]},
        "categoryMappings.0.weight",
    ),
    ("GET", "/api/products?limit=abc", None, "limit"),
    ("GET", "/api/deals?offset=-3", None, "offset"),
    ("GET", "/api/competitors?limit=1.5", None, "limit"),
]


@pytest.mark.parametrize("method, path, body, field", WRONG_TYPES)
def test_wrong_types_are_400_naming_the_field(make_api, method, path, body, field):
    api = make_api(plan="PRO")
    product = make_product(api)
    refs = {
        "product": product["id"],
        "competitor": make_competitor(api)["competitor"]["id"],
        "deal": make_deal(api)["id"],
        "solution": make_solution(api, product["id"])["id"],
    }
    got = error(_call(api, method, path.format(**refs), body), 400, "VALIDATION_ERROR")
    assert field in got["details"]["fields"], got


# The routes that take a body: reads and deletes take none, and a refresh takes none (any
# body is ignored), so they have nothing to refuse.
BODYLESS = {("POST", "/api/competitors/<competitor_id>/refresh")}
BODY_ROUTES = [
    r
    for r in [*COLLECTION_WRITES, *ID_ROUTES]
    if r[0] not in ("GET", "DELETE") and tuple(r) not in BODYLESS
]


@pytest.mark.parametrize("method, rule", BODY_ROUTES)
@pytest.mark.parametrize("body", ["[]", '"text"', "5", "null", "{"])
def test_non_object_bodies_are_400(api, method, rule, body):
    """A body that is not a JSON object is refused before anything is looked up, even for
    an id that does not exist."""
    path = re.sub(r"<\w+>", "x", rule)
    response = getattr(api, method.lower())(
        path, data=body, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400, (body, response.get_json())
