"""Products and offerings: two views of one record."""

from __future__ import annotations

import pytest

from tests.resource_helpers import error, make_offering, make_product, ok


def test_product_create_defaults_and_generated_ids(api):
    product = make_product(
        api,
        valueProps=["fast"],
        features=[{"name": "SSO", "description": "single sign-on"}],
        categories=[{"id": "cat-1", "name": "Security"}],
        capabilities=[{"name": "Audit"}],
    )
    assert set(product) == {
        "id",
        "workspaceId",
        "name",
        "description",
        "audience",
        "valueProps",
        "features",
        "categories",
        "capabilities",
        "pricing",
        "createdAt",
        "createdByUserId",
    }
    assert product["pricing"] == []
    assert product["workspaceId"] == api.workspace_id
    assert product["createdByUserId"] == api.user_id
    assert product["createdAt"].endswith("Z")
    assert product["features"][0]["id"] and product["features"][0]["name"] == "SSO"
    assert product["categories"] == [{"id": "cat-1", "name": "Security", "description": ""}]
    assert product["capabilities"][0]["description"] == ""


def test_product_is_an_offering_and_back(api):
    product = make_product(api, capabilities=[{"id": "cap-a", "name": "A"}])
    offering = ok(api.get(f"/api/offerings/{product['id']}"))["offering"]
    assert offering["name"] == product["name"]
    assert offering["capabilityIds"] == ["cap-a"]
    assert offering["isActive"] is True
    assert offering["competitorId"] is None

    offering = make_offering(api, capabilityIds=["cap-x"])
    product = ok(api.get(f"/api/products/{offering['id']}"))["product"]
    assert product["capabilities"] == [{"id": "cap-x", "name": "cap-x", "description": ""}]
    ok(api.patch(f"/api/offerings/{offering['id']}", json={"name": "Renamed"}))
    assert ok(api.get(f"/api/products/{offering['id']}"))["product"]["name"] == "Renamed"


def test_offerings_list_includes_competitor_offerings_products_do_not(app, api):
    from ci_service.services.workspace import offerings
    from ci_service.store.db import connection
    from tests.resource_helpers import make_competitor

    own = make_product(api)
    competitor = make_competitor(api)["competitor"]
    with connection():
        theirs = offerings.create_offering(
            api.workspace_id,
            {"name": "Their thing", "description": "", "audience": ""},
            competitor_id=competitor["id"],
        )
    offering_ids = [o["id"] for o in ok(api.get("/api/offerings"))["offerings"]]
    product_ids = [p["id"] for p in ok(api.get("/api/products"))["products"]]
    assert offering_ids == [own["id"], theirs.id]
    assert product_ids == [own["id"]]
    error(api.get(f"/api/products/{theirs.id}"), 404, "NOT_FOUND")
    theirs_view = ok(api.get(f"/api/offerings/{theirs.id}"))["offering"]
    assert theirs_view["competitorId"] == competitor["id"]


def test_patch_changes_only_given_fields(api):
    product = make_product(api, valueProps=["a"], features=[{"id": "f1", "name": "F"}])
    patched = ok(api.patch(f"/api/products/{product['id']}", json={"audience": "CIOs"}))
    assert patched["product"]["audience"] == "CIOs"
    assert patched["product"]["valueProps"] == ["a"]
    assert patched["product"]["features"] == product["features"]

    offering = make_offering(api)
    body = {"isActive": False, "features": [{"name": "New"}], "valueProps": []}
    patched = ok(api.patch(f"/api/offerings/{offering['id']}", json=body))["offering"]
    assert patched["isActive"] is False
    assert patched["features"][0]["name"] == "New" and patched["valueProps"] == []


def test_list_limit_and_offset(api):
    for i in range(5):
        make_product(api, name=f"P{i}")
    names = [p["name"] for p in ok(api.get("/api/products?limit=2&offset=1"))["products"]]
    assert names == ["P1", "P2"]
    assert len(ok(api.get("/api/products?limit=5000"))["products"]) == 5
    error(api.get("/api/products?limit=-1"), 400, "VALIDATION_ERROR")
    error(api.get("/api/offerings?offset=abc"), 400, "VALIDATION_ERROR")


def test_child_offerings_build_a_hierarchy_without_cycles(api):
    a = make_offering(api, name="A")
    b = make_offering(api, name="B", childOfferingIds=[a["id"]])
    c = make_offering(api, name="C", childOfferingIds=[b["id"], b["id"]])
    assert c["childOfferingIds"] == [b["id"]]

    body = error(
        api.post(
            "/api/offerings",
            json={"name": "X", "description": "", "audience": "", "childOfferingIds": ["nope"]},
        ),
        400,
        "VALIDATION_ERROR",
    )
    assert "childOfferingIds" in body["details"]["fields"]
    # a -> c would close the loop c -> b -> a -> c
    body = error(
        api.patch(f"/api/offerings/{a['id']}", json={"childOfferingIds": [c["id"]]}),
        400,
        "VALIDATION_ERROR",
    )
    assert "cycle" in body["details"]["fields"]["childOfferingIds"][0]
    error(
        api.patch(f"/api/offerings/{a['id']}", json={"childOfferingIds": [a["id"]]}),
        400,
        "VALIDATION_ERROR",
    )

    ok(api.delete(f"/api/offerings/{a['id']}"))
    assert ok(api.get(f"/api/offerings/{b['id']}"))["offering"]["childOfferingIds"] == []


@pytest.mark.parametrize(
    "path, body, field",
    [
        ("/api/products", {"description": "d", "audience": "a"}, "name"),
        ("/api/products", {"name": "n", "audience": "a"}, "description"),
        ("/api/offerings", {"name": "n", "description": "d"}, "audience"),
        ("/api/products", {"name": "", "description": "d", "audience": "a"}, "name"),
        (
            "/api/products",
            {"name": "n", "description": "d", "audience": "a", "features": [{"id": "x"}]},
            "features.0.name",
        ),
        (
            "/api/products",
            {
                "name": "n",
                "description": "d",
                "audience": "a",
                "categories": [{"id": "x", "name": "a"}, {"id": "x", "name": "b"}],
            },
            "categories",
        ),
    ],
)
def test_create_validation(api, path, body, field):
    body = error(api.post(path, json=body), 400, "VALIDATION_ERROR")
    assert field in body["details"]["fields"]


@pytest.mark.parametrize("path", ["/api/products/nope", "/api/offerings/nope"])
@pytest.mark.parametrize("method", ["get", "patch", "delete"])
def test_missing_product_is_404(api, method, path):
    error(getattr(api, method)(path), 404, "NOT_FOUND")


def test_delete_detaches_product_everywhere(make_api):
    api = make_api(plan="PRO")
    product = make_product(api)
    from tests.resource_helpers import make_competitor, make_solution

    competitor = make_competitor(api, relevantProductIds=[product["id"]])["competitor"]
    solution = make_solution(api, product["id"])
    ok(api.delete(f"/api/products/{product['id']}"))
    error(api.get(f"/api/offerings/{product['id']}"), 404, "NOT_FOUND")
    got = ok(api.get(f"/api/competitors/{competitor['id']}"))["competitor"]
    assert got["relevantProductIds"] == []
    got = ok(api.get(f"/api/solutions/{solution['id']}"))["solution"]
    assert got["productIds"] == [] and got["categoryMappings"] == []
