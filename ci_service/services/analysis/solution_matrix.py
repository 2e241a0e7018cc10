"""The solution matrix: one cell per solution x competitor, scored from category cells.

Formula (``aggregatedScore``, level 0 to 4). For each category mapping
``{categoryId, productId, weight}`` of the solution, take the competitor's matrix cell for
(productId, categoryId) and its level — our standing against the competitor there:

=========  =====  ==========================
status     level  meaning on the spec's scale
=========  =====  ==========================
SUPERIOR   4      full (ours is better)
MATCH      2      half (parity)
INFERIOR   1      one quarter (weak)
=========  =====  ==========================

A mapping whose category has no cell, or an UNKNOWN cell, is left out (no evidence is not
evidence of absence). ``raw = sum(weight * level) / sum(weight)`` over the mappings left
(all weights 0: plain mean); ``aggregatedScore = floor(raw + 0.5)``, i.e. rounded half up.
No mapping left: no cell, and the competitor stays PENDING unless another solution scored
it (READY).

Worked example: SUPERIOR at weight 1.0, INFERIOR at 0.5, MATCH at 0.5, one mapping without
a cell at 0.8: (4*1.0 + 1*0.5 + 2*0.5) / (1.0 + 0.5 + 0.5) = 5.5 / 2.0 = 2.75 -> 3.

``contributingCategoryIds`` are the ids of the matrix cells that fed the score (as the spec
defines them; each is the ``id`` of a cell in ``categoryCellMap``), ``evidenceIds`` the
union of their evidence ids.

Freshness: ``build_matrix`` recomputes a competitor's cells when its category cells change.
Solutions are edited by ``services/workspace/solutions.py``, which has no change hook, so
``get_solution_matrix`` recomputes in memory on every read and writes only the cells that
differ (``lastRefreshedAt`` moves only then): a read never shows a stale score.
"""

from __future__ import annotations

import math
from typing import Any

from ci_service.services.analysis.cells import cell_to_dict
from ci_service.services.common import cleanup
from ci_service.store.analysis import MatrixCell, SolutionCell
from ci_service.store.competitors import Competitor
from ci_service.store.db import transaction
from ci_service.store.resources import Solution
from ci_service.timeutil import iso, utcnow

LEVELS = {"SUPERIOR": 4, "MATCH": 2, "INFERIOR": 1}
MAX_EVIDENCE = 20


def aggregate(parts: list[tuple[float, int]]) -> tuple[int, float] | None:
    """``(aggregatedScore, raw)`` for ``[(weight, level)]``; None when empty."""
    if not parts:
        return None
    total = sum(w for w, _ in parts)
    if total <= 0:
        raw = sum(level for _, level in parts) / len(parts)
    else:
        raw = sum(w * level for w, level in parts) / total
    return max(0, min(4, math.floor(raw + 0.5))), round(raw, 4)


def _wanted(
    workspace_id: str, competitor_ids: list[str] | None, solution_ids: list[str] | None
) -> tuple[list[Solution], list[Competitor]]:
    solutions = Solution.select().where(Solution.workspace == workspace_id)
    if solution_ids is not None:
        solutions = solutions.where(Solution.id.in_(list(solution_ids)))
    competitors = Competitor.select().where(Competitor.workspace == workspace_id)
    if competitor_ids is not None:
        competitors = competitors.where(Competitor.id.in_(list(competitor_ids)))
    return (
        list(solutions.order_by(Solution.created_at, Solution.id)),
        list(competitors.order_by(Competitor.created_at, Competitor.id)),
    )


def _compute(workspace_id, solutions, competitors) -> tuple[dict, dict[str, MatrixCell]]:
    """(solution id, competitor id) -> fields of the cell it should have; and the matrix
    cells by id."""
    cells: dict[tuple[str, str, str], MatrixCell] = {}
    by_id: dict[str, MatrixCell] = {}
    if competitors and solutions:
        for cell in MatrixCell.select().where(
            MatrixCell.workspace == workspace_id,
            MatrixCell.competitor.in_([c.id for c in competitors]),
        ):
            cells[(cell.competitor_id, cell.product_id, cell.category_id)] = cell
            by_id[cell.id] = cell
    desired: dict[tuple[str, str], dict[str, Any]] = {}
    for solution in solutions:
        for competitor in competitors:
            parts, contributing, evidence = [], [], []
            for mapping in solution.category_mappings or []:
                cell = cells.get(
                    (competitor.id, mapping.get("productId"), mapping.get("categoryId"))
                )
                if cell is None or cell.capability_status not in LEVELS:
                    continue
                parts.append((float(mapping.get("weight") or 0), LEVELS[cell.capability_status]))
                contributing.append(cell.id)
                evidence.extend(cell.evidence_ids or [])
            scored = aggregate(parts)
            if scored is None:
                continue
            desired[(solution.id, competitor.id)] = {
                "aggregated_score": scored[0],
                "raw_score": scored[1],
                "contributing_category_ids": list(dict.fromkeys(contributing)),
                "evidence_ids": list(dict.fromkeys(evidence))[:MAX_EVIDENCE],
            }
    return desired, by_id


