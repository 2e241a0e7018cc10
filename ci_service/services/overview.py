"""Overviews for people: what the home and competitor pages show, read in a few queries.

Every record is the same dict REST answers (``competitor_to_dict``, ``offering_to_dict``,
``intel_to_dict``, ``job_to_dict``, ``deal_to_dict``, ``battlecard_to_dict``); this module
only gathers them, so a page never shows data the API would not.

``latest_changes`` merges four kinds of change across the workspace's competitors, newest
first: ``product`` (a competitor's offering created), ``price`` (an entry of an offering's
``pricingChanges``), ``news`` (a NEWS intel item) and ``page`` (an intel item that follows
an earlier version, with its ``changes``). Each kind is one query, whatever the number of
competitors.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from peewee import SQL

from ci_service.errors import ValidationFailed
from ci_service.jobs.registry import REGISTRY
from ci_service.services import battlecards, competitors, deals, intel, jobs, offerings
from ci_service.services.graph import node_data as graph_node_data
from ci_service.store.competitors import TIERS, Competitor
from ci_service.store.db import transaction
from ci_service.store.graph import GraphNode
from ci_service.store.intel import IntelItem
from ci_service.store.jobs import Job
from ci_service.store.resources import Offering
from ci_service.timeutil import iso, parse_datetime

CHANGES_SHOWN = 20
TIMELINE_SHOWN = 100
NEWS_SHOWN = 50
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

# The intel columns a change line needs (an item's content can be 100,000 characters).
_ITEM_FIELDS = (
    IntelItem.id,
    IntelItem.competitor,
    IntelItem.source_type,
    IntelItem.url,
    IntelItem.title,
    IntelItem.changes,
    IntelItem.published_at,
    IntelItem.created_at,
)


def add_competitor(
    workspace_id: str,
    data: dict[str, Any],
    *,
    plan: str,
    limit: int | None,
    tier: str | None = None,
) -> tuple[Competitor, Job]:
    """``competitors.create_competitor`` (plan limit, collect job), then the optional
    ``tier`` as ``update_competitor`` sets it, in one transaction: a bad tier creates
    nothing."""
    if tier and tier not in TIERS:
        raise ValidationFailed.field("tier", f"must be one of {', '.join(TIERS)}")
    with transaction():
        row, job = competitors.create_competitor(workspace_id, data, plan=plan, limit=limit)
        if tier:
            row = competitors.update_competitor(workspace_id, row.id, {"tier": tier})
    return row, job


def job_types() -> list[str]:
    """The registered job type names (the jobs page's type filter)."""
    return sorted(REGISTRY)


def competitor_names(workspace_id: str, ids: list[str] | None = None) -> dict[str, str]:
    """Competitor id -> name (``ids``: only those), one query."""
    query = Competitor.select(Competitor.id, Competitor.name).where(
        Competitor.workspace == workspace_id
    )
    if ids is not None:
        query = query.where(Competitor.id.in_(ids))
    return {row.id: row.name for row in query.order_by(Competitor.name, Competitor.id)}


def running_jobs(workspace_id: str, competitor_id: str | None = None) -> list[dict[str, Any]]:
    rows = jobs.list_jobs(workspace_id, competitor_id=competitor_id, status="running")
    return [jobs.job_to_dict(row) for row in rows]


def _when(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    try:
        return parse_datetime(value)
    except (TypeError, ValueError):
        return _EPOCH


def _item_change(kind: str, item: IntelItem, names: dict[str, str]) -> dict[str, Any]:
    at = item.published_at if kind == "news" and item.published_at else item.created_at
    return {
        "kind": kind,
        "at": iso(_when(at)),
        "competitorId": item.competitor_id,
        "competitorName": names.get(item.competitor_id, ""),
        "title": item.title or item.url or "",
        "intelId": item.id,
        "sourceUrl": item.url,
        "changes": item.changes if kind == "page" else None,
    }


def latest_changes(
    workspace_id: str, names: dict[str, str], limit: int = CHANGES_SHOWN
) -> list[dict[str, Any]]:
    """The newest ``limit`` changes across competitors (see the module docstring);
    ``names``: competitor id -> name."""
    found: list[dict[str, Any]] = []
    owned = (Offering.workspace == workspace_id) & Offering.competitor.is_null(False)
    products = (
        Offering.select(Offering.id, Offering.competitor, Offering.name, Offering.created_at)
        .where(owned)
        .order_by(Offering.created_at.desc(), Offering.id.desc())
        .limit(limit)
    )
    for row in products:
        found.append(
            {
                "kind": "product",
                "at": iso(row.created_at),
                "competitorId": row.competitor_id,
                "competitorName": names.get(row.competitor_id, ""),
                "title": row.name,
                "offeringId": row.id,
            }
        )
    priced = Offering.select(
        Offering.id, Offering.competitor, Offering.name, Offering.pricing_changes
    ).where(
        # Compared as stored JSON (TEXT on SQLite, JSONB on PostgreSQL): not empty.
        owned & Offering.pricing_changes.is_null(False) & (Offering.pricing_changes != SQL("'[]'"))
    )
    for row in priced:
        for change in (row.pricing_changes or [])[:limit]:  # newest first already
            found.append(
                {
                    "kind": "price",
                    "at": iso(_when(change.get("detectedAt"))),
                    "competitorId": row.competitor_id,
                    "competitorName": names.get(row.competitor_id, ""),
                    "title": row.name,
                    "offeringId": row.id,
                    "priceChange": change,
                }
            )
    mine = (IntelItem.workspace == workspace_id) & IntelItem.competitor.is_null(False)
    news = (
        IntelItem.select(*_ITEM_FIELDS)
        .where(mine & (IntelItem.source_type == "NEWS"))
        .order_by(IntelItem.published_at.desc(nulls="LAST"), IntelItem.seq.desc())
        .limit(limit)
    )
    found.extend(_item_change("news", item, names) for item in news)
    pages = (
        IntelItem.select(*_ITEM_FIELDS)
        .where(mine & IntelItem.previous_item.is_null(False) & (IntelItem.source_type != "NEWS"))
        .order_by(IntelItem.seq.desc())
        .limit(limit)
    )
    found.extend(_item_change("page", item, names) for item in pages)
    found.sort(key=lambda entry: _when(entry["at"]), reverse=True)
    return found[:limit]


def home(workspace_id: str) -> dict[str, Any]:
    """The home page: competitors (as REST lists them), running jobs, latest changes."""
    rows = competitors.list_competitors(workspace_id)
    listed = [competitors.competitor_to_dict(r) for r in rows]
    names = {c["id"]: c["name"] for c in listed}
    return {
        "competitors": listed,
        "jobs": running_jobs(workspace_id),
        "changes": latest_changes(workspace_id, names),
        "competitorNames": names,
    }


def competitor_offerings(workspace_id: str, competitor_id: str) -> list[dict[str, Any]]:
    query = (
        Offering.select()
        .where(Offering.workspace == workspace_id, Offering.competitor == competitor_id)
        .order_by(Offering.created_at, Offering.id)
    )
    return [offerings.offering_to_dict(row) for row in query]


def competitor_people(workspace_id: str, competitor_id: str) -> list[dict[str, Any]]:
    """The competitor's PERSON graph nodes, in the knowledge graph's node ``data`` shape
    (name, title, founder, evidenceIds, quotes)."""
    query = (
        GraphNode.select()
        .where(
            GraphNode.workspace == workspace_id,
            GraphNode.label == "PERSON",
            GraphNode.ref_type == "competitor",
            GraphNode.ref_id == competitor_id,
        )
        .order_by(GraphNode.name, GraphNode.id)
    )
    return [graph_node_data(node) for node in query]


def competitor_news(workspace_id: str, competitor_id: str) -> list[dict[str, Any]]:
    query = (
        IntelItem.select()
        .where(
            IntelItem.workspace == workspace_id,
            IntelItem.competitor == competitor_id,
            IntelItem.source_type == "NEWS",
        )
        # Newest by the date the page states: a collect stores a site's news newest first,
        # so the newest stored item is the oldest post.
        .order_by(IntelItem.published_at.desc(nulls="LAST"), IntelItem.seq.desc())
        .limit(NEWS_SHOWN)
    )
    return [intel.intel_to_dict(item) for item in query]


def competitor_page(workspace_id: str, competitor_id: str) -> dict[str, Any]:
    """Everything the competitor page shows; 404 for a competitor not in the workspace."""
    row = competitors.get_competitor(workspace_id, competitor_id)
    own = offerings.list_offerings(workspace_id, own_only=True)
    product_names = {p.id: p.name for p in own}
    cards = battlecards.list_battlecards(workspace_id, competitor_id=row.id)
    timeline = intel.list_intel(workspace_id, competitor_id=row.id, limit=TIMELINE_SHOWN)
    return {
        "competitor": competitors.competitor_to_dict(row),
        "currentJob": competitors.job_summary(competitors.current_job(workspace_id, row.id)),
        "offerings": competitor_offerings(workspace_id, row.id),
        "timeline": [intel.intel_to_dict(item) for item in timeline],
        "people": competitor_people(workspace_id, row.id),
        "news": competitor_news(workspace_id, row.id),
        "deals": [deals.deal_to_dict(d) for d in deals.list_deals(workspace_id, row.id)],
        "battlecards": [battlecards.battlecard_to_dict(c) for c in cards],
        "products": [{"id": p.id, "name": p.name} for p in own],
        "productNames": product_names,
        "jobs": running_jobs(workspace_id, row.id),
    }
