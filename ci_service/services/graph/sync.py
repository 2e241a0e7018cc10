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
  prospect name, case-insensitive) and AGAINST_COMPETITOR to the node of each competitor in
  the deal (its ``competitorIds``, the LOST deal's competitor among them; issue 28). A
  prospect no deal refers to any more is removed.
"""

from __future__ import annotations

from ci_service.services.graph import nodes as graph
from ci_service.store.competitors import Competitor
from ci_service.store.graph import GraphEdge, GraphNode
from ci_service.store.resources import Deal, Offering, Organization

ORG_KEY = "ORGANIZATION:own"


def _key(label: str, ref: str) -> str:
    return f"{label}:{ref}"


def _org_node(workspace_id: str) -> GraphNode | None:
    return graph.find_node(workspace_id, ORG_KEY)


def _competitor_spec(competitor: Competitor) -> graph.NodeSpec:
    return graph.NodeSpec(
        "COMPETITOR",
        _key("COMPETITOR", competitor.id),
        competitor.name,
        ref_type="competitor",
        ref_id=competitor.id,
    )


def _competitor_node(competitor: Competitor) -> GraphNode:
    spec = _competitor_spec(competitor)
    return graph.upsert_nodes(competitor.workspace_id, [spec])[spec.key]


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
    wanted = [(_key("OFFERING", o.id), "HAS_OFFERING") for o in offerings]
    deals = Deal.select(Deal.id).where(Deal.workspace == ws)
    wanted += [(_key("DEAL", d.id), "HAS_DEAL") for d in deals]
    found = graph.find_nodes(ws, [key for key, _ in wanted]) if wanted else {}
    graph.link_many(ws, [(node, found[key], label) for key, label in wanted if key in found])


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
    node = _competitor_node(competitor)
    _sync_competes_with_one(competitor, node)


def remove_competitor(workspace_id: str, competitor_id: str) -> None:
    # Its node goes with its edges: no other pair of competitors changes.
    graph.remove_nodes_for(workspace_id, "competitor", competitor_id)


def _sync_competes_with_one(competitor: Competitor, node: GraphNode) -> None:
    """The COMPETES_WITH edges of one competitor, exactly the others sharing a relevant
    product with it (older one as the source, as ``sync_competes_with`` draws them). Reads
    the workspace's competitors' product lists and this node's edges, not every edge: a
    workspace of 1,000 competitors that share a product holds half a million of those."""
    ws = competitor.workspace_id
    products = set(competitor.relevant_product_ids or [])
    others = (
        Competitor.select(Competitor.id, Competitor.relevant_product_ids, Competitor.created_at)
        .where(Competitor.workspace == ws, Competitor.id != competitor.id)
        .order_by(Competitor.created_at, Competitor.id)
    )
    me = (competitor.created_at, competitor.id)
    partners = {
        other.id: (other.created_at, other.id) < me
        for other in others
        if products and products & set(other.relevant_product_ids or [])
    }  # id -> whether it is the older of the pair
    nodes = {}
    if partners:
        nodes = {
            n.ref_id: n.id
            for n in GraphNode.select(GraphNode.id, GraphNode.ref_id).where(
                GraphNode.workspace == ws,
                GraphNode.label == "COMPETITOR",
                GraphNode.ref_id.in_(list(partners)),
            )
        }
    wanted = {
        (nodes[other], node.id) if older else (node.id, nodes[other])
        for other, older in partners.items()
        if other in nodes
    }
    existing = GraphEdge.select(GraphEdge.id, GraphEdge.source, GraphEdge.target).where(
        GraphEdge.workspace == ws,
        GraphEdge.label == "COMPETES_WITH",
        (GraphEdge.source == node.id) | (GraphEdge.target == node.id),
    )
    have, stale = set(), []
    for edge in existing:
        pair = (edge.source_id, edge.target_id)
        if pair in wanted and pair not in have:
            have.add(pair)
        else:
            stale.append(edge.id)
    if stale:
        GraphEdge.delete().where(GraphEdge.id.in_(stale)).execute()
    missing = sorted(wanted - have)
    if missing:
        graph.link_many(
            ws,
            [
                (GraphNode(id=source), GraphNode(id=target), "COMPETES_WITH")
                for source, target in missing
            ],
        )


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


def _deal_competitors(deal: Deal, given: dict[str, Competitor]) -> list[Competitor]:
    """The rows of the deal's competitors, in its order (``given``: those read already; the
    others are read here)."""
    ids = list(deal.competitor_ids or [])
    if deal.competitor_id and deal.competitor_id not in ids:
        ids.insert(0, deal.competitor_id)  # a row written before the list existed
    if any(cid not in given for cid in ids):
        read = Competitor.select(Competitor.id, Competitor.name).where(
            Competitor.workspace == deal.workspace_id, Competitor.id.in_(ids)
        )
        given = {**given, **{c.id: c for c in read}}
    return [given[cid] for cid in ids if cid in given]


class _DealShape:
    """The nodes a deal stands for and the keys of the edges between them."""

    __slots__ = ("argument_keys", "competitor_keys", "deal_key", "prospect_key", "specs")

    def __init__(self, deal: Deal, against: list[Competitor]) -> None:
        self.deal_key = _key("DEAL", deal.id)
        prospect_name = deal.prospect_company_name.strip()
        self.prospect_key = _key("PROSPECT", prospect_name.casefold())
        self.competitor_keys = [_key("COMPETITOR", c.id) for c in against]
        arguments = deal.arguments or []
        self.argument_keys = [_key("ARGUMENT", f"{deal.id}:{i}") for i in range(len(arguments))]
        self.specs = [
            graph.NodeSpec(
                "DEAL",
                self.deal_key,
                f"{deal.prospect_company_name} ({deal.outcome})",
                "deal",
                deal.id,
            ),
            graph.NodeSpec("ORGANIZATION", self.prospect_key, prospect_name, "prospect"),
            *(_competitor_spec(c) for c in against),
            *(
                graph.NodeSpec("ARGUMENT", key, argument, "deal", deal.id)
                for key, argument in zip(self.argument_keys, arguments, strict=True)
            ),
        ]

    def edges(self, nodes: dict[str, GraphNode], org: GraphNode | None) -> list[tuple]:
        node = nodes[self.deal_key]
        edges = [(org, node, "HAS_DEAL")] if org is not None else []
        edges.append((node, nodes[self.prospect_key], "FOR_PROSPECT"))
        edges += [(node, nodes[key], "AGAINST_COMPETITOR") for key in self.competitor_keys]
        edges += [(node, nodes[key], "HAS_ARGUMENT") for key in self.argument_keys]
        return edges


def add_new_deals(
    workspace_id: str, deals: list[Deal], competitors: dict[str, Competitor] | None = None
) -> None:
    """The nodes and edges of deals of one workspace that have none yet, in three
    statements however many deals: one SELECT of the nodes they can share (the
    organization, prospects, competitors), one upsert of the nodes, one insert of the
    edges. Their own nodes are keyed by their ids, so nothing of theirs is looked up; and
    the result is what :func:`sync_deal` would leave, deal after deal (a prospect named by
    two deals is one node, named as the later deal writes it). ``competitors``: rows of
    the deals' competitors read already (id and name are all this needs)."""
    if not deals:
        return
    given = dict(competitors or {})
    shapes = [_DealShape(deal, _deal_competitors(deal, given)) for deal in deals]
    shared = {ORG_KEY}
    for shape in shapes:
        shared.add(shape.prospect_key)
        shared.update(shape.competitor_keys)
    found = graph.find_nodes(workspace_id, shared)
    nodes = graph.upsert_nodes(
        workspace_id, [spec for shape in shapes for spec in shape.specs], existing=found
    )
    org = found.get(ORG_KEY)
    graph.link_many(workspace_id, [edge for shape in shapes for edge in shape.edges(nodes, org)])


