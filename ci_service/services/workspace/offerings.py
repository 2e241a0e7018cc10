"""Offerings and products: two views of one record (``Offering``).

A product is one of the workspace's own offerings (``competitor`` null); its id is valid
wherever an offering id is. ``/api/offerings`` also shows competitors' offerings. The
offering view's ``capabilityIds`` are the ids of the record's capability objects.
Deleting a competitor's offering is a ``competitor.product_removed`` event (same
transaction); the offerings that go with a deleted competitor are not.
"""

from __future__ import annotations

from typing import Any

import marshmallow as ma

from ci_service.errors import NotFound
from ci_service.services.common import cleanup
from ci_service.services.common.fields import (
    ITEM_ID,
    NAME,
    TEXT,
    Bool,
    InputSchema,
    Items,
    PricingPlans,
    Strings,
    fail,
    load,
    normalize_items,
    page,
    unique,
)
from ci_service.services.graph import sync as graph_sync
from ci_service.store.competitors import Competitor
from ci_service.store.db import transaction
from ci_service.store.resources import Offering, Solution
from ci_service.timeutil import iso, utcnow

PRICING_HELP = (
    "price plans ({name, price, currency, period, unit, onRequest, comingSoon, priceText, "
    "features}); "
    "replaces the list. Battlecards compare our plans with the competitor's."
)


class OfferingUpdateSchema(InputSchema):
    name = ma.fields.String(validate=NAME)
    description = ma.fields.String(validate=TEXT)
    audience = ma.fields.String(validate=TEXT)
    valueProps = Strings()
    features = Items()
    capabilityIds = Strings(ITEM_ID)
    childOfferingIds = Strings(ITEM_ID, metadata={"description": "bundle/suite members"})
    isActive = Bool()
    pricing = PricingPlans(metadata={"description": PRICING_HELP})


class OfferingCreateSchema(OfferingUpdateSchema):
    name = ma.fields.String(required=True, validate=NAME)
    description = ma.fields.String(required=True, validate=TEXT)
    audience = ma.fields.String(required=True, validate=TEXT)


class ProductUpdateSchema(InputSchema):
    name = ma.fields.String(validate=NAME)
    description = ma.fields.String(validate=TEXT)
    audience = ma.fields.String(validate=TEXT)
    valueProps = Strings()
    features = Items()
    categories = Items()
    capabilities = Items()
    pricing = PricingPlans(metadata={"description": PRICING_HELP})


class ProductCreateSchema(ProductUpdateSchema):
    name = ma.fields.String(required=True, validate=NAME)
    description = ma.fields.String(required=True, validate=TEXT)
    audience = ma.fields.String(required=True, validate=TEXT)


def _query(workspace_id: str, own_only: bool):
    query = Offering.select().where(Offering.workspace == workspace_id)
    if own_only:
        query = query.where(Offering.competitor.is_null())
    return query


def get_offering(workspace_id: str, offering_id: str, *, own_only: bool = False) -> Offering:
    """An offering of the workspace (``own_only``: a product); 404 otherwise."""
    row = _query(workspace_id, own_only).where(Offering.id == offering_id).first()
    if row is None:
        raise NotFound.of("Product" if own_only else "Offering")
    return row


def list_offerings(
    workspace_id: str,
    *,
    own_only: bool = False,
    limit: int | None = None,
    offset: int | None = None,
) -> list[Offering]:
    query = _query(workspace_id, own_only).order_by(Offering.created_at, Offering.id)
    return list(page(query, limit, offset))


def _capabilities_from_ids(current: list[dict], ids: list[str]) -> list[dict]:
    by_id = {c["id"]: c for c in current or []}
    return [by_id.get(i) or {"id": i, "name": i, "description": ""} for i in unique(ids)]


