"""What collected intel adds to the knowledge graph (call inside the unit-of-work
transaction; every helper is an upsert, so re-collecting never duplicates anything).

``owner`` is a Competitor, Offering or Organization row, or an ``Owner(kind, id)``.
Its node is the COMPETITOR, OFFERING or ORGANIZATION node the resources already keep.

========================== ============================== ===============================
helper                     node (key)                     edge
========================== ============================== ===============================
``link_document``          DOCUMENT per owner and URL     owner -HAS_DOCUMENT-> document
``link_market_event``      MARKET_EVENT per owner and URL owner -HAS_EVENT-> event
                           (or title when no URL)
``link_person``            PERSON per owner and name      owner -HAS_PERSON-> person
                           (properties: title, founder,
                           evidenceIds, quotes)
``link_topics``            TOPIC per workspace and topic  owner -MENTIONS-> topic;
                           (shared by owners)             topic -RELATED_TO-> topic
========================== ============================== ===============================

RELATED_TO rule: the topics given to one ``link_topics`` call come from the same source
set, so each pair among its first ``MAX_RELATED`` topics is related; one edge per pair,
from the alphabetically smaller topic to the larger. Topics are read with the stop words
of the texts' languages (``extract_topics(texts, languages=...)``, ``pipeline.language``).

Document, event and person nodes carry the owner as ``ref_type``/``ref_id``, so deleting
the competitor or offering removes them with its own node. Topics belong to no owner: a
topic no owner MENTIONS any more is removed (``prune_topics``, run on competitor delete).
Deleting an intel item removes its DOCUMENT or MARKET_EVENT node when no other item of
that owner has the same URL (``forget_source``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from ci_service.services.common import cleanup
from ci_service.services.graph import nodes as graph
from ci_service.services.graph import sync as graph_sync
from ci_service.services.intel.text import extract_people, extract_topics
from ci_service.store.competitors import Competitor
from ci_service.store.graph import GraphEdge, GraphNode
from ci_service.store.intel import IntelItem
from ci_service.store.resources import Offering, Organization

__all__ = [
    "Owner",
    "extract_people",
    "extract_topics",
    "forget_source",
    "link_document",
    "link_market_event",
    "link_person",
    "link_topics",
    "owner_node",
    "prune_topics",
]

MAX_RELATED = 8


@dataclass(frozen=True)
class Owner:
    kind: str  # competitor, offering, organization
    id: str


def as_owner(owner: Any) -> Owner:
    if isinstance(owner, Owner):
        return owner
    if isinstance(owner, Competitor):
        return Owner("competitor", owner.id)
    if isinstance(owner, Offering):
        return Owner("offering", owner.id)
    if isinstance(owner, Organization):
        return Owner("organization", owner.id)
    raise TypeError(f"not an owner: {owner!r}")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def owner_node(workspace_id: str, owner: Any) -> GraphNode:
    """The owner's node, created the way the resource sync creates it when missing."""
    owner = as_owner(owner)
    if owner.kind == "competitor":
        competitor = Competitor.get(Competitor.id == owner.id, Competitor.workspace == workspace_id)
        node = graph.find_node(workspace_id, f"COMPETITOR:{owner.id}")
        if node is None:
            graph_sync.sync_competitor(competitor)
            node = graph.find_node(workspace_id, f"COMPETITOR:{owner.id}")
        return node
    if owner.kind == "offering":
        node = graph.find_node(workspace_id, f"OFFERING:{owner.id}")
        if node is None:
            graph_sync.sync_offering(
                Offering.get(Offering.id == owner.id, Offering.workspace == workspace_id)
            )
            node = graph.find_node(workspace_id, f"OFFERING:{owner.id}")
        return node
    node = graph.find_node(workspace_id, graph_sync.ORG_KEY)
    if node is None:
        org = Organization.get(Organization.id == owner.id, Organization.workspace == workspace_id)
        graph_sync.sync_organization(org)
        node = graph.find_node(workspace_id, graph_sync.ORG_KEY)
    return node


def _owned(
    workspace_id: str,
    owner: Owner,
    label: str,
    ref: str,
    name: str,
    properties: dict[str, Any] | None = None,
) -> GraphNode:
    return graph.upsert_node(
        workspace_id,
        label,
        f"{label}:{owner.id}:{_digest(ref)}",
        name,
        ref_type=owner.kind,
        ref_id=owner.id,
        properties=properties,
    )


def link_document(workspace_id: str, owner: Any, url: str, title: str) -> GraphNode:
    """The DOCUMENT node of one source (page or file) of the owner."""
    owner = as_owner(owner)
    node = _owned(workspace_id, owner, "DOCUMENT", url, title or url)
    graph.link(workspace_id, owner_node(workspace_id, owner), node, "HAS_DOCUMENT")
    return node


def link_market_event(
    workspace_id: str,
    owner: Any,
    title: str,
    url: str | None,
    date: Any = None,
    properties: dict[str, Any] | None = None,
) -> GraphNode:
    """A MARKET_EVENT node per news item; named ``YYYY-MM-DD: title`` when dated.

    ``properties`` (e.g. ``{date, url, evidenceIds, quotes}``) replace the stored ones when
    given."""
    owner = as_owner(owner)
    day = date.isoformat()[:10] if hasattr(date, "isoformat") else (str(date)[:10] if date else "")
    name = f"{day}: {title}" if day else title
    ref = url or f"title:{title}"
    node = _owned(workspace_id, owner, "MARKET_EVENT", ref, name, properties)
    graph.link(workspace_id, owner_node(workspace_id, owner), node, "HAS_EVENT")
    return node


