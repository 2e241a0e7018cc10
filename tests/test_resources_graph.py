"""Knowledge graph: node and edge counts after create, update and delete of each resource."""

from __future__ import annotations

from collections import Counter

from ci_service.services.graph.nodes import LABEL_COLORS
from tests.resource_helpers import make_competitor, make_deal, make_offering, make_product, ok


def graph(api):
    elements = ok(api.get("/api/knowledge-graph"))["elements"]
    nodes = {n["data"]["id"]: n["data"] for n in elements["nodes"]}
    edges = [e["data"] for e in elements["edges"]]
    assert len(nodes) == len(elements["nodes"])
    for edge in edges:  # no orphan edges
        assert edge["source"] in nodes and edge["target"] in nodes, edge
    assert len({(e["source"], e["target"], e["label"]) for e in edges}) == len(edges)
    for node in nodes.values():
        assert node["color"] == LABEL_COLORS[node["label"]]
    return nodes, edges


def check(api, node_count, edge_count):
    nodes, edges = graph(api)
    assert (len(nodes), len(edges)) == (node_count, edge_count), (
        Counter(n["label"] for n in nodes.values()),
        Counter(e["label"] for e in edges),
    )
    return nodes, edges


def labels(api):
    nodes, edges = graph(api)
    return Counter(n["label"] for n in nodes.values()), Counter(e["label"] for e in edges)


def test_graph_lifecycle(api, make_api):
    check(api, 0, 0)
    product = make_product(
        api, capabilities=[{"id": "A", "name": "Cap A"}, {"id": "B", "name": "B"}]
    )
    check(api, 3, 2)
    path = f"/api/products/{product['id']}"
    body = {"capabilities": [{"id": "B", "name": "B"}, {"id": "C", "name": "C"}]}
    ok(api.patch(path, json=body))
    check(api, 3, 2)
    ok(api.patch(path, json=body))  # repeated update: no duplicates
    ok(api.patch(path, json={"name": "Renamed"}))
    nodes, _ = check(api, 3, 2)
    assert "Renamed" in {n["name"] for n in nodes.values()}

    ok(api.patch("/api/organizations", json={"name": "Acme"}))
    check(api, 4, 3)  # ORGANIZATION -HAS_OFFERING-> product
    ok(api.patch("/api/organizations", json={"keyMessaging": ["x"]}))
    check(api, 4, 3)

    offering = make_offering(api, capabilityIds=["C"])  # shares capability C
    check(api, 5, 5)

    a = make_competitor(api, name="A", relevantProductIds=[product["id"]])["competitor"]
    check(api, 6, 5)
    make_competitor(api, name="B", relevantProductIds=[product["id"]])
    check(api, 7, 6)  # A -COMPETES_WITH-> B
    c = make_competitor(api, name="C")["competitor"]
    check(api, 8, 6)
    ok(api.patch(f"/api/competitors/{c['id']}", json={"relevantProductIds": [product["id"]]}))
    check(api, 8, 8)
    ok(api.patch(f"/api/competitors/{c['id']}", json={"relevantProductIds": []}))
    check(api, 8, 6)

    deal = make_deal(
        api, outcome="LOST", competitorId=a["id"], prospectCompanyName="Foo", arguments=["x", "y"]
    )
    check(api, 12, 11)  # DEAL, 2 ARGUMENT, prospect; HAS_DEAL, 2 HAS_ARGUMENT, 2 links
    for _ in range(2):
        ok(
            api.patch(
                f"/api/deals/{deal['id']}", json={"arguments": ["x"], "prospectCompanyName": "Bar"}
            )
        )
        check(api, 11, 10)
    make_deal(api, prospectCompanyName="bar")  # same prospect, case-insensitive
    node_labels, edge_labels = labels(api)
    assert node_labels == {
        "ORGANIZATION": 2,
        "OFFERING": 2,
        "CAPABILITY": 2,
        "COMPETITOR": 3,
        "DEAL": 2,
        "ARGUMENT": 1,
    }
    assert edge_labels == {
        "HAS_OFFERING": 2,
        "IMPLEMENTS": 3,
        "COMPETES_WITH": 1,
        "HAS_DEAL": 2,
        "HAS_ARGUMENT": 1,
        "FOR_PROSPECT": 2,
        "AGAINST_COMPETITOR": 1,
    }

    ok(api.delete(f"/api/competitors/{a['id']}"))
    check(api, 11, 10)
    ok(api.delete(f"/api/deals/{deal['id']}"))
    check(api, 9, 7)  # the prospect stays: the other deal refers to it
    ok(api.delete(f"/api/products/{product['id']}"))
    check(api, 7, 4)  # capability C stays: the offering implements it
    ok(api.delete(f"/api/offerings/{offering['id']}"))
    check(api, 5, 2)

    other = make_api()
    check(other, 0, 0)


def test_offerings_and_deals_attach_when_the_organization_is_created(api):
    make_product(api)
    make_deal(api, arguments=["a"])
    check(api, 4, 2)  # OFFERING; DEAL, ARGUMENT, prospect
    ok(api.patch("/api/organizations", json={"name": "Acme"}))
    _, edges = check(api, 5, 4)
    assert Counter(e["label"] for e in edges)["HAS_OFFERING"] == 1
    assert Counter(e["label"] for e in edges)["HAS_DEAL"] == 1


def test_competitor_offerings_hang_off_the_competitor(api):
    from ci_service.services.workspace import offerings
    from ci_service.store.db import connection

    competitor = make_competitor(api)["competitor"]
    with connection():
        offerings.create_offering(
            api.workspace_id,
            {"name": "Theirs", "description": "", "audience": "", "capabilityIds": ["z"]},
            competitor_id=competitor["id"],
        )
    check(api, 3, 2)
    ok(api.delete(f"/api/competitors/{competitor['id']}"))
    check(api, 0, 0)


def test_competes_with_kept_per_competitor_matches_the_whole_workspace_rule(api):
    """Each competitor's COMPETES_WITH edges are kept on its own create, update and delete
    (not by re-reading every edge); the result is exactly what the whole-workspace rule
    draws: one edge per pair sharing a product, from the older competitor."""
    from ci_service.services.graph.sync import sync_competes_with
    from ci_service.store.db import connection

    one, two = make_product(api, name="One")["id"], make_product(api, name="Two")["id"]
    ids = {}
    for name, products in [("A", [one]), ("B", [one, two]), ("C", [two]), ("D", []), ("E", [one])]:
        ids[name] = make_competitor(api, name=name, relevantProductIds=products)["competitor"]["id"]
    ok(api.patch(f"/api/competitors/{ids['C']}", json={"relevantProductIds": [one, two]}))
    ok(api.patch(f"/api/competitors/{ids['A']}", json={"relevantProductIds": [two]}))
    ok(api.delete(f"/api/competitors/{ids['E']}"))

    def competes():
        nodes, edges = graph(api)
        return sorted(
            (nodes[e["source"]]["name"], nodes[e["target"]]["name"])
            for e in edges
            if e["label"] == "COMPETES_WITH"
        )

    kept = competes()
    assert kept == [("A", "B"), ("A", "C"), ("B", "C")]
    with connection():
        sync_competes_with(api.workspace_id)
    assert competes() == kept
