"""Helpers for the retry tests: what a workspace holds, in a form two runs can be compared
by (no ids), the duplicates in it, and the events a refresh of the changed site raises.

``state(workspace_id)`` counts each natural key (an intel item's source and content, an
offering's name, a graph node's label and name, an edge between two such nodes, an event's
type and title...), so a collect killed and run again must give the same counts as one
that ran once, and ``duplicates`` lists the keys a collect may only hold once.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ci_service.store.analysis import Battlecard, MatrixCell
from ci_service.store.db import connection
from ci_service.store.events import Event
from ci_service.store.graph import GraphEdge, GraphNode
from ci_service.store.intel import IntelItem
from ci_service.store.resources import Offering
from ci_service.store.trees import KnowledgeTree, TreeNode

#: the events ``change_site`` leads a refresh to raise, once each
CHANGE_EVENTS = {
    "competitor.product_added",
    "competitor.news",
    "competitor.person_added",
    "competitor.price_changed",
    "competitor.page_changed",
    "battlecard.updated",  # the card against the changed competitor says new things
}


def state(workspace_id: str) -> dict[str, Counter]:
    """What the workspace holds, by natural key (see the module docstring)."""
    with connection():
        nodes = {
            n.id: (n.label, n.name)
            for n in GraphNode.select().where(GraphNode.workspace == workspace_id)
        }
        edges = GraphEdge.select().where(GraphEdge.workspace == workspace_id)
        trees = KnowledgeTree.select(KnowledgeTree.id).where(
            KnowledgeTree.workspace == workspace_id
        )
        return {
            "intel": Counter(
                (i.url, i.content_hash)
                for i in IntelItem.select().where(IntelItem.workspace == workspace_id)
            ),
            "offerings": Counter(
                o.name
                for o in Offering.select().where(
                    Offering.workspace == workspace_id, Offering.competitor.is_null(False)
                )
            ),
            "nodes": Counter(nodes.values()),
            "edges": Counter((nodes[e.source_id], e.label, nodes[e.target_id]) for e in edges),
            "tree nodes": Counter(
                {"count": TreeNode.select().where(TreeNode.tree.in_(trees)).count()}
            ),
            "matrix cells": Counter(
                (c.category_name, c.capability_status)
                for c in MatrixCell.select().where(MatrixCell.workspace == workspace_id)
            ),
            "battlecards": Counter(
                (b.mode, b.status)
                for b in Battlecard.select().where(Battlecard.workspace == workspace_id)
            ),
            "events": Counter(
                (e.type, e.title) for e in Event.select().where(Event.workspace == workspace_id)
            ),
        }


def duplicates(held: dict[str, Counter]) -> dict[str, list[Any]]:
    """Keys held more than once where a collect may hold them once: intel items, offerings,
    PERSON, MARKET_EVENT, OFFERING and TOPIC nodes, edges, events."""
    once_labels = {"PERSON", "MARKET_EVENT", "OFFERING", "TOPIC", "COMPETITOR"}
    found = {
        "intel": [k for k, n in held["intel"].items() if n > 1],
        "offerings": [k for k, n in held["offerings"].items() if n > 1],
        "nodes": [k for k, n in held["nodes"].items() if n > 1 and k[0] in once_labels],
        "edges": [
            k
            for k, n in held["edges"].items()
            if n > 1 and k[0][0] in once_labels and k[2][0] in once_labels
        ],
        "events": [k for k, n in held["events"].items() if n > 1],
    }
    return {what: keys for what, keys in found.items() if keys}
