"""The feature matrix: category cells per competitor x our product, and ``GET /api/matrix``.

``build_matrix`` (the collect job's build-matrix step) scores every category for the
competitor against each of our products it competes with (``relevantProductIds``; when
empty, all our products) with the deterministic rule of ``services/analysis/scoring.py``, writes
the cells in one transaction (idempotent: a rerun updates the same rows and drops cells of
categories or products that no longer apply) and then recomputes the competitor's
solution cells.

Categories scored for a (competitor, product) pair: the product's categories, then the
competitor's (deduplicated by id and by case-insensitive name); the default categories when
neither has any.

Reads: ``productId`` keeps the competitors whose ``relevantProductIds`` name it (as the
competitors list; an empty list is scored against every product but never matches a
filter). ``cells`` and ``cellMap`` hold the same cells: per selected category and listed
competitor, the cell with its id, else an unused one of the same name shown under the
category's id and name, so every cell is ``cellMap[categoryId][competitorId]``.

Language model: when the pipeline's LLM provider is configured (``CI_SERVICE_LLM_*``, see
``pipeline/llm.py``), build-matrix asks it to re-judge the status of every cell with
evidence from the cell's bullets; an answer that is not exactly one status keeps the
rule's. Without one (the default) results are deterministic. ``scoring.set_refiner`` installs
another refiner (tests, experiments).
"""

from __future__ import annotations

from typing import Any

from ci_service.errors import ValidationFailed
from ci_service.services.analysis import feature_presence, matrix_features, scoring
from ci_service.services.analysis.cells import cell_to_dict
from ci_service.services.analysis.feature_claims import our_items
from ci_service.services.analysis.solution_matrix import recompute_solution_cells
from ci_service.services.common import cleanup
from ci_service.services.common.records import get_competitor as _competitor
from ci_service.services.workspace.offerings import get_offering
from ci_service.store.analysis import MatrixCell
from ci_service.store.competitors import Competitor
from ci_service.store.db import transaction
from ci_service.store.resources import Offering
from ci_service.timeutil import utcnow


def _norm(name: str) -> str:
    return " ".join(str(name).lower().split())


def categories_for(product: Offering, competitor: Competitor) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    ids, names = set(), set()
    for item in list(product.categories or []) + list(competitor.categories or []):
        cid, name = str(item.get("id") or ""), str(item.get("name") or "")
        if not cid or not name or cid in ids or _norm(name) in names:
            continue
        ids.add(cid)
        names.add(_norm(name))
        out.append({"id": cid, "name": name})
    return out or scoring.default_categories()


def relevant_products(workspace_id: str, competitor: Competitor) -> list[Offering]:
    products = list(
        Offering.select()
        .where(Offering.workspace == workspace_id, Offering.competitor.is_null())
        .order_by(Offering.created_at, Offering.id)
    )
    wanted = [i for i in competitor.relevant_product_ids or []]
    chosen = [p for p in products if p.id in wanted]
    chosen.sort(key=lambda p: wanted.index(p.id))
    return chosen or products


def _score(
    category: dict[str, str],
    product: Offering,
    competitor: Competitor,
    context: dict[str, Any],
) -> scoring.Scored:
    comparison = matrix_features.compare(
        category, context["our_items"], context["presences"], context["reading"]
    )
    pattern = scoring.matcher(scoring.keywords_for(category))
    strengths = [s for s in competitor.company_strengths or [] if pattern and pattern.search(s)]
    weaknesses = [w for w in competitor.company_weaknesses or [] if pattern and pattern.search(w)]
    status = matrix_features.status(
        comparison,
        our_features=bool(context["our_items"]),
        strong=bool(strengths),
        weak=bool(weaknesses),
    )
    lines = matrix_features.summary(comparison, competitor.name, product.name)
    lines += [f"Listed strength: {s[: scoring.SNIPPET]}" for s in strengths[:1]]
    lines += [f"Listed weakness: {w[: scoring.SNIPPET]}" for w in weaknesses[:1]]
    if status == "UNKNOWN" and not lines:
        lines.append(f"No {category['name']} features of {competitor.name} found yet")
    scored = scoring.Scored(status, lines[:6], comparison.evidence_ids(), comparison.features())
    refiner = context.get("refiner")
    if refiner is not None and (scored.evidence_ids or scored.status != "UNKNOWN"):
        offered = set(scored.evidence_ids)
        refined = refiner(
            {
                "categoryName": category["name"],
                "competitorName": competitor.name,
                "productName": product.name,
                "capabilityStatus": scored.status,
                "summary": list(scored.summary),
                "evidenceIds": list(scored.evidence_ids),
            }
        )
        if refined.get("capabilityStatus") in ("SUPERIOR", "MATCH", "INFERIOR", "UNKNOWN"):
            scored.status = refined["capabilityStatus"]
        if isinstance(refined.get("summary"), list):
            scored.summary = [str(s) for s in refined["summary"]][:8]
        scored.evidence_ids = [i for i in refined.get("evidenceIds", []) if i in offered]
    return scored


