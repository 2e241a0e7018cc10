"""Solutions: PRO plan, 201 on create, mapping rules, PUT changes only given fields."""

from __future__ import annotations

import pytest

from tests.resource_helpers import error, make_product, make_solution, ok


@pytest.fixture
def pro(make_api):
    return make_api(plan="PRO")


@pytest.fixture
def product(pro):
    return make_product(pro)


def test_create_shape_and_defaults(pro, product):
    solution = make_solution(pro, product["id"], description="Theme")
    assert set(solution) == {
        "id",
        "workspaceId",
        "name",
        "description",
        "isAiGenerated",
        "productIds",
        "categoryMappings",
        "createdAt",
        "updatedAt",
        "createdByUserId",
    }
    assert solution["isAiGenerated"] is False
    assert solution["createdByUserId"] == pro.user_id
    assert solution["categoryMappings"] == [
        {"categoryId": "c1", "productId": product["id"], "weight": 0.5}
    ]
    assert ok(pro.get(f"/api/solutions/{solution['id']}"))["solution"] == solution
    assert ok(pro.get("/api/solutions"))["solutions"] == [solution]


def test_description_defaults_to_empty(pro, product):
    assert make_solution(pro, product["id"])["description"] == ""


def test_put_changes_only_given_fields(pro, product):
    solution = make_solution(pro, product["id"], description="keep")
    got = ok(pro.put(f"/api/solutions/{solution['id']}", json={"name": "Renamed"}))["solution"]
    assert got["name"] == "Renamed"
    assert got["description"] == "keep"
    assert got["categoryMappings"] == solution["categoryMappings"]
    assert got["productIds"] == solution["productIds"]
    mappings = [{"categoryId": "c2", "productId": product["id"], "weight": 1}]
    got = ok(pro.put(f"/api/solutions/{solution['id']}", json={"categoryMappings": mappings}))
    assert got["solution"]["categoryMappings"] == [
        {"categoryId": "c2", "productId": product["id"], "weight": 1.0}
    ]
    assert got["solution"]["name"] == "Renamed"


def _mapping(product_id, **over):
    return {"categoryId": "c", "productId": product_id, "weight": 0.5, **over}


@pytest.mark.parametrize(
    "make_body, field",
    [
        (lambda p: {"productIds": [p], "categoryMappings": [_mapping(p)]}, "name"),
        (lambda p: {"name": "S", "categoryMappings": [_mapping(p)]}, "productIds"),
        (lambda p: {"name": "S", "productIds": [p]}, "categoryMappings"),
        (lambda p: {"name": "S", "productIds": [p], "categoryMappings": []}, "categoryMappings"),
        (
            lambda p: {
                "name": "S",
                "productIds": [p],
                "categoryMappings": [_mapping(p, weight=1.5)],
            },
            "categoryMappings.0.weight",
        ),
        (
            lambda p: {
                "name": "S",
                "productIds": [p],
                "categoryMappings": [_mapping(p, weight=-0.1)],
            },
            "categoryMappings.0.weight",
        ),
        (
            lambda p: {
                "name": "S",
                "productIds": [p],
                "categoryMappings": [_mapping(p, weight="0.5")],
            },
            "categoryMappings.0.weight",
        ),
        (
            lambda p: {
                "name": "S",
                "productIds": [p],
                "categoryMappings": [{"categoryId": "c", "productId": p}],
            },
            "categoryMappings.0.weight",
        ),
        (
            lambda p: {"name": "S", "productIds": ["nope"], "categoryMappings": [_mapping(p)]},
            "productIds",
        ),
        (
            lambda p: {"name": "S", "productIds": [p], "categoryMappings": [_mapping("nope")]},
            "categoryMappings",
        ),
        (
            lambda p: {"name": "S", "productIds": [p], "categoryMappings": ["x"]},
            "categoryMappings.0",
        ),
    ],
)
def test_create_validation(pro, product, make_body, field):
    got = error(pro.post("/api/solutions", json=make_body(product["id"])), 400, "VALIDATION_ERROR")
    assert field in got["details"]["fields"]


@pytest.mark.parametrize(
    ("make_body", "field"),
    [
        (lambda p: {"categoryMappings": []}, "categoryMappings"),
        (lambda p: {"categoryMappings": [_mapping(p, weight=2)]}, "categoryMappings.0.weight"),
        (lambda p: {"productIds": ["nope"]}, "productIds"),
        (lambda p: {"name": None}, "name"),
    ],
)
def test_put_validation(pro, product, make_body, field):
    solution = make_solution(pro, product["id"])
    body = make_body(product["id"])
    got = error(pro.put(f"/api/solutions/{solution['id']}", json=body), 400, "VALIDATION_ERROR")
    assert field in got["details"]["fields"]


@pytest.mark.parametrize(
    ("method", "body"), [("get", None), ("put", {"name": "x"}), ("delete", None)]
)
def test_not_found(pro, method, body):
    send = getattr(pro, method)
    error(send("/api/solutions/nope", **({"json": body} if body else {})), 404, "NOT_FOUND")


def test_delete(pro, product):
    solution = make_solution(pro, product["id"])
    assert ok(pro.delete(f"/api/solutions/{solution['id']}")) == {"success": True}
    error(pro.get(f"/api/solutions/{solution['id']}"), 404, "NOT_FOUND")


@pytest.mark.parametrize(
    "method, path",
    [
        ("get", "/api/solutions"),
        ("get", "/api/solutions/x"),
        ("post", "/api/solutions"),
        ("put", "/api/solutions/x"),
        ("delete", "/api/solutions/x"),
    ],
)
def test_starter_plan_needs_upgrade(make_api, method, path):
    api = make_api(plan="STARTER")
    kwargs = {"json": {"name": "x"}} if method in ("post", "put") else {}
    got = error(getattr(api, method)(path, **kwargs), 403, "UPGRADE_REQUIRED")
    assert got["requiredPlan"] == "PRO"


def test_service_functions_work_without_flask(app, make_workspace):
    from ci_service.services.workspace import products, solutions
    from ci_service.store.db import connection

    workspace = make_workspace(plan="PRO")
    with connection():
        product = products.create_product(
            workspace.id, {"name": "P", "description": "", "audience": ""}
        )
        created = solutions.create_solution(
            workspace.id,
            {"name": "S", "productIds": [product.id], "categoryMappings": [_mapping(product.id)]},
        )
        updated = solutions.update_solution(workspace.id, created.id, {"description": "d"})
        assert [s.id for s in solutions.list_solutions(workspace.id)] == [created.id]
        assert solutions.get_solution(workspace.id, created.id).description == "d"
        assert updated.name == "S"
