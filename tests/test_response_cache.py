"""The REST response cache is exact (issue 16): after any write, by any writer, the next read
answers what the route would answer uncached; 304s for a matching If-None-Match; auth,
rate limit, scopes and isolation still apply on every hit."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from ci_service.services.intel import trees
from ci_service.services.intel.trees import TreeDocument, TreeSection
from ci_service.services.workspace import competitors as competitor_service
from ci_service.store import jobs as job_store
from ci_service.store.data_version import SKIP_TABLES, read_version, workspace_tables
from ci_service.store.db import connection, database, is_postgres, transaction
from ci_service.store.trees import TreeNode
from ci_service.web.response_cache import CACHED_ENDPOINTS, Entry, ResponseCache
from tests.resource_helpers import error, make_competitor, make_offering, make_product, ok, tool

DOCS = [
    TreeDocument(
        title="Datasheet",
        url="https://acme.example/datasheet.pdf",
        source="DOCUMENT",
        sections=[TreeSection("Overview", "Short overview of the suite.")],
    )
]


def cache(app) -> ResponseCache:
    return app.extensions["ci_response_cache"]


def uncached(app, api, path):
    """What the route answers with the cache out of the way."""
    saved = app.extensions.pop("ci_response_cache")
    try:
        return api.get(path)
    finally:
        app.extensions["ci_response_cache"] = saved


def sql(text: str) -> str:
    return text.replace("?", "%s") if is_postgres() else text


@pytest.fixture
def world(api):
    """A workspace with one of everything the cached routes read; returns the paths."""
    product = make_product(api)
    offering = make_offering(api)
    competitor = make_competitor(api, relevantProductIds=[product["id"]])["competitor"]
    deal = ok(api.post("/api/deals", json={"prospectCompanyName": "P", "outcome": "WON"}))
    mapping = {"categoryId": "c1", "productId": product["id"], "weight": 0.5}
    solution = ok(
        api.post(
            "/api/solutions",
            json={"name": "Sec", "productIds": [product["id"]], "categoryMappings": [mapping]},
        ),
        201,
    )["solution"]
    note = ok(api.post("/api/intel", json={"content": "A note", "competitorId": competitor["id"]}))
    hook = {"name": "Hook", "channel": "webhook", "target": "https://hooks.acme.example/x"}
    subscription = ok(api.post("/api/subscriptions", json=hook))["subscription"]
    with connection():
        tree = trees.replace_tree(api.workspace_id, "OFFERING", offering["id"], DOCS)
        root = TreeNode.select().where(TreeNode.tree == tree.id).order_by(TreeNode.position)[0]
    ids = {
        "product": product["id"],
        "offering": offering["id"],
        "competitor": competitor["id"],
        "deal": deal["deal"]["id"],
        "solution": solution["id"],
        "intel": note["intelItem"]["id"],
        "subscription": subscription["id"],
        "tree": tree.id,
        "node": root.id,
    }
    paths = {
        "products.list_products": "/api/products",
        "products.get_product": f"/api/products/{ids['product']}",
        "offerings.list_offerings": "/api/offerings",
        "offerings.get_offering": f"/api/offerings/{ids['offering']}",
        "competitors.list_competitors": "/api/competitors",
        "competitors.get_competitor": f"/api/competitors/{ids['competitor']}",
        "deals.list_deals": "/api/deals?limit=50",
        "deals.get_deal": f"/api/deals/{ids['deal']}",
        "organizations.get_own_organization": "/api/organizations",
        "organizations.get_organization": "/api/organizations/none",
        "solutions.list_solutions": "/api/solutions",
        "solutions.get_solution": f"/api/solutions/{ids['solution']}",
        "knowledge-graph.get_knowledge_graph": "/api/knowledge-graph",
        "intel.list_intel": "/api/intel",
        "intel.get_intel": f"/api/intel/{ids['intel']}",
        "knowledge-trees.offering_tree": f"/api/offerings/{ids['offering']}/knowledge-tree",
        "knowledge-trees.offering_tree_metadata": f"/api/offerings/{ids['offering']}/tree-metadata",
        "knowledge-trees.organization_tree": "/api/organizations/tree",
        "knowledge-trees.organization_tree_metadata": "/api/organizations/none/tree-metadata",
        "knowledge-trees.get_nodes": f"/api/nodes?treeId={ids['tree']}&ids={ids['node']}",
        "knowledge-trees.get_tree": f"/api/knowledge-trees/{ids['tree']}",
        "knowledge-trees.tree_nodes": f"/api/trees/{ids['tree']}/nodes",
        "matrix.get_matrix": "/api/matrix",
        "matrix.get_solution_matrix": "/api/matrix/solutions",
        "battlecards.list_battlecards": "/api/battlecards",
        "battlecards.get_battlecard": "/api/battlecards/none",
        "events.list_events": "/api/events",
        "subscriptions.list_subscriptions": "/api/subscriptions",
        "subscriptions.get_subscription": f"/api/subscriptions/{ids['subscription']}",
        "subscriptions.list_deliveries": f"/api/subscriptions/{ids['subscription']}/deliveries",
    }
    assert set(paths) == CACHED_ENDPOINTS  # a newly cached route gets a row here
    return ids, paths


def _rest_writes(api, ids):
    yield (
        "competitors.get_competitor",
        lambda: api.patch(f"/api/competitors/{ids['competitor']}", json={"name": "Renamed"}),
    )
    yield (
        "deals.list_deals",
        lambda: api.post("/api/deals", json={"prospectCompanyName": "Q", "outcome": "WON"}),
    )
    yield (
        "products.get_product",
        lambda: api.patch(f"/api/products/{ids['product']}", json={"description": "new words"}),
    )
    yield "intel.list_intel", lambda: api.post("/api/intel", json={"content": "Another"})
    yield (
        "subscriptions.get_subscription",
        lambda: api.patch(
            f"/api/subscriptions/{ids['subscription']}", json={"name": "Renamed hook"}
        ),
    )
    yield "deals.get_deal", lambda: api.delete(f"/api/deals/{ids['deal']}")


def _tool_writes(api, ids):
    yield (
        "solutions.get_solution",
        lambda: tool(api, "update_solution", {"solutionId": ids["solution"], "name": "Renamed"}),
    )
    mapping = {"categoryId": "c2", "productId": ids["product"], "weight": 0.9}
    yield (
        "solutions.list_solutions",
        lambda: tool(
            api,
            "create_solution",
            {"name": "Speed", "productIds": [ids["product"]], "categoryMappings": [mapping]},
        ),
    )


def _service_writes(api, ids):
    ws = api.workspace_id

    def service_update():
        with connection():
            competitor_service.update_competitor(ws, ids["competitor"], {"priority": 3})

    def job_finishes():
        with connection():
            job = competitor_service.current_job(ws, ids["competitor"])
            assert job_store.complete(job.id, [])

    def raw_tree_node():  # a child table without workspace_id, written by raw SQL
        with connection(), transaction():
            database.execute_sql(
                sql("UPDATE tree_node SET text = ? WHERE id = ?"), ("Edited root", ids["node"])
            )

    def rebuild_tree():
        with connection():
            trees.replace_tree(ws, "OFFERING", ids["offering"], DOCS, title="Rebuilt")

    yield "competitors.list_competitors", service_update
    yield "competitors.get_competitor", job_finishes
    yield "knowledge-trees.get_nodes", raw_tree_node
    yield "knowledge-trees.offering_tree", rebuild_tree


WRITERS = {"rest": _rest_writes, "tool": _tool_writes, "service": _service_writes}


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_every_cached_route_sees_every_write(app, api, world, writer):
    ids, paths = world
    hits = cache(app).hits
    for path in paths.values():
        api.get(path)
    for path in paths.values():
        first = api.get(path)
        assert first.get_data() == uncached(app, api, path).get_data(), path
    assert cache(app).hits > hits  # 200 answers were served from the cache
    for changed, write in WRITERS[writer](api, ids):
        before = api.get(paths[changed]).get_data()
        answer = write()
        if hasattr(answer, "status_code"):
            assert answer.status_code == 200, answer.get_json()
        for endpoint, path in paths.items():
            got = api.get(path)
            want = uncached(app, api, path)
            assert (got.status_code, got.get_data()) == (want.status_code, want.get_data()), (
                f"{endpoint} stale after a {writer} write"
            )
        assert api.get(paths[changed]).get_data() != before, changed


def test_etag_and_304(app, api, world):
    _, paths = world
    first = api.get(paths["competitors.list_competitors"])
    etag = first.headers["ETag"]
    assert etag.startswith('"') and first.headers["X-RateLimit-Remaining"]
    again = api.get(paths["competitors.list_competitors"], headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.get_data() == b""
    assert again.headers["ETag"] == etag
    assert "X-RateLimit-Limit" in again.headers and "X-RateLimit-Remaining" in again.headers
    assert int(again.headers["X-RateLimit-Remaining"]) < int(first.headers["X-RateLimit-Remaining"])
    other = api.get(paths["competitors.list_competitors"], headers={"If-None-Match": '"x"'})
    assert other.status_code == 200 and other.get_data() == first.get_data()
    make_competitor(api, name="Second", url="https://second.example")
    after = api.get(paths["competitors.list_competitors"], headers={"If-None-Match": etag})
    assert after.status_code == 200 and after.headers["ETag"] != etag
    assert len(after.get_json()["competitors"]) == 2
    # A query string is part of the key, with pairs sorted by name.
    a = api.get("/api/deals?limit=5&offset=0")
    b = api.get("/api/deals?offset=0&limit=5")
    assert a.headers["ETag"] == b.headers["ETag"] != api.get("/api/deals").headers["ETag"]


def test_errors_carry_no_etag(api, world):
    assert "ETag" not in api.get("/api/competitors/nope").headers


@pytest.mark.parametrize("path", ["/api/api-keys", "/api/jobs", "/api/search?q=Rival"])
def test_uncached_routes_carry_no_etag(api, world, path):
    answer = api.get(path)
    assert answer.status_code == 200 and "ETag" not in answer.headers


def test_isolation_between_workspaces(app, api, make_api):
    mine = make_competitor(api, name="Mine", url="https://mine.example")["competitor"]
    other = make_api()
    ok(api.get("/api/competitors"))
    ok(api.get(f"/api/competitors/{mine['id']}"))
    assert ok(other.get("/api/competitors")) == {"competitors": []}
    error(other.get(f"/api/competitors/{mine['id']}"), 404, "NOT_FOUND")
    etag = api.get("/api/competitors").headers["ETag"]
    answer = other.get("/api/competitors", headers={"If-None-Match": etag})
    assert answer.status_code == 200 and answer.get_json() == {"competitors": []}


def test_roles_and_scopes_get_their_own_entries(app, api, make_api, make_key):
    make_competitor(api)
    from ci_service.store.identity import Workspace

    with connection():
        workspace = Workspace.get_by_id(api.workspace_id)
    viewer = make_api(workspace=workspace, role="VIEWER", scopes=["read"])
    owner_etag = api.get("/api/competitors").headers["ETag"]
    misses = cache(app).misses
    answer = viewer.get("/api/competitors")
    assert cache(app).misses == misses + 1  # not the owner's entry
    assert answer.headers["ETag"] != owner_etag
    assert answer.get_json() == api.get("/api/competitors").get_json()
    writer_only = make_api(workspace=workspace, scopes=["write"])
    error(writer_only.get("/api/competitors"), 403, "INSUFFICIENT_SCOPE")
    error(
        writer_only.get("/api/competitors", headers={"If-None-Match": owner_etag}),
        403,
        "INSUFFICIENT_SCOPE",
    )
    starter = make_api(plan="STARTER")
    error(starter.get("/api/matrix"), 403, "UPGRADE_REQUIRED")


def test_auth_and_rate_limit_apply_on_hits(app, api, make_api, client):
    limited = make_api(rate_limit=3)
    make_competitor(limited)
    etag = limited.get("/api/competitors").headers["ETag"]  # the key's 2nd request
    assert limited.get("/api/competitors", headers={"If-None-Match": etag}).status_code == 304
    over = limited.get("/api/competitors")
    error(over, 429, "RATE_LIMITED")
    error(limited.get("/api/competitors", headers={"If-None-Match": etag}), 429, "RATE_LIMITED")
    error(client.get("/api/competitors"), 401, "UNAUTHORIZED")
    error(client.get("/api/competitors", headers={"X-API-Key": "svc_live_" + "0" * 32}), 401,
          "UNAUTHORIZED")  # fmt: skip
    fenced = make_api(allowed_ips=["10.9.9.9"])
    error(fenced.get("/api/competitors"), 403, "IP_NOT_ALLOWED")


def test_cache_off(make_database_url, make_workspace):
    from ci_service.services.identity import api_keys as apikeys
    from ci_service.settings import load_settings
    from ci_service.web.app import create_app, shutdown_app
    from tests.conftest import ApiClient

    settings = load_settings(
        environ={},
        database=make_database_url(name="off.db"),
        job_workers=0,
        scheduler=False,
        response_cache_mb=0,
    )
    app = create_app(settings)
    try:
        assert "ci_response_cache" not in app.extensions
        with connection():
            from ci_service.services.workspace.workspaces import create_workspace

            ws = create_workspace("off", "ENTERPRISE")
            user = apikeys.ensure_user(ws, None, "OWNER")
            _, key = apikeys.create_key(user, name="k")
        api = ApiClient(app.test_client(), key, ws.id, user.id)
        assert ok(api.get("/api/competitors")) == {"competitors": []}
        make_competitor(api)
        answer = api.get("/api/competitors")
        assert len(answer.get_json()["competitors"]) == 1 and "ETag" not in answer.headers
    finally:
        shutdown_app(app)


def test_every_workspace_table_bumps_the_version(app):
    with connection():
        tables = set(workspace_tables(database.obj))
    assert {"competitor", "deal", "graph_node", "graph_edge", "intel_item", "job"} <= tables
    assert not tables & SKIP_TABLES
    with connection():
        if is_postgres():
            rows = database.execute_sql(
                "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal AND tgname LIKE %s",
                ("%_dv_%",),
            ).fetchall()
        else:
            rows = database.execute_sql(
                "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%_dv_%'"
            ).fetchall()
    names = {r[0] for r in rows}
    for table in [*tables, "tree_node"]:
        assert {f"{table}_dv_ai", f"{table}_dv_au", f"{table}_dv_ad"} <= names, table


def test_bookkeeping_does_not_bump(app, api, world):
    ids, _ = world
    ws = api.workspace_id
    with connection():
        version = read_version(ws)
        job = job_store.claim("worker-1", lease_seconds=60)
        assert job is not None
        job_store.renew_leases([job.id], ["worker-1"], 60)
        app.extensions["ci_usage"].flush()  # lastUsedAt and rate-limit counters
        assert read_version(ws) == version
        assert job_store.update_running(job.id, progress=50.0)
        assert read_version(ws) > version


def test_lru_is_bounded_by_bytes():
    lru = ResponseCache(10_000)
    for n in range(50):
        lru.put(("k", n), Entry(b"x" * 1000, 200, "application/json", f'"{n}"'))
    assert lru.bytes <= 10_000 and len(lru) < 50
    assert lru.get(("k", 49)) is not None and lru.get(("k", 0)) is None
    lru.put(("big",), Entry(b"x" * 5000, 200, "application/json", '"b"'))
    assert lru.get(("big",)) is None  # over a quarter of the cache: not kept


def test_json_provider_keeps_the_default_output(app):
    with app.app_context():
        data = {
            "b": 1,
            "a": [1.5, None, True],
            1: "non-str key",
            "when": datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
            "big": 2**70,
            "text": "Café ✓",
        }
        body = app.json.response(data).get_data()
        parsed = app.json.loads(body)
        assert list(parsed) == ["b", "a", "1", "when", "big", "text"]
        assert parsed["when"] == "Fri, 02 Jan 2026 03:04:05 GMT"
        assert parsed["big"] == 2**70 and parsed["text"] == "Café ✓"
        assert body.endswith(b"\n") and b": " not in body
        assert app.json.loads(app.json.dumps({"x": math.nan})) == {"x": None}
