"""/api/organizations jobs: refresh the profile and news from our own website (``{jobId}``)."""

from __future__ import annotations

from ci_service.services.collection import start
from ci_service.services.identity.auth import WRITE
from ci_service.web.api import Blueprint
from ci_service.web.auth import principal, requires
from ci_service.web.routes.offering_jobs import JobIdSchema

blp = Blueprint(
    "organization_jobs",
    __name__,
    url_prefix="/api/organizations",
    description="Organization jobs",
)


@blp.route("/refresh", methods=["POST"])
@blp.alt_response(200, schema=JobIdSchema, success=True)
@blp.errors(400, 401, 403, 404, 413, 415, 429)
@requires(WRITE)
def refresh_organization():
    """Refresh the organization's profile and news from its websiteUrl."""
    return {"jobId": start.start_organization_refresh(principal().workspace_id).id}


@blp.route("/news/refresh", methods=["POST"])
@blp.alt_response(200, schema=JobIdSchema, success=True)
@blp.errors(400, 401, 403, 404, 413, 415, 429)
@requires(WRITE)
def refresh_organization_news():
    """Refresh companyProfile.newsFeed from the organization's feeds and news pages."""
    return {"jobId": start.start_organization_news(principal().workspace_id).id}
