"""GET /api/matrix/solutions: the solution score formula on hand-computed examples."""

from __future__ import annotations

import pytest

from ci_service.services.analysis.solution_matrix import aggregate
from ci_service.store.analysis import MatrixCell, SolutionCell
from ci_service.store.db import connection
from tests.resource_helpers import error, make_competitor, make_product, make_solution, ok


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        # (4*1.0 + 1*0.5 + 2*0.5) / (1.0 + 0.5 + 0.5) = 5.5 / 2 = 2.75 -> 3
        ([(1.0, 4), (0.5, 1), (0.5, 2)], (3, 2.75)),
        # (2*0.3 + 1*0.1) / 0.4 = 0.7 / 0.4 = 1.75 -> 2
        ([(0.3, 2), (0.1, 1)], (2, 1.75)),
        # (2*1 + 1*1) / 2 = 1.5 -> 2 (half rounds up)
        ([(1.0, 2), (1.0, 1)], (2, 1.5)),
        # (4*0.2 + 1*0.8) / 1.0 = 1.6 -> 2
        ([(0.2, 4), (0.8, 1)], (2, 1.6)),
        # all weights 0: the plain mean, (4 + 1) / 2 = 2.5 -> 3
        ([(0.0, 4), (0.0, 1)], (3, 2.5)),
        ([(0.7, 4)], (4, 4.0)),
        ([], None),
    ],
)
def test_aggregate(parts, expected):
    assert aggregate(parts) == expected


def cell(workspace_id, competitor_id, product_id, category_id, status, evidence=()):
    with connection():
        return MatrixCell.create(
            workspace=workspace_id,
            competitor=competitor_id,
            product=product_id,
            category_id=category_id,
            category_name=category_id.upper(),
            summary=[f"{category_id} summary"],
            capability_status=status,
            evidence_ids=list(evidence),
        ).id


@pytest.fixture
def scored(make_api):
    """A product with categories a-e, two competitors; Rival has cells a-d (e: none)."""
    api = make_api(plan="PRO")
    product = make_product(api)
    rival = make_competitor(api)["competitor"]
    other = make_competitor(api, name="Other", url="https://other.example")["competitor"]
    ws, pid, rid = api.workspace_id, product["id"], rival["id"]
    cells = {
        "a": cell(ws, rid, pid, "a", "SUPERIOR", ["e1"]),  # level 4
        "b": cell(ws, rid, pid, "b", "INFERIOR", ["e2", "e1"]),  # level 1
        "c": cell(ws, rid, pid, "c", "MATCH"),  # level 2
        "d": cell(ws, rid, pid, "d", "UNKNOWN", ["e9"]),  # left out
    }
    solution = make_solution(
        api,
        pid,
        categoryMappings=[
            {"categoryId": "a", "productId": pid, "weight": 1.0},
            {"categoryId": "b", "productId": pid, "weight": 0.5},
            {"categoryId": "c", "productId": pid, "weight": 0.5},
            {"categoryId": "d", "productId": pid, "weight": 0.9},  # UNKNOWN: left out
            {"categoryId": "e", "productId": pid, "weight": 0.8},  # no cell: left out
        ],
    )
    return api, product, rival, other, solution, cells


def test_solution_score_on_a_hand_computed_example(scored):
    api, _product, rival, other, solution, cells = scored
    body = ok(api.get("/api/matrix/solutions"))
    assert [s["id"] for s in body["solutions"]] == [solution["id"]]
    assert body["solutions"][0]["categoryMappings"][0]["categoryId"] == "a"
    assert body["competitors"] == [
        {"id": rival["id"], "name": "Rival", "status": "READY"},
        {"id": other["id"], "name": "Other", "status": "PENDING"},
    ]
    (only,) = body["cells"]
    # (4*1.0 + 1*0.5 + 2*0.5) / (1.0 + 0.5 + 0.5) = 5.5 / 2.0 = 2.75 -> 3
    assert only["aggregatedScore"] == 3
    assert only["contributingCategoryIds"] == [cells["a"], cells["b"], cells["c"]]
    assert only["evidenceIds"] == ["e1", "e2"]
    assert only["solutionId"] == solution["id"] and only["competitorId"] == rival["id"]
    assert only["workspaceId"] == api.workspace_id and only["lastRefreshedAt"].endswith("Z")
    assert body["cellMap"] == {solution["id"]: {rival["id"]: only}}
    # drill-down: every contributing id is the id of a cell in categoryCellMap
    assert set(body["categoryCellMap"]) == {"a", "b", "c"}
    drill = {body["categoryCellMap"][k][rival["id"]]["id"] for k in "abc"}
    assert drill == set(only["contributingCategoryIds"])
    assert body["categoryCellMap"]["b"][rival["id"]]["capabilityStatus"] == "INFERIOR"


