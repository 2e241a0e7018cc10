"""Pages: the feature matrix (``/matrix``) and the solution matrix (``/matrix/solutions``).

Both need the PRO plan, exactly as ``GET /api/matrix`` (the REST route's ``PRO_READ``): a
STARTER workspace gets the upgrade page (403). The data is what REST answers for the same
query (``services.analysis.matrix.get_matrix`` /
``services.analysis.solution_matrix.get_solution_matrix``):

- ``productId``: our product (filters competitors as REST does, adds our product's column);
- ``competitorIds``: repeated checkboxes or comma-separated, as REST; unknown or another
  workspace's ids are ignored by the service;
- ``categoryIds`` (page only): which category rows to show, among those REST returns.

A cell opens (``<details>``) its features, its summary and its evidence: the intel items
named by ``evidenceIds``, read in one query through ``services.intel.items`` within the workspace.
Its ``features`` (null on cells scored before they existed) are shown above the summary:
our feature matched to theirs, theirs alone, ours alone (with what was read to say so) and
theirs coming soon, each with the sentences it was read from, linked at that sentence.

No competitor column is never a dead end (``why_empty``): with our product chosen, the page
lists every competitor, says none names that product among its relevant products, links
each to its edit page and offers the matrix of all competitors; the solution matrix's
"No solution yet" offers to create or generate solutions (``pages/solutions.py``).
"""

from __future__ import annotations

from typing import Any

from flask import request, url_for

from ci_service.services.analysis import matrix, solution_matrix
from ci_service.services.battlecards.export import http_url, short_url
from ci_service.services.intel import items as intel
from ci_service.services.workspace import competitors, products, solutions
from ci_service.web.pages import bp
from ci_service.web.pages.context import page, principal, render, view_endpoints
from ci_service.web.routes.analysis_common import split_ids
from ci_service.web.routes.matrix import PRO_READ
from ci_service.web.routes.solutions import PRO_WRITE

EVIDENCE_TEXT = 400  # characters of an evidence item shown under a cell


def ids_arg(name: str) -> list[str] | None:
    """Repeated ``name=a&name=b`` or ``name=a,b``: the REST meaning (None when absent)."""
    values = request.args.getlist(name)
    if not values:
        return None
    return split_ids(",".join(values))


def records_for(workspace_id: str, ids: Any) -> dict[str, dict[str, Any]]:
    """intel id -> what a page shows of it (one query; other workspaces' ids never load)."""
    wanted = list(dict.fromkeys(i for i in ids if isinstance(i, str) and i))
    if not wanted:
        return {}
    out = {}
    for item in intel.list_intel(workspace_id, ids=wanted):
        text = " ".join((item.content or "").split())
        out[item.id] = {
            "id": item.id,
            "title": item.title or item.url or "Evidence",
            "url": item.url,
            "excerpt": text[:EVIDENCE_TEXT] + ("…" if len(text) > EVIDENCE_TEXT else ""),
            "collectedAt": (item.created_at.date().isoformat() if item.created_at else ""),
        }
    return out


def quote_ids(quotes: Any) -> list[str]:
    """The evidence ids of a list of quotes ({evidenceId, quote, url}); junk skipped."""
    if not isinstance(quotes, list):
        return []
    return [q["evidenceId"] for q in quotes if isinstance(q, dict) and q.get("evidenceId")]


