"""Overviews for people: what the home and competitor pages show, read in a few queries.

Every record is the same dict REST answers (``competitor_to_dict``, ``offering_to_dict``,
``intel_to_dict``, ``job_to_dict``, ``deal_to_dict``, ``battlecard_to_dict``); this module
only gathers them, so a page never shows data the API would not.

``latest_changes`` merges four kinds of change across the workspace's competitors, newest
first: ``product`` (a competitor's offering created), ``price`` (an entry of an offering's
``pricingChanges``), ``news`` (a NEWS intel item) and ``page`` (an intel item that follows
an earlier version, with its ``changes``). Each kind is one query, whatever the number of
competitors.

``competitor_page`` gathers one tab of the competitor page (``TABS``, the summary first);
the news and the intel timeline are ordered by the date the page states and paged here
(``PAGE_SIZE`` a page), so templates only show what they are given.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from peewee import SQL, fn

from ci_service.errors import ValidationFailed
from ci_service.jobs.registry import REGISTRY
from ci_service.services.battlecards import cards as battlecards
from ci_service.services.graph.nodes import node_data as graph_node_data
from ci_service.services.intel import items as intel
from ci_service.services.workspace import competitors, deals, jobs, offerings
from ci_service.store.competitors import TIERS, Competitor
from ci_service.store.db import transaction
from ci_service.store.graph import GraphNode
from ci_service.store.intel import IntelItem
from ci_service.store.jobs import Job
from ci_service.store.resources import Offering
from ci_service.timeutil import iso, parse_datetime

CHANGES_SHOWN = 20
PAGE_SIZE = 20  # intel timeline and news entries per page of the competitor page
SUMMARY_NEWS = 5  # the latest news on the competitor page's summary
SUMMARY_PEOPLE = 6
JOBS_SHOWN = 20
# The competitor page's tabs (``?tab=``), the summary first and by default.
TABS = ("summary", "products", "intel", "people", "news", "deals", "battlecards", "jobs")
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
    """The competitor's offerings, those they still list first (a retired one, which a
    collect no longer finds, stays for the record: ``isActive`` false)."""
    query = (
        Offering.select()
        .where(Offering.workspace == workspace_id, Offering.competitor == competitor_id)
        .order_by(Offering.created_at, Offering.id)
    )
    rows = [offerings.offering_to_dict(row) for row in query]
    return sorted(rows, key=lambda o: not o["isActive"])


def competitor_people(workspace_id: str, competitor_id: str) -> list[dict[str, Any]]:
    """The competitor's PERSON graph nodes, in the knowledge graph's node ``data`` shape
    (name, title, founder, evidenceIds, quotes); founders first, then by name."""
    query = GraphNode.select().where(
        GraphNode.workspace == workspace_id,
        GraphNode.label == "PERSON",
        GraphNode.ref_type == "competitor",
        GraphNode.ref_id == competitor_id,
    )
    people = [graph_node_data(node) for node in query.order_by(GraphNode.name, GraphNode.id)]
    return sorted(people, key=lambda person: not person.get("founder"))


def page_number(value: Any) -> int:
    """``?page=`` as a whole number from 1 (absent: 1); a clear 400 otherwise."""
    if value in (None, ""):
        return 1
    text = str(value).strip()
    if not text.isdigit() or int(text) < 1:
        raise ValidationFailed.field("page", "must be a whole number from 1")
    return int(text)


def _paged(query: Any, page: int, per_page: int = PAGE_SIZE) -> dict[str, Any]:
    """One page of ``query`` (already ordered): items as REST shows intel items, the page,
    the number of pages (at least 1) and the total. A page past the last is a 400 naming
    the last, not an empty list that looks like "nothing collected"."""
    total = query.count()
    pages = max(1, -(-total // per_page))
    if page > pages:
        raise ValidationFailed.field("page", f"there are {pages} page(s); {page} is past the last")
    rows = query.limit(per_page).offset((page - 1) * per_page)
    return {
        "items": [intel.intel_to_dict(item) for item in rows],
        "page": page,
        "pages": pages,
        "total": total,
    }


def _competitor_items(workspace_id: str, competitor_id: str) -> Any:
    return IntelItem.select().where(
        IntelItem.workspace == workspace_id, IntelItem.competitor == competitor_id
    )


def competitor_news(
    workspace_id: str, competitor_id: str, page: int = 1, per_page: int = PAGE_SIZE
) -> dict[str, Any]:
    """The competitor's news and press items (``NEWS``, not changed pages), newest first by
    the date the item states; items without a stated date last, newest collected first.
    A collect stores a site's news newest first, so the newest stored item is the oldest
    post: the stored order is no guide."""
    query = (
        _competitor_items(workspace_id, competitor_id)
        .where(IntelItem.source_type == "NEWS")
        .order_by(IntelItem.published_at.desc(nulls="LAST"), IntelItem.seq.desc())
    )
    return _paged(query, page, per_page)


def competitor_timeline(
    workspace_id: str, competitor_id: str, page: int = 1, per_page: int = PAGE_SIZE
) -> dict[str, Any]:
    """Every intel item of the competitor, newest first by the date shown beside it: the
    date the page states when it states one, else when it was collected."""
    shown = fn.COALESCE(IntelItem.published_at, IntelItem.created_at)
    query = _competitor_items(workspace_id, competitor_id).order_by(
        shown.desc(), IntelItem.seq.desc()
    )
    return _paged(query, page, per_page)


def competitor_page(
    workspace_id: str, competitor_id: str, tab: str | None = None, page: Any = None
) -> dict[str, Any]:
    """What the competitor page shows on ``tab`` (default the summary): the competitor and
    its running jobs on every tab, then the tab's own records; list tabs are paged.
    404 for a competitor not in the workspace (before the tab and page are read, so a
    foreign id is the same 404 whatever the query); 400 for an unknown tab or a bad page."""
    row = competitors.get_competitor(workspace_id, competitor_id)
    tab = tab or "summary"
    if tab not in TABS:
        raise ValidationFailed.field("tab", f"must be one of {', '.join(TABS)}")
    number = page_number(page)
    own = offerings.list_offerings(workspace_id, own_only=True)
    cards = battlecards.list_battlecards(workspace_id, competitor_id=row.id)
    against = deals.list_deals(workspace_id, row.id)
    items = _competitor_items(workspace_id, row.id)
    data: dict[str, Any] = {
        "tab": tab,
        "competitor": competitors.competitor_to_dict(row),
        "currentJob": competitors.job_summary(competitors.current_job(workspace_id, row.id)),
        "jobs": running_jobs(workspace_id, row.id),
        "products": [{"id": p.id, "name": p.name} for p in own],
        "productNames": {p.id: p.name for p in own},
        # Newest first: the summary links the latest card.
        "battlecards": [battlecards.battlecard_to_dict(c) for c in reversed(cards)],
        "deals": [deals.deal_to_dict(d) for d in against],
        # How many entries the list tabs hold (in the tabs' labels).
        "counts": {
            "intel": items.count(),
            "news": items.where(IntelItem.source_type == "NEWS").count(),
        },
    }
    if tab in ("summary", "products"):
        data["offerings"] = competitor_offerings(workspace_id, row.id)
        # Every plan of every offering they still list, for the summary's pricing table.
        data["plans"] = [
            {**plan, "offeringName": o["name"]}
            for o in data["offerings"]
            if o["isActive"]
            for plan in o.get("pricing") or []
        ]
    if tab in ("summary", "people"):
        data["people"] = competitor_people(workspace_id, row.id)
    if tab == "summary":
        data["news"] = competitor_news(workspace_id, row.id, 1, SUMMARY_NEWS)
    elif tab == "news":
        data["news"] = competitor_news(workspace_id, row.id, number)
    elif tab == "intel":
        data["timeline"] = competitor_timeline(workspace_id, row.id, number)
    elif tab == "jobs":
        listed = jobs.list_jobs(workspace_id, competitor_id=row.id, limit=JOBS_SHOWN)
        data["allJobs"] = [jobs.job_to_dict(j) for j in listed]
    return data
