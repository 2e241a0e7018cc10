"""Intel items: evidence collected by the pipelines and internal notes added by users.

This module is the contract the REST routes, the tools and the pipelines share:
``record_evidence`` (pipelines), ``create_note`` (POST /api/intel), ``list_intel``,
``get_intel``, ``delete_intel``, ``intel_to_dict``, ``evidence_record`` and
``rebuild_intel_fts``. Searching them (``search_intel``, ``substring_search_intel``,
``reindex``) is ``services/search/intel_search.py``.

Every write is one transaction that also writes the item's full-text row (triggers, see
store/intel.py) and its embedding row; the in-memory vector index (``intel_index``)
follows after commit. The credibility and change-tracking rules live in ``intel_rules``,
the search in ``services/search/intel_search.py``.

Change tracking: evidence is identified by (workspace, owner, url), the owner being the
competitor, the offering or the organization named by ``scope``. Recording the same
normalised title and content again changes nothing (status ``unchanged``). Different
content adds a new item whose ``previousItemId`` is the latest earlier one and whose
``changes`` are ``{"summary", "added", "removed", "titleChanged"?}``: the passages
(lines, or sentences of long lines) that appear only in the new or only in the old text,
at most 20 each, each cut to 300 characters.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import marshmallow as ma
from marshmallow.validate import Length

from ci_service.errors import NotFound, ValidationFailed
from ci_service.services.common import cleanup
from ci_service.services.common.fields import ITEM_ID, SHORT, InputSchema, Url, fail, load
from ci_service.services.intel import graph_links as intel_graph
from ci_service.services.intel import index as intel_index
from ci_service.services.intel.index import reset_index_cache  # noqa: F401 - re-exported
from ci_service.services.intel.rules import (  # noqa: F401 - re-exported
    content_hash,
    credibility_score,
    diff_changes,
    normalize_text,
    passages,
    site_of,
)
from ci_service.store.competitors import Competitor
from ci_service.store.db import transaction
from ci_service.store.intel import (
    INTEL_TYPES,
    PAGE_KINDS,
    SCOPES,
    IntelItem,
    next_seq,
    upsert_embeddings,
)
from ci_service.store.intel import rebuild_intel_fts as _rebuild_fts
from ci_service.store.resources import Offering, Organization
from ci_service.timeutil import iso, parse_datetime

EVIDENCE_SOURCES = ("WEB_PAGE", "DOCUMENT", "NEWS")
MAX_CONTENT = 100_000  # characters kept of one item's content
MAX_TITLE = 500


class NoteCreateSchema(InputSchema):
    content = ma.fields.String(required=True, validate=Length(min=1, max=MAX_CONTENT))
    title = ma.fields.String(validate=SHORT)
    competitorId = ma.fields.String(
        validate=ITEM_ID, metadata={"description": "a competitor of this workspace"}
    )
    url = Url()


@dataclass
class RecordResult:
    """What ``record_evidence`` did: ``status`` is ``new``, ``changed`` or ``unchanged``.

    ``item`` is the new item (new, changed) or the existing identical one (unchanged);
    ``previous_id`` the item it follows (changed) or the existing one's id (unchanged)."""

    item: IntelItem | None
    status: str
    previous_id: str | None = None


# -- writes -----------------------------------------------------------------------------


def _owner_website(
    workspace_id: str, scope: str, competitor_id: str | None, offering_id: str | None
) -> tuple[str | None, str | None]:
    """(competitor id to store, owner website url); 404 for a missing owner."""
    if scope == "competitor":
        competitor = Competitor.get_or_none(
            Competitor.id == competitor_id, Competitor.workspace == workspace_id
        )
        if competitor is None:
            raise NotFound.of("Competitor")
        return competitor.id, competitor.website_url
    if scope == "offering":
        offering = Offering.get_or_none(
            Offering.id == offering_id, Offering.workspace == workspace_id
        )
        if offering is None:
            raise NotFound.of("Offering")
        owner_competitor = competitor_id or offering.competitor_id
        if owner_competitor:
            competitor = Competitor.get_or_none(Competitor.id == owner_competitor)
            return owner_competitor, competitor.website_url if competitor else None
        org = Organization.get_or_none(Organization.workspace == workspace_id)
        return None, org.website_url if org else None
    org = Organization.get_or_none(Organization.workspace == workspace_id)
    return None, org.website_url if org else None