def _check_children(workspace_id: str, offering_id: str, child_ids: list[str]) -> None:
    """Every child exists in the workspace and the bundle hierarchy stays acyclic."""
    if offering_id in child_ids:
        raise fail({"childOfferingIds": ["an offering cannot contain itself"]})
    rows = {
        o.id: o.child_offering_ids or []
        for o in Offering.select(Offering.id, Offering.child_offering_ids).where(
            Offering.workspace == workspace_id
        )
    }
    missing = [i for i in child_ids if i not in rows]
    if missing:
        raise fail({"childOfferingIds": [f"unknown offering ids: {', '.join(missing)}"]})
    stack, seen = list(child_ids), set()
    while stack:
        current = stack.pop()
        if current == offering_id:
            raise fail({"childOfferingIds": ["would create a cycle in the offering hierarchy"]})
        if current not in seen:
            seen.add(current)
            stack.extend(rows.get(current, []))


def _apply(row: Offering, values: dict[str, Any], workspace_id: str) -> None:
    for key, attr in (("name", "name"), ("description", "description"), ("audience", "audience")):
        if key in values:
            setattr(row, attr, values[key])
    if "valueProps" in values:
        row.value_props = values["valueProps"]
    for key, attr in (("features", "features"), ("categories", "categories")):
        if key in values:
            setattr(row, attr, normalize_items(key, values[key]))
    if "capabilities" in values:
        row.capabilities = normalize_items("capabilities", values["capabilities"])
    if "capabilityIds" in values:
        row.capabilities = _capabilities_from_ids(row.capabilities, values["capabilityIds"])
    if "childOfferingIds" in values:
        children = unique(values["childOfferingIds"])
        _check_children(workspace_id, row.id, children)
        row.child_offering_ids = children
    if "isActive" in values:
        row.is_active = values["isActive"]
    if "pricing" in values:
        row.pricing = normalize_plans(values["pricing"])