def test_recomputed_when_the_solution_or_cells_change(scored):
    api, product, rival, _other, solution, cells = scored
    first = ok(api.get("/api/matrix/solutions"))["cells"][0]
    again = ok(api.get("/api/matrix/solutions"))["cells"][0]
    assert again == first  # nothing changed: nothing rewritten
    pid = product["id"]
    ok(
        api.put(
            f"/api/solutions/{solution['id']}",
            json={
                "categoryMappings": [
                    {"categoryId": "b", "productId": pid, "weight": 0.6},
                    {"categoryId": "c", "productId": pid, "weight": 0.2},
                ]
            },
        )
    )
    changed = ok(api.get("/api/matrix/solutions"))["cells"][0]
    # (1*0.6 + 2*0.2) / 0.8 = 1.0 / 0.8 = 1.25 -> 1
    assert changed["aggregatedScore"] == 1 and changed["id"] == first["id"]
    assert changed["contributingCategoryIds"] == [cells["b"], cells["c"]]
    with connection():
        MatrixCell.update(capability_status="UNKNOWN").execute()
    body = ok(api.get("/api/matrix/solutions"))
    assert body["cells"] == [] and body["competitors"][0]["status"] == "PENDING"
    with connection():
        assert SolutionCell.select().count() == 0


def test_deleting_a_solution_or_competitor_removes_its_cells(scored):
    api, _product, rival, _other, solution, _cells = scored
    ok(api.get("/api/matrix/solutions"))
    with connection():
        assert SolutionCell.select().count() == 1
    ok(api.delete(f"/api/solutions/{solution['id']}"))
    with connection():
        assert SolutionCell.select().count() == 0
    second = make_solution(
        api,
        _product["id"],
        categoryMappings=[{"categoryId": "a", "productId": _product["id"], "weight": 1}],
    )
    assert ok(api.get("/api/matrix/solutions"))["cells"][0]["solutionId"] == second["id"]
    ok(api.delete(f"/api/competitors/{rival['id']}"))
    with connection():
        assert SolutionCell.select().count() == 0 and MatrixCell.select().count() == 0


def test_filters(scored, make_api):
    api, product, rival, other, solution, _cells = scored
    second = make_solution(
        api,
        product["id"],
        name="Second",
        categoryMappings=[{"categoryId": "a", "productId": product["id"], "weight": 1}],
    )
    body = ok(api.get(f"/api/matrix/solutions?solutionIds={second['id']}"))
    assert [s["id"] for s in body["solutions"]] == [second["id"]]
    assert [c["aggregatedScore"] for c in body["cells"]] == [4]
    body = ok(api.get(f"/api/matrix/solutions?competitorIds={other['id']}"))
    assert body["cells"] == [] and body["competitors"][0]["status"] == "PENDING"
    assert set(body["cellMap"]) == {solution["id"], second["id"]}
    foreign = make_api(plan="PRO")
    body = ok(foreign.get(f"/api/matrix/solutions?competitorIds={rival['id']}"))
    assert body == {
        "solutions": [],
        "competitors": [],
        "cells": [],
        "cellMap": {},
        "categoryCellMap": {},
    }


def test_starter_plan_is_refused(make_api):
    starter = make_api(plan="STARTER")
    body = error(starter.get("/api/matrix/solutions"), 403, "UPGRADE_REQUIRED")
    assert body["requiredPlan"] == "PRO"