def cited(quotes: Any, records: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Quotes as a page shows them: ``{quote, url, title, collected}``, ``url`` opening the
    page at the sentence (http(s) only, else the evidence item's address, else None)."""
    out = []
    for q in quotes if isinstance(quotes, list) else []:
        if not isinstance(q, dict) or not str(q.get("quote") or "").strip():
            continue
        record = records.get(q.get("evidenceId")) or {}
        url = http_url(q.get("url")) or http_url(record.get("url"))
        out.append(
            {
                "quote": str(q["quote"]).strip(),
                "url": url,
                "title": str(record.get("title") or "") or short_url(url) or "source",
                "collected": str(record.get("collectedAt") or "")[:10],
            }
        )
    return out


def text_of(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


FEATURE_GROUPS = ("matched", "theirsOnly", "oursOnly", "soon")


def raw_features(cell: dict[str, Any]) -> dict[str, Any]:
    features = cell.get("features")
    return features if isinstance(features, dict) else {}


def feature_quote_ids(cell: dict[str, Any]) -> list[str]:
    features = raw_features(cell)
    return [
        i
        for group in FEATURE_GROUPS
        for entry in (features.get(group) if isinstance(features.get(group), list) else [])
        if isinstance(entry, dict)
        for i in quote_ids(entry.get("quotes"))
    ]


def features_view(
    cell: dict[str, Any], records: dict[str, dict[str, Any]], competitor: str
) -> dict[str, Any] | None:
    """``{competitor, matched, theirsOnly, oursOnly, soon}``, each row ``{ours, theirs,
    name, read, quotes}``; None when the cell has none (old cells: ``features`` null)."""
    features = raw_features(cell)
    out: dict[str, Any] = {"competitor": competitor}
    for group in FEATURE_GROUPS:
        entries = features.get(group)
        rows = []
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict):
                continue
            ours, theirs = text_of(entry.get("ours")), text_of(entry.get("theirs"))
            name = text_of(entry.get("name")) or (theirs if group == "theirsOnly" else ours)
            if not (ours or theirs or name):
                continue
            rows.append(
                {
                    "ours": ours,
                    "theirs": theirs,
                    "name": name,
                    "read": text_of(entry.get("read")),
                    "quotes": cited(entry.get("quotes"), records),
                }
            )
        out[group] = rows
    return out if any(out[g] for g in FEATURE_GROUPS) else None


def evidence_for(
    workspace_id: str, cells: list[dict[str, Any]], competitor_list: list[dict[str, Any]]
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """(intel id -> what a cell shows of it, cell id -> its features view): the evidence of
    the cells and of their features' quotes, read in one query."""
    names = {c["id"]: c.get("name") or "the competitor" for c in competitor_list}
    ids = [i for c in cells for i in list(c.get("evidenceIds") or []) + feature_quote_ids(c)]
    records = records_for(workspace_id, ids)
    views = {}
    for cell in cells:
        view = features_view(cell, records, names.get(cell.get("competitorId"), "the competitor"))
        if view is not None:
            views[cell["id"]] = view
    return records, views


def why_empty(
    rivals: list[Any], product_id: str | None, product_names: dict[str, str]
) -> dict[str, Any]:
    """Why the matrix has no competitor column, and the way on: every competitor with
    whether it names our chosen product among its relevant products (the matrix filter),
    a link to its edit page when that page is installed, and the matrix without the
    product (every competitor)."""
    editable = "pages.edit_competitor" in view_endpoints()
    args = {k: v for k, v in request.args.lists() if k not in ("productId", "competitorIds")}
    return {
        "product": product_names.get(product_id or "", ""),
        "competitors": [
            {
                "id": c.id,
                "name": c.name,
                "relevant": bool(product_id) and product_id in (c.relevant_product_ids or []),
                "edit": url_for("pages.edit_competitor", competitor_id=c.id) if editable else "",
            }
            for c in rivals
        ],
        "show_all": url_for("pages.matrix", **args),
    }


@bp.route("/matrix", endpoint="matrix")
@page(PRO_READ)
def matrix_page():
    ws = principal().workspace_id
    product_id = request.args.get("productId") or None
    competitor_ids = ids_arg("competitorIds")
    category_ids = ids_arg("categoryIds")
    data = matrix.get_matrix(
        ws,
        product_id=product_id,
        competitor_ids=competitor_ids,
        include_our_product=product_id is not None,
    )
    shown = data["categories"]
    if category_ids is not None:
        wanted = set(category_ids)
        shown = [c for c in shown if c["id"] in wanted]
    evidence, cell_features = evidence_for(ws, data["cells"], data["competitors"])
    our_products = [{"id": p.id, "name": p.name} for p in products.list_products(ws)]
    rivals = competitors.list_competitors(ws)
    names = {p["id"]: p["name"] for p in our_products}
    return render(
        "matrix.html",
        data=data,
        categories=shown,
        all_categories=data["categories"],
        evidence=evidence,
        cell_features=cell_features,
        products=our_products,
        all_competitors=[{"id": c.id, "name": c.name} for c in rivals],
        empty=None if data["competitors"] else why_empty(rivals, product_id, names),
        product_id=product_id,
        selected_competitors=set(competitor_ids or []),
        selected_categories=set(category_ids or []),
        filtered=bool(product_id or competitor_ids is not None or category_ids is not None),
    )


def drill_down(data: dict[str, Any]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """(solution id, competitor id) -> one row per category mapping of the solution: its
    weight and the category cell that fed the score (None: no cell or UNKNOWN, left out)."""
    by_cell_id = {
        cell["id"]: cell for row in data["categoryCellMap"].values() for cell in row.values()
    }
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for solution in data["solutions"]:
        for competitor in data["competitors"]:
            scored = data["cellMap"].get(solution["id"], {}).get(competitor["id"])
            used = [
                by_cell_id[i]
                for i in (scored or {}).get("contributingCategoryIds", [])
                if i in by_cell_id
            ]
            rows = []
            for mapping in solution.get("categoryMappings") or []:
                cell = next(
                    (
                        c
                        for c in used
                        if c["categoryId"] == mapping.get("categoryId")
                        and c["productId"] == mapping.get("productId")
                    ),
                    None,
                )
                rows.append(
                    {
                        "categoryId": mapping.get("categoryId"),
                        "name": cell["categoryName"] if cell else mapping.get("categoryId"),
                        "weight": mapping.get("weight"),
                        "cell": cell,
                    }
                )
            out[(solution["id"], competitor["id"])] = rows
    return out


@bp.route("/matrix/solutions")
@page(PRO_READ)
def solution_matrix_page():
    ws = principal().workspace_id
    competitor_ids = ids_arg("competitorIds")
    solution_ids = ids_arg("solutionIds")
    data = solution_matrix.get_solution_matrix(
        ws, competitor_ids=competitor_ids, solution_ids=solution_ids
    )
    drill = drill_down(data)
    cells = [r["cell"] for rows in drill.values() for r in rows if r["cell"]]
    evidence, cell_features = evidence_for(ws, cells, data["competitors"])
    return render(
        "matrix_solutions.html",
        data=data,
        drill=drill,
        evidence=evidence,
        cell_features=cell_features,
        all_competitors=[{"id": c.id, "name": c.name} for c in competitors.list_competitors(ws)],
        all_solutions=[{"id": s.id, "name": s.name} for s in solutions.list_solutions(ws)],
        selected_competitors=set(competitor_ids or []),
        selected_solutions=set(solution_ids or []),
        solution_write=PRO_WRITE,
    )
