"""/api/battlecards: list, read (optionally with the evidence), generate (a job), export
(Markdown or a standalone HTML document)."""

from __future__ import annotations

import marshmallow as ma
from flask import Response

from ci_service.services.battlecards import cards as battlecards
from ci_service.services.battlecards import edits as battlecard_edits
from ci_service.services.battlecards import export as battlecard_export
from ci_service.services.identity.auth import READ, WRITE
from ci_service.store.analysis import BATTLECARD_MODES
from ci_service.web.api import Blueprint, Schema
from ci_service.web.auth import principal, requires
from ci_service.web.routes.analysis_common import Flag, MatchedSchema
from ci_service.web.routes.resource_common import Citations, Strings

blp = Blueprint("battlecards", __name__, url_prefix="/api/battlecards", description="Battlecards")


class BattlecardListQuerySchema(Schema):
    productId = ma.fields.String(validate=ma.validate.Length(min=1, max=64))
    competitorId = ma.fields.String(validate=ma.validate.Length(min=1, max=64))


class BattlecardQuerySchema(Schema):
    includeEvidence = Flag(metadata={"description": "true adds the evidence map"})


class GenerateSchema(Schema):
    # Validated by the service (so the tool gets the same 400s); documented here.
    productId = ma.fields.Raw(required=True, metadata={"type": "string"})
    mode = ma.fields.Raw(required=True, metadata={"type": "string", "enum": list(BATTLECARD_MODES)})


class EditMarkers(ma.Schema):
    """An item edited by hand (kept on regeneration) says so, when and by whom."""

    edited = ma.fields.Boolean(metadata={"description": "true: the text was edited by hand"})
    editedAt = ma.fields.DateTime(metadata={"description": "when it was last edited"})
    editedBy = ma.fields.String(metadata={"description": "who edited it (email)"})


class PageReadSchema(ma.Schema):
    evidenceId = ma.fields.String(required=True)
    title = ma.fields.String(allow_none=True)
    url = ma.fields.String(allow_none=True)
    pageKind = ma.fields.String(allow_none=True)


class FactFields(EditMarkers):
    """What a feature item says about a feature (docs/claims.md)."""

    feature = ma.fields.String(metadata={"description": "the feature a feature item is about"})
    state = ma.fields.String(
        metadata={
            "description": "THEY_LACK, COMING_SOON or WE_LACK (docs/claims.md)",
            "enum": ["THEY_LACK", "COMING_SOON", "WE_LACK"],
        }
    )
    matched = ma.fields.List(ma.fields.Nested(MatchedSchema))
    names = Strings(metadata={"description": "a counted claim: the names it counts"})
    read = ma.fields.String(metadata={"description": "an absence claim: what was read"})
    pagesRead = ma.fields.List(
        ma.fields.Nested(PageReadSchema), metadata={"description": "the pages read"}
    )


class ClaimSchema(FactFields):
    title = ma.fields.String(required=True)
    description = ma.fields.String(required=True)
    evidenceIds = Strings(required=True)
    quotes = Citations(metadata={"description": "the exact sentences the item rests on"})


class ObjectionSchema(FactFields):
    objection = ma.fields.String(required=True)
    response = ma.fields.String(required=True)
    evidenceIds = Strings(required=True)
    quotes = Citations()


class EditSchema(ma.Schema):
    section = ma.fields.String(required=True, validate=ma.validate.OneOf(battlecard_edits.SECTIONS))
    index = ma.fields.Integer(required=True, metadata={"description": "0 for the texts"})
    editedAt = ma.fields.DateTime(required=True)
    editedBy = ma.fields.String(required=True)


class ContentSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE

    whyWeWin = ma.fields.List(ma.fields.Nested(ClaimSchema), required=True)
    whyWeLose = ma.fields.List(ma.fields.Nested(ClaimSchema), required=True)
    objections = ma.fields.List(ma.fields.Nested(ObjectionSchema), required=True)
    talkingPoints = ma.fields.List(ma.fields.Nested(ClaimSchema), required=True)
    killShot = ma.fields.String(required=True)
    landmines = Strings(required=True)
    pricingWedge = ma.fields.String(required=True)
    pricingEvidenceIds = Strings()
    killShotEvidenceIds = Strings()
    pricingWedgeQuotes = Citations()
    killShotQuotes = Citations()
    profile = ma.fields.Dict(metadata={"description": "competitor and organization facts"})


