"""/api/offerings: own offerings (the same records as products) and competitors' ones."""

from __future__ import annotations

import marshmallow as ma

from ci_service.services.common.fields import PageSchema
from ci_service.services.identity.auth import READ, WRITE
from ci_service.services.workspace import offerings
from ci_service.web.api import Blueprint, SuccessSchema
from ci_service.web.auth import principal, requires
from ci_service.web.routes.resource_common import (
    Citations,
    ItemOutSchema,
    PricingChangeOutSchema,
    PricingPlanOutSchema,
    Strings,
    page_args,
)

blp = Blueprint("offerings", __name__, url_prefix="/api/offerings", description="Offerings")


class OfferingSchema(ma.Schema):
    id = ma.fields.String(required=True)
    workspaceId = ma.fields.String(required=True)
    competitorId = ma.fields.String(
        required=True, allow_none=True, metadata={"description": "null for our own offerings"}
    )
    name = ma.fields.String(required=True)
    description = ma.fields.String(required=True)
    audience = ma.fields.String(required=True)
    valueProps = Strings(required=True)
    features = ma.fields.List(ma.fields.Nested(ItemOutSchema), required=True)
    capabilityIds = Strings(required=True)
    childOfferingIds = Strings(required=True)
    createdAt = ma.fields.DateTime(required=True)
    createdByUserId = ma.fields.String(required=True, allow_none=True)
    isActive = ma.fields.Boolean(required=True)
    pricing = ma.fields.List(
        ma.fields.Nested(PricingPlanOutSchema),
        required=True,
        metadata={"description": "price plans (competitors': read from their pricing pages)"},
    )
    pricingChanges = ma.fields.List(
        ma.fields.Nested(PricingChangeOutSchema),
        required=True,
        metadata={"description": "price changes between collections, newest first (<= 100)"},
    )
    evidenceIds = Strings(
        required=True,
        metadata={"description": "a competitor's product: the evidence that states it"},
    )
    quotes = Citations(required=True)


class OfferingListSchema(ma.Schema):
    offerings = ma.fields.List(ma.fields.Nested(OfferingSchema), required=True)


class OfferingResponseSchema(ma.Schema):
    offering = ma.fields.Nested(OfferingSchema, required=True)


def _one(row):
    return {"offering": offerings.offering_to_dict(row)}


@blp.route("", methods=["GET"])
@blp.arguments(PageSchema, location="query")
@blp.alt_response(200, schema=OfferingListSchema, success=True)
@blp.errors(400, 401, 403, 429)
@requires(READ)
def list_offerings(args):
    rows = offerings.list_offerings(principal().workspace_id, **page_args(args))
    return {"offerings": [offerings.offering_to_dict(r) for r in rows]}


@blp.route("", methods=["POST"])
@blp.arguments(offerings.OfferingCreateSchema)
@blp.alt_response(200, schema=OfferingResponseSchema, success=True)
@blp.errors(400, 401, 403, 413, 415, 429)
@requires(WRITE)
def create_offering(body):
    p = principal()
    return _one(offerings.create_offering(p.workspace_id, body, user_id=p.user_id))


@blp.route("/<offering_id>", methods=["GET"])
@blp.alt_response(200, schema=OfferingResponseSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(READ)
def get_offering(offering_id):
    return _one(offerings.get_offering(principal().workspace_id, offering_id))


@blp.route("/<offering_id>", methods=["PATCH"])
@blp.arguments(offerings.OfferingUpdateSchema)
@blp.alt_response(200, schema=OfferingResponseSchema, success=True)
@blp.errors(400, 401, 403, 404, 413, 415, 429)
@requires(WRITE)
def update_offering(body, offering_id):
    return _one(offerings.update_offering(principal().workspace_id, offering_id, body))


@blp.route("/<offering_id>", methods=["DELETE"])
@blp.alt_response(200, schema=SuccessSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(WRITE)
def delete_offering(offering_id):
    offerings.delete_offering(principal().workspace_id, offering_id)
    return {"success": True}
