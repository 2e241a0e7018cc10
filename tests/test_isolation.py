"""Workspace isolation: two workspaces with data of every kind; A's key, B's ids.

Every REST route (enumerated from ``app.url_map``, so new routes are walked without editing
this file) is called with A's key and each of B's ids of the right kind for its path
parameter: 404 NOT_FOUND, and none of B's ids or names in the body. Every id-taking query
filter (read from the OpenAPI document) gets B's ids: 404, or 200 without B's data (single
lists empty). Routes without ids answer A's data only, and writes that reference B's records
are refused. Every tool (direct JSON-RPC method) gets B's ids: a 404 or an invalid-argument
error, or a result without B's data. B's data is the same afterwards.

New path parameters, query parameters or tool arguments make the tests fail until the tables
below say what to send, so future routes and tools are covered too.
"""

from __future__ import annotations

import json

import pytest

from ci_service.mcp.catalog import list_tools
from tests.resource_helpers import ok
from tests.workspace_seed import PATH_KINDS, seed_workspace

pytest_plugins = ["tests.jobs_fixtures"]

# Query parameters that take ids: name -> (kind, comma-separated list?).
QUERY_ID_KINDS = {
    "competitorId": ("competitor", False),
    "productId": ("product", False),
    "competitorIds": ("competitor", True),
    "solutionIds": ("solution", True),
    "ids": ("node", True),
    "treeId": ("tree", False),
    "subscriptionId": ("subscription", False),
}
# Query parameters that take no ids, with a value to send when one is required.
QUERY_OTHER = {
    "limit": "10",
    "offset": "0",
    "type": None,
    "status": None,
    "includeOurProduct": None,
    "includeEvidence": None,
    "excludeEmbeddings": None,
    "format": None,
    "since": None,
    "importance": None,
    "q": "Bravo",
    "pageKind": None,
}
# Tool argument -> how to fill it with B's ids (or a plain value for non-id arguments).
TOOL_ARGS = {
    "competitorId": lambda b: b.first("competitor"),
    "offeringId": lambda b: b.first("product"),
    "solutionId": lambda b: b.first("solution"),
    "competitorIds": lambda b: b.ids["competitor"],
    "solutionIds": lambda b: b.ids["solution"],
    "ids": lambda b: b.ids["intel"],
    "productIds": lambda b: b.ids["product"],
    "categoryMappings": lambda b: [
        {"categoryId": "c1", "productId": b.first("product"), "weight": 0.5}
    ],
    "query": lambda b: "Bravo",
    "name": lambda b: "Hijack",
    "description": lambda b: "Hijack",
    "includeOurOffering": lambda b: True,
    "limit": lambda b: 10,
    "mode": lambda b: "DEFENSE",
    "type": lambda b: "deal.recorded",
    "since": lambda b: "2000-01-01T00:00:00Z",
    "importance": lambda b: "low",
}

PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
NOT_WALKED = {"HEAD", "OPTIONS"}


@pytest.fixture
def world(make_api, runner):
    a = make_api(plan="ENTERPRISE", rate_limit=1_000_000)
    b = make_api(plan="ENTERPRISE", rate_limit=1_000_000)
    seeded_a = seed_workspace(a, "Alpha", runner=runner)
    seeded_b = seed_workspace(b, "Bravo", runner=runner)
    assert not set(seeded_a.markers()) & set(seeded_b.markers())
    return a, seeded_a, b, seeded_b


def api_rules(app):
    """(method, rule) for every REST route."""
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        if rule.rule.startswith("/api/"):
            for method in sorted(rule.methods - NOT_WALKED):
                yield method, rule


def body_for(method, rule, own):
    """A valid body, so the answer is about the id and not about the body."""
    if rule.endswith("/upload"):
        return {"data": {"file": (_pdf(), "brief.pdf", "application/pdf")}}
    if rule.endswith("/generate"):
        return {"json": {"productId": own.first("product"), "mode": "ATTACK"}}
    if method in ("PATCH", "PUT"):
        field = "prospectCompanyName" if rule.startswith("/api/deals") else "name"
        return {"json": {field: "Hijacked"}}
    return {}