def _embed_row(item: IntelItem) -> tuple[Any, str]:
    provider = intel_index.provider()
    vector = provider.embed([intel_index.item_text(item.title, item.content)])[0]
    upsert_embeddings(
        [
            {
                "item": item.id,
                "workspace": item.workspace_id,
                "model": provider.name,
                "dimension": provider.dimension,
                "vector": intel_index.to_bytes(vector),
            }
        ]
    )
    return vector, provider.name


def _insert(**values: Any) -> IntelItem:
    item = IntelItem(seq=next_seq(), **values)
    item.save(force_insert=True)
    vector, model = _embed_row(item)
    intel_index.after_commit_upsert(item.workspace_id, [item.id], [vector], model, [item.seq])
    return item


def latest_for_source(
    workspace_id: str,
    *,
    scope: str,
    url: str,
    competitor_id: str | None = None,
    offering_id: str | None = None,
) -> IntelItem | None:
    """The newest evidence item of (owner, url), or None."""
    query = IntelItem.select().where(
        IntelItem.workspace == workspace_id,
        IntelItem.url == url,
        IntelItem.scope == scope,
        IntelItem.type == "EVIDENCE",
    )
    if scope == "competitor":
        query = query.where(IntelItem.competitor == competitor_id)
    elif scope == "offering":
        query = query.where(IntelItem.offering == offering_id)
    return query.order_by(IntelItem.seq.desc()).first()


def latest_page_versions(workspace_id: str, competitor_id: str) -> dict[str, IntelItem]:
    """url -> the competitor's newest stored WEB_PAGE evidence item there (only ``id``,
    ``url`` and ``previous_item`` read: a site's texts are read by :func:`contents`, for the
    versions a caller wants)."""
    latest: dict[str, IntelItem] = {}
    query = IntelItem.select(IntelItem.id, IntelItem.url, IntelItem.previous_item).where(
        IntelItem.workspace == workspace_id,
        IntelItem.competitor == competitor_id,
        IntelItem.type == "EVIDENCE",
        IntelItem.source_type == "WEB_PAGE",
    )
    for row in query.order_by(IntelItem.seq):
        latest[row.url] = row  # later rows win: the version stored last
    return latest


def contents(item_ids: list[str]) -> dict[str, str]:
    """item id -> its content, for these items (one query; none for an empty list)."""
    if not item_ids:
        return {}
    query = IntelItem.select(IntelItem.id, IntelItem.content).where(IntelItem.id.in_(item_ids))
    return {row.id: row.content for row in query}


