"""The workspace's own organization: at most one, created by the first update."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import marshmallow as ma

from ci_service.errors import NotFound
from ci_service.services.common.fields import (
    NAME,
    InputSchema,
    Links,
    Profile,
    Strings,
    Url,
    load,
)
from ci_service.services.graph import sync as graph_sync
from ci_service.store.db import transaction
from ci_service.store.resources import Organization
from ci_service.timeutil import iso, utcnow


class OrganizationUpdateSchema(InputSchema):
    name = ma.fields.String(validate=NAME)
    websiteUrl = Url()
    companyProfile = Profile(metadata={"description": "merged into the stored profile"})
    companyStrengths = Strings()
    companyWeaknesses = Strings()
    referenceLinks = Links()
    keyMessaging = Strings()


_PLAIN = {
    "name": "name",
    "companyStrengths": "company_strengths",
    "companyWeaknesses": "company_weaknesses",
    "referenceLinks": "reference_links",
    "keyMessaging": "key_messaging",
}


def domain_of(url: str) -> str:
    host = (urlsplit(url).hostname or "").lower()
    return host[4:] if host.startswith("www.") else host


def find_organization(workspace_id: str) -> Organization | None:
    return Organization.get_or_none(Organization.workspace == workspace_id)


def get_organization(workspace_id: str, organization_id: str) -> Organization:
    row = find_organization(workspace_id)
    if row is None or row.id != organization_id:
        raise NotFound.of("Organization")
    return row


def update_organization(workspace_id: str, data: dict[str, Any]) -> Organization:
    """Create the organization or change the given fields (``companyProfile`` is merged)."""
    values = load(OrganizationUpdateSchema, data)
    with transaction():
        row = find_organization(workspace_id)
        created = row is None
        if created:
            row = Organization(workspace=workspace_id)
        for key, attr in _PLAIN.items():
            if key in values:
                setattr(row, attr, values[key])
        if "websiteUrl" in values:
            row.website_url = values["websiteUrl"]
            row.domain = domain_of(values["websiteUrl"])
        if "companyProfile" in values:
            row.company_profile = {**(row.company_profile or {}), **values["companyProfile"]}
        row.updated_at = utcnow()
        row.save(force_insert=created)
        graph_sync.sync_organization(row, attach_all=created)
    return row


def organization_to_dict(row: Organization | None) -> dict[str, Any] | None:
    if row is None:
        return None
    return {
        "id": row.id,
        "workspaceId": row.workspace_id,
        "name": row.name,
        "websiteUrl": row.website_url,
        "domain": row.domain,
        "createdAt": iso(row.created_at),
        "companyProfile": row.company_profile,
        "companyStrengths": row.company_strengths,
        "companyWeaknesses": row.company_weaknesses,
        "referenceLinks": row.reference_links,
        "keyMessaging": row.key_messaging,
    }
