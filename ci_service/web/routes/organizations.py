"""/api/organizations: the workspace's own organization (one per workspace)."""

from __future__ import annotations

import marshmallow as ma

from ci_service.services.identity.auth import READ, WRITE
from ci_service.services.workspace import organizations
from ci_service.web.api import Blueprint
from ci_service.web.auth import principal, requires
from ci_service.web.routes.resource_common import LinkOutSchema, ProfileOutSchema, Strings

blp = Blueprint(
    "organizations", __name__, url_prefix="/api/organizations", description="Organization"
)


class OrganizationSchema(ma.Schema):
    id = ma.fields.String(required=True)
    workspaceId = ma.fields.String(required=True)
    name = ma.fields.String(required=True)
    websiteUrl = ma.fields.String(required=True)
    domain = ma.fields.String(required=True)
    createdAt = ma.fields.DateTime(required=True)
    companyProfile = ma.fields.Nested(ProfileOutSchema, required=True)
    companyStrengths = Strings(required=True)
    companyWeaknesses = Strings(required=True)
    referenceLinks = ma.fields.List(ma.fields.Nested(LinkOutSchema), required=True)
    keyMessaging = Strings(required=True)


class OrganizationMaybeSchema(ma.Schema):
    organization = ma.fields.Nested(
        OrganizationSchema,
        required=True,
        allow_none=True,
        metadata={"description": "null until the first PATCH"},
    )


class OrganizationResponseSchema(ma.Schema):
    organization = ma.fields.Nested(OrganizationSchema, required=True)


@blp.route("", methods=["GET"])
@blp.alt_response(200, schema=OrganizationMaybeSchema, success=True)
@blp.errors(401, 403, 429)
@requires(READ)
def get_own_organization():
    row = organizations.find_organization(principal().workspace_id)
    return {"organization": organizations.organization_to_dict(row)}


@blp.route("", methods=["PATCH"])
@blp.arguments(organizations.OrganizationUpdateSchema)
@blp.alt_response(200, schema=OrganizationResponseSchema, success=True)
@blp.errors(400, 401, 403, 413, 415, 429)
@requires(WRITE)
def update_organization(body):
    row = organizations.update_organization(principal().workspace_id, body)
    return {"organization": organizations.organization_to_dict(row)}


@blp.route("/<organization_id>", methods=["GET"])
@blp.alt_response(200, schema=OrganizationResponseSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(READ)
def get_organization(organization_id):
    row = organizations.get_organization(principal().workspace_id, organization_id)
    return {"organization": organizations.organization_to_dict(row)}
