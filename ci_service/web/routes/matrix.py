"""/api/matrix and /api/matrix/solutions (PRO plan or higher)."""

from __future__ import annotations

import marshmallow as ma

from ci_service.services.analysis import matrix, solution_matrix
from ci_service.services.identity.auth import Access
from ci_service.web.api import Blueprint, Schema
from ci_service.web.auth import principal, requires
from ci_service.web.routes.analysis_common import Flag, IdList, MatchedSchema, split_ids
from ci_service.web.routes.resource_common import Citations, Strings
from ci_service.web.routes.solutions import SolutionSchema

blp = Blueprint("matrix", __name__, url_prefix="/api/matrix", description="Matrix (PRO plan)")

PRO_READ = Access(plan="PRO")
STATUS = ma.validate.OneOf(("SUPERIOR", "MATCH", "INFERIOR", "UNKNOWN"))


class MatrixQuerySchema(Schema):
    productId = ma.fields.String(
        validate=ma.validate.Length(min=1, max=64),
        metadata={"description": "our product; filters competitors; needed for ourProduct"},
    )
    competitorIds = IdList()
    includeOurProduct = Flag(metadata={"description": "true adds ourProduct (needs productId)"})


class SolutionMatrixQuerySchema(Schema):
    competitorIds = IdList()
    solutionIds = IdList()


class CategorySchema(ma.Schema):
    id = ma.fields.String(required=True)
    name = ma.fields.String(required=True)


class MatrixCompetitorSchema(ma.Schema):
    id = ma.fields.String(required=True)
    name = ma.fields.String(required=True)
    status = ma.fields.String(required=True)


class FeatureSchema(ma.Schema):
    name = ma.fields.String(required=True)
    read = ma.fields.String(metadata={"description": "ours alone: what of theirs was read"})
    quotes = Citations()


class CellFeaturesSchema(ma.Schema):
    matched = ma.fields.List(ma.fields.Nested(MatchedSchema))
    theirsOnly = ma.fields.List(ma.fields.Nested(FeatureSchema))
    oursOnly = ma.fields.List(ma.fields.Nested(FeatureSchema))
    soon = ma.fields.List(
        ma.fields.Nested(MatchedSchema), metadata={"description": "theirs marked coming soon"}
    )


class MatrixCellSchema(ma.Schema):
    id = ma.fields.String(required=True)
    workspaceId = ma.fields.String(required=True)
    competitorId = ma.fields.String(required=True)
    productId = ma.fields.String(required=True)
    categoryId = ma.fields.String(required=True)
    categoryName = ma.fields.String(required=True)
    summary = Strings(required=True)
    capabilityStatus = ma.fields.String(required=True, validate=STATUS)
    evidenceIds = Strings(required=True)
    features = ma.fields.Nested(
        CellFeaturesSchema,
        allow_none=True,
        metadata={"description": "which features matched, theirs alone, ours alone"},
    )
    updatedAt = ma.fields.DateTime(required=True)


class OurCapabilitySchema(ma.Schema):
    summary = Strings(required=True)
    capabilityStatus = ma.fields.String(required=True, validate=STATUS)


class OurProductSchema(ma.Schema):
    productId = ma.fields.String(required=True)
    capabilities = ma.fields.Dict(
        keys=ma.fields.String(),
        values=ma.fields.Nested(OurCapabilitySchema),
        required=True,
        metadata={"description": "categoryId -> our summary and standing"},
    )


def _cell_map(cell_schema, description: str) -> ma.fields.Dict:
    return ma.fields.Dict(
        keys=ma.fields.String(),
        values=ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Nested(cell_schema)),
        required=True,
        metadata={"description": description},
    )


class MatrixSchema(ma.Schema):
    categories = ma.fields.List(ma.fields.Nested(CategorySchema), required=True)
    competitors = ma.fields.List(ma.fields.Nested(MatrixCompetitorSchema), required=True)
    cells = ma.fields.List(ma.fields.Nested(MatrixCellSchema), required=True)
    cellMap = _cell_map(MatrixCellSchema, "categoryId -> competitorId -> cell")
    ourProduct = ma.fields.Nested(
        OurProductSchema, metadata={"description": "only with includeOurProduct=true"}
    )


class SolutionCellSchema(ma.Schema):
    id = ma.fields.String(required=True)
    workspaceId = ma.fields.String(required=True)
    solutionId = ma.fields.String(required=True)
    competitorId = ma.fields.String(required=True)
    aggregatedScore = ma.fields.Integer(required=True, validate=ma.validate.Range(0, 4))
    contributingCategoryIds = Strings(
        required=True, metadata={"description": "ids of the matrix cells that fed the score"}
    )
    evidenceIds = Strings(required=True)
    lastRefreshedAt = ma.fields.DateTime(required=True)


class SolutionMatrixSchema(ma.Schema):
    solutions = ma.fields.List(ma.fields.Nested(SolutionSchema), required=True)
    competitors = ma.fields.List(
        ma.fields.Nested(MatrixCompetitorSchema),
        required=True,
        metadata={"description": "status READY when scored, else PENDING"},
    )
    cells = ma.fields.List(ma.fields.Nested(SolutionCellSchema), required=True)
    cellMap = _cell_map(SolutionCellSchema, "solutionId -> competitorId -> solution cell")
    categoryCellMap = _cell_map(MatrixCellSchema, "categoryId -> competitorId -> category cell")


@blp.route("", methods=["GET"])
@blp.arguments(MatrixQuerySchema, location="query")
@blp.alt_response(200, schema=MatrixSchema, success=True)
@blp.errors(400, 401, 403, 404, 429, 431)
@requires(PRO_READ)
def get_matrix(args):
    return matrix.get_matrix(
        principal().workspace_id,
        product_id=args.get("productId"),
        competitor_ids=split_ids(args.get("competitorIds")),
        include_our_product=args["includeOurProduct"],
    )


@blp.route("/solutions", methods=["GET"])
@blp.arguments(SolutionMatrixQuerySchema, location="query")
@blp.alt_response(200, schema=SolutionMatrixSchema, success=True)
@blp.errors(400, 401, 403, 429, 431)
@requires(PRO_READ)
def get_solution_matrix(args):
    return solution_matrix.get_solution_matrix(
        principal().workspace_id,
        competitor_ids=split_ids(args.get("competitorIds")),
        solution_ids=split_ids(args.get("solutionIds")),
    )
