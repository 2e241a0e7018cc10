"""/api/subscriptions: where change events go (rules in ``services.alerts.subscriptions``).

Reading needs scope read (any role); changes need scope write and EDITOR, and then the
service's rule: a personal subscription is changed by its owner or an ADMIN/OWNER, a
workspace-wide one by an ADMIN/OWNER. A webhook secret is in the answer that made it
(create, rotate-secret) and never again. A create or PATCH body with a field the API does
not know (``eventType`` for ``eventTypes``) is a 400 naming it, never silently ignored.
Retry, send-missed and digest-now take "send test"'s permission
(``services.alerts.replay``).
"""

from __future__ import annotations

import marshmallow as ma
from flask import current_app

from ci_service.services.alerts import replay
from ci_service.services.alerts import subscriptions as subs
from ci_service.services.alerts.events import EVENT_TYPES
from ci_service.services.identity.auth import READ, WRITE
from ci_service.store.alerts import (
    CHANNELS,
    DELIVERY_KINDS,
    DELIVERY_STATUSES,
    DIGESTS,
    SCOPES,
    SUBSCRIPTION_STATUSES,
)
from ci_service.store.events import IMPORTANCE
from ci_service.web.api import Blueprint, Schema, SuccessSchema
from ci_service.web.auth import principal, requires

blp = Blueprint(
    "subscriptions",
    __name__,
    url_prefix="/api/subscriptions",
    description="Subscriptions to change events (webhooks, chat and e-mail)",
)

SECRET_DESCRIPTION = "webhook only: the whsec_ signing secret, shown only in this answer"


def _fields(required: bool) -> dict:
    return {
        "name": ma.fields.String(required=required, metadata={"maxLength": subs.MAX_NAME}),
        "eventTypes": ma.fields.List(
            ma.fields.String(validate=ma.validate.OneOf(EVENT_TYPES)),
            metadata={"description": "empty or absent: every type"},
        ),
        "competitorIds": ma.fields.List(
            ma.fields.String(), metadata={"description": "empty or absent: every competitor"}
        ),
        "minImportance": ma.fields.String(validate=ma.validate.OneOf(IMPORTANCE)),
        "channel": ma.fields.String(required=required, validate=ma.validate.OneOf(CHANNELS)),
        "target": ma.fields.String(
            required=required,
            metadata={
                "description": "webhook: an http(s) URL; apprise: an Apprise URL "
                "(slack://, workflows://, mailto://, json://, ...). Stored encrypted."
            },
        ),
        "digest": ma.fields.String(validate=ma.validate.OneOf(DIGESTS)),
        "scope": ma.fields.String(
            validate=ma.validate.OneOf(SCOPES),
            metadata={"description": "personal (default) or workspace (ADMIN/OWNER)"},
        ),
    }


class StrictSchema(Schema):
    """A body whose unknown fields are a 400 naming them: a typo must not save a
    subscription that silently ignores what was asked (issue 29)."""

    class Meta:
        unknown = ma.RAISE

    error_messages = {"unknown": "unknown field; check its spelling"}


SubscriptionCreateSchema = StrictSchema.from_dict(_fields(True), name="SubscriptionCreate")
SubscriptionUpdateSchema = StrictSchema.from_dict(
    {
        **_fields(False),
        "status": ma.fields.String(
            validate=ma.validate.OneOf(subs.USER_STATUSES),
            metadata={"description": "active resumes a paused or disabled subscription"},
        ),
        "sendMissed": ma.fields.Boolean(
            metadata={
                "description": 'with "status": "active": also queue the deliveries missed '
                "while paused (missedCount); without it they stay missed"
            }
        ),
    },
    name="SubscriptionUpdate",
)