def _pdf():
    import io

    return io.BytesIO(PDF)


def call(api, method, path, **kwargs):
    if "data" in kwargs:
        return api.client.open(
            path,
            method=method,
            headers={"X-API-Key": api.key},
            content_type="multipart/form-data",
            **kwargs,
        )
    return getattr(api, method.lower())(path, **kwargs)


def leaks(response, other, sent=None):
    """B's ids and names in the answer; an id the caller sent itself may be echoed back
    (``unknown product ids: ...``), that is no leak."""
    text = response.get_data(as_text=True)
    echoed = json.dumps(sent) if sent is not None else ""
    return [m for m in other.markers() if m in text and m not in echoed]


def snapshot(api):
    """Everything B owns, as B sees it."""
    paths = [
        "/api/products",
        "/api/offerings",
        "/api/competitors",
        "/api/deals",
        "/api/solutions",
        "/api/intel",
        "/api/organizations",
        "/api/battlecards",
        "/api/jobs",
        "/api/knowledge-graph",
        "/api/subscriptions",
        "/api/mutes",
    ]
    state = {path: ok(api.get(path)) for path in paths}
    keys = ok(api.get("/api/api-keys"))["apiKeys"]
    state["keys"] = sorted((k["id"], k["name"], k["revokedAt"]) for k in keys)
    return json.dumps(state, sort_keys=True)


def test_tables_know_every_path_parameter(app):
    for _, rule in api_rules(app):
        unknown = set(rule.arguments) - set(PATH_KINDS)
        assert not unknown, f"{rule.rule}: add {unknown} to PATH_KINDS"


def test_every_route_with_foreign_ids_is_404(app, world):
    a, mine, b, other = world
    before = snapshot(b)
    walked = 0
    for method, rule in api_rules(app):
        if not rule.arguments:
            continue
        for name in rule.arguments:  # B's id in one parameter, A's own in the others
            own = rule.rule
            for mine_name in set(rule.arguments) - {name}:
                own = own.replace(f"<{mine_name}>", mine.first(PATH_KINDS[mine_name][0]))
            for kind in PATH_KINDS[name]:
                for foreign in other.ids[kind]:
                    path = own.replace(f"<{name}>", foreign)
                    response = call(a, method, path, **body_for(method, rule.rule, mine))
                    where = f"{method} {path} ({kind})"
                    assert response.status_code == 404, (where, response.get_json())
                    assert response.get_json()["error"]["code"] == "NOT_FOUND", where
                    assert not leaks(response, other), where
                    walked += 1
    assert walked >= 50
    assert snapshot(b) == before
    # and every one of those routes works for B with its own ids
    assert ok(b.get(f"/api/battlecards/{other.first('battlecard')}"))["battlecard"]


def _query_operations(app):
    spec = app.extensions["ci_api"].spec.to_dict()
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method != "get" or not path.startswith("/api/"):
                continue
            params = [p for p in operation.get("parameters", []) if p["in"] == "query"]
            if params:
                yield path, params


def test_tables_know_every_query_parameter(app):
    for path, params in _query_operations(app):
        for param in params:
            name = param["name"]
            assert name in QUERY_ID_KINDS or name in QUERY_OTHER, f"{path}: add {name}"


def _own_path(path, mine):
    for name, kinds in PATH_KINDS.items():
        path = path.replace("{" + name + "}", mine.first(kinds[0]))
    return path


