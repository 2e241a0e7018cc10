"""Competitors: create (plan limit, analysis job), read, update, delete.

The plan limit is counted and the row inserted inside one IMMEDIATE transaction, so
parallel creates are serialized and can never overshoot it. Creating a competitor queues
its ``collect`` job in the same transaction.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import marshmallow as ma
from marshmallow.validate import Range

from ci_service.errors import UpgradeRequired
from ci_service.jobs.queue import enqueue
from ci_service.services.common import cleanup
from ci_service.services.common.fields import (
    ITEM_ID,
    MAX_ITEMS,
    NAME,
    Bool,
    Enum,
    InputSchema,
    Int,
    Items,
    JsonObject,
    Links,
    Profile,
    Strings,
    Url,
    fail,
    load,
    normalize_items,
    unique,
)

# One definition for every domain (common/records.py); part of this module's API too.
from ci_service.services.common.records import get_competitor  # noqa: F401
from ci_service.services.graph import sync as graph_sync
from ci_service.services.workspace.offerings import delete_competitor_offerings
from ci_service.services.workspace.products import missing_products
from ci_service.store.analysis import Battlecard, MatrixCell, SolutionCell
from ci_service.store.competitors import TIERS, Competitor
from ci_service.store.db import transaction
from ci_service.store.graph import GraphNode
from ci_service.store.identity import PLANS
from ci_service.store.intel import IntelItem
from ci_service.store.jobs import Job
from ci_service.store.json_rows import JsonList, JsonText, Key
from ci_service.store.resources import Deal, Offering
from ci_service.timeutil import iso, utcnow


class CompetitorCreateSchema(InputSchema):
    name = ma.fields.String(required=True, validate=NAME)
    websiteUrl = Url(required=True)
    isFirstRun = Bool(
        load_default=False, metadata={"description": "true triggers the full pipeline"}
    )
    relevantProductIds = Strings(ITEM_ID, metadata={"description": "products it competes with"})


class CompetitorUpdateSchema(InputSchema):
    name = ma.fields.String(validate=NAME)
    websiteUrl = Url()
    tags = Strings(NAME)
    priority = Int(validate=Range(1, 1000))
    tier = Enum(tuple(TIERS), metadata={"description": "also sets refreshRate (7/30/90 days)"})
    products = ma.fields.List(JsonObject(), validate=MAX_ITEMS)
    categories = Items()
    relevantProductIds = Strings(ITEM_ID)
    companyProfile = Profile()
    companyStrengths = Strings()
    companyWeaknesses = Strings()
    referenceLinks = Links()
    keyMessaging = Strings()


def _check_products(workspace_id: str, ids: list[str]) -> list[str]:
    ids = unique(ids)
    missing = missing_products(workspace_id, ids)
    if missing:
        raise fail({"relevantProductIds": [f"unknown product ids: {', '.join(missing)}"]})
    return ids


def _next_plan(plan: str) -> str:
    index = PLANS.index(plan) if plan in PLANS else 0
    return PLANS[min(index + 1, len(PLANS) - 1)]


def create_competitor(
    workspace_id: str,
    data: dict[str, Any],
    *,
    plan: str = "ENTERPRISE",
    limit: int | None = None,
) -> tuple[Competitor, Job]:
    """Create a PENDING competitor and queue its analysis; ``limit`` None = unlimited."""
    values = load(CompetitorCreateSchema, data)
    first_run = values.get("isFirstRun", False)
    with transaction():
        product_ids = _check_products(workspace_id, values.get("relevantProductIds", []))
        if limit is not None:
            count = Competitor.select().where(Competitor.workspace == workspace_id).count()
            if count >= limit:
                raise UpgradeRequired(
                    f"The {plan} plan allows {limit} competitors; upgrade to add more",
                    requiredPlan=_next_plan(plan),
                    currentPlan=plan,
                    limit=limit,
                    currentCount=count,
                )
        row = Competitor.create(
            workspace=workspace_id,
            name=values["name"],
            website_url=values["websiteUrl"],
            relevant_product_ids=product_ids,
        )
        job = enqueue(
            workspace_id,
            "collect",
            competitor_id=row.id,
            metadata={
                "competitorName": row.name,
                "isFirstRun": first_run,
                "productIds": product_ids,
            },
            payload={"isFirstRun": first_run},
        )
        graph_sync.sync_competitor(row)
    return row, job


def list_competitors(
    workspace_id: str,
    product_id: str | None = None,
    *,
    limit: int | None = None,
    offset: int | None = None,
) -> list[Competitor]:
    """The workspace's competitors; ``product_id``: only those competing with it.

    Read-only ``CompetitorRow``s (the columns as attributes, ``workspace_id`` for the
    workspace), not models: the list is read on every dashboard poll, and building a model
    per row was a third of the request (issue 16)."""
    rows = _list_rows(workspace_id)
    if product_id is not None:
        rows = [r for r in rows if product_id in (r.relevant_product_ids or [])]
    start = offset or 0
    return rows[start : start + (1000 if limit is None else min(limit, 1000))]


class CompetitorRow:
    """One listed competitor: the model's columns as plain attributes, read-only use."""

    __slots__ = tuple(
        f.column_name if f.name == "workspace" else f.name for f in Competitor._meta.sorted_fields
    )

    def __init__(self, values):
        for name, value in zip(self.__slots__, values, strict=True):
            setattr(self, name, value)