class SubscriptionSchema(ma.Schema):
    id = ma.fields.String(required=True)
    workspaceId = ma.fields.String(required=True)
    ownerId = ma.fields.String(required=True, allow_none=True)
    name = ma.fields.String(required=True)
    scope = ma.fields.String(required=True, validate=ma.validate.OneOf(SCOPES))
    eventTypes = ma.fields.List(ma.fields.String(), required=True)
    competitorIds = ma.fields.List(ma.fields.String(), required=True)
    minImportance = ma.fields.String(required=True, validate=ma.validate.OneOf(IMPORTANCE))
    channel = ma.fields.String(required=True, validate=ma.validate.OneOf(CHANNELS))
    targetHint = ma.fields.String(
        required=True, metadata={"description": "scheme and host only, never a token"}
    )
    hasSecret = ma.fields.Boolean(required=True)
    previousSecretExpiresAt = ma.fields.String(required=True, allow_none=True)
    digest = ma.fields.String(required=True, validate=ma.validate.OneOf(DIGESTS))
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(SUBSCRIPTION_STATUSES))
    statusReason = ma.fields.String(required=True, allow_none=True)
    failingSince = ma.fields.String(required=True, allow_none=True)
    lastDigestAt = ma.fields.String(required=True, allow_none=True)
    missedCount = ma.fields.Integer(
        required=True,
        metadata={"description": "deliveries missed while paused or disabled, not sent"},
    )
    createdAt = ma.fields.String(required=True)
    updatedAt = ma.fields.String(required=True)


class SubscriptionResponseSchema(ma.Schema):
    subscription = ma.fields.Nested(SubscriptionSchema, required=True)


class SubscriptionSecretResponseSchema(SubscriptionResponseSchema):
    secret = ma.fields.String(
        required=True, allow_none=True, metadata={"description": SECRET_DESCRIPTION}
    )


class SubscriptionListSchema(ma.Schema):
    subscriptions = ma.fields.List(ma.fields.Nested(SubscriptionSchema), required=True)


class DeliverySchema(ma.Schema):
    id = ma.fields.String(required=True)
    subscriptionId = ma.fields.String(required=True)
    kind = ma.fields.String(required=True, validate=ma.validate.OneOf(DELIVERY_KINDS))
    eventId = ma.fields.String(required=True, allow_none=True)
    digestKey = ma.fields.String(required=True, allow_none=True)
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(DELIVERY_STATUSES))
    attempts = ma.fields.Integer(required=True)
    lastStatus = ma.fields.Integer(required=True, allow_none=True)
    lastError = ma.fields.String(required=True, allow_none=True)
    nextAttemptAt = ma.fields.String(required=True, allow_none=True)
    deliveredAt = ma.fields.String(required=True, allow_none=True)
    createdAt = ma.fields.String(required=True)
    messageId = ma.fields.String(required=True, metadata={"description": "the webhook-id"})


class DeliveryListSchema(ma.Schema):
    deliveries = ma.fields.List(ma.fields.Nested(DeliverySchema), required=True)


class DeliveryResponseSchema(ma.Schema):
    delivery = ma.fields.Nested(DeliverySchema, required=True)


class DigestResponseSchema(ma.Schema):
    delivery = ma.fields.Nested(DeliverySchema, required=True, allow_none=True)
    reason = ma.fields.String(metadata={"description": "why nothing was made (delivery null)"})


class QueuedSchema(ma.Schema):
    queued = ma.fields.Integer(required=True)


class DeliveryQuerySchema(Schema):
    limit = ma.fields.Integer(validate=ma.validate.Range(min=1, max=subs.DELIVERY_LIST_CAP))
    offset = ma.fields.Integer(validate=ma.validate.Range(min=0))


def _one(row) -> dict:
    return {"subscription": subs.subscription_to_dict(row)}


@blp.route("", methods=["GET"])
@blp.alt_response(200, schema=SubscriptionListSchema, success=True)
@blp.errors(401, 403, 429)
@requires(READ)
def list_subscriptions():
    rows = subs.list_subscriptions(principal().workspace_id)
    return {"subscriptions": subs.subscriptions_to_dicts(rows)}


@blp.route("", methods=["POST"])
@blp.arguments(SubscriptionCreateSchema)
@blp.alt_response(200, schema=SubscriptionSecretResponseSchema, success=True)
@blp.errors(400, 401, 403, 413, 415, 429)
@requires(WRITE)
def create_subscription(body):
    who = principal()
    config = current_app.config["CI_SETTINGS"]
    row, secret = subs.create_subscription(who.workspace_id, who, body, config=config)
    return {**_one(row), "secret": secret}


