"""How the resources appear in the knowledge graph (called inside their write transaction).

Linking decisions (the spec names the labels, not every rule):

- The workspace organization is one ORGANIZATION node. Own offerings hang off it with
  HAS_OFFERING and deals with HAS_DEAL. Before the organization exists (it is created by
  the first PATCH /api/organizations), offerings and deals are unattached nodes; creating
  the organization attaches all of them.
- A competitor's offerings hang off its COMPETITOR node with HAS_OFFERING.
- Each capability of an offering (its ``capabilityIds``) is a CAPABILITY node shared by
  every offering that names the same id, linked Offering -IMPLEMENTS-> Capability. A
  capability no offering implements any more is removed.
- COMPETES_WITH links two competitors that compete against at least one common product
  of ours (shared ``relevantProductIds``); one edge per pair, from the older competitor.
- A deal is a DEAL node with one ARGUMENT node per argument (HAS_ARGUMENT), an edge
  FOR_PROSPECT to the prospect company (an ORGANIZATION node shared by deals with the same
  prospect name, case-insensitive) and, when it names one, AGAINST_COMPETITOR to the
  competitor's node. A prospect no deal refers to any more is removed.
"""

from __future__ import annotations

from ci_service.services import graph
from ci_service.store.competitors import Competitor
from ci_service.store.graph import GraphEdge, GraphNode
from ci_service.store.resources import Deal, Offering, Organization

ORG_KEY = "ORGANIZATION:own"


def _key(label: str, ref: str) -> str:
    return f"{label}:{ref}"


def _org_node(workspace_id: str) -> GraphNode | None:
    return graph.find_node(workspace_id, ORG_KEY)


def _competitor_node(competitor: Competitor) -> GraphNode:
    return graph.upsert_node(
        competitor.workspace_id,
        "COMPETITOR",
        _key("COMPETITOR", competitor.id),
        competitor.name,
        ref_type="competitor",
        ref_id=competitor.id,
    )


def sync_organization(org: Organization, *, attach_all: bool = False) -> None:
    node = graph.upsert_node(
        org.workspace_id,
        "ORGANIZATION",
        ORG_KEY,
        org.name or org.domain or "Our organization",
        ref_type="organization",
        ref_id=org.id,
    )
    if not attach_all:
        return
    ws = org.workspace_id
    offerings = Offering.select(Offering.id).where(
        Offering.workspace == ws, Offering.competitor.is_null()
    )
    for key in [_key("OFFERING", o.id) for o in offerings]:
        target = graph.find_node(ws, key)
        if target is not None:
            graph.link(ws, node, target, "HAS_OFFERING")
    for key in [_key("DEAL", d.id) for d in Deal.select(Deal.id).where(Deal.workspace == ws)]:
        target = graph.find_node(ws, key)
        if target is not None:
            graph.link(ws, node, target, "HAS_DEAL")


def sync_offering(offering: Offering) -> None:
    ws = offering.workspace_id
    node = graph.upsert_node(
        ws,
        "OFFERING",
        _key("OFFERING", offering.id),
        offering.name,
        ref_type="offering",
        ref_id=offering.id,
    )
    owner = (
        _competitor_node(Competitor.get_by_id(offering.competitor_id))
        if offering.competitor_id
        else _org_node(ws)
    )
    if owner is not None:
        graph.link(ws, owner, node, "HAS_OFFERING")
    keep = set()
    for capability in offering.capabilities or []:
        target = graph.upsert_node(
            ws,
            "CAPABILITY",
            _key("CAPABILITY", capability["id"]),
            capability.get("name") or capability["id"],
            ref_type="capability",
            ref_id=capability["id"],
        )
        graph.link(ws, node, target, "IMPLEMENTS")
        keep.add(target.id)
    graph.unlink(ws, source=node, label="IMPLEMENTS", keep_targets=keep)
    graph.prune(ws, "CAPABILITY")


