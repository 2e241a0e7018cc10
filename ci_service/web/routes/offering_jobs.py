"""/api/offerings jobs: discover, enrich, document upload and re-analysis (answer ``{jobId}``).

Registered before the offerings blueprint; Werkzeug prefers the static ``/discover`` and
``/enrich`` segments to ``/<offering_id>`` anyway (tests check both orders of lookup).
"""

from __future__ import annotations

import marshmallow as ma
from flask import current_app
from flask_smorest.fields import Upload

from ci_service.services.collection import start
from ci_service.services.identity.auth import WRITE
from ci_service.web.api import Blueprint, Schema
from ci_service.web.auth import principal, requires

blp = Blueprint("offering_jobs", __name__, url_prefix="/api/offerings", description="Offering jobs")


class JobIdSchema(ma.Schema):
    jobId = ma.fields.String(required=True, metadata={"description": "follow it at /api/jobs/{id}"})


class UploadSchema(Schema):
    file = Upload(
        required=True,
        metadata={"description": "a PDF or DOCX document (at most max_upload_bytes)"},
    )


@blp.route("/discover", methods=["POST"])
@blp.arguments(start.DiscoverSchema)
@blp.alt_response(200, schema=JobIdSchema, success=True)
@blp.errors(400, 401, 403, 404, 413, 415, 429)
@requires(WRITE)
def discover_offerings(body):
    """Discover a competitor's offerings on a website (a discover-products job)."""
    return {"jobId": start.start_discover(principal().workspace_id, body).id}


@blp.route("/enrich", methods=["POST"])
@blp.arguments(start.EnrichSchema)
@blp.alt_response(200, schema=JobIdSchema, success=True)
@blp.errors(400, 401, 403, 404, 413, 415, 429)
@requires(WRITE)
def enrich_offerings(body):
    """Fill missing descriptions, value props and features from the evidence."""
    return {"jobId": start.start_enrich(principal().workspace_id, body).id}


@blp.route("/<offering_id>/upload", methods=["POST"])
@blp.arguments(UploadSchema, location="files")
@blp.alt_response(200, schema=JobIdSchema, success=True)
@blp.errors(400, 401, 403, 404, 413, 415, 429)
@requires(WRITE, upload=True)
def upload_document(files, offering_id):
    """Upload a PDF or DOCX; its features and capabilities are extracted by a job."""
    upload = files["file"]
    data = upload.stream.read(current_app.config["CI_SETTINGS"].max_upload_bytes + 1)
    job = start.start_document_analysis(
        principal().workspace_id,
        offering_id,
        data=data,
        filename=upload.filename or "",
        content_type=upload.mimetype or "",
        max_bytes=current_app.config["CI_SETTINGS"].max_upload_bytes,
    )
    return {"jobId": job.id}


@blp.route("/<offering_id>/reanalyze", methods=["POST"])
@blp.alt_response(200, schema=JobIdSchema, success=True)
@blp.errors(401, 403, 404, 413, 415, 429)
@requires(WRITE)
def reanalyze_offering(offering_id):
    """Map capabilities again and rebuild the offering's knowledge tree."""
    return {"jobId": start.start_reanalyze(principal().workspace_id, offering_id).id}
