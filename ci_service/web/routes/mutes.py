"""/api/mutes: pages and event types a subscription (or every subscription, for a
competitor) no longer hears about (rules in ``services.alerts.mutes``).

Reading needs scope read (any role); changes need scope write and EDITOR, and then the
service's rule: a subscription's mutes follow who may change that subscription.
"""

from __future__ import annotations

import marshmallow as ma

from ci_service.services.alerts import mutes
from ci_service.services.alerts.events import EVENT_TYPES
from ci_service.services.identity.auth import READ, WRITE
from ci_service.web.api import Blueprint, Schema, SuccessSchema
from ci_service.web.auth import principal, requires

blp = Blueprint(
    "mutes",
    __name__,
    url_prefix="/api/mutes",
    description="Muted pages and event types of subscriptions and competitors",
)


class MuteCreateSchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE  # a misspelt field would silently widen the mute

    subscriptionId = ma.fields.String(metadata={"description": "mute for this subscription only"})
    competitorId = ma.fields.String(
        metadata={"description": "without subscriptionId: for every subscription"}
    )
    eventType = ma.fields.String(validate=ma.validate.OneOf(EVENT_TYPES))
    url = ma.fields.String(
        metadata={"description": "a page: matches events whose data.url is this page"}
    )


class MuteQuerySchema(Schema):
    subscriptionId = ma.fields.String()
    competitorId = ma.fields.String()


class MuteSchema(ma.Schema):
    id = ma.fields.String(required=True)
    workspaceId = ma.fields.String(required=True)
    subscriptionId = ma.fields.String(required=True, allow_none=True)
    competitorId = ma.fields.String(required=True, allow_none=True)
    eventType = ma.fields.String(required=True, allow_none=True)
    url = ma.fields.String(required=True, allow_none=True)
    createdBy = ma.fields.String(required=True, allow_none=True)
    createdAt = ma.fields.String(required=True)


class MuteResponseSchema(ma.Schema):
    mute = ma.fields.Nested(MuteSchema, required=True)


class MuteListSchema(ma.Schema):
    mutes = ma.fields.List(ma.fields.Nested(MuteSchema), required=True)


@blp.route("", methods=["GET"])
@blp.arguments(MuteQuerySchema, location="query")
@blp.alt_response(200, schema=MuteListSchema, success=True)
@blp.errors(400, 401, 403, 429)
@requires(READ)
def list_mutes(query):
    rows = mutes.list_mutes(
        principal().workspace_id,
        subscription_id=query.get("subscriptionId"),
        competitor_id=query.get("competitorId"),
    )
    return {"mutes": [mutes.mute_to_dict(row) for row in rows]}


@blp.route("", methods=["POST"])
@blp.arguments(MuteCreateSchema)
@blp.alt_response(200, schema=MuteResponseSchema, success=True)
@blp.errors(400, 401, 403, 404, 413, 415, 429)
@requires(WRITE)
def create_mute(body):
    who = principal()
    return {"mute": mutes.mute_to_dict(mutes.create_mute(who.workspace_id, who, body))}


@blp.route("/<mute_id>", methods=["DELETE"])
@blp.alt_response(200, schema=SuccessSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(WRITE)
def delete_mute(mute_id):
    who = principal()
    mutes.delete_mute(who.workspace_id, who, mute_id)
    return {"success": True}
