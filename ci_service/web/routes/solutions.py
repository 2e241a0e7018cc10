"""/api/solutions: solution themes (PRO plan or higher)."""

from __future__ import annotations

import marshmallow as ma

from ci_service.services.common.fields import PageSchema
from ci_service.services.identity.auth import Access
from ci_service.services.workspace import solutions
from ci_service.web.api import Blueprint, SuccessSchema
from ci_service.web.auth import principal, requires
from ci_service.web.routes.resource_common import Strings, page_args

blp = Blueprint(
    "solutions", __name__, url_prefix="/api/solutions", description="Solutions (PRO plan)"
)

PRO_READ = Access(plan="PRO")
PRO_WRITE = Access(scope="write", min_role="EDITOR", plan="PRO")


class CategoryMappingOutSchema(ma.Schema):
    categoryId = ma.fields.String(required=True)
    productId = ma.fields.String(required=True)
    weight = ma.fields.Float(required=True, validate=ma.validate.Range(0.0, 1.0))


class SolutionSchema(ma.Schema):
    id = ma.fields.String(required=True)
    workspaceId = ma.fields.String(required=True)
    name = ma.fields.String(required=True)
    description = ma.fields.String(required=True)
    isAiGenerated = ma.fields.Boolean(required=True)
    productIds = Strings(required=True)
    categoryMappings = ma.fields.List(ma.fields.Nested(CategoryMappingOutSchema), required=True)
    createdAt = ma.fields.DateTime(required=True)
    updatedAt = ma.fields.DateTime(required=True)
    createdByUserId = ma.fields.String(required=True, allow_none=True)


class SolutionListSchema(ma.Schema):
    solutions = ma.fields.List(ma.fields.Nested(SolutionSchema), required=True)


class SolutionResponseSchema(ma.Schema):
    solution = ma.fields.Nested(SolutionSchema, required=True)


@blp.route("", methods=["GET"])
@blp.arguments(PageSchema, location="query")
@blp.alt_response(200, schema=SolutionListSchema, success=True)
@blp.errors(400, 401, 403, 429)
@requires(PRO_READ)
def list_solutions(args):
    rows = solutions.list_solutions(principal().workspace_id, **page_args(args))
    return {"solutions": [solutions.solution_to_dict(r) for r in rows]}


@blp.route("", methods=["POST"])
@blp.arguments(solutions.SolutionCreateSchema)
@blp.alt_response(201, schema=SolutionResponseSchema, success=True)
@blp.errors(400, 401, 403, 413, 415, 429)
@requires(PRO_WRITE)
def create_solution(body):
    p = principal()
    row = solutions.create_solution(p.workspace_id, body, user_id=p.user_id)
    return {"solution": solutions.solution_to_dict(row)}, 201


@blp.route("/<solution_id>", methods=["GET"])
@blp.alt_response(200, schema=SolutionResponseSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(PRO_READ)
def get_solution(solution_id):
    row = solutions.get_solution(principal().workspace_id, solution_id)
    return {"solution": solutions.solution_to_dict(row)}


@blp.route("/<solution_id>", methods=["PUT"])
@blp.arguments(solutions.SolutionUpdateSchema)
@blp.alt_response(200, schema=SolutionResponseSchema, success=True)
@blp.errors(400, 401, 403, 404, 413, 415, 429)
@requires(PRO_WRITE)
def update_solution(body, solution_id):
    row = solutions.update_solution(principal().workspace_id, solution_id, body)
    return {"solution": solutions.solution_to_dict(row)}


@blp.route("/<solution_id>", methods=["DELETE"])
@blp.alt_response(200, schema=SuccessSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(PRO_WRITE)
def delete_solution(solution_id):
    solutions.delete_solution(principal().workspace_id, solution_id)
    return {"success": True}
