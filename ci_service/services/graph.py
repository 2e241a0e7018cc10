"""The knowledge graph store: nodes and edges, written inside the caller's transaction.

Generic verbs that any writer reuses (resources here; documents, market events, people and
topics from the pipelines later): ``upsert_node``, ``link``, ``unlink``,
``remove_nodes_for``, ``prune`` and ``graph_elements`` for the Cytoscape-style read.
A node is found again by its ``key`` (unique per workspace), so repeating an update never
duplicates a node; removing a node removes its edges, so no edge is ever left dangling.
"""

from __future__ import annotations

from typing import Any

from peewee import fn

from ci_service.store.graph import GraphEdge, GraphNode

NODE_LABELS = (
    "ORGANIZATION",
    "OFFERING",
    "CAPABILITY",
    "COMPETITOR",
    "PERSON",
    "MARKET_EVENT",
    "TOPIC",
    "DOCUMENT",
    "DEAL",
    "ARGUMENT",
)

# One fixed color per label, so a client draws the same kind of node the same way.
LABEL_COLORS = {
    "ORGANIZATION": "#2563eb",
    "OFFERING": "#16a34a",
    "CAPABILITY": "#0d9488",
    "COMPETITOR": "#dc2626",
    "PERSON": "#9333ea",
    "MARKET_EVENT": "#ea580c",
    "TOPIC": "#ca8a04",
    "DOCUMENT": "#64748b",
    "DEAL": "#db2777",
    "ARGUMENT": "#a16207",
}
DEFAULT_COLOR = "#6b7280"
MAX_NAME = 2000
# Node properties the graph read shows in ``data`` (beside id, name, label and color).
NODE_PROPERTIES = ("title", "founder", "date", "url", "evidenceIds", "quotes")


def find_node(workspace_id: str, key: str) -> GraphNode | None:
    return GraphNode.get_or_none(GraphNode.workspace == workspace_id, GraphNode.key == key)


def upsert_node(
    workspace_id: str,
    label: str,
    key: str,
    name: str,
    *,
    ref_type: str | None = None,
    ref_id: str | None = None,
    properties: dict[str, Any] | None = None,
) -> GraphNode:
    """The node with ``key``, created or brought up to date (label, name, owner and, when
    given, ``properties``, which replace the stored ones)."""
    name = (name or "")[:MAX_NAME]
    node = find_node(workspace_id, key)
    if node is None:
        return GraphNode.create(
            workspace=workspace_id,
            key=key,
            label=label,
            name=name,
            ref_type=ref_type,
            ref_id=ref_id,
            properties=properties or {},
        )
    props = node.properties if properties is None else properties
    current = (node.label, node.name, node.ref_type, node.ref_id, node.properties)
    if current != (label, name, ref_type, ref_id, props):
        node.label, node.name, node.ref_type, node.ref_id = label, name, ref_type, ref_id
        node.properties = props
        node.save()
    return node


def link(workspace_id: str, source: GraphNode, target: GraphNode, label: str) -> GraphEdge:
    """The edge ``source -label-> target``, created once however often it is asked for."""
    edge = GraphEdge.get_or_none(
        GraphEdge.source == source.id, GraphEdge.target == target.id, GraphEdge.label == label
    )
    if edge is None:
        edge = GraphEdge.create(workspace=workspace_id, source=source, target=target, label=label)
    return edge


def unlink(
    workspace_id: str,
    *,
    source: GraphNode | None = None,
    target: GraphNode | None = None,
    label: str | None = None,
    keep_targets: set[str] | None = None,
) -> int:
    """Delete matching edges; ``keep_targets`` spares edges to those target node ids."""
    query = GraphEdge.delete().where(GraphEdge.workspace == workspace_id)
    if source is not None:
        query = query.where(GraphEdge.source == source.id)
    if target is not None:
        query = query.where(GraphEdge.target == target.id)
    if label is not None:
        query = query.where(GraphEdge.label == label)
    if keep_targets:
        query = query.where(GraphEdge.target.not_in(list(keep_targets)))
    return query.execute()


def _delete_nodes(node_ids: list[str]) -> int:
    if not node_ids:
        return 0
    # Edges are removed explicitly as well as by the foreign-key cascade, so the graph
    # stays clean on a connection that has foreign keys off.
    GraphEdge.delete().where(
        (GraphEdge.source.in_(node_ids)) | (GraphEdge.target.in_(node_ids))
    ).execute()
    return GraphNode.delete().where(GraphNode.id.in_(node_ids)).execute()


def remove_node(workspace_id: str, key: str) -> int:
    node = find_node(workspace_id, key)
    return _delete_nodes([node.id]) if node else 0


def remove_nodes_for(
    workspace_id: str, ref_type: str, ref_id: str, *, keep_keys: set[str] | None = None
) -> int:
    """Delete every node owned by the record (``ref_type``, ``ref_id``) and its edges."""
    query = GraphNode.select(GraphNode.id, GraphNode.key).where(
        GraphNode.workspace == workspace_id,
        GraphNode.ref_type == ref_type,
        GraphNode.ref_id == ref_id,
    )
    ids = [n.id for n in query if not keep_keys or n.key not in keep_keys]
    return _delete_nodes(ids)


def prune(workspace_id: str, label: str, ref_type: str | None = None) -> int:
    """Delete nodes of ``label`` (and ``ref_type``) that no edge touches any more.

    Correlated NOT EXISTS probes use the edge indexes per candidate node; a NOT IN over the
    workspace's edges would read every edge on every write (issue 8 benchmark)."""
    outgoing = GraphEdge.select(GraphEdge.id).where(GraphEdge.source == GraphNode.id)
    incoming = GraphEdge.select(GraphEdge.id).where(GraphEdge.target == GraphNode.id)
    query = GraphNode.select(GraphNode.id).where(
        GraphNode.workspace == workspace_id,
        GraphNode.label == label,
        ~fn.EXISTS(outgoing),
        ~fn.EXISTS(incoming),
    )
    if ref_type is not None:
        query = query.where(GraphNode.ref_type == ref_type)
    return _delete_nodes([n.id for n in query])


def counts(workspace_id: str) -> tuple[int, int]:
    """(nodes, edges) of a workspace."""
    nodes = GraphNode.select().where(GraphNode.workspace == workspace_id).count()
    edges = GraphEdge.select().where(GraphEdge.workspace == workspace_id).count()
    return nodes, edges


def node_data(node: GraphNode) -> dict[str, Any]:
    data = {
        "id": node.id,
        "name": node.name,
        "label": node.label,
        "color": LABEL_COLORS.get(node.label, DEFAULT_COLOR),
    }
    for key, value in (node.properties or {}).items():
        if key in NODE_PROPERTIES and value not in (None, "", [], {}):
            data[key] = value
    return data


def graph_elements(workspace_id: str) -> dict[str, Any]:
    """``{elements: {nodes, edges}}`` in the generic visualization element format; a node's
    ``data`` also holds its :data:`NODE_PROPERTIES` (a PERSON's title and evidence)."""
    nodes = (
        GraphNode.select()
        .where(GraphNode.workspace == workspace_id)
        .order_by(GraphNode.created_at, GraphNode.id)
    )
    edges = (
        GraphEdge.select()
        .where(GraphEdge.workspace == workspace_id)
        .order_by(GraphEdge.created_at, GraphEdge.id)
    )
    return {
        "elements": {
            "nodes": [{"data": node_data(n)} for n in nodes],
            "edges": [
                {
                    "data": {
                        "id": e.id,
                        "source": e.source_id,
                        "target": e.target_id,
                        "label": e.label,
                    }
                }
                for e in edges
            ],
        }
    }
