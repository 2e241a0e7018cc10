"""What collected intel adds to the knowledge graph, without duplicates, and what goes."""

from __future__ import annotations

from ci_service.services.graph import nodes as graph
from ci_service.services.intel import items as intel
from ci_service.services.intel.graph_links import (
    Owner,
    extract_people,
    extract_topics,
    link_document,
    link_market_event,
    link_person,
    link_topics,
)
from ci_service.services.workspace import competitors, organizations
from ci_service.store.db import connection, transaction
from ci_service.store.graph import GraphEdge, GraphNode
from tests.intel_helpers import competitor, evidence

LEADERSHIP = """Meet our leadership team
Jane Doe, CEO
John Smith — Chief Technology Officer
Mary-Ann O'Neil | VP of Sales
Learn More - Partner
Our Products, Pricing
"""


def labels(workspace_id):
    with connection():
        rows = GraphNode.select().where(GraphNode.workspace == workspace_id)
        out = {}
        for row in rows:
            out[row.label] = out.get(row.label, 0) + 1
        return out


def edge_labels(workspace_id):
    with connection():
        rows = GraphEdge.select().where(GraphEdge.workspace == workspace_id)
        out = {}
        for row in rows:
            out[row.label] = out.get(row.label, 0) + 1
        return out


def collect(ws_id, rival, times=2):
    for _ in range(times):
        with connection(), transaction():
            link_document(ws_id, rival, "https://rival.example/about", "About")
            link_document(ws_id, rival, "https://rival.example/pricing", "Pricing")
            link_market_event(
                ws_id, rival, "Rival raises $10M", "https://n.example/1", "2026-05-01"
            )
            for name, role in extract_people(LEADERSHIP):
                link_person(ws_id, rival, name, role)
            link_topics(ws_id, rival, ["zero trust", "network access", "pricing"])


def test_nodes_and_edges_without_duplicates(make_workspace):
    ws = make_workspace()
    rival = competitor(ws.id)
    collect(ws.id, rival)
    assert labels(ws.id) == {
        "COMPETITOR": 1,
        "DOCUMENT": 2,
        "MARKET_EVENT": 1,
        "PERSON": 3,
        "TOPIC": 3,
    }
    assert edge_labels(ws.id) == {
        "HAS_DOCUMENT": 2,
        "HAS_EVENT": 1,
        "HAS_PERSON": 3,
        "MENTIONS": 3,
        "RELATED_TO": 3,
    }
    with connection():
        event = GraphNode.get(GraphNode.label == "MARKET_EVENT")
        assert event.name == "2026-05-01: Rival raises $10M"
        people = sorted(n.name for n in GraphNode.select().where(GraphNode.label == "PERSON"))
        assert people == [
            "Jane Doe (CEO)",
            "John Smith (Chief Technology Officer)",
            "Mary-Ann O'Neil (VP of Sales)",
        ]


def test_topics_are_shared_and_pruned_with_the_last_owner(make_workspace):
    ws = make_workspace()
    a, b = competitor(ws.id, "A", "https://a.example"), competitor(ws.id, "B", "https://b.example")
    collect(ws.id, a, times=1)
    with connection(), transaction():
        link_topics(ws.id, b, ["Zero  Trust", "sso"])
    assert labels(ws.id)["TOPIC"] == 4
    with connection():
        competitors.delete_competitor(ws.id, a.id)
    assert labels(ws.id) == {"COMPETITOR": 1, "TOPIC": 2}
    assert edge_labels(ws.id) == {"MENTIONS": 2, "RELATED_TO": 1}
    with connection():
        competitors.delete_competitor(ws.id, b.id)
        assert graph.counts(ws.id) == (0, 0)


def test_organization_owner(make_workspace):
    ws = make_workspace()
    with connection():
        org = organizations.update_organization(ws.id, {"name": "Us"})
        with transaction():
            link_document(ws.id, org, "https://us.example/", "Home")
            link_market_event(ws.id, Owner("organization", org.id), "We launched", None)
    assert labels(ws.id) == {"ORGANIZATION": 1, "DOCUMENT": 1, "MARKET_EVENT": 1}


def test_deleting_the_last_item_of_a_source_removes_its_node(make_workspace):
    ws = make_workspace()
    rival = competitor(ws.id)
    first = evidence(ws.id, rival.id, "https://rival.example/p", "v1").item
    second = evidence(ws.id, rival.id, "https://rival.example/p", "v2").item
    with connection(), transaction():
        link_document(ws.id, rival, "https://rival.example/p", "P")
    with connection():
        intel.delete_intel(ws.id, first.id)
    assert labels(ws.id).get("DOCUMENT") == 1
    with connection():
        intel.delete_intel(ws.id, second.id)
    assert "DOCUMENT" not in labels(ws.id)


def test_extract_people_is_conservative():
    people = extract_people(LEADERSHIP)
    assert people == [
        ("Jane Doe", "CEO"),
        ("John Smith", "Chief Technology Officer"),
        ("Mary-Ann O'Neil", "VP of Sales"),
    ]
    assert extract_people("We sell widgets, fast. Contact Sales - Director") == []
    json_ld = [{"@graph": [{"@type": "Person", "name": "Lee Wong", "jobTitle": "CFO"}]}]
    assert extract_people("", json_ld) == [("Lee Wong", "CFO")]
    assert extract_people("Lee Wong, CFO", json_ld) == [("Lee Wong", "CFO")]


def test_extract_topics_recurring_and_deterministic():
    texts = [
        "Zero trust network access for hybrid teams. Zero trust is the future.",
        "Our network access product brings zero trust to the edge. Network access pricing.",
        "Edge security and zero trust pricing.",
    ]
    topics = extract_topics(texts)
    assert topics[:2] == ["zero trust", "network access"]
    assert "trust" not in topics and "the" not in topics
    assert topics == extract_topics(list(texts))
    assert extract_topics(["one single mention of kangaroo"]) == []
    assert extract_topics([]) == []
