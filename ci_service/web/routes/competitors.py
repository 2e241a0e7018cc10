"""/api/competitors: create (plan limit, analysis job), read, update, delete, refresh."""

from __future__ import annotations

import marshmallow as ma
from flask import current_app

from ci_service.services.common.fields import SHORT, PageSchema
from ci_service.services.identity.auth import READ, WRITE
from ci_service.services.workspace import competitors, jobs
from ci_service.web.api import Blueprint, SuccessSchema
from ci_service.web.auth import principal, requires
from ci_service.web.routes.jobs import JobSchema
from ci_service.web.routes.resource_common import (
    ItemOutSchema,
    LinkOutSchema,
    ProfileOutSchema,
    Strings,
    page_args,
)

blp = Blueprint("competitors", __name__, url_prefix="/api/competitors", description="Competitors")


class CompetitorListQuerySchema(PageSchema):
    productId = ma.fields.String(
        validate=SHORT, metadata={"description": "only competitors relevant to this product"}
    )


class CompetitorSchema(ma.Schema):
    id = ma.fields.String(required=True)
    workspaceId = ma.fields.String(required=True)
    name = ma.fields.String(required=True)
    websiteUrl = ma.fields.String(required=True)
    status = ma.fields.String(
        required=True, validate=ma.validate.OneOf(("PENDING", "PROCESSING", "COMPLETE", "ERROR"))
    )
    tags = Strings(required=True)
    priority = ma.fields.Integer(required=True)
    tier = ma.fields.String(required=True)
    refreshRate = ma.fields.Integer(required=True, metadata={"description": "days"})
    products = ma.fields.List(ma.fields.Dict(), required=True)
    categories = ma.fields.List(ma.fields.Nested(ItemOutSchema), required=True)
    relevantProductIds = Strings(required=True)
    companyProfile = ma.fields.Nested(ProfileOutSchema, required=True)
    companyStrengths = Strings(required=True)
    companyWeaknesses = Strings(required=True)
    referenceLinks = ma.fields.List(ma.fields.Nested(LinkOutSchema), required=True)
    keyMessaging = Strings(required=True)
    lastRefreshAt = ma.fields.DateTime(metadata={"description": "absent until the first"})
    lastBattlecardAt = ma.fields.DateTime(metadata={"description": "absent until the first"})
    createdAt = ma.fields.DateTime(required=True)


class CompetitorJobSchema(ma.Schema):
    id = ma.fields.String(required=True)
    status = ma.fields.String(required=True)
    progress = ma.fields.Float(required=True)
    currentStep = ma.fields.String(required=True)


class CompetitorListSchema(ma.Schema):
    competitors = ma.fields.List(ma.fields.Nested(CompetitorSchema), required=True)


class CompetitorResponseSchema(ma.Schema):
    competitor = ma.fields.Nested(CompetitorSchema, required=True)


class CompetitorDetailSchema(CompetitorResponseSchema):
    currentJob = ma.fields.Nested(
        CompetitorJobSchema,
        required=True,
        allow_none=True,
        metadata={"description": "the running job, or null"},
    )


class CompetitorCreatedSchema(CompetitorResponseSchema):
    jobId = ma.fields.String(required=True, metadata={"description": "the analysis job"})


class RefreshStartedSchema(ma.Schema):
    jobId = ma.fields.String(
        required=True, metadata={"description": "the collect job (an active one is reused)"}
    )
    job = ma.fields.Nested(JobSchema, required=True)


@blp.route("", methods=["GET"])
@blp.arguments(CompetitorListQuerySchema, location="query")
@blp.alt_response(200, schema=CompetitorListSchema, success=True)
@blp.errors(400, 401, 403, 429)
@requires(READ)
def list_competitors(args):
    workspace_id, product_id, page = (
        principal().workspace_id,
        args.get("productId"),
        page_args(args),
    )
    listed = competitors.list_competitors_json(workspace_id, product_id, **page)
    if listed is None:
        rows = competitors.list_competitors(workspace_id, product_id, **page)
        listed = [competitors.competitor_to_dict(r) for r in rows]
    return {"competitors": listed}


@blp.route("", methods=["POST"])
@blp.arguments(competitors.CompetitorCreateSchema)
@blp.alt_response(200, schema=CompetitorCreatedSchema, success=True)
@blp.errors(400, 401, 403, 413, 415, 429)
@requires(WRITE)
def create_competitor(body):
    p = principal()
    limit = current_app.config["CI_SETTINGS"].competitor_limit(p.plan)
    row, job = competitors.create_competitor(p.workspace_id, body, plan=p.plan, limit=limit)
    return {"competitor": competitors.competitor_to_dict(row), "jobId": job.id}


@blp.route("/<competitor_id>", methods=["GET"])
@blp.alt_response(200, schema=CompetitorDetailSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(READ)
def get_competitor(competitor_id):
    ws = principal().workspace_id
    row = competitors.get_competitor(ws, competitor_id)
    return {
        "competitor": competitors.competitor_to_dict(row),
        "currentJob": competitors.job_summary(competitors.current_job(ws, row.id)),
    }


@blp.route("/<competitor_id>", methods=["PATCH"])
@blp.arguments(competitors.CompetitorUpdateSchema)
@blp.alt_response(200, schema=CompetitorResponseSchema, success=True)
@blp.errors(400, 401, 403, 404, 413, 415, 429)
@requires(WRITE)
def update_competitor(body, competitor_id):
    row = competitors.update_competitor(principal().workspace_id, competitor_id, body)
    return {"competitor": competitors.competitor_to_dict(row)}


@blp.route("/<competitor_id>", methods=["DELETE"])
@blp.alt_response(200, schema=SuccessSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(WRITE)
def delete_competitor(competitor_id):
    competitors.delete_competitor(principal().workspace_id, competitor_id)
    return {"success": True}


@blp.route("/<competitor_id>/refresh", methods=["POST"])
@blp.alt_response(200, schema=RefreshStartedSchema, success=True)
@blp.errors(401, 403, 404, 413, 415, 429)
@requires(WRITE)
def refresh_competitor(competitor_id):
    """Collect fresh intel on the competitor (a ``collect`` job, as the ``trigger_refresh``
    tool and the competitor page's Refresh button start it). A collect already queued or
    running for it is answered instead of a second one."""
    job = jobs.start_competitor_refresh(principal().workspace_id, competitor_id)
    return {"jobId": job.id, "job": jobs.job_to_dict(job)}