def test_query_filters_with_foreign_ids_show_nothing(app, world):
    a, mine, b, other = world
    checked = 0
    for path, params in _query_operations(app):
        id_params = [p["name"] for p in params if p["name"] in QUERY_ID_KINDS]
        required = {p["name"] for p in params if p.get("required")}
        for name in id_params:
            query = {}
            for other_name in required - {name}:
                if other_name in QUERY_ID_KINDS:
                    kind, many = QUERY_ID_KINDS[other_name]
                    ids = mine.ids[kind]
                    query[other_name] = ",".join(ids) if many else ids[0]
                else:
                    query[other_name] = QUERY_OTHER[other_name]
            kind, many = QUERY_ID_KINDS[name]
            values = [",".join(other.ids[kind])] if many else other.ids[kind]
            for value in values:
                url = _own_path(path, mine)
                response = a.get(url, query_string={**query, name: value})
                where = f"GET {url} {name}={value}"
                assert response.status_code in (200, 404), (where, response.get_json())
                body = response.get_json()
                if response.status_code == 404:
                    assert body["error"]["code"] == "NOT_FOUND", where
                elif len(body) == 1 and isinstance(next(iter(body.values())), list):
                    assert next(iter(body.values())) == [], where
                assert not leaks(response, other), where
                checked += 1
    assert checked >= 12


# Writes without an id in the path that name other records: B's ids are refused.
REFERENCE_WRITES = {
    ("POST", "/api/competitors"): lambda b: {
        "name": "X",
        "websiteUrl": "https://x.example",
        "relevantProductIds": [b.first("product")],
    },
    ("POST", "/api/deals"): lambda b: {
        "prospectCompanyName": "X",
        "outcome": "LOST",
        "competitorId": b.first("competitor"),
    },
    ("POST", "/api/solutions"): lambda b: {
        "name": "X",
        "productIds": [b.first("product")],
        "categoryMappings": [{"categoryId": "c1", "productId": b.first("product"), "weight": 1}],
    },
    ("POST", "/api/intel"): lambda b: {"content": "x", "competitorId": b.first("competitor")},
    ("POST", "/api/offerings"): lambda b: {
        "name": "X",
        "description": "d",
        "audience": "a",
        "childOfferingIds": [b.first("offering")],
    },
    ("POST", "/api/offerings/discover"): lambda b: {
        "websiteUrl": "https://x.example",
        "competitorId": b.first("competitor"),
    },
    ("POST", "/api/offerings/enrich"): lambda b: {"offeringIds": [b.first("offering")]},
    ("POST", "/api/subscriptions"): lambda b: {
        "name": "X",
        "channel": "webhook",
        "target": "https://x.example/hook",
        "competitorIds": [b.first("competitor")],
    },
    ("POST", "/api/mutes"): lambda b: {
        "subscriptionId": b.first("subscription"),
        "competitorId": b.first("competitor"),
        "eventType": "competitor.news",
    },
}
# Writes without an id in the path that name no other record (a valid body).
PLAIN_WRITES = {
    ("POST", "/api/products"): {"name": "Mine", "description": "d", "audience": "a"},
    ("POST", "/api/api-keys"): {"name": "mine"},
    ("PATCH", "/api/organizations"): {"name": "AlphaOrg"},
    ("POST", "/api/organizations/refresh"): None,
    ("POST", "/api/organizations/news/refresh"): None,
}
# Updates of A's own records that name B's records: refused, nothing changes.
REFERENCE_UPDATES = [
    ("PATCH", "/api/competitors/{competitor}", {"relevantProductIds": ["@product"]}),
    ("PATCH", "/api/deals/{deal}", {"outcome": "LOST", "competitorId": "@competitor"}),
    ("PUT", "/api/solutions/{solution}", {"productIds": ["@product"]}),
    ("PATCH", "/api/offerings/{offering}", {"childOfferingIds": ["@offering"]}),
    ("POST", "/api/battlecards/{competitor}/generate", {"productId": "@product", "mode": "ATTACK"}),
    ("PATCH", "/api/subscriptions/{subscription}", {"competitorIds": ["@competitor"]}),
]


