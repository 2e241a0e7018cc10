"""Products: the product view of the workspace's own offerings (see ``offerings``)."""

from __future__ import annotations

from typing import Any

from ci_service.services.workspace import offerings
from ci_service.services.workspace.offerings import (  # noqa: F401 - the product view's API
    ProductCreateSchema,
    ProductUpdateSchema,
    product_to_dict,
)
from ci_service.store.resources import Offering


def list_products(
    workspace_id: str, *, limit: int | None = None, offset: int | None = None
) -> list[Offering]:
    return offerings.list_offerings(workspace_id, own_only=True, limit=limit, offset=offset)


def get_product(workspace_id: str, product_id: str) -> Offering:
    return offerings.get_offering(workspace_id, product_id, own_only=True)


def create_product(workspace_id: str, data: dict[str, Any], *, user_id: str | None = None):
    return offerings.create_offering(workspace_id, data, user_id=user_id, view="product")


def update_product(workspace_id: str, product_id: str, data: dict[str, Any]) -> Offering:
    return offerings.update_offering(workspace_id, product_id, data, view="product")


def delete_product(workspace_id: str, product_id: str) -> None:
    offerings.delete_offering(workspace_id, product_id, own_only=True)


def missing_products(workspace_id: str, ids: list[str]) -> list[str]:
    """The ids among ``ids`` that are not products of the workspace."""
    if not ids:
        return []
    found = {
        o.id
        for o in Offering.select(Offering.id).where(
            Offering.workspace == workspace_id,
            Offering.competitor.is_null(),
            Offering.id.in_(list(ids)),
        )
    }
    return [i for i in ids if i not in found]
