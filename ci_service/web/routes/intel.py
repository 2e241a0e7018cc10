"""/api/intel: collected evidence and internal notes.

Lists answer ``{intelItems: [...]}`` (newest first), single items ``{intelItem: {...}}``.
"""

from __future__ import annotations

import marshmallow as ma

from ci_service.services.common.fields import SHORT, Enum, PageSchema
from ci_service.services.identity.auth import READ, WRITE
from ci_service.services.intel import items as intel
from ci_service.store.intel import INTEL_TYPES, PAGE_KINDS, SCOPES, SOURCE_TYPES
from ci_service.web.api import Blueprint, SuccessSchema
from ci_service.web.auth import principal, requires
from ci_service.web.routes.resource_common import page_args

blp = Blueprint("intel", __name__, url_prefix="/api/intel", description="Intel items")


class IntelListQuerySchema(PageSchema):
    competitorId = ma.fields.String(
        validate=SHORT, metadata={"description": "only this competitor's items"}
    )
    type = Enum(INTEL_TYPES, metadata={"description": "EVIDENCE or INTERNAL_NOTE"})
    pageKind = Enum(PAGE_KINDS, metadata={"description": "only items read from pages of this kind"})


class IntelItemSchema(ma.Schema):
    id = ma.fields.String(required=True)
    workspaceId = ma.fields.String(required=True)
    competitorId = ma.fields.String(required=True, allow_none=True)
    offeringId = ma.fields.String(required=True, allow_none=True)
    scope = ma.fields.String(required=True, validate=ma.validate.OneOf(SCOPES))
    type = ma.fields.String(required=True, validate=ma.validate.OneOf(INTEL_TYPES))
    sourceType = ma.fields.String(required=True, validate=ma.validate.OneOf(SOURCE_TYPES))
    url = ma.fields.String(required=True, allow_none=True)
    title = ma.fields.String(required=True)
    content = ma.fields.String(required=True)
    credibilityScore = ma.fields.Float(
        required=True, metadata={"description": "0.1 to 1.0, see docs/intel.md for the rule"}
    )
    metadata = ma.fields.Dict(
        required=True, metadata={"description": "sourceType, url, title, credibilityScore, ..."}
    )
    previousItemId = ma.fields.String(
        required=True, allow_none=True, metadata={"description": "the earlier version"}
    )
    changes = ma.fields.Dict(
        required=True,
        allow_none=True,
        metadata={"description": "{summary, added, removed, ...} against the earlier version"},
    )
    publishedAt = ma.fields.DateTime(required=True, allow_none=True)
    pageKind = ma.fields.String(
        required=True,
        allow_none=True,
        validate=ma.validate.OneOf(PAGE_KINDS),
        metadata={
            "description": "what the page is (home, pricing, post, legal ...); null for "
            "documents and notes"
        },
    )
    createdByUserId = ma.fields.String(required=True, allow_none=True)
    createdAt = ma.fields.DateTime(required=True)
    updatedAt = ma.fields.DateTime(required=True)


class IntelListSchema(ma.Schema):
    intelItems = ma.fields.List(ma.fields.Nested(IntelItemSchema), required=True)


class IntelResponseSchema(ma.Schema):
    intelItem = ma.fields.Nested(IntelItemSchema, required=True)


@blp.route("", methods=["GET"])
@blp.arguments(IntelListQuerySchema, location="query")
@blp.alt_response(200, schema=IntelListSchema, success=True)
@blp.errors(400, 401, 403, 429)
@requires(READ)
def list_intel(args):
    rows = intel.list_intel(
        principal().workspace_id,
        competitor_id=args.get("competitorId"),
        type=args.get("type"),
        page_kind=args.get("pageKind"),
        **page_args(args),
    )
    return {"intelItems": [intel.intel_to_dict(r) for r in rows]}


@blp.route("", methods=["POST"])
@blp.arguments(intel.NoteCreateSchema)
@blp.alt_response(200, schema=IntelResponseSchema, success=True)
@blp.errors(400, 401, 403, 413, 415, 429)
@requires(WRITE)
def create_note(body):
    """Add an INTERNAL_NOTE."""
    p = principal()
    row = intel.create_note(p.workspace_id, body, user_id=p.user_id)
    return {"intelItem": intel.intel_to_dict(row)}


@blp.route("/<item_id>", methods=["GET"])
@blp.alt_response(200, schema=IntelResponseSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(READ)
def get_intel(item_id):
    row = intel.get_intel(principal().workspace_id, item_id)
    return {"intelItem": intel.intel_to_dict(row)}


@blp.route("/<item_id>", methods=["DELETE"])
@blp.alt_response(200, schema=SuccessSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(WRITE)
def delete_intel(item_id):
    intel.delete_intel(principal().workspace_id, item_id)
    return {"success": True}