def test_routes_without_ids_show_and_take_only_own_data(app, world):
    a, mine, b, other = world
    before = snapshot(b)
    for method, rule in api_rules(app):
        if rule.arguments:
            continue
        key = (method, rule.rule)
        where = f"{method} {rule.rule}"
        if method == "GET":
            query = {"q": "Bravo"} if rule.rule == "/api/search" else {}
            if rule.rule == "/api/nodes":  # needs ids: walked by the query filter test
                query = {"treeId": mine.first("tree"), "ids": ",".join(mine.ids["node"])}
            response = a.get(rule.rule, query_string=query)
            assert response.status_code == 200, (where, response.get_json())
        elif key in REFERENCE_WRITES:
            sent = REFERENCE_WRITES[key](other)
            response = call(a, method, rule.rule, json=sent)
            assert response.status_code in (400, 404), (where, response.get_json())
            assert not leaks(response, other, sent), (where, leaks(response, other, sent))
            continue
        else:
            assert key in PLAIN_WRITES, f"{where}: add it to REFERENCE_WRITES or PLAIN_WRITES"
            body = PLAIN_WRITES[key]
            response = call(a, method, rule.rule, **({"json": body} if body else {}))
            assert response.status_code == 200, (where, response.get_json())
        assert not leaks(response, other), (where, leaks(response, other))
    # the walk is not vacuous: A sees its own data where B's would show
    assert "AlphaProduct" in a.get("/api/products").get_data(as_text=True)
    assert "AlphaRival" in a.get("/api/knowledge-graph").get_data(as_text=True)
    assert "AlphaRival" in a.get("/api/search?q=Rival").get_data(as_text=True)
    assert ok(a.get("/api/search?q=Bravo")) == {"results": []}
    for method, template, body in REFERENCE_UPDATES:
        path = template
        for kind in ("competitor", "deal", "solution", "offering", "product", "subscription"):
            path = path.replace("{" + kind + "}", mine.first(kind))
        body = {
            k: [other.first(v[0][1:])] if isinstance(v, list) else _ref(v, other)
            for k, v in body.items()
        }
        response = call(a, method, path, json=body)
        assert response.status_code in (400, 404), (method, path, response.get_json())
        assert not leaks(response, other, body), (method, path, leaks(response, other, body))
    assert snapshot(b) == before


def _ref(value, other):
    return other.first(value[1:]) if isinstance(value, str) and value.startswith("@") else value


def test_every_tool_with_foreign_ids_shows_nothing(app, world):
    a, mine, b, other = world
    before = snapshot(b)
    tools = list_tools()
    assert len(tools) == 15  # the spec's 14 and list_events
    for tool in tools:
        properties = tool.input_schema.get("properties", {})
        unknown = set(properties) - set(TOOL_ARGS)
        assert not unknown, f"{tool.name}: add {unknown} to TOOL_ARGS"
        variants = [{name: TOOL_ARGS[name](other) for name in properties}]
        # each id argument alone too (the others left out or, when required, A's own)
        for name in properties:
            if name in ("query", "name", "description", "includeOurOffering", "limit"):
                continue
            alone = {name: TOOL_ARGS[name](other)}
            for required in tool.input_schema.get("required", []):
                alone.setdefault(required, TOOL_ARGS[required](mine))
            variants.append(alone)
        for args in variants:
            response = a.client.post(
                "/mcp",
                json={"jsonrpc": "2.0", "id": 1, "method": tool.name, "params": args},
                headers={"X-API-Key": a.key},
            )
            where = f"{tool.name}({args})"
            body = response.get_json()
            assert not leaks(response, other, args), (where, leaks(response, other, args))
            if "error" in body:
                assert body["error"]["code"] in (404, -32602), (where, body)
    # and without ids, lists and searches are A's alone
    for tool in tools:
        required = tool.input_schema.get("required", [])
        if set(required) - {"query", "name", "productIds", "categoryMappings"}:
            continue
        args = {name: TOOL_ARGS[name](mine) for name in required}
        response = a.client.post(
            "/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": tool.name, "params": args},
            headers={"X-API-Key": a.key},
        )
        assert "result" in response.get_json(), (tool.name, response.get_json())
        assert not leaks(response, other), tool.name
    assert snapshot(b) == before