def _their_context(workspace_id: str, competitor: Competitor) -> dict[str, Any]:
    offerings, intel = feature_presence.load(workspace_id, competitor)
    return {"reading": feature_presence.Reading(offerings, intel)}


def score_pair(
    workspace_id: str,
    competitor: Competitor,
    product: Offering,
    their: dict[str, Any] | None = None,
) -> list[tuple[dict[str, str], scoring.Scored]]:
    """Score every category of (competitor, product) without storing anything."""
    context = dict(their or _their_context(workspace_id, competitor))
    context.setdefault("refiner", scoring.current_refiner())
    context["our_items"] = our_items(product)
    context["presences"] = {
        str(item["name"]).strip(): feature_presence.presence(
            str(item["name"]).strip(), str(item.get("description") or ""), context["reading"]
        )
        for item in context["our_items"]
    }
    return [
        (category, _score(category, product, competitor, context))
        for category in categories_for(product, competitor)
    ]


def build_matrix(workspace_id: str, competitor_id: str) -> dict[str, Any]:
    """Score the competitor against each relevant product, then store the cells in one
    transaction (idempotent) and recompute its solution cells. Scoring reads happen before
    the write transaction, so a configured language model never holds the write lock.
    Returns the product ids, the cell count and counts per status."""

    competitor = _competitor(workspace_id, competitor_id)
    their = _their_context(workspace_id, competitor)
    their["refiner"] = scoring.current_refiner() or scoring.llm_refiner()
    products = relevant_products(workspace_id, competitor)
    planned = [
        (product, category, scored)
        for product in products
        for category, scored in score_pair(workspace_id, competitor, product, their)
    ]
    counts = {s: 0 for s in scoring.STATUSES}
    with transaction():
        _competitor(workspace_id, competitor_id)  # still there
        live = {
            o.id
            for o in Offering.select(Offering.id).where(
                Offering.id.in_([p.id for p in products] or [""])
            )
        }
        now = utcnow()
        kept: list[str] = []
        for product, category, scored in planned:
            if product.id not in live:
                continue
            counts[scored.status] += 1
            cell = MatrixCell.get_or_none(
                MatrixCell.competitor == competitor.id,
                MatrixCell.product == product.id,
                MatrixCell.category_id == category["id"],
            )
            is_new = cell is None
            if cell is None:
                cell = MatrixCell(
                    workspace=workspace_id,
                    competitor=competitor.id,
                    product=product.id,
                    category_id=category["id"],
                )
            if (
                is_new
                or cell.category_name != category["name"]
                or cell.capability_status != scored.status
                or cell.summary != scored.summary
                or cell.evidence_ids != scored.evidence_ids
                or cell.features != scored.features
            ):
                cell.category_name = category["name"][:200]
                cell.capability_status = scored.status
                cell.summary = scored.summary
                cell.evidence_ids = scored.evidence_ids
                cell.features = scored.features
                cell.updated_at = now
                cell.save(force_insert=is_new)
            kept.append(cell.id)
        MatrixCell.delete().where(
            MatrixCell.workspace == workspace_id,
            MatrixCell.competitor == competitor.id,
            MatrixCell.id.not_in(kept or [""]),
        ).execute()
        recompute_solution_cells(workspace_id, competitor_id=competitor.id)
    return {
        "competitorId": competitor_id,
        "productIds": [p.id for p in products],
        "cells": sum(counts.values()),
        "statusCounts": counts,
    }