def _stored(workspace_id, solutions, competitors) -> dict[tuple[str, str], SolutionCell]:
    if not solutions or not competitors:
        return {}
    query = SolutionCell.select().where(
        SolutionCell.workspace == workspace_id,
        SolutionCell.solution.in_([s.id for s in solutions]),
        SolutionCell.competitor.in_([c.id for c in competitors]),
    )
    return {(c.solution_id, c.competitor_id): c for c in query}


def _same(row: SolutionCell, fields: dict[str, Any]) -> bool:
    return all(getattr(row, k) == v for k, v in fields.items())


def _stale(workspace_id, solutions, competitors) -> bool:
    desired, _ = _compute(workspace_id, solutions, competitors)
    stored = _stored(workspace_id, solutions, competitors)
    if set(desired) != set(stored):
        return True
    return any(not _same(stored[key], fields) for key, fields in desired.items())


def recompute_solution_cells(
    workspace_id: str, competitor_id: str | None = None, solution_id: str | None = None
) -> int:
    """Bring the stored solution cells in line (for one competitor and/or solution, or all);
    returns how many cells were written or deleted. Runs in (or as) one transaction."""
    with transaction():
        solutions, competitors = _wanted(
            workspace_id,
            [competitor_id] if competitor_id else None,
            [solution_id] if solution_id else None,
        )
        desired, _ = _compute(workspace_id, solutions, competitors)
        stored = _stored(workspace_id, solutions, competitors)
        now, changed = utcnow(), 0
        for key, row in stored.items():
            if key not in desired:
                row.delete_instance()
                changed += 1
        for (sid, cid), fields in desired.items():
            row = stored.get((sid, cid))
            if row is not None and _same(row, fields):
                continue
            if row is None:
                SolutionCell.create(
                    workspace=workspace_id,
                    solution=sid,
                    competitor=cid,
                    last_refreshed_at=now,
                    **fields,
                )
            else:
                SolutionCell.update(last_refreshed_at=now, **fields).where(
                    SolutionCell.id == row.id
                ).execute()
            changed += 1
    return changed


def solution_cell_to_dict(row: SolutionCell) -> dict[str, Any]:
    return {
        "id": row.id,
        "workspaceId": row.workspace_id,
        "solutionId": row.solution_id,
        "competitorId": row.competitor_id,
        "aggregatedScore": row.aggregated_score,
        "contributingCategoryIds": list(row.contributing_category_ids or []),
        "evidenceIds": list(row.evidence_ids or []),
        "lastRefreshedAt": iso(row.last_refreshed_at),
    }


def get_solution_matrix(
    workspace_id: str,
    competitor_ids: list[str] | None = None,
    solution_ids: list[str] | None = None,
) -> dict[str, Any]:
    """``{solutions, competitors, cells, cellMap, categoryCellMap}`` (see the spec)."""
    from ci_service.services.workspace.solutions import solution_to_dict

    solutions, competitors = _wanted(workspace_id, competitor_ids, solution_ids)
    if _stale(workspace_id, solutions, competitors):
        recompute_solution_cells(workspace_id)
        solutions, competitors = _wanted(workspace_id, competitor_ids, solution_ids)
    _, matrix_cells = _compute(workspace_id, solutions, competitors)
    stored = _stored(workspace_id, solutions, competitors)
    order = {
        (s.id, c.id): n for n, (s, c) in enumerate((s, c) for s in solutions for c in competitors)
    }
    rows = sorted(stored.values(), key=lambda r: order[(r.solution_id, r.competitor_id)])
    cell_map: dict[str, dict[str, Any]] = {s.id: {} for s in solutions}
    category_map: dict[str, dict[str, Any]] = {}
    for row in rows:
        cell_map[row.solution_id][row.competitor_id] = solution_cell_to_dict(row)
        for cell_id in row.contributing_category_ids or []:
            cell = matrix_cells.get(cell_id)
            if cell is not None:
                category_map.setdefault(cell.category_id, {}).setdefault(
                    cell.competitor_id, cell_to_dict(cell)
                )
    scored = {r.competitor_id for r in rows}
    return {
        "solutions": [solution_to_dict(s) for s in solutions],
        "competitors": [
            {"id": c.id, "name": c.name, "status": "READY" if c.id in scored else "PENDING"}
            for c in competitors
        ],
        "cells": [solution_cell_to_dict(r) for r in rows],
        "cellMap": cell_map,
        "categoryCellMap": category_map,
    }


@cleanup.on_delete("competitor")
def _competitor_deleted(workspace_id: str, competitor_id: str) -> None:
    SolutionCell.delete().where(
        SolutionCell.workspace == workspace_id, SolutionCell.competitor == competitor_id
    ).execute()


@cleanup.on_delete("solution")
def _solution_deleted(workspace_id: str, solution_id: str) -> None:
    SolutionCell.delete().where(
        SolutionCell.workspace == workspace_id, SolutionCell.solution == solution_id
    ).execute()
