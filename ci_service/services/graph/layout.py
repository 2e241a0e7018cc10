"""Positions for drawing the knowledge graph, computed on the server with networkx.

``layout(workspace_id)`` reads the graph through ``services.graph.nodes.graph_elements`` (the
very data of ``GET /api/knowledge-graph``) and returns ``{nodes: [{id, name, label, color,
x, y, refType, refId, ...properties}], edges: [{source, target, label}]}`` with every
node and edge of that read and finite coordinates in ``[0, SIZE]``.

The rule (fast enough for a few thousand nodes without scipy):

- up to ``SPRING_LIMIT`` nodes: ``networkx.spring_layout`` with a fixed seed;
- larger graphs: the "skeleton" is laid out with ``spring_layout``: the best connected
  ``SPRING_LIMIT`` nodes of the graph's 2-core (what is left after repeatedly removing
  leaves) that still form a 2-core among themselves, plus one root per component they do
  not reach. Every other node is then placed breadth-first: at the centroid of its placed
  neighbours when it has several, else on a sunflower spiral around its one placed
  neighbour (a hub's leaves fan out around it; the spiral's step is set so a typical fan
  fills half the median gap between skeleton nodes). Components beyond the limit go on a
  spiral outside the drawing.

Positions are cached per workspace, keyed by a signature of the structure (node ids and edge
endpoints): a renamed node keeps its place and the cache hit costs one read of the graph.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict, deque
from typing import TYPE_CHECKING, Any

from ci_service.services.graph import nodes as graph
from ci_service.store.graph import GraphNode

if TYPE_CHECKING:  # networkx is imported when a layout is computed, not at start-up
    import networkx as nx

SEED = 7
SIZE = 1000.0
SPRING_LIMIT = 350
SPRING_ITERATIONS = 60
LEAF_STEP = 0.02  # sunflower spacing around a hub when it cannot be measured
GOLDEN_ANGLE = math.pi * (3 - math.sqrt(5))
CACHE_SIZE = 32

_cache: OrderedDict[str, tuple[str, dict[str, tuple[float, float]]]] = OrderedDict()
_lock = threading.Lock()


def signature(node_ids: list[str], edges: list[tuple[str, str]]) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for node_id in node_ids:
        digest.update(node_id.encode() + b"\0")
    digest.update(b"\1")
    for source, target in edges:
        digest.update(source.encode() + b"\0" + target.encode() + b"\0")
    return digest.hexdigest()


def _spiral(index: int, step: float) -> tuple[float, float]:
    radius = step * math.sqrt(index + 1)
    angle = index * GOLDEN_ANGLE
    return radius * math.cos(angle), radius * math.sin(angle)


def _skeleton(g: nx.Graph) -> list[str]:
    """Nodes laid out by the force-directed pass: the best connected nodes of the 2-core
    that stay in a 2-core among themselves (a node hanging by one edge would be flung to
    the edge of the drawing), plus one root per component none of them reaches."""
    import networkx as nx

    try:
        core = set(nx.k_core(g, 2))
    except nx.NetworkXError:
        core = set()
    ranked = sorted(core, key=lambda n: (-g.degree(n), _order(g, n)))[:SPRING_LIMIT]
    chosen = set(nx.k_core(g.subgraph(ranked), 2)) if ranked else set()
    roots = []
    for component in nx.connected_components(g):
        if not component & chosen:
            roots.append(max(component, key=lambda n: (g.degree(n), -_order(g, n))))
    roots.sort(key=lambda n: (-g.degree(n), _order(g, n)))
    room = max(0, SPRING_LIMIT - len(chosen))
    return sorted(chosen, key=lambda n: _order(g, n)) + roots[:room]


def _leaf_step(g: nx.Graph, pos: dict[str, tuple[float, float]]) -> float:
    """Sunflower spacing so that a typical hub's fan fills about half the room between
    neighbouring skeleton nodes."""
    import numpy as np  # here, not at module level: the graph page is imported at start-up

    if len(pos) < 2:
        return LEAF_STEP
    points = np.array(list(pos.values()))
    gaps = np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(-1))
    np.fill_diagonal(gaps, np.inf)
    spacing = float(np.median(gaps.min(axis=1)))
    fans = sorted(sum(1 for m in g.neighbors(n) if m not in pos) for n in pos)
    typical = max(1, fans[int(len(fans) * 0.75)])
    step = 0.5 * spacing / math.sqrt(typical)
    return step if math.isfinite(step) and step > 0 else LEAF_STEP


def _order(g: nx.Graph, node: str) -> int:
    return g.nodes[node]["order"]


def compute_positions(
    node_ids: list[str], edges: list[tuple[str, str]]
) -> dict[str, tuple[float, float]]:
    """node id -> (x, y) in [0, SIZE]; deterministic for the same input."""
    import networkx as nx

    g = nx.Graph()
    for n, node_id in enumerate(node_ids):
        g.add_node(node_id, order=n)
    g.add_edges_from((s, t) for s, t in edges if s != t and s in g and t in g)
    if not node_ids:
        return {}
    components = sorted(
        (sorted(c, key=lambda n: _order(g, n)) for c in nx.connected_components(g)),
        key=lambda c: (-len(c), _order(g, c[0])),
    )
    return _normalize(_pack([_component(g.subgraph(c)) for c in components]))


def _component(g: nx.Graph) -> dict[str, tuple[float, float]]:
    """One connected component, scaled to a square of side sqrt(nodes)."""
    import networkx as nx

    nodes = sorted(g.nodes, key=lambda n: _order(g, n))
    if len(nodes) == 1:
        return {nodes[0]: (0.5, 0.5)}
    if len(nodes) == 2:
        return {nodes[0]: (0.0, 0.5), nodes[1]: (1.0, 0.5)}
    if len(nodes) <= SPRING_LIMIT:
        raw = nx.spring_layout(g, seed=SEED, iterations=SPRING_ITERATIONS)
        pos = {n: (float(p[0]), float(p[1])) for n, p in raw.items()}
    else:
        pos = _large(g)
    side = math.sqrt(len(nodes))
    return {n: (x * side / SIZE, y * side / SIZE) for n, (x, y) in _normalize(pos).items()}


def _pack(parts: list[dict[str, tuple[float, float]]]) -> dict[str, tuple[float, float]]:
    """Components side by side in rows (largest first), so a few stray nodes never shrink
    the drawing of the main component."""
    boxes = []
    for part in parts:
        xs, ys = [p[0] for p in part.values()], [p[1] for p in part.values()]
        boxes.append((part, min(xs), min(ys), max(max(xs) - min(xs), 1.0), max(ys) - min(ys)))
    area = sum((w + 1) * (h + 1) for _, _, _, w, h in boxes)
    row_width = max(max(w for *_, w, _ in boxes), math.sqrt(area) * 1.2)
    out: dict[str, tuple[float, float]] = {}
    x = y = row_height = 0.0
    for part, left, top, width, height in boxes:
        if x > 0 and x + width > row_width:
            x, y, row_height = 0.0, y + row_height + 1.0, 0.0
        for node, (px, py) in part.items():
            out[node] = (px - left + x, py - top + y)
        x += width + 1.0
        row_height = max(row_height, height)
    return out


def _large(g: nx.Graph) -> dict[str, tuple[float, float]]:
    import networkx as nx

    skeleton = _skeleton(g)
    raw = nx.spring_layout(g.subgraph(skeleton), seed=SEED, iterations=SPRING_ITERATIONS)
    pos: dict[str, tuple[float, float]] = {n: (float(p[0]), float(p[1])) for n, p in raw.items()}
    step = _leaf_step(g, pos)
    fanned: dict[str, int] = {}  # hub -> how many nodes were fanned out around it
    outside = 0

    def place_from(start: list[str]) -> None:
        queue = deque(start)
        while queue:
            node = queue.popleft()
            for neighbour in sorted(g.neighbors(node), key=lambda n: _order(g, n)):
                if neighbour in pos:
                    continue
                placed = [pos[m] for m in g.neighbors(neighbour) if m in pos]
                if len(placed) > 1:
                    cx = sum(p[0] for p in placed) / len(placed)
                    cy = sum(p[1] for p in placed) / len(placed)
                    # a small deterministic offset, so nodes sharing neighbours do not stack
                    dx, dy = _spiral(_order(g, neighbour) % 17, step / 3)
                    pos[neighbour] = (cx + dx, cy + dy)
                else:
                    k = fanned.get(node, 0)
                    fanned[node] = k + 1
                    dx, dy = _spiral(k, step)
                    pos[neighbour] = (pos[node][0] + dx, pos[node][1] + dy)
                queue.append(neighbour)

    place_from(skeleton)
    for node in sorted(g.nodes, key=lambda n: _order(g, n)):
        if node in pos:
            continue  # a component no skeleton node reached: around the outside
        angle = outside * GOLDEN_ANGLE
        radius = 1.3 + 0.02 * math.sqrt(outside)
        pos[node] = (radius * math.cos(angle), radius * math.sin(angle))
        outside += 1
        place_from([node])
    return pos


def _normalize(pos: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    xs = [p[0] for p in pos.values() if math.isfinite(p[0])] or [0.0]
    ys = [p[1] for p in pos.values() if math.isfinite(p[1])] or [0.0]
    low_x, low_y = min(xs), min(ys)
    span = max(max(xs) - low_x, max(ys) - low_y) or 1.0
    out = {}
    for node, (x, y) in pos.items():
        x = x if math.isfinite(x) else low_x
        y = y if math.isfinite(y) else low_y
        out[node] = (
            round((x - low_x) / span * SIZE, 2),
            round((y - low_y) / span * SIZE, 2),
        )
    return out


def positions_for(
    workspace_id: str, node_ids: list[str], edges: list[tuple[str, str]]
) -> dict[str, tuple[float, float]]:
    """Cached :func:`compute_positions` for the workspace's current structure."""
    key = signature(node_ids, edges)
    with _lock:
        hit = _cache.get(workspace_id)
        if hit is not None and hit[0] == key:
            _cache.move_to_end(workspace_id)
            return hit[1]
    positions = compute_positions(node_ids, edges)
    with _lock:
        _cache[workspace_id] = (key, positions)
        _cache.move_to_end(workspace_id)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return positions


