"""/api/jobs: follow and cancel background jobs (reads: scope read; cancel: write + EDITOR)."""

from __future__ import annotations

import marshmallow as ma

from ci_service.services.identity.auth import READ, WRITE
from ci_service.services.workspace import jobs
from ci_service.store.jobs import JOB_STATUSES, STEP_STATUSES
from ci_service.web.api import Blueprint, Schema
from ci_service.web.auth import principal, requires

blp = Blueprint("jobs", __name__, url_prefix="/api/jobs", description="Background jobs")


class JobListQuerySchema(Schema):
    competitorId = ma.fields.String(
        metadata={"description": "only this competitor's jobs (404 if not in the workspace)"}
    )
    type = ma.fields.String(metadata={"description": "job type, e.g. collect"})
    status = ma.fields.String(validate=ma.validate.OneOf(JOB_STATUSES))
    limit = ma.fields.Integer(
        validate=ma.validate.Range(min=1, max=jobs.LIST_CAP),
        metadata={"description": f"most jobs returned (default and maximum {jobs.LIST_CAP})"},
    )


class JobStepSchema(ma.Schema):
    id = ma.fields.String(required=True)
    name = ma.fields.String(required=True)
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(STEP_STATUSES))


class JobSchema(ma.Schema):
    id = ma.fields.String(required=True)
    workspaceId = ma.fields.String(required=True)
    competitorId = ma.fields.String(required=True, allow_none=True)
    type = ma.fields.String(required=True)
    displayTitle = ma.fields.String(required=True)
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(JOB_STATUSES))
    progress = ma.fields.Float(required=True, metadata={"minimum": 0, "maximum": 100})
    currentStep = ma.fields.String(required=True)
    steps = ma.fields.List(ma.fields.Nested(JobStepSchema), required=True)
    startedAt = ma.fields.DateTime(required=True)
    completedAt = ma.fields.DateTime(required=True, allow_none=True)
    metadata = ma.fields.Dict(required=True)
    progressMessage = ma.fields.String(metadata={"description": "while running, if reported"})
    error = ma.fields.String(metadata={"description": "why the job failed (failed jobs only)"})
    attempt = ma.fields.Integer(
        required=True,
        metadata={"description": "the run the job is on, from 1 (an interruption adds one)"},
    )
    maxAttempts = ma.fields.Integer(
        required=True,
        metadata={"description": "runs the job may have before an interruption fails it"},
    )
    retryAt = ma.fields.DateTime(
        metadata={"description": "while it waits to run again after an interruption"}
    )


class JobListSchema(ma.Schema):
    jobs = ma.fields.List(ma.fields.Nested(JobSchema), required=True)


class JobResponseSchema(ma.Schema):
    job = ma.fields.Nested(JobSchema, required=True)


class JobSummarySchema(ma.Schema):
    id = ma.fields.String(required=True)
    status = ma.fields.String(required=True, validate=ma.validate.OneOf(JOB_STATUSES))
    currentStep = ma.fields.String(required=True)


class CancelResponseSchema(ma.Schema):
    success = ma.fields.Boolean(required=True)
    job = ma.fields.Nested(JobSummarySchema, required=True)


@blp.route("", methods=["GET"])
@blp.arguments(JobListQuerySchema, location="query")
@blp.alt_response(200, schema=JobListSchema, success=True)
@blp.errors(400, 401, 403, 404, 429)
@requires(READ)
def list_jobs(query):
    rows = jobs.list_jobs(
        principal().workspace_id,
        competitor_id=query.get("competitorId"),
        job_type=query.get("type"),
        status=query.get("status"),
        limit=query.get("limit"),
    )
    return {"jobs": [jobs.job_to_dict(row) for row in rows]}


@blp.route("/<job_id>", methods=["GET"])
@blp.alt_response(200, schema=JobResponseSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(READ)
def get_job(job_id):
    return {"job": jobs.job_to_dict(jobs.get_job(job_id, principal().workspace_id))}


@blp.route("/<job_id>/cancel", methods=["POST"])
@blp.alt_response(200, schema=CancelResponseSchema, success=True)
@blp.errors(400, 401, 403, 404, 413, 415, 429)
@requires(WRITE)
def cancel_job(job_id):
    job = jobs.cancel_job(job_id, principal().workspace_id)
    return {
        "success": True,
        "job": {"id": job.id, "status": job.status, "currentStep": job.current_step},
    }