# -- reads ------------------------------------------------------------------------------


def _competitors(
    workspace_id: str, product_id: str | None, competitor_ids: list[str] | None
) -> list[Competitor]:
    rows = list(
        Competitor.select()
        .where(Competitor.workspace == workspace_id)
        .order_by(Competitor.created_at, Competitor.id)
    )
    if product_id is not None:
        # The competitors list's meaning (services/competitors.list_competitors): named in
        # relevantProductIds. An empty list is not "every product" for a filter.
        rows = [r for r in rows if product_id in (r.relevant_product_ids or [])]
    if competitor_ids is not None:
        wanted = set(competitor_ids)
        rows = [r for r in rows if r.id in wanted]
    return rows


def _selected_cells(
    workspace_id: str, competitors: list[Competitor], product_id: str | None
) -> dict[str, list[MatrixCell]]:
    """competitor id -> its cells for ``product_id``, or (without one) for the first of its
    relevant products that has cells, else the first product (oldest) that has cells."""
    if not competitors:
        return {}
    query = MatrixCell.select().where(
        MatrixCell.workspace == workspace_id,
        MatrixCell.competitor.in_([c.id for c in competitors]),
    )
    if product_id is not None:
        query = query.where(MatrixCell.product == product_id)
    order = {
        p.id: n
        for n, p in enumerate(
            Offering.select(Offering.id)
            .where(Offering.workspace == workspace_id, Offering.competitor.is_null())
            .order_by(Offering.created_at, Offering.id)
        )
    }
    by_pair: dict[tuple[str, str], list[MatrixCell]] = {}
    for cell in query.order_by(MatrixCell.category_name, MatrixCell.id):
        by_pair.setdefault((cell.competitor_id, cell.product_id), []).append(cell)
    out: dict[str, list[MatrixCell]] = {}
    for competitor in competitors:
        candidates = [pid for (cid, pid) in by_pair if cid == competitor.id]
        if not candidates:
            continue
        relevant = [p for p in competitor.relevant_product_ids or [] if p in candidates]
        chosen = relevant[0] if relevant else min(candidates, key=lambda p: order.get(p, 1 << 30))
        out[competitor.id] = by_pair[(competitor.id, chosen)]
    return out


def _place(categories: list[dict[str, str]], cells: list[MatrixCell]) -> dict[str, dict[str, Any]]:
    """category id -> one competitor's shown cell: by id first, then by name among the
    unused cells (shown with the category's id and name); no cell is shown twice."""
    placed: dict[str, dict[str, Any]] = {}
    used: set[str] = set()
    for category in categories:
        for cell in cells:
            if cell.id not in used and cell.category_id == category["id"]:
                placed[category["id"]] = cell_to_dict(cell)
                used.add(cell.id)
                break
    for category in categories:
        if category["id"] in placed:
            continue
        for cell in cells:
            if cell.id not in used and _norm(cell.category_name) == _norm(category["name"]):
                shown = cell_to_dict(cell)
                shown.update(categoryId=category["id"], categoryName=category["name"])
                placed[category["id"]] = shown
                used.add(cell.id)
                break
    return placed


def select_categories(
    product: Offering | None,
    competitors: list[Competitor],
    cells: list[MatrixCell],
) -> list[dict[str, str]]:
    """Priority: 1. the product's categories (productId given); 2. the first competitor's;
    3. those of the matrix cells (first appearance); 4. the default categories."""

    def clean(items) -> list[dict[str, str]]:
        out: dict[str, dict[str, str]] = {}  # by id: cellMap has one row per category id
        for i in items or []:
            if isinstance(i, dict) and i.get("id") and i.get("name"):
                out.setdefault(str(i["id"]), {"id": str(i["id"]), "name": str(i["name"])})
        return list(out.values())

    if product is not None and clean(product.categories):
        return clean(product.categories)
    if competitors and clean(competitors[0].categories):
        return clean(competitors[0].categories)
    seen: dict[str, dict[str, str]] = {}
    for cell in cells:
        seen.setdefault(cell.category_id, {"id": cell.category_id, "name": cell.category_name})
    if seen:
        # The default categories keep their documented order; others follow by name.
        rank = {c["id"]: n for n, c in enumerate(scoring.default_categories())}
        return sorted(seen.values(), key=lambda c: (rank.get(c["id"], len(rank)), c["name"]))
    return scoring.default_categories()


