"""/api/api-keys: Enterprise plan, role OWNER or ADMIN, scope admin."""

from __future__ import annotations

import marshmallow as ma

from ci_service.services.identity import api_keys as apikeys
from ci_service.services.identity.auth import ENTERPRISE_KEYS_MESSAGE, Access
from ci_service.store.identity import SCOPES, User
from ci_service.web.api import Blueprint, Schema, SuccessSchema
from ci_service.web.auth import principal, requires

blp = Blueprint("api-keys", __name__, url_prefix="/api/api-keys", description="API keys")

KEY_ADMIN = Access(
    scope="admin", min_role="ADMIN", plan="ENTERPRISE", plan_message=ENTERPRISE_KEYS_MESSAGE
)


class ApiKeyCreateSchema(Schema):
    name = ma.fields.String(required=True, metadata={"minLength": 1, "maxLength": 100})
    expiresAt = ma.fields.String(
        allow_none=True, metadata={"format": "date-time", "description": "default: never"}
    )
    scopes = ma.fields.List(
        ma.fields.String(validate=ma.validate.OneOf(SCOPES)),
        metadata={"description": "default: all of read, write, admin", "minItems": 1},
    )
    rateLimit = ma.fields.Integer(
        strict=True,
        metadata={
            "description": "per hour; default 1000",
            "minimum": 1,
            "maximum": apikeys.MAX_RATE_LIMIT,
        },
    )
    allowedIps = ma.fields.List(
        ma.fields.String(), metadata={"description": "IP addresses or CIDR ranges"}
    )


class ApiKeyBaseSchema(ma.Schema):
    id = ma.fields.String(required=True)
    tenantId = ma.fields.String(required=True)
    name = ma.fields.String(required=True)
    prefix = ma.fields.String(required=True)
    createdAt = ma.fields.DateTime(required=True)
    expiresAt = ma.fields.DateTime(allow_none=True, required=True)


class ApiKeyCreatedSchema(ApiKeyBaseSchema):
    scopes = ma.fields.List(ma.fields.String(), required=True)
    rateLimit = ma.fields.Integer(required=True)
    allowedIps = ma.fields.List(ma.fields.String(), required=True)


class ApiKeyListItemSchema(ApiKeyBaseSchema):
    lastUsedAt = ma.fields.DateTime(allow_none=True, required=True)
    revokedAt = ma.fields.DateTime(allow_none=True, required=True)


class ApiKeyCreateResponseSchema(ma.Schema):
    apiKey = ma.fields.Nested(ApiKeyCreatedSchema, required=True)
    key = ma.fields.String(required=True, metadata={"description": "shown only once"})


class ApiKeyListSchema(ma.Schema):
    apiKeys = ma.fields.List(ma.fields.Nested(ApiKeyListItemSchema), required=True)


@blp.route("", methods=["GET"])
@blp.alt_response(200, schema=ApiKeyListSchema, success=True)
@blp.errors(401, 403, 429)
@requires(KEY_ADMIN)
def list_api_keys():
    from flask import current_app

    current_app.extensions["ci_usage"].flush()  # so lastUsedAt is current
    rows = apikeys.list_keys(principal().workspace_id)
    return {"apiKeys": [apikeys.key_to_dict(row, detail=False) for row in rows]}


@blp.route("", methods=["POST"])
@blp.arguments(ApiKeyCreateSchema)
@blp.alt_response(200, schema=ApiKeyCreateResponseSchema, success=True)
@blp.errors(400, 401, 403, 413, 415, 429)
@requires(KEY_ADMIN)
def create_api_key(body):
    user = User.get_by_id(principal().user_id)
    row, key = apikeys.create_key(
        user,
        name=body.get("name"),
        expires_at=body.get("expiresAt"),
        scopes=body.get("scopes"),
        rate_limit=body.get("rateLimit"),
        allowed_ips=body.get("allowedIps"),
    )
    return {"apiKey": apikeys.key_to_dict(row, detail=True), "key": key}


@blp.route("/<key_id>", methods=["DELETE"])
@blp.alt_response(200, schema=SuccessSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(KEY_ADMIN)
def revoke_api_key(key_id):
    apikeys.revoke_key(key_id, principal().workspace_id)
    return {"success": True}