@blp.route("/<subscription_id>", methods=["GET"])
@blp.alt_response(200, schema=SubscriptionResponseSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(READ)
def get_subscription(subscription_id):
    return _one(subs.get_subscription(principal().workspace_id, subscription_id))


@blp.route("/<subscription_id>", methods=["PATCH"])
@blp.arguments(SubscriptionUpdateSchema)
@blp.alt_response(200, schema=SubscriptionResponseSchema, success=True)
@blp.errors(400, 401, 403, 404, 413, 415, 429)
@requires(WRITE)
def update_subscription(body, subscription_id):
    who = principal()
    config = current_app.config["CI_SETTINGS"]
    return _one(
        subs.update_subscription(who.workspace_id, subscription_id, who, body, config=config)
    )


@blp.route("/<subscription_id>", methods=["DELETE"])
@blp.alt_response(200, schema=SuccessSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(WRITE)
def delete_subscription(subscription_id):
    who = principal()
    subs.delete_subscription(who.workspace_id, subscription_id, who)
    return {"success": True}


@blp.route("/<subscription_id>/rotate-secret", methods=["POST"])
@blp.alt_response(200, schema=SubscriptionSecretResponseSchema, success=True)
@blp.errors(400, 401, 403, 404, 413, 415, 429)
@requires(WRITE)
def rotate_secret(subscription_id):
    who = principal()
    row, secret = subs.rotate_secret(who.workspace_id, subscription_id, who)
    return {**_one(row), "secret": secret}


@blp.route("/<subscription_id>/deliveries", methods=["GET"])
@blp.arguments(DeliveryQuerySchema, location="query")
@blp.alt_response(200, schema=DeliveryListSchema, success=True)
@blp.errors(400, 401, 403, 404, 429)
@requires(READ)
def list_deliveries(query, subscription_id):
    rows = subs.list_deliveries(
        principal().workspace_id,
        subscription_id,
        limit=query.get("limit"),
        offset=query.get("offset") or 0,
    )
    return {"deliveries": [subs.delivery_to_dict(row) for row in rows]}


@blp.route("/<subscription_id>/test", methods=["POST"])
@blp.alt_response(200, schema=DeliveryResponseSchema, success=True)
@blp.errors(401, 403, 404, 413, 415, 429)
@requires(WRITE)
def send_test(subscription_id):
    who = principal()
    return {
        "delivery": subs.delivery_to_dict(subs.send_test(who.workspace_id, subscription_id, who))
    }


@blp.route("/<subscription_id>/deliveries/<delivery_id>/retry", methods=["POST"])
@blp.alt_response(200, schema=DeliveryResponseSchema, success=True)
@blp.errors(401, 403, 404, 409, 413, 415, 429)
@requires(WRITE)
def retry_delivery(subscription_id, delivery_id):
    """Send a failed or missed delivery again, now, with the same messageId (webhook-id).
    409: delivered, still pending, or its subscription is paused or disabled."""
    who = principal()
    row = replay.retry_delivery(who.workspace_id, subscription_id, delivery_id, who)
    return {"delivery": subs.delivery_to_dict(row)}


@blp.route("/<subscription_id>/send-missed", methods=["POST"])
@blp.alt_response(200, schema=QueuedSchema, success=True)
@blp.errors(401, 403, 404, 409, 413, 415, 429)
@requires(WRITE)
def send_missed(subscription_id):
    """Queue the deliveries missed while the (now active) subscription was paused."""
    who = principal()
    return {"queued": replay.send_missed(who.workspace_id, subscription_id, who)}


@blp.route("/<subscription_id>/digest", methods=["POST"])
@blp.alt_response(200, schema=DigestResponseSchema, success=True)
@blp.errors(401, 403, 404, 409, 413, 415, 429)
@requires(WRITE)
def digest_now(subscription_id):
    """A digest now: the matching events since the last digest (else the last day or
    week) up to now; ``{delivery: null, reason}`` when none happened."""
    who = principal()
    config = current_app.config["CI_SETTINGS"]
    row, reason = replay.digest_now(who.workspace_id, subscription_id, who, config=config)
    return replay.replay_result(row, reason)
