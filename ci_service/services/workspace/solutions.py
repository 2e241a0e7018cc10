"""Solution themes (PRO plan): named groups of product categories with weights.

Each category mapping names one of the workspace's products; ``categoryId`` is not checked
against the product's categories, since matrix categories may also be defaults.
"""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow.validate import Length, Range

from ci_service.errors import NotFound
from ci_service.services.common import cleanup
from ci_service.services.common.fields import (
    ITEM_ID,
    MAX_ITEMS,
    NAME,
    TEXT,
    InputSchema,
    Object,
    StrictNumber,
    Strings,
    fail,
    load,
    page,
    unique,
)
from ci_service.services.workspace.products import missing_products
from ci_service.store.db import transaction
from ci_service.store.resources import Solution
from ci_service.timeutil import iso, utcnow


class CategoryMappingSchema(InputSchema):
    categoryId = ma.fields.String(required=True, validate=ITEM_ID)
    productId = ma.fields.String(required=True, validate=ITEM_ID)
    weight = StrictNumber(required=True, validate=Range(0.0, 1.0))


class SolutionUpdateSchema(InputSchema):
    name = ma.fields.String(validate=NAME)
    description = ma.fields.String(validate=TEXT)
    productIds = Strings(ITEM_ID)
    categoryMappings = ma.fields.List(
        Object(CategoryMappingSchema),
        validate=[Length(min=1, error="at least one category mapping is required"), MAX_ITEMS],
    )


class SolutionCreateSchema(SolutionUpdateSchema):
    name = ma.fields.String(required=True, validate=NAME)
    productIds = Strings(ITEM_ID, required=True)
    categoryMappings = ma.fields.List(
        Object(CategoryMappingSchema),
        required=True,
        validate=[Length(min=1, error="at least one category mapping is required"), MAX_ITEMS],
    )


def _check_products(workspace_id: str, field: str, ids: list[str]) -> None:
    missing = missing_products(workspace_id, unique(ids))
    if missing:
        raise fail({field: [f"unknown product ids: {', '.join(missing)}"]})


def _apply(row: Solution, values: dict[str, Any], workspace_id: str) -> None:
    if "name" in values:
        row.name = values["name"]
    if "description" in values:
        row.description = values["description"]
    if "productIds" in values:
        _check_products(workspace_id, "productIds", values["productIds"])
        row.product_ids = unique(values["productIds"])
    if "categoryMappings" in values:
        mappings = values["categoryMappings"]
        _check_products(workspace_id, "categoryMappings", [m["productId"] for m in mappings])
        row.category_mappings = [
            {"categoryId": m["categoryId"], "productId": m["productId"], "weight": m["weight"]}
            for m in mappings
        ]


def create_solution(
    workspace_id: str, data: dict[str, Any], *, user_id: str | None = None
) -> Solution:
    values = load(SolutionCreateSchema, data)
    with transaction():
        row = Solution(workspace=workspace_id, created_by_user_id=user_id, is_ai_generated=False)
        _apply(row, values, workspace_id)
        row.save(force_insert=True)
    return row


def get_solution(workspace_id: str, solution_id: str) -> Solution:
    row = (
        Solution.select()
        .where(Solution.id == solution_id, Solution.workspace == workspace_id)
        .first()
    )
    if row is None:
        raise NotFound.of("Solution")
    return row


def list_solutions(
    workspace_id: str, *, limit: int | None = None, offset: int | None = None
) -> list[Solution]:
    query = Solution.select().where(Solution.workspace == workspace_id)
    return list(page(query.order_by(Solution.created_at, Solution.id), limit, offset))


def update_solution(workspace_id: str, solution_id: str, data: dict[str, Any]) -> Solution:
    """Change only the given fields."""
    values = load(SolutionUpdateSchema, data)
    with transaction():
        row = get_solution(workspace_id, solution_id)
        _apply(row, values, workspace_id)
        row.updated_at = utcnow()
        row.save()
    return row


def delete_solution(workspace_id: str, solution_id: str) -> None:
    with transaction():
        row = get_solution(workspace_id, solution_id)
        cleanup.run("solution", workspace_id, row.id)
        row.delete_instance()


def mappable_categories(workspace_id: str) -> list[dict[str, Any]]:
    """What a solution can map, per product of ours (oldest first): ``{id, name,
    categories: [{id, name}]}``. A product's categories are its own, then those the matrix
    scored for it (a competitor's, by name), else the default categories the matrix scores
    when neither has any: the (productId, categoryId) pairs that can have matrix cells."""
    from ci_service.services.analysis import scoring
    from ci_service.store.analysis import MatrixCell
    from ci_service.store.resources import Offering

    products = list(
        Offering.select()
        .where(Offering.workspace == workspace_id, Offering.competitor.is_null())
        .order_by(Offering.created_at, Offering.id)
    )
    scored: dict[str, dict[str, str]] = {}
    if products:
        query = (
            MatrixCell.select(MatrixCell.product, MatrixCell.category_id, MatrixCell.category_name)
            .where(MatrixCell.workspace == workspace_id)
            .distinct()
        )
        for cell in query:
            scored.setdefault(cell.product_id, {}).setdefault(cell.category_id, cell.category_name)
    out = []
    for product in products:
        categories: dict[str, str] = {}
        for item in product.categories or []:
            if isinstance(item, dict) and item.get("id") and item.get("name"):
                categories.setdefault(str(item["id"]), str(item["name"]))
        cells = scored.get(product.id, {})
        for cid, name in sorted(cells.items(), key=lambda pair: pair[1].lower()):
            categories.setdefault(cid, name)
        if not categories:
            categories = {c["id"]: c["name"] for c in scoring.default_categories()}
        out.append(
            {
                "id": product.id,
                "name": product.name,
                "categories": [{"id": k, "name": v} for k, v in categories.items()],
            }
        )
    return out


def solution_to_dict(row: Solution) -> dict[str, Any]:
    return {
        "id": row.id,
        "workspaceId": row.workspace_id,
        "name": row.name,
        "description": row.description,
        "isAiGenerated": row.is_ai_generated,
        "productIds": row.product_ids,
        "categoryMappings": row.category_mappings,
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
        "createdByUserId": row.created_by_user_id,
    }