def get_matrix(
    workspace_id: str,
    product_id: str | None = None,
    competitor_ids: list[str] | None = None,
    include_our_product: bool = False,
) -> dict[str, Any]:
    """``{categories, competitors, cells, cellMap, ourProduct?}`` (see the spec)."""
    if include_our_product and not product_id:
        raise ValidationFailed.field("productId", "is required when includeOurProduct is true")
    product = get_offering(workspace_id, product_id, own_only=True) if product_id else None
    competitors = _competitors(workspace_id, product_id, competitor_ids)
    selected = _selected_cells(workspace_id, competitors, product_id)
    all_cells = [cell for c in competitors for cell in selected.get(c.id, [])]
    categories = select_categories(product, competitors, all_cells)
    cell_map: dict[str, dict[str, Any]] = {category["id"]: {} for category in categories}
    cells: list[dict[str, Any]] = []  # exactly the cells of cellMap: competitor, category order
    for competitor in competitors:
        placed = _place(categories, selected.get(competitor.id, []))
        for category in categories:
            if category["id"] in placed:
                cell_map[category["id"]][competitor.id] = placed[category["id"]]
                cells.append(placed[category["id"]])
    result: dict[str, Any] = {
        "categories": categories,
        "competitors": [{"id": c.id, "name": c.name, "status": c.status} for c in competitors],
        "cells": cells,
        "cellMap": cell_map,
    }
    if include_our_product and product is not None:
        result["ourProduct"] = our_product(product, categories, cell_map)
    return result


def our_product(
    product: Offering, categories: list[dict[str, str]], cell_map: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """Per category: our matching features and our standing against the shown competitors
    (the weakest known status; UNKNOWN when no competitor cell is known)."""
    items = list(product.features or []) + list(product.capabilities or [])
    items += list(product.value_props or [])
    capabilities: dict[str, Any] = {}
    for category in categories:
        pattern = scoring.matcher(scoring.keywords_for(category))
        names = [
            scoring.item_name(i)[:80]
            for i in items
            if pattern is not None and pattern.search(scoring.item_text(i))
        ]
        known = [
            c["capabilityStatus"]
            for c in cell_map.get(category["id"], {}).values()
            if c["capabilityStatus"] in scoring.STATUS_ORDER
        ]
        status = min(known, key=scoring.STATUS_ORDER.__getitem__) if known else "UNKNOWN"
        summary = ["Ours: " + ", ".join(dict.fromkeys(names[:6]))] if names else []
        capabilities[category["id"]] = {"summary": summary, "capabilityStatus": status}
    return {"productId": product.id, "capabilities": capabilities}


def cells_for_tool(
    workspace_id: str,
    product_id: str | None = None,
    competitor_ids: list[str] | None = None,
    include_our_product: bool = False,
) -> dict[str, Any]:
    """The get_matrix tool's basic view: ``{cells: [{categoryId, competitorId, summary,
    capabilityStatus, evidenceIds}], ourProduct?}``."""
    full = get_matrix(workspace_id, product_id, competitor_ids, include_our_product)
    keys = ("id", "categoryId", "categoryName", "competitorId", "productId", "summary")
    out: dict[str, Any] = {
        "cells": [
            {
                **{k: c[k] for k in keys},
                "capabilityStatus": c["capabilityStatus"],
                "evidenceIds": c["evidenceIds"],
            }
            for c in full["cells"]
        ]
    }
    if "ourProduct" in full:
        out["ourProduct"] = full["ourProduct"]
    return out


# -- what goes with a deleted record ---------------------------------------------------


@cleanup.on_delete("competitor")
def _competitor_deleted(workspace_id: str, competitor_id: str) -> None:
    MatrixCell.delete().where(
        MatrixCell.workspace == workspace_id, MatrixCell.competitor == competitor_id
    ).execute()


@cleanup.on_delete("offering")
def _offering_deleted(workspace_id: str, offering_id: str) -> None:

    deleted = (
        MatrixCell.delete()
        .where(MatrixCell.workspace == workspace_id, MatrixCell.product == offering_id)
        .execute()
    )
    if deleted:
        recompute_solution_cells(workspace_id)