_LIST_SQL: dict[str, str] = {}  # by backend: the statement is built once, not per request


def _list_rows(workspace_id: str) -> list[CompetitorRow]:
    from ci_service.store.db import database

    backend = getattr(database.obj, "backend", "sqlite")
    sql = _LIST_SQL.get(backend)
    if sql is None:
        query = (
            Competitor.select(*Competitor._meta.sorted_fields)
            .where(Competitor.workspace == "")
            .order_by(Competitor.created_at, Competitor.id)
        )
        sql = _LIST_SQL[backend] = query.sql()[0]
    # FK columns convert to their key's type, the rest by their own field type.
    converters = [
        f.rel_field.python_value if f.name == "workspace" else f.python_value
        for f in Competitor._meta.sorted_fields
    ]
    rows = database.execute_sql(sql, (workspace_id,)).fetchall()
    return [
        CompetitorRow(
            [None if v is None else conv(v) for conv, v in zip(converters, row, strict=True)]
        )
        for row in rows
    ]


_PLAIN = {
    "name": "name",
    "websiteUrl": "website_url",
    "tags": "tags",
    "priority": "priority",
    "products": "products",
    "companyStrengths": "company_strengths",
    "companyWeaknesses": "company_weaknesses",
    "referenceLinks": "reference_links",
    "keyMessaging": "key_messaging",
}


def update_competitor(workspace_id: str, competitor_id: str, data: dict[str, Any]) -> Competitor:
    values = load(CompetitorUpdateSchema, data)
    with transaction():
        row = get_competitor(workspace_id, competitor_id)
        for key, attr in _PLAIN.items():
            if key in values:
                setattr(row, attr, values[key])
        if "tier" in values:
            row.tier = values["tier"]
            row.refresh_rate = TIERS[values["tier"]]
        if "categories" in values:
            row.categories = normalize_items("categories", values["categories"])
        if "relevantProductIds" in values:
            row.relevant_product_ids = _check_products(workspace_id, values["relevantProductIds"])
        if "companyProfile" in values:
            row.company_profile = {**(row.company_profile or {}), **values["companyProfile"]}
        row.updated_at = utcnow()
        row.save()
        graph_sync.sync_competitor(row)
    return row


def delete_competitor(workspace_id: str, competitor_id: str) -> None:
    """Delete with its offerings and graph nodes; deals keep their record, detached.

    Job rows are left alone: the job engine fails a job whose competitor vanished.
    """
    with transaction():
        row = get_competitor(workspace_id, competitor_id)
        cleanup.run("competitor", workspace_id, row.id)
        delete_competitor_offerings(workspace_id, row.id)
        Deal.update(competitor=None, updated_at=utcnow()).where(
            Deal.workspace == workspace_id, Deal.competitor == row.id
        ).execute()
        graph_sync.remove_competitor(workspace_id, row.id)
        row.delete_instance()


def website_key(url: str) -> str:
    """What makes two website addresses the same site for people: the host without its
    case or ``www.``, the port and path (no trailing slash) and the query; the scheme is
    ignored (``http://WWW.Globex.example/`` is ``https://globex.example``)."""
    parts = urlsplit((url or "").strip())
    if not parts.netloc and parts.path and not parts.scheme:
        parts = urlsplit("//" + parts.path)  # typed without a scheme: "globex.example/x"
    host = (parts.hostname or "").lower().rstrip(".")
    host = host.removeprefix("www.")
    try:
        port = parts.port
    except ValueError:
        port = None
    if port and port not in (80, 443):
        host = f"{host}:{port}"
    key = host + parts.path.rstrip("/")
    return f"{key}?{parts.query}" if parts.query else key


def tracked_website(workspace_id: str, url: str) -> Competitor | None:
    """The workspace's oldest competitor whose website is ``url`` by ``website_key``, if any:
    adding the same site twice would crawl it again and give the matrix two columns."""
    wanted = website_key(url)
    if not wanted:
        return None
    query = (
        Competitor.select(Competitor.id, Competitor.name, Competitor.website_url)
        .where(Competitor.workspace == workspace_id)
        .order_by(Competitor.created_at, Competitor.id)
    )
    return next((row for row in query if website_key(row.website_url) == wanted), None)


