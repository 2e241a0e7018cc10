"""/api/deals: won and lost deals."""

from __future__ import annotations

import marshmallow as ma

from ci_service.services.common.fields import PageSchema
from ci_service.services.identity.auth import READ, WRITE
from ci_service.services.workspace import deals
from ci_service.web.api import Blueprint, SuccessSchema
from ci_service.web.auth import principal, requires
from ci_service.web.routes.resource_common import Strings, page_args

blp = Blueprint("deals", __name__, url_prefix="/api/deals", description="Win/loss deals")


class DealListQuerySchema(PageSchema, deals.DealFilterSchema):
    pass


class DealSchema(ma.Schema):
    id = ma.fields.String(required=True)
    workspaceId = ma.fields.String(required=True)
    prospectCompanyName = ma.fields.String(required=True)
    prospectIndustry = ma.fields.String(required=True, allow_none=True)
    outcome = ma.fields.String(required=True, validate=ma.validate.OneOf(("WON", "LOST")))
    competitorId = ma.fields.String(required=True, allow_none=True)
    decisionDate = ma.fields.Date(required=True, allow_none=True)
    dealSize = ma.fields.String(required=True, allow_none=True)
    arguments = Strings(required=True)
    competitorIds = Strings(
        required=True,
        metadata={
            "description": "beyond the contract: every competitor in the deal (for WON, whom "
            "we beat), the LOST deal's competitorId first; [] when none"
        },
    )
    createdAt = ma.fields.DateTime(required=True)
    createdByUserId = ma.fields.String(required=True, allow_none=True)


class DealListSchema(ma.Schema):
    deals = ma.fields.List(ma.fields.Nested(DealSchema), required=True)


class DealResponseSchema(ma.Schema):
    deal = ma.fields.Nested(DealSchema, required=True)


def _one(row):
    return {"deal": deals.deal_to_dict(row)}


@blp.route("", methods=["GET"])
@blp.arguments(DealListQuerySchema, location="query")
@blp.alt_response(200, schema=DealListSchema, success=True)
@blp.errors(400, 401, 403, 429)
@requires(READ)
def list_deals(args):
    rows = deals.list_deals(principal().workspace_id, args.get("competitorId"), **page_args(args))
    return {"deals": [deals.deal_to_dict(r) for r in rows]}


@blp.route("", methods=["POST"])
@blp.arguments(deals.DealCreateSchema)
@blp.alt_response(200, schema=DealResponseSchema, success=True)
@blp.errors(400, 401, 403, 413, 415, 429)
@requires(WRITE)
def create_deal(body):
    p = principal()
    return _one(deals.create_deal(p.workspace_id, body, user_id=p.user_id))


@blp.route("/<deal_id>", methods=["GET"])
@blp.alt_response(200, schema=DealResponseSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(READ)
def get_deal(deal_id):
    return _one(deals.get_deal(principal().workspace_id, deal_id))


@blp.route("/<deal_id>", methods=["PATCH"])
@blp.arguments(deals.DealUpdateSchema)
@blp.alt_response(200, schema=DealResponseSchema, success=True)
@blp.errors(400, 401, 403, 404, 413, 415, 429)
@requires(WRITE)
def update_deal(body, deal_id):
    return _one(deals.update_deal(principal().workspace_id, deal_id, body))


@blp.route("/<deal_id>", methods=["DELETE"])
@blp.alt_response(200, schema=SuccessSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(WRITE)
def delete_deal(deal_id):
    deals.delete_deal(principal().workspace_id, deal_id)
    return {"success": True}
