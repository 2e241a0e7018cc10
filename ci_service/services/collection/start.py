"""Starting the offering and organization jobs: the rules the REST routes (and any tool)
share. Each function validates, checks the workspace owns what is named (404 otherwise)
and queues the job; it returns the Job row.
"""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow.validate import Length

from ci_service.errors import NotFound, PayloadTooLarge, UnsupportedMediaType
from ci_service.jobs.queue import enqueue
from ci_service.services.collection.handlers import DOCUMENT, ENRICH, REANALYZE
from ci_service.services.common.fields import ITEM_ID, InputSchema, Url, fail, load, unique
from ci_service.store.jobs import Job

MAX_ENRICH = 100


class DiscoverSchema(InputSchema):
    websiteUrl = Url(required=True)
    competitorId = ma.fields.String(
        required=True, validate=ITEM_ID, metadata={"description": "a competitor of this workspace"}
    )


class EnrichSchema(InputSchema):
    offeringIds = ma.fields.List(
        ma.fields.String(validate=ITEM_ID),
        required=True,
        validate=Length(min=1, max=MAX_ENRICH),
        metadata={"description": f"1 to {MAX_ENRICH} offerings of this workspace"},
    )


def start_discover(workspace_id: str, data: dict[str, Any]) -> Job:
    """A discover-products job crawling ``websiteUrl`` for the competitor's offerings."""
    from ci_service.services.workspace.competitors import get_competitor

    values = load(DiscoverSchema, data)
    competitor = get_competitor(workspace_id, values["competitorId"])
    return enqueue(
        workspace_id,
        "discover-products",
        competitor_id=competitor.id,
        metadata={"competitorName": competitor.name, "websiteUrl": values["websiteUrl"]},
        payload={"websiteUrl": values["websiteUrl"]},
    )


def _offering(workspace_id: str, offering_id: str) -> Any:
    from ci_service.services.workspace.offerings import get_offering

    return get_offering(workspace_id, offering_id)


def start_enrich(workspace_id: str, data: dict[str, Any]) -> Job:
    from ci_service.store.resources import Offering

    ids = unique(load(EnrichSchema, data)["offeringIds"])
    known = {
        o.id
        for o in Offering.select(Offering.id).where(
            Offering.workspace == workspace_id, Offering.id.in_(ids)
        )
    }
    if any(i not in known for i in ids):
        raise NotFound.of("Offering")
    return enqueue(
        workspace_id, ENRICH, metadata={"offeringIds": ids}, payload={"offeringIds": ids}
    )


def start_reanalyze(workspace_id: str, offering_id: str) -> Job:
    offering = _offering(workspace_id, offering_id)
    return enqueue(
        workspace_id,
        REANALYZE,
        metadata={"offeringId": offering.id, "offeringName": offering.name},
        payload={"offeringId": offering.id},
    )


def start_document_analysis(
    workspace_id: str,
    offering_id: str,
    *,
    data: bytes | None,
    filename: str,
    content_type: str,
    max_bytes: int,
) -> Job:
    """Spool an uploaded PDF/DOCX and queue its analysis (400 no file, 413, 415)."""
    from ci_service.services.collection.offering_jobs import spool_upload, upload_kind

    offering = _offering(workspace_id, offering_id)
    if data is None:
        raise fail({"file": ["a PDF or DOCX document is required"]})
    if not data:
        raise fail({"file": ["the file is empty"]})
    if len(data) > max_bytes:
        raise PayloadTooLarge(f"The document exceeds {max_bytes} bytes")
    kind = upload_kind(filename or "", content_type or "", data[:8])
    if kind is None:
        raise UnsupportedMediaType("Upload a PDF or DOCX document")
    name = (filename or f"document.{kind}").replace("/", "_").replace("\\", "_")[:200]
    spooled = spool_upload(data)
    return enqueue(
        workspace_id,
        DOCUMENT,
        metadata={"offeringId": offering.id, "offeringName": offering.name, "filename": name},
        payload={"offeringId": offering.id, **spooled, "filename": name, "kind": kind},
    )


def _organization(workspace_id: str) -> Any:
    from ci_service.services.workspace.organizations import find_organization

    org = find_organization(workspace_id)
    if org is None:
        raise NotFound.of("Organization")
    if not org.website_url:
        raise fail({"websiteUrl": ["the organization has no websiteUrl to refresh from"]})
    return org


def start_organization_refresh(workspace_id: str) -> Job:
    from ci_service.jobs.registry import ORGANIZATION_REFRESH

    org = _organization(workspace_id)
    return enqueue(workspace_id, ORGANIZATION_REFRESH, metadata={"organizationName": org.name})


def start_organization_news(workspace_id: str) -> Job:
    from ci_service.jobs.registry import ORGANIZATION_NEWS

    org = _organization(workspace_id)
    return enqueue(workspace_id, ORGANIZATION_NEWS, metadata={"organizationName": org.name})
