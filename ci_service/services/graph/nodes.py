"""The knowledge graph store: nodes and edges, written inside the caller's transaction.

Generic verbs that any writer reuses (resources here; documents, market events, people and
topics from the pipelines later): ``upsert_node``, ``link``, ``unlink``,
``remove_nodes_for``, ``prune`` and ``graph_elements`` for the Cytoscape-style read.
A node is found again by its ``key`` (unique per workspace), so repeating an update never
duplicates a node; removing a node removes its edges, so no edge is ever left dangling.

Batched forms for writers that touch several nodes at once (a deal, issue 16): ``find_nodes``
(one SELECT), ``upsert_nodes`` (one INSERT ... ON CONFLICT DO UPDATE) and ``link_many`` (one
INSERT ... ON CONFLICT DO NOTHING). They rely on the caller's write transaction (SQLite's
IMMEDIATE lock, PostgreSQL's write lock, store/db.py): what ``find_nodes`` read stays true
until the transaction ends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import Any, NamedTuple

from peewee import fn

from ci_service.store import statements
from ci_service.store.db import new_id
from ci_service.store.graph import GraphEdge, GraphNode
from ci_service.timeutil import utcnow

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
# Rows (or keys) per batched statement: far below SQLite's and PostgreSQL's parameter limits.
BATCH = 500


class NodeSpec(NamedTuple):
    """What :func:`upsert_nodes` makes a node say (``properties`` None: keep the stored)."""

    label: str
    key: str
    name: str
    ref_type: str | None = None
    ref_id: str | None = None
    properties: dict[str, Any] | None = None


def find_node(workspace_id: str, key: str) -> GraphNode | None:
    return GraphNode.get_or_none(GraphNode.workspace == workspace_id, GraphNode.key == key)


def find_nodes(
    workspace_id: str, keys: Iterable[str], *, owner: tuple[str, str] | None = None
) -> dict[str, GraphNode]:
    """By key, in one SELECT (per ``BATCH`` keys): the nodes with ``keys`` and, given
    ``owner`` (ref_type, ref_id), every node that record owns."""
    keys = list(dict.fromkeys(keys))
    found: dict[str, GraphNode] = {}
    for start in range(0, max(len(keys), 1), BATCH):
        chunk = keys[start : start + BATCH]
        parts, params = [], []
        if chunk:
            marks = ", ".join(["{param}"] * len(chunk))
            where = f't.workspace_id = {{param}} AND t."key" IN ({marks})'
            parts.append(statements.select_sql(GraphNode, where, f"keys:{len(chunk)}"))
            params += [workspace_id, *chunk]
        if owner is not None and start == 0:
            # UNION ALL, not OR: each half searches its own index; with an OR SQLite
            # reads every node of the workspace (issue 16).
            where = "t.workspace_id = {param} AND t.ref_type = {param} AND t.ref_id = {param}"
            parts.append(statements.select_sql(GraphNode, where, "owner"))
            params += [workspace_id, *owner]
        if parts:
            sql = " UNION ALL ".join(parts)
            found.update((n.key, n) for n in statements.select_models(GraphNode, sql, params))
    return found


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
    spec = NodeSpec(label, key, name, ref_type, ref_id, properties)
    return upsert_nodes(workspace_id, [spec])[key]


def upsert_nodes(
    workspace_id: str,
    specs: Iterable[NodeSpec],
    *,
    existing: dict[str, GraphNode] | None = None,
) -> dict[str, GraphNode]:
    """:func:`upsert_node` for many nodes: each spec's node by key, in one SELECT (none when
    ``existing`` is the caller's :func:`find_nodes` of every spec's key in this transaction)
    and at most one INSERT ... ON CONFLICT DO UPDATE of the nodes that are new or changed.
    New nodes are created in the order of ``specs`` (their ``created_at`` ascends); a key
    given twice takes its last spec."""
    wanted = {spec.key: spec for spec in specs}
    if existing is None:
        existing = find_nodes(workspace_id, wanted) if wanted else {}
    now = utcnow()
    nodes: dict[str, GraphNode] = {}
    rows: list[dict[str, Any]] = []
    for key, spec in wanted.items():
        name = (spec.name or "")[:MAX_NAME]
        node = existing.get(key)
        if node is None:
            row = {
                "id": new_id(),
                "workspace": workspace_id,
                "key": key,
                "label": spec.label,
                "name": name,
                "ref_type": spec.ref_type,
                "ref_id": spec.ref_id,
                "properties": spec.properties or {},
                # One statement: distinct, ascending times keep the creation order.
                "created_at": now + timedelta(microseconds=len(rows)),
            }
            nodes[key] = statements.bare_model(GraphNode, dict(row))
            rows.append(row)
            continue
        props = node.properties if spec.properties is None else spec.properties
        current = (node.label, node.name, node.ref_type, node.ref_id, node.properties)
        if current == (spec.label, name, spec.ref_type, spec.ref_id, props):
            nodes[key] = node
            continue
        node.label, node.name = spec.label, name
        node.ref_type, node.ref_id, node.properties = spec.ref_type, spec.ref_id, props
        nodes[key] = node
        rows.append(
            {
                # A fresh id that never collides: the row conflicts on (workspace, key)
                # only, and the update keeps the stored id and created_at.
                "id": new_id(),
                "workspace": workspace_id,
                "key": key,
                "label": node.label,
                "name": node.name,
                "ref_type": node.ref_type,
                "ref_id": node.ref_id,
                "properties": props,
                "created_at": node.created_at,
            }
        )
    statements.insert_rows(GraphNode, rows, suffix=_NODE_UPSERT, batch=BATCH)
    return nodes


# The update keeps the stored id and created_at.
_NODE_UPSERT = (
    'ON CONFLICT (workspace_id, "key") DO UPDATE SET label = excluded.label, '
    "name = excluded.name, ref_type = excluded.ref_type, ref_id = excluded.ref_id, "
    "properties = excluded.properties"
)


def link(workspace_id: str, source: GraphNode, target: GraphNode, label: str) -> GraphEdge:
    """The edge ``source -label-> target``, created once however often it is asked for."""
    edge = GraphEdge.get_or_none(
        GraphEdge.source == source.id, GraphEdge.target == target.id, GraphEdge.label == label
    )
    if edge is None:
        edge = GraphEdge.create(workspace=workspace_id, source=source, target=target, label=label)
    return edge


def link_many(workspace_id: str, edges: Iterable[tuple[GraphNode, GraphNode, str]]) -> None:
    """:func:`link` for many edges, in one INSERT ... ON CONFLICT DO NOTHING: each
    ``(source, target, label)`` created once; new edges in the given order."""
    now = utcnow()
    rows = [
        {
            "id": new_id(),
            "workspace": workspace_id,
            "source": source.id,
            "target": target.id,
            "label": label,
            "created_at": now + timedelta(microseconds=index),
        }
        for index, (source, target, label) in enumerate(edges)
    ]
    statements.insert_rows(
        GraphEdge, rows, suffix="ON CONFLICT (source_id, target_id, label) DO NOTHING", batch=BATCH
    )


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


def remove_nodes(node_ids: Iterable[str]) -> int:
    """Delete the nodes ``node_ids`` and every edge touching them."""
    node_ids = list(node_ids)
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
    return remove_nodes([node.id]) if node else 0


def remove_nodes_for(
    workspace_id: str, ref_type: str, ref_id: str, *, keep_keys: set[str] | None = None
) -> int:
    """Delete every node owned by the record (``ref_type``, ``ref_id``) and its edges."""
    query = GraphNode.select(GraphNode.id, GraphNode.key).where(
        GraphNode.workspace == workspace_id,
        GraphNode.ref_type == ref_type,
        GraphNode.ref_id == ref_id,
    )
    return remove_nodes(n.id for n in query if not keep_keys or n.key not in keep_keys)


def prune(
    workspace_id: str,
    label: str,
    ref_type: str | None = None,
    *,
    among: Iterable[str] | None = None,
) -> int:
    """Delete nodes of ``label`` (and ``ref_type``; only those of ``among`` node ids when
    given) that no edge touches any more, in one statement (they have no edges to remove).

    Correlated NOT EXISTS probes use the edge indexes per candidate node; a NOT IN over the
    workspace's edges would read every edge on every write (issue 8 benchmark)."""
    if among is not None:
        among = list(dict.fromkeys(among))
        if not among:
            return 0  # before building the query: every deal write asks with none
    outgoing = GraphEdge.select(GraphEdge.id).where(GraphEdge.source == GraphNode.id)
    incoming = GraphEdge.select(GraphEdge.id).where(GraphEdge.target == GraphNode.id)
    query = GraphNode.delete().where(
        GraphNode.workspace == workspace_id,
        GraphNode.label == label,
        ~fn.EXISTS(outgoing),
        ~fn.EXISTS(incoming),
    )
    if ref_type is not None:
        query = query.where(GraphNode.ref_type == ref_type)
    if among is not None:
        query = query.where(GraphNode.id.in_(among))
    return query.execute()


_BEFORE_READ: list[Callable[[str], None]] = []


def before_read(hook: Callable[[str], None]) -> None:
    """Run ``hook(workspace_id)`` before every read of a workspace's graph: a writer that
    defers its nodes (services/graph/projection.py) writes what waits."""
    if hook not in _BEFORE_READ:
        _BEFORE_READ.append(hook)


def up_to_date(workspace_id: str) -> None:
    """What every read of the graph calls first (:func:`before_read`)."""
    for hook in _BEFORE_READ:
        hook(workspace_id)


def counts(workspace_id: str) -> tuple[int, int]:
    """(nodes, edges) of a workspace."""
    up_to_date(workspace_id)
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
    up_to_date(workspace_id)
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