def clear_cache() -> None:
    with _lock:
        _cache.clear()


def node_refs(workspace_id: str) -> dict[str, tuple[str | None, str | None]]:
    """node id -> (ref_type, ref_id): the record a node stands for or belongs to."""
    graph.up_to_date(workspace_id)
    query = GraphNode.select(GraphNode.id, GraphNode.ref_type, GraphNode.ref_id).where(
        GraphNode.workspace == workspace_id
    )
    return {node_id: (ref_type, ref_id) for node_id, ref_type, ref_id in query.tuples()}


def node_index(workspace_id: str) -> list[dict[str, Any]]:
    """The workspace's nodes in the order of ``graph_elements`` (id, name, label, color,
    refType, refId, evidenceIds), read without the edges: the graph page's node list."""
    graph.up_to_date(workspace_id)
    query = (
        GraphNode.select(
            GraphNode.id,
            GraphNode.name,
            GraphNode.label,
            GraphNode.ref_type,
            GraphNode.ref_id,
            GraphNode.properties,
        )
        .where(GraphNode.workspace == workspace_id)
        .order_by(GraphNode.created_at, GraphNode.id)
    )
    return [
        {
            "id": row.id,
            "name": row.name,
            "label": row.label,
            "color": graph.LABEL_COLORS.get(row.label, graph.DEFAULT_COLOR),
            "refType": row.ref_type,
            "refId": row.ref_id,
            "evidenceIds": list((row.properties or {}).get("evidenceIds") or []),
        }
        for row in query
    ]


def layout(workspace_id: str) -> dict[str, Any]:
    """The graph of ``GET /api/knowledge-graph`` with x/y per node (see the module doc)."""
    elements = graph.graph_elements(workspace_id)["elements"]
    nodes = [e["data"] for e in elements["nodes"]]
    edges = [e["data"] for e in elements["edges"]]
    positions = positions_for(
        workspace_id, [n["id"] for n in nodes], [(e["source"], e["target"]) for e in edges]
    )
    refs = node_refs(workspace_id)
    out_nodes = []
    for node in nodes:
        x, y = positions.get(node["id"], (SIZE / 2, SIZE / 2))
        ref_type, ref_id = refs.get(node["id"], (None, None))
        out_nodes.append({**node, "x": x, "y": y, "refType": ref_type, "refId": ref_id})
    return {
        "nodes": out_nodes,
        "edges": [
            {"source": e["source"], "target": e["target"], "label": e["label"]} for e in edges
        ],
    }