class BattlecardSchema(ma.Schema):
    id = ma.fields.String(required=True)
    workspaceId = ma.fields.String(required=True)
    competitorId = ma.fields.String(required=True)
    myProductId = ma.fields.String(required=True)
    mode = ma.fields.String(required=True, validate=ma.validate.OneOf(BATTLECARD_MODES))
    status = ma.fields.String(
        required=True, metadata={"description": "GENERATING, READY or FAILED"}
    )
    requestedMode = ma.fields.String(
        required=True, allow_none=True, metadata={"description": "mode being generated"}
    )
    content = ma.fields.Nested(ContentSchema, required=True)
    evidenceIds = Strings(required=True)
    edits = ma.fields.List(
        ma.fields.Nested(EditSchema),
        metadata={"description": "items edited by hand (landmines and texts included)"},
    )
    generatedAt = ma.fields.DateTime(required=True, allow_none=True)
    createdAt = ma.fields.DateTime(required=True)
    updatedAt = ma.fields.DateTime(required=True)


class EvidenceSchema(ma.Schema):
    id = ma.fields.String(required=True)
    content = ma.fields.String(required=True)
    sourceType = ma.fields.String(required=True)
    url = ma.fields.String(required=True, allow_none=True)
    title = ma.fields.String(required=True)
    credibilityScore = ma.fields.Float(required=True)
    collectedAt = ma.fields.DateTime(metadata={"description": "when it was collected"})
    quotes = ma.fields.List(
        ma.fields.Dict(),
        metadata={"description": "[{quote, url}]: the sentences the card cites from this item"},
    )
    quote = ma.fields.String(metadata={"description": "the first cited sentence"})
    quoteUrl = ma.fields.String(metadata={"description": "the page opened at that sentence"})


class BattlecardListSchema(ma.Schema):
    battlecards = ma.fields.List(ma.fields.Nested(BattlecardSchema), required=True)


class BattlecardResponseSchema(ma.Schema):
    battlecard = ma.fields.Nested(BattlecardSchema, required=True)
    evidence = ma.fields.Dict(
        keys=ma.fields.String(),
        values=ma.fields.Nested(EvidenceSchema),
        metadata={"description": "only with includeEvidence=true: evidenceId -> record"},
    )


class GenerateResponseSchema(ma.Schema):
    battlecard = ma.fields.Nested(BattlecardSchema, required=True)
    jobId = ma.fields.String(required=True)


class ExportQuerySchema(Schema):
    # Validated by the service (the page's download uses the same rule); documented here.
    format = ma.fields.String(
        load_default="markdown", metadata={"enum": list(battlecard_export.FORMATS)}
    )


EXPORTED = {
    "description": "The card as a document, each item with its evidence quotes, links and "
    "collection dates: format=markdown (text/markdown) or format=html (text/html, a "
    "standalone escaped document)",
    "success": True,
}


@blp.route("", methods=["GET"])
@blp.arguments(BattlecardListQuerySchema, location="query")
@blp.alt_response(200, schema=BattlecardListSchema, success=True)
@blp.errors(400, 401, 403, 429)
@requires(READ)
def list_battlecards(args):
    rows = battlecards.list_battlecards(
        principal().workspace_id,
        product_id=args.get("productId"),
        competitor_id=args.get("competitorId"),
    )
    return {"battlecards": [battlecards.battlecard_to_dict(r) for r in rows]}


@blp.route("/<battlecard_id>", methods=["GET"])
@blp.arguments(BattlecardQuerySchema, location="query")
@blp.alt_response(200, schema=BattlecardResponseSchema, success=True)
@blp.errors(400, 401, 403, 404, 429)
@requires(READ)
def get_battlecard(args, battlecard_id):
    ws = principal().workspace_id
    row = battlecards.get_battlecard(ws, battlecard_id)
    body = {"battlecard": battlecards.battlecard_to_dict(row)}
    if args["includeEvidence"]:
        body["evidence"] = battlecards.evidence_map(ws, row)
    return body


@blp.route("/<competitor_id>/generate", methods=["POST"])
@blp.arguments(GenerateSchema)
@blp.alt_response(200, schema=GenerateResponseSchema, success=True)
@blp.errors(400, 401, 403, 404, 413, 415, 429)
@requires(WRITE)
def generate_battlecard(body, competitor_id):
    card, job = battlecards.start_generation(
        principal().workspace_id, competitor_id, body.get("productId"), body.get("mode")
    )
    return {"battlecard": battlecards.battlecard_to_dict(card), "jobId": job.id}


@blp.route("/<battlecard_id>/export", methods=["GET"])
@blp.arguments(ExportQuerySchema, location="query")
@blp.alt_response(200, schema={"type": "string"}, content_type="text/markdown", **EXPORTED)
@blp.alt_response(200, schema={"type": "string"}, content_type="text/html", **EXPORTED)
@blp.errors(400, 401, 403, 404, 429)
@requires(READ)
def export_battlecard(args, battlecard_id):
    done = battlecard_export.export(principal().workspace_id, battlecard_id, args.get("format"))
    return Response(done.body, mimetype=done.mimetype, headers=done.headers("inline"))
