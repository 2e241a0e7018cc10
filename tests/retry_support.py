"""Helpers for the retry tests: what a workspace holds, in a form two runs can be compared
by (no ids), the duplicates in it, and the site changes a refresh reports as events.

``state(workspace_id)`` counts each natural key (an intel item's source and content, an
offering's name, a graph node's label and name, an edge between two such nodes, an event's
type and title...), so a collect killed and run again must give the same counts as one
that ran once, and ``duplicates`` lists the keys a collect may only hold once.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from email.utils import format_datetime
from pathlib import Path
from typing import Any

from ci_service.store.analysis import Battlecard, MatrixCell
from ci_service.store.db import connection
from ci_service.store.events import Event
from ci_service.store.graph import GraphEdge, GraphNode
from ci_service.store.intel import IntelItem
from ci_service.store.resources import Offering
from ci_service.store.trees import KnowledgeTree, TreeNode
from ci_service.timeutil import utcnow

CHATDESK = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>ChatDesk – Live chat software | Globex</title>
<meta name="description" content="ChatDesk is live chat for support teams."></head>
<body><main><h1>ChatDesk</h1>
<p>ChatDesk is the live chat that answers every visitor in seconds.</p>
<h2>Features</h2><ul>
<li>Chat routing: send each chat to the agent who can answer it</li>
<li>Canned replies: answer common questions with one click</li>
</ul></main></body></html>"""

#: the events ``change_site`` leads a refresh to raise, once each
CHANGE_EVENTS = {
    "competitor.product_added",
    "competitor.news",
    "competitor.person_added",
    "competitor.price_changed",
    "competitor.page_changed",
    "battlecard.updated",  # the card against the changed competitor says new things
}


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def change_site(root: Path) -> None:
    """A new product, a new person, a news item and a new price on the fixture site."""
    (root / "products" / "chatdesk.html").write_text(CHATDESK)
    _edit(
        root / "products" / "index.html",
        "</ul>",
        '<li><a href="/products/chatdesk">ChatDesk</a> – live chat for support teams</li></ul>',
    )
    _edit(
        root / "index.html",
        '<a href="/pricing">',
        '<a href="/products/chatdesk">ChatDesk</a>\n    <a href="/pricing">',
    )
    _edit(
        root / "about.html",
        "<p>Ken Adams, CTO</p>",
        "<p>Ken Adams, CTO</p>\n    <p>Jane Doe, Chief Revenue Officer</p>",
    )
    published = format_datetime(utcnow() - timedelta(days=1), usegmt=True)
    _edit(
        root / "news" / "feed.xml",
        "<item>",
        f"""<item><title>Globex opens a Berlin office</title>
      <link>{{base}}/news/berlin</link><guid>{{base}}/news/berlin</guid>
      <pubDate>{published}</pubDate>
      <description>Globex Software opens its first office in Europe.</description>
    </item>
    <item>""",
    )
    _edit(root / "pricing.html", "$49 per agent", "$59 per agent")


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