def record_evidence(
    workspace_id: str,
    *,
    source_type: str,
    url: str,
    title: str,
    content: str,
    competitor_id: str | None = None,
    offering_id: str | None = None,
    scope: str = "competitor",
    published_at: datetime | None = None,
    metadata: dict[str, Any] | None = None,
    page_kind: str | None = None,
) -> RecordResult:
    """Store one fetched page, document section or news item as EVIDENCE (one transaction).

    ``scope`` ``competitor`` needs ``competitor_id``; ``offering`` needs ``offering_id``
    (the offering's competitor is stored too, so competitor filters find it);
    ``organization`` needs neither. A missing owner is a 404. ``url`` identifies the
    source (for a document section use e.g. ``file-url#section-3``). ``page_kind`` is what
    the page is (one of ``store.intel.PAGE_KINDS``, else none); a new reading of an
    unchanged page updates it in place, it is not a change of the source. Raises
    ValidationFailed for an unknown source type or scope, or empty content.
    """
    if source_type not in EVIDENCE_SOURCES:
        raise ValidationFailed.field("sourceType", f"must be one of {', '.join(EVIDENCE_SOURCES)}")
    if scope not in SCOPES:
        raise ValidationFailed.field("scope", f"must be one of {', '.join(SCOPES)}")
    if not isinstance(content, str) or not content.strip():
        raise ValidationFailed.field("content", "must not be empty")
    if isinstance(published_at, str):
        try:
            published_at = parse_datetime(published_at)
        except ValueError:
            published_at = None
    title = (title or "").strip()[:MAX_TITLE]
    kind = page_kind if page_kind in PAGE_KINDS else None
    meta = dict(metadata or {})
    if len(content) > MAX_CONTENT:
        content, meta["truncated"] = content[:MAX_CONTENT], True
    digest = content_hash(title, content)
    with transaction():
        stored_competitor, website = _owner_website(workspace_id, scope, competitor_id, offering_id)
        previous = latest_for_source(
            workspace_id,
            scope=scope,
            url=url,
            competitor_id=stored_competitor,
            offering_id=offering_id,
        )
        if previous is not None and previous.content_hash == digest:
            if kind and previous.page_kind != kind:
                previous.page_kind = kind
                previous.save(only=[IntelItem.page_kind])
            return RecordResult(previous, "unchanged", previous.id)
        changes = None
        if previous is not None:
            changes = diff_changes(previous.title, previous.content, title, content)
        item = _insert(
            workspace=workspace_id,
            competitor=stored_competitor,
            offering=offering_id if scope == "offering" else None,
            scope=scope,
            type="EVIDENCE",
            source_type=source_type,
            url=url,
            title=title,
            content=content,
            content_hash=digest,
            credibility_score=credibility_score(source_type, url, website, published_at),
            metadata=meta,
            previous_item=previous.id if previous else None,
            changes=changes,
            published_at=published_at,
            page_kind=kind,
        )
    return RecordResult(item, "changed" if previous else "new", previous.id if previous else None)


def create_note(workspace_id: str, data: dict[str, Any], *, user_id: str | None) -> IntelItem:
    """An INTERNAL_NOTE from ``{content, title?, competitorId?, url?}``."""
    values = load(NoteCreateSchema, data)
    content = values["content"]
    if not content.strip():
        raise fail({"content": ["must not be blank"]})
    competitor_id = values.get("competitorId")
    with transaction():
        if competitor_id is not None and not (
            Competitor.select()
            .where(Competitor.id == competitor_id, Competitor.workspace == workspace_id)
            .exists()
        ):
            raise fail({"competitorId": ["unknown competitor"]})
        title = values.get("title") or ""
        return _insert(
            workspace=workspace_id,
            competitor=competitor_id,
            scope="competitor" if competitor_id else "organization",
            type="INTERNAL_NOTE",
            source_type="INTERNAL_NOTE",
            url=values.get("url"),
            title=title,
            content=content,
            content_hash=content_hash(title, content),
            credibility_score=credibility_score("INTERNAL_NOTE", values.get("url")),
            metadata={},
            created_by_user_id=user_id,
        )


# -- reads ------------------------------------------------------------------------------


def list_intel(
    workspace_id: str,
    *,
    competitor_id: str | None = None,
    type: str | None = None,  # noqa: A002 - the API's name
    page_kind: str | None = None,
    ids: list[str] | None = None,
    limit: int | None = None,
    offset: int | None = None,
) -> list[IntelItem]:
    """The workspace's items, newest first; ``limit`` capped at 1000."""
    if type is not None and type not in INTEL_TYPES:
        raise fail({"type": [f"must be one of {', '.join(INTEL_TYPES)}"]})
    query = IntelItem.select().where(IntelItem.workspace == workspace_id)
    if competitor_id is not None:
        query = query.where(IntelItem.competitor == competitor_id)
    if type is not None:
        query = query.where(IntelItem.type == type)
    if page_kind is not None:
        if page_kind not in PAGE_KINDS:
            raise fail({"pageKind": [f"must be one of {', '.join(PAGE_KINDS)}"]})
        query = query.where(IntelItem.page_kind == page_kind)
    limit = 1000 if limit is None else max(0, min(limit, 1000))
    if ids is not None:
        # Looked up by primary key and sorted here: with ORDER BY seq SQLite would walk the
        # workspace's (workspace, seq) index instead, reading every item of the workspace.
        wanted = list(dict.fromkeys(ids))[:1000]
        rows = sorted(query.where(IntelItem.id.in_(wanted)), key=lambda r: -r.seq)
        start = offset or 0
        return rows[start : start + limit]
    return list(query.order_by(IntelItem.seq.desc()).limit(limit).offset(offset or 0))