def link_person(
    workspace_id: str,
    owner: Any,
    name: str,
    role: str | None = None,
    properties: dict[str, Any] | None = None,
) -> GraphNode:
    """A PERSON node (``Name (role)``), one per owner and case-insensitive name.

    ``properties`` (``{title, founder, evidenceIds, quotes}``) replace the stored ones when
    given, so a re-collection updates the person's title and evidence in place."""
    owner = as_owner(owner)
    clean = " ".join(name.split())
    label = f"{clean} ({role})" if role else clean
    node = _owned(workspace_id, owner, "PERSON", clean.casefold(), label, properties)
    graph.link(workspace_id, owner_node(workspace_id, owner), node, "HAS_PERSON")
    return node


def _topic_key(topic: str) -> str:
    return f"TOPIC:{_digest(' '.join(topic.casefold().split()))}"


def link_topics(
    workspace_id: str, owner: Any, topics: list[str], *, replace: bool = False
) -> list[GraphNode]:
    """TOPIC nodes for ``topics`` (shared per workspace), MENTIONS from the owner and
    RELATED_TO between each pair of the first ``MAX_RELATED``.

    ``replace``: ``topics`` are all the owner's topics now (a new collection of its whole
    site), so its MENTIONS of other topics are removed and topics nobody mentions any more
    pruned; a topic an older rule took from a stop word ("ili", "the") goes with them."""
    owner_n = owner_node(workspace_id, as_owner(owner))
    nodes: dict[str, GraphNode] = {}
    for topic in topics:
        text = " ".join(str(topic).split())
        if not text:
            continue
        key = _topic_key(text)
        if key in nodes:
            continue
        node = graph.upsert_node(workspace_id, "TOPIC", key, text.casefold(), ref_type="topic")
        graph.link(workspace_id, owner_n, node, "MENTIONS")
        nodes[key] = node
    if replace and nodes:
        kept = {node.id for node in nodes.values()}
        if graph.unlink(workspace_id, source=owner_n, label="MENTIONS", keep_targets=kept):
            prune_topics(workspace_id)
    related = sorted(list(nodes.values())[:MAX_RELATED], key=lambda n: n.name)
    for first, second in combinations(related, 2):
        graph.link(workspace_id, first, second, "RELATED_TO")
    return list(nodes.values())


def prune_topics(workspace_id: str) -> int:
    """Remove TOPIC nodes that no owner MENTIONS (their RELATED_TO edges go with them)."""
    mentioned = GraphEdge.select(GraphEdge.target).where(
        GraphEdge.workspace == workspace_id, GraphEdge.label == "MENTIONS"
    )
    orphans = [
        n.id
        for n in GraphNode.select(GraphNode.id).where(
            GraphNode.workspace == workspace_id,
            GraphNode.label == "TOPIC",
            GraphNode.id.not_in(mentioned),
        )
    ]
    if not orphans:
        return 0
    GraphEdge.delete().where(
        (GraphEdge.source.in_(orphans)) | (GraphEdge.target.in_(orphans))
    ).execute()
    return GraphNode.delete().where(GraphNode.id.in_(orphans)).execute()


def forget_source(workspace_id: str, item: IntelItem) -> None:
    """After deleting ``item``: drop its source's DOCUMENT/MARKET_EVENT node when no other
    item of the same owner has that URL."""
    owner = (
        Owner("offering", item.offering_id)
        if item.scope == "offering"
        else Owner("competitor", item.competitor_id)
        if item.scope == "competitor" and item.competitor_id
        else None
    )
    if owner is None:
        org = Organization.get_or_none(Organization.workspace == workspace_id)
        if org is None:
            return
        owner = Owner("organization", org.id)
    others = IntelItem.select().where(
        IntelItem.workspace == workspace_id,
        IntelItem.url == item.url,
        IntelItem.scope == item.scope,
        IntelItem.id != item.id,
    )
    if item.scope == "competitor":
        others = others.where(IntelItem.competitor == item.competitor_id)
    elif item.scope == "offering":
        others = others.where(IntelItem.offering == item.offering_id)
    if others.exists():
        return
    for label in ("DOCUMENT", "MARKET_EVENT"):
        graph.remove_node(workspace_id, f"{label}:{owner.id}:{_digest(item.url)}")


@cleanup.on_delete("competitor")
def _competitor_deleted(workspace_id: str, competitor_id: str) -> None:
    node = graph.find_node(workspace_id, f"COMPETITOR:{competitor_id}")
    if node is not None:
        graph.unlink(workspace_id, source=node, label="MENTIONS")
        prune_topics(workspace_id)


@cleanup.on_delete("offering")
def _offering_deleted(workspace_id: str, offering_id: str) -> None:
    node = graph.find_node(workspace_id, f"OFFERING:{offering_id}")
    if node is not None:
        graph.unlink(workspace_id, source=node, label="MENTIONS")
        prune_topics(workspace_id)