def deletion_summary(workspace_id: str, competitor_id: str) -> dict[str, int]:
    """What ``delete_competitor`` removes and keeps, counted (404 for a foreign id).

    Removed: intel items, offerings, battlecards, matrix and solution cells, people (graph
    nodes owned by the competitor). Kept: deals (detached: their competitor becomes
    empty) and the job history (a job still running fails when it next looks)."""
    row = get_competitor(workspace_id, competitor_id)

    def count(model, *where) -> int:
        return model.select().where(model.workspace == workspace_id, *where).count()

    return {
        "intelItems": count(IntelItem, IntelItem.competitor == row.id),
        "offerings": count(Offering, Offering.competitor == row.id),
        "battlecards": count(Battlecard, Battlecard.competitor == row.id),
        "matrixCells": count(MatrixCell, MatrixCell.competitor == row.id),
        "solutionCells": count(SolutionCell, SolutionCell.competitor == row.id),
        "people": count(
            GraphNode,
            GraphNode.ref_type == "competitor",
            GraphNode.ref_id == row.id,
            GraphNode.label == "PERSON",
        ),
        "dealsDetached": count(Deal, Deal.competitor == row.id),
        "jobsKept": count(Job, Job.competitor_id == row.id),
    }


def current_job(workspace_id: str, competitor_id: str) -> Job | None:
    """The competitor's newest running job, if any."""
    return (
        Job.select()
        .where(
            Job.workspace == workspace_id,
            Job.competitor_id == competitor_id,
            Job.status == "running",
        )
        .order_by(Job.created_at.desc(), Job.id.desc())
        .first()
    )


def job_summary(job: Job | None) -> dict[str, Any] | None:
    if job is None:
        return None
    return {
        "id": job.id,
        "status": job.status,
        "progress": job.progress,
        "currentStep": job.current_step,
    }


def list_competitors_json(
    workspace_id: str, product_id: str | None = None, *, limit: int, offset: int | None = None
) -> JsonText | None:
    """``list_competitors`` as the JSON array of ``competitor_to_dict``s, written by the
    database in one statement (store/json_rows.py); None where the caller must build it
    from rows instead. REST's list answer, read on every dashboard poll (issue 16)."""
    listing = _LIST_JSON if product_id is None else _LIST_JSON_FOR_PRODUCT
    params = (workspace_id,) if product_id is None else (workspace_id, product_id)
    return listing.fetch(params, min(limit, 1000), offset or 0)


# The keys of competitor_to_dict, in its order; tests/test_json_rows.py holds them equal.
_LIST_KEYS = (
    Key("id", "id"),
    Key("workspaceId", "workspace_id"),
    Key("name", "name"),
    Key("websiteUrl", "website_url"),
    Key("status", "status"),
    Key("tags", "tags", "json"),
    Key("priority", "priority"),
    Key("tier", "tier"),
    Key("refreshRate", "refresh_rate"),
    Key("products", "products", "json"),
    Key("categories", "categories", "json"),
    Key("relevantProductIds", "relevant_product_ids", "json"),
    Key("companyProfile", "company_profile", "json"),
    Key("companyStrengths", "company_strengths", "json"),
    Key("companyWeaknesses", "company_weaknesses", "json"),
    Key("referenceLinks", "reference_links", "json"),
    Key("keyMessaging", "key_messaging", "json"),
    Key("createdAt", "created_at", "time"),
    Key("lastRefreshAt", "last_refresh_at", "time", omit_null=True),
    Key("lastBattlecardAt", "last_battlecard_at", "time", omit_null=True),
)
_LIST_JSON = JsonList(
    table="competitor", keys=_LIST_KEYS, where="workspace_id = {param}", order="created_at, id"
)
_LIST_JSON_FOR_PRODUCT = JsonList(
    table="competitor",
    keys=_LIST_KEYS,
    where="workspace_id = {param} AND EXISTS "
    "(SELECT 1 FROM json_each(relevant_product_ids) WHERE value = {param})",
    where_postgres="workspace_id = {param} "
    "AND relevant_product_ids @> jsonb_build_array({param}::text)",
    order="created_at, id",
)


def competitor_to_dict(row: Competitor) -> dict[str, Any]:
    data = {
        "id": row.id,
        "workspaceId": row.workspace_id,
        "name": row.name,
        "websiteUrl": row.website_url,
        "status": row.status,
        "tags": row.tags,
        "priority": row.priority,
        "tier": row.tier,
        "refreshRate": row.refresh_rate,
        "products": row.products,
        "categories": row.categories,
        "relevantProductIds": row.relevant_product_ids,
        "companyProfile": row.company_profile,
        "companyStrengths": row.company_strengths,
        "companyWeaknesses": row.company_weaknesses,
        "referenceLinks": row.reference_links,
        "keyMessaging": row.key_messaging,
        "createdAt": iso(row.created_at),
    }
    # Absent (not null) until they happen, as the spec describes a new competitor.
    if row.last_refresh_at is not None:
        data["lastRefreshAt"] = iso(row.last_refresh_at)
    if row.last_battlecard_at is not None:
        data["lastBattlecardAt"] = iso(row.last_battlecard_at)
    return data