def get_intel(workspace_id: str, item_id: str) -> IntelItem:
    row = IntelItem.get_or_none(IntelItem.id == item_id, IntelItem.workspace == workspace_id)
    if row is None:
        raise NotFound.of("Intel item")
    return row


def delete_intel(workspace_id: str, item_id: str) -> None:
    """Delete one item (its full-text row and vector go with it) and graph nodes of its
    source that no remaining item of the same owner refers to."""

    with transaction():
        row = get_intel(workspace_id, item_id)
        row.delete_instance()
        if row.url:
            intel_graph.forget_source(workspace_id, row)
        intel_index.after_commit_remove(workspace_id, [row.id], [row.seq])


def intel_to_dict(item: IntelItem) -> dict[str, Any]:
    metadata = {
        **(item.metadata or {}),
        "sourceType": item.source_type,
        "url": item.url,
        "title": item.title,
        "credibilityScore": item.credibility_score,
    }
    return {
        "id": item.id,
        "workspaceId": item.workspace_id,
        "competitorId": item.competitor_id,
        "offeringId": item.offering_id,
        "scope": item.scope,
        "type": item.type,
        "sourceType": item.source_type,
        "url": item.url,
        "title": item.title,
        "content": item.content,
        "credibilityScore": item.credibility_score,
        "metadata": metadata,
        "previousItemId": item.previous_item_id,
        "changes": item.changes,
        "publishedAt": iso(item.published_at),
        "pageKind": item.page_kind,
        "createdByUserId": item.created_by_user_id,
        "createdAt": iso(item.created_at),
        "updatedAt": iso(item.updated_at),
    }


def evidence_record(item: IntelItem) -> dict[str, Any]:
    """The battlecard evidence shape: id, content, sourceType, url, title, credibilityScore."""
    return {
        "id": item.id,
        "content": item.content,
        "sourceType": item.source_type,
        "url": item.url,
        "title": item.title,
        "credibilityScore": item.credibility_score,
    }


# -- maintenance --------------------------------------------------------------------------


def rebuild_intel_fts() -> None:
    """Rebuild the intel full-text index from the items (one transaction)."""
    with transaction():
        _rebuild_fts()


# -- what goes with a deleted owner ---------------------------------------------------


def _forget_vectors(workspace_id: str, query) -> None:
    rows = list(query.select_extend(IntelItem.seq))
    intel_index.after_commit_remove(workspace_id, [r.id for r in rows], [r.seq for r in rows])


@cleanup.on_delete("competitor")
def _competitor_deleted(workspace_id: str, competitor_id: str) -> None:
    # The rows, their FTS entries and vectors go by cascade (the triggers fire on it);
    # deleting them here as well keeps that true on a connection with foreign keys off.
    query = IntelItem.select(IntelItem.id).where(
        IntelItem.workspace == workspace_id, IntelItem.competitor == competitor_id
    )
    _forget_vectors(workspace_id, query)
    IntelItem.delete().where(
        IntelItem.workspace == workspace_id, IntelItem.competitor == competitor_id
    ).execute()


@cleanup.on_delete("offering")
def _offering_deleted(workspace_id: str, offering_id: str) -> None:
    query = IntelItem.select(IntelItem.id).where(
        IntelItem.workspace == workspace_id, IntelItem.offering == offering_id
    )
    _forget_vectors(workspace_id, query)
    IntelItem.delete().where(
        IntelItem.workspace == workspace_id, IntelItem.offering == offering_id
    ).execute()