def sync_deal(deal: Deal, competitors: list[Competitor] | None = None) -> None:
    """The nodes and edges of a deal that may be in the graph already (an update): one
    SELECT of every node it touches (by key, and the nodes the deal owns), one upsert of
    the nodes that are new or changed, one insert of the edges; then the stale edges
    (another prospect or competitor), the nodes of arguments it no longer has and the
    prospects that lost their last deal are removed. ``competitors``: the rows of the
    deal's ``competitor_ids`` when the caller has read them already. A new deal's nodes are
    written by :func:`add_new_deals` (services/graph/projection.py)."""
    ws = deal.workspace_id
    shape = _DealShape(deal, _deal_competitors(deal, {c.id: c for c in competitors or []}))
    keys = [ORG_KEY, *(s.key for s in shape.specs)]
    found = graph.find_nodes(ws, keys, owner=("deal", deal.id))
    in_graph = shape.deal_key in found
    nodes = graph.upsert_nodes(ws, shape.specs, existing=found)
    node, prospect = nodes[shape.deal_key], nodes[shape.prospect_key]

    dropped_prospects: list[str] = []
    if in_graph:
        against = {nodes[key].id for key in shape.competitor_keys}
        keep = {"FOR_PROSPECT": {prospect.id}, "AGAINST_COMPETITOR": against}
        edges = GraphEdge.select(GraphEdge.id, GraphEdge.target, GraphEdge.label).where(
            GraphEdge.workspace == ws,
            GraphEdge.source == node.id,
            GraphEdge.label.in_(list(keep)),
        )
        stale = [e for e in edges if e.target_id not in keep[e.label]]
        if stale:
            GraphEdge.delete().where(GraphEdge.id.in_([e.id for e in stale])).execute()
        dropped_prospects = [e.target_id for e in stale if e.label == "FOR_PROSPECT"]

    graph.link_many(ws, shape.edges(nodes, found.get(ORG_KEY)))

    keys = {shape.deal_key, *shape.argument_keys}
    graph.remove_nodes(
        n.id
        for n in found.values()
        if n.ref_type == "deal" and n.ref_id == deal.id and n.key not in keys
    )
    _prune_prospects(ws, dropped_prospects)


def remove_deal(workspace_id: str, deal_id: str) -> None:
    owned = GraphNode.select(GraphNode.id).where(
        GraphNode.workspace == workspace_id,
        GraphNode.ref_type == "deal",
        GraphNode.ref_id == deal_id,
    )
    prospects = GraphEdge.select(GraphEdge.target).where(
        GraphEdge.source.in_(owned), GraphEdge.label == "FOR_PROSPECT"
    )
    dropped = [e.target_id for e in prospects]
    graph.remove_nodes_for(workspace_id, "deal", deal_id)
    _prune_prospects(workspace_id, dropped)


def _prune_prospects(workspace_id: str, candidates: list[str]) -> None:
    """Remove the prospects among ``candidates`` (the targets of FOR_PROSPECT edges this
    write deleted) that no deal refers to any more. Every write that deletes such an edge
    prunes its target, so no other prospect can be left without a deal, and checking only
    these keeps a deal write independent of how many prospects the workspace has."""
    graph.prune(workspace_id, "ORGANIZATION", ref_type="prospect", among=candidates)