def normalize_plans(plans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Plans in their stored shape (every field present, and ``comingSoon`` on a plan
    given it true, as the pipeline stores it); a plan name and period given twice is a 400.
    An ``onRequest`` plan has no price."""
    out, seen = [], set()
    for plan in plans:
        key = (plan["name"].casefold(), plan.get("period"))
        if key in seen:
            raise fail({"pricing": [f"plan '{plan['name']}' ({plan.get('period')}) given twice"]})
        seen.add(key)
        on_request = bool(plan.get("onRequest", False))
        out.append(
            {
                "name": plan["name"],
                "price": None if on_request else plan.get("price"),
                "currency": plan.get("currency"),
                "period": plan.get("period"),
                "unit": plan.get("unit"),
                "onRequest": on_request,
                "priceText": plan.get("priceText"),
                "features": list(plan.get("features") or []),
                "evidenceIds": list(plan.get("evidenceIds") or []),
                "quotes": list(plan.get("quotes") or []),
                **({"comingSoon": True} if plan.get("comingSoon") else {}),
            }
        )
    return out


def create_offering(
    workspace_id: str,
    data: dict[str, Any],
    *,
    user_id: str | None = None,
    competitor_id: str | None = None,
    view: str = "offering",
) -> Offering:
    """Create from the ``offering`` or ``product`` view's fields; ``competitor_id`` makes it
    a competitor's offering (pipelines)."""
    schema = ProductCreateSchema if view == "product" else OfferingCreateSchema
    values = load(schema, data)
    with transaction():
        if competitor_id is not None and not (
            Competitor.select()
            .where(Competitor.id == competitor_id, Competitor.workspace == workspace_id)
            .exists()
        ):
            raise NotFound.of("Competitor")
        row = Offering(workspace=workspace_id, competitor=competitor_id, created_by_user_id=user_id)
        _apply(row, values, workspace_id)
        row.save(force_insert=True)
        graph_sync.sync_offering(row)
    return row


def update_offering(
    workspace_id: str,
    offering_id: str,
    data: dict[str, Any],
    *,
    view: str = "offering",
) -> Offering:
    schema = ProductUpdateSchema if view == "product" else OfferingUpdateSchema
    values = load(schema, data)
    with transaction():
        row = get_offering(workspace_id, offering_id, own_only=view == "product")
        _apply(row, values, workspace_id)
        row.updated_at = utcnow()
        row.save()
        graph_sync.sync_offering(row)
    return row


def _detach(workspace_id: str, offering_id: str) -> None:
    """Remove the id from every record that refers to it."""
    # JSON columns are scanned in Python: a LIKE on JSON text would be backend-specific.
    for other in Offering.select().where(Offering.workspace == workspace_id):
        if offering_id in other.child_offering_ids:
            other.child_offering_ids = [i for i in other.child_offering_ids if i != offering_id]
            other.save()
    changed = False
    for competitor in Competitor.select().where(Competitor.workspace == workspace_id):
        if offering_id in competitor.relevant_product_ids:
            ids = competitor.relevant_product_ids
            competitor.relevant_product_ids = [i for i in ids if i != offering_id]
            competitor.save()
            changed = True
    if changed:
        graph_sync.sync_competes_with(workspace_id)
    for solution in Solution.select().where(Solution.workspace == workspace_id):
        mapped = any(m.get("productId") == offering_id for m in solution.category_mappings)
        if offering_id not in solution.product_ids and not mapped:
            continue
        solution.product_ids = [i for i in solution.product_ids if i != offering_id]
        solution.category_mappings = [
            m for m in solution.category_mappings if m.get("productId") != offering_id
        ]
        solution.save()


def delete_offering(workspace_id: str, offering_id: str, *, own_only: bool = False) -> None:
    with transaction():
        row = get_offering(workspace_id, offering_id, own_only=own_only)
        _delete_rows(workspace_id, [row.id])
        if row.competitor_id is not None:
            from ci_service.services.alerts import changes as change_events

            change_events.product_removed(workspace_id, row)


def _delete_rows(workspace_id: str, offering_ids: list[str]) -> None:
    for offering_id in offering_ids:
        cleanup.run("offering", workspace_id, offering_id)
        graph_sync.remove_offering(workspace_id, offering_id)
        Offering.delete().where(Offering.id == offering_id).execute()
        _detach(workspace_id, offering_id)


def delete_competitor_offerings(workspace_id: str, competitor_id: str) -> None:
    """Delete a competitor's offerings (call inside the competitor delete transaction)."""
    ids = [
        o.id
        for o in Offering.select(Offering.id).where(
            Offering.workspace == workspace_id, Offering.competitor == competitor_id
        )
    ]
    _delete_rows(workspace_id, ids)


def offering_to_dict(row: Offering) -> dict[str, Any]:
    return {
        "id": row.id,
        "workspaceId": row.workspace_id,
        "competitorId": row.competitor_id,
        "name": row.name,
        "description": row.description,
        "audience": row.audience,
        "valueProps": row.value_props,
        "features": row.features,
        "capabilityIds": [c["id"] for c in row.capabilities or []],
        "childOfferingIds": row.child_offering_ids,
        "createdAt": iso(row.created_at),
        "createdByUserId": row.created_by_user_id,
        "isActive": row.is_active,
        "pricing": row.pricing or [],
        "pricingChanges": row.pricing_changes or [],
        "evidenceIds": [source["evidenceId"] for source in row.sources or []],
        "quotes": row.sources or [],
    }


def product_to_dict(row: Offering) -> dict[str, Any]:
    return {
        "id": row.id,
        "workspaceId": row.workspace_id,
        "name": row.name,
        "description": row.description,
        "audience": row.audience,
        "valueProps": row.value_props,
        "features": row.features,
        "categories": row.categories,
        "capabilities": row.capabilities,
        "pricing": row.pricing or [],
        "createdAt": iso(row.created_at),
        "createdByUserId": row.created_by_user_id,
    }
