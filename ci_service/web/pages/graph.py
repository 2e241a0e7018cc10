"""Pages: the knowledge graph (``/graph``) and its drawing data (``/graph/layout.json``).

The data is ``services.graph.nodes.graph_elements`` (what ``GET /api/knowledge-graph`` answers)
with positions from ``services.graph.layout`` (networkx, cached per workspace). Our own
script ``static/graph.js`` draws it on a canvas (pan, zoom, click a node for its neighbours
and its record, filter by kind). By default the script arranges the nodes in one group per
kind (competitors in the centre, the other kinds around them) and labels the most important
nodes in view that fit without overlapping; "By links" shows the server's force layout.
Without JavaScript the page lists the nodes by kind with links to their records; the kind
checkboxes are a GET form that filters that list.

A node links to the record it stands for or belongs to: a competitor (and its pages,
people and news) → ``/competitors/<id>``; an offering → its competitor's page (ours: the
settings page); a deal or argument → ``/deals#deal-<id>``; our organization → settings; a
node with evidence → its first intel item's page. A link is given only when that page
exists in this app (other areas may not be installed).
"""

from __future__ import annotations

from typing import Any

from flask import current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from ci_service.services.graph import nodes as graph
from ci_service.services.graph.layout import layout, node_index
from ci_service.services.identity.auth import READ
from ci_service.store.resources import Offering
from ci_service.web.pages import bp
from ci_service.web.pages.context import page, principal, render

# What each kind is called on the page, and the order of the legend and of the drawing's
# groups: competitors first (the centre of the drawing), then what they sell.
KINDS = {
    "COMPETITOR": "Competitors",
    "ORGANIZATION": "Organizations",  # ours and the prospects of deals
    "OFFERING": "Products",
    "CAPABILITY": "Features",
    "PERSON": "People",
    "DEAL": "Deals",
    "ARGUMENT": "Arguments",
    "MARKET_EVENT": "News",
    "TOPIC": "Topics",
    "DOCUMENT": "Pages",
}


def _page_exists(path: str) -> bool:
    try:
        endpoint, _args = current_app.url_map.bind("localhost").match(path, method="GET")
    except HTTPException:
        return False
    return endpoint.startswith("pages.") and endpoint != "pages.static"


def _offering_owners(workspace_id: str) -> dict[str, str | None]:
    query = Offering.select(Offering.id, Offering.competitor).where(
        Offering.workspace == workspace_id
    )
    return {offering_id: competitor_id for offering_id, competitor_id in query.tuples()}


def record_links(workspace_id: str, nodes: list[dict[str, Any]]) -> dict[str, str]:
    """node id -> the page of its record, for the nodes that have one."""
    owners: dict[str, str | None] | None = None
    exists: dict[str, bool] = {}

    def checked(path: str) -> str | None:
        prefix = path.split("#")[0].rsplit("/", 1)[0] or path
        if prefix not in exists:
            exists[prefix] = _page_exists(path.split("#")[0])
        return path if exists[prefix] else None

    out: dict[str, str] = {}
    for node in nodes:
        ref_type, ref_id = node.get("refType"), node.get("refId")
        link = None
        if ref_type == "competitor" and ref_id:
            link = f"/competitors/{ref_id}"  # the competitor page, always
        elif ref_type == "offering" and ref_id:
            if owners is None:
                owners = _offering_owners(workspace_id)
            owner = owners.get(ref_id)
            link = f"/competitors/{owner}" if owner else checked("/settings")
        elif ref_type == "deal" and ref_id:
            link = f"/deals#deal-{ref_id}"
        elif ref_type == "organization":
            link = checked("/settings")
        if link is None and node.get("evidenceIds"):
            link = checked(f"/intel/{node['evidenceIds'][0]}")
        if link:
            out[node["id"]] = link
    return out


def _drawing(workspace_id: str) -> dict[str, Any]:
    data = layout(workspace_id)
    links = record_links(workspace_id, data["nodes"])
    nodes = []
    for node in data["nodes"]:
        item = {k: node[k] for k in ("id", "name", "label", "color", "x", "y")}
        if node["id"] in links:
            item["url"] = links[node["id"]]
        for extra in ("title", "date"):
            if extra in node:
                item[extra] = node[extra]
        nodes.append(item)
    return {"nodes": nodes, "edges": data["edges"]}


@bp.route("/graph/layout.json")
@page(READ)
def graph_layout_json():
    response = jsonify(_drawing(principal().workspace_id))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.route("/graph", endpoint="graph")
@page(READ)
def graph_page():
    ws = principal().workspace_id
    nodes = node_index(ws)
    links = record_links(ws, nodes)
    counts: dict[str, int] = {}
    for node in nodes:
        counts[node["label"]] = counts.get(node["label"], 0) + 1
    rank = {label: n for n, label in enumerate(KINDS)}
    labels = [
        {
            "label": label,
            "name": KINDS.get(label, label.replace("_", " ").capitalize()),
            "color": graph.LABEL_COLORS.get(label, graph.DEFAULT_COLOR),
            "count": n,
        }
        for label, n in sorted(counts.items(), key=lambda kv: (rank.get(kv[0], 99), kv[0]))
    ]
    chosen = [v for v in request.args.getlist("label") if v in counts]
    shown = set(chosen) if chosen else set(counts)
    by_label = {
        label["name"]: [
            {"id": n["id"], "name": n["name"], "url": links.get(n["id"])}
            for n in nodes
            if n["label"] == label["label"]
        ]
        for label in labels
        if label["label"] in shown
    }
    return render(
        "graph.html",
        labels=labels,
        shown=shown,
        by_label=by_label,
        node_count=len(nodes),
        edge_count=graph.counts(ws)[1],
    )