def remove_offering(workspace_id: str, offering_id: str) -> None:
    graph.remove_nodes_for(workspace_id, "offering", offering_id)
    graph.prune(workspace_id, "CAPABILITY")


def sync_competitor(competitor: Competitor) -> None:
    _competitor_node(competitor)
    sync_competes_with(competitor.workspace_id)


def remove_competitor(workspace_id: str, competitor_id: str) -> None:
    graph.remove_nodes_for(workspace_id, "competitor", competitor_id)
    sync_competes_with(workspace_id)


def sync_competes_with(workspace_id: str) -> None:
    """Make the COMPETES_WITH edges exactly the pairs sharing a relevant product."""
    competitors = list(
        Competitor.select(Competitor.id, Competitor.relevant_product_ids)
        .where(Competitor.workspace == workspace_id)
        .order_by(Competitor.created_at, Competitor.id)
    )
    nodes = {
        n.ref_id: n
        for n in GraphNode.select().where(
            GraphNode.workspace == workspace_id, GraphNode.label == "COMPETITOR"
        )
    }
    order = {c.id: i for i, c in enumerate(competitors)}
    by_product: dict[str, list[str]] = {}
    for competitor in competitors:
        if competitor.id in nodes:
            for product_id in set(competitor.relevant_product_ids or []):
                by_product.setdefault(product_id, []).append(competitor.id)
    wanted = set()
    for ids in by_product.values():
        for i, first in enumerate(ids):
            for second in ids[i + 1 :]:
                older, newer = sorted((first, second), key=order.__getitem__)
                wanted.add((nodes[older].id, nodes[newer].id))
    existing = GraphEdge.select().where(
        GraphEdge.workspace == workspace_id, GraphEdge.label == "COMPETES_WITH"
    )
    have = set()
    for edge in existing:
        pair = (edge.source_id, edge.target_id)
        if pair in wanted:
            have.add(pair)
        else:
            edge.delete_instance()
    for source, target in wanted - have:
        GraphEdge.create(
            workspace=workspace_id, source=source, target=target, label="COMPETES_WITH"
        )


def sync_deal(deal: Deal) -> None:
    ws = deal.workspace_id
    node = graph.upsert_node(
        ws,
        "DEAL",
        _key("DEAL", deal.id),
        f"{deal.prospect_company_name} ({deal.outcome})",
        ref_type="deal",
        ref_id=deal.id,
    )
    org = _org_node(ws)
    if org is not None:
        graph.link(ws, org, node, "HAS_DEAL")

    prospect = graph.upsert_node(
        ws,
        "ORGANIZATION",
        _key("PROSPECT", deal.prospect_company_name.strip().casefold()),
        deal.prospect_company_name.strip(),
        ref_type="prospect",
    )
    graph.link(ws, node, prospect, "FOR_PROSPECT")
    graph.unlink(ws, source=node, label="FOR_PROSPECT", keep_targets={prospect.id})

    keep = set()
    if deal.competitor_id:
        target = _competitor_node(Competitor.get_by_id(deal.competitor_id))
        graph.link(ws, node, target, "AGAINST_COMPETITOR")
        keep.add(target.id)
    graph.unlink(ws, source=node, label="AGAINST_COMPETITOR", keep_targets=keep)

    keys = set()
    for index, argument in enumerate(deal.arguments or []):
        key = _key("ARGUMENT", f"{deal.id}:{index}")
        keys.add(key)
        target = graph.upsert_node(ws, "ARGUMENT", key, argument, ref_type="deal", ref_id=deal.id)
        graph.link(ws, node, target, "HAS_ARGUMENT")
    keys.add(node.key)
    graph.remove_nodes_for(ws, "deal", deal.id, keep_keys=keys)
    graph.prune(ws, "ORGANIZATION", ref_type="prospect")


def remove_deal(workspace_id: str, deal_id: str) -> None:
    graph.remove_nodes_for(workspace_id, "deal", deal_id)
    graph.prune(workspace_id, "ORGANIZATION", ref_type="prospect")
