"""Events: tell people what changed, from the change itself.

:func:`emit` is called by the service or pipeline step that makes a change, inside its
transaction (the event commits or rolls back with the change). Types, importance and what
``data`` holds:

==============================  ==========  ===============================================
type                            importance  data
==============================  ==========  ===============================================
``competitor.price_changed``    high        {offeringId, plan, change, old, new}
``competitor.product_added``    normal      {offeringId, name}
``competitor.product_removed``  normal      {offeringId, name}
``competitor.news``             normal      {intelId, url, publishedAt}
``competitor.person_added``     normal      {name, title}
``competitor.person_removed``   normal      {name, title}
``competitor.page_changed``     low         {intelId, previousItemId, url, added, removed}
``battlecard.updated``          normal      {battlecardId, productId, mode}
``deal.recorded``               normal      {dealId, outcome, prospect}
``job.failed``                  normal      {jobId, jobType, error}
``subscription.paused``         high        {subscriptionId, reason}
``subscription.disabled``       high        {subscriptionId, reason}
==============================  ==========  ===============================================

Competitor changes also carry where they were read, when known: ``url`` (the source page),
``quote`` (the line that states the change, verbatim) and ``quoteUrl`` (``url`` with a
text fragment, ``#:~:text=``, that opens the page at the quote).

``competitor.price_changed`` covers the three kinds of pricing change record: ``change``
is ``price_changed``, ``plan_added`` (``old`` null) or ``plan_removed`` (``new`` null);
``old``/``new`` are the plan's terms {price, currency, period, unit, onRequest}.
Which code emits each type, and the rules (nothing from a competitor's first collect, the
page-change noise filter, a card's first content), are in ``services.alerts.changes``.

Every event has a title and a short plain-language summary, the evidence ids behind it and
a link to the record: stored as a page path of the web app, listed absolute (the
``public_url`` setting, else serve's own address, in front). ``GET /api/events`` and the
``list_events`` tool list them newest first, filtered by type, competitor, time and minimum
importance.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from peewee import SQL, fn

from ci_service.errors import ValidationFailed
from ci_service.services.common.records import get_competitor
from ci_service.store import statements
from ci_service.store.db import joined_transaction
from ci_service.store.events import EVENT_TYPES, IMPORTANCE, Event, EventRead
from ci_service.timeutil import iso, parse_datetime

DEFAULT_IMPORTANCE = {
    "competitor.price_changed": "high",
    "competitor.page_changed": "low",
    "subscription.paused": "high",
    "subscription.disabled": "high",
}
LIST_CAP = 1000
MAX_TEXT = 500

# Called with each new event inside its transaction: alerts' fan-out (``on_emit``).
_LISTENERS: list[Callable[[Event], None]] = []


def on_emit(listener: Callable[[Event], None]) -> None:
    """Call ``listener(event)`` for every event emitted from now on, in its transaction."""
    if listener not in _LISTENERS:
        _LISTENERS.append(listener)


def emit(
    workspace_id: str,
    event_type: str,
    title: str,
    summary: str = "",
    *,
    competitor_id: str | None = None,
    importance: str | None = None,
    evidence_ids: list[str] | None = None,
    link: str | None = None,
    data: dict[str, Any] | None = None,
) -> Event:
    """Record an event, in the caller's transaction when one is open (no savepoint: the
    event commits or fails with the change it tells of), else in one of its own."""
    if event_type not in EVENT_TYPES:
        raise ValueError(f"unknown event type {event_type}")
    level = importance or DEFAULT_IMPORTANCE.get(event_type, "normal")
    if level not in IMPORTANCE:
        raise ValueError(f"unknown importance {level}")
    with joined_transaction():
        event = Event(
            workspace=workspace_id,
            type=event_type,
            competitor_id=competitor_id,
            title=" ".join(str(title).split())[:MAX_TEXT],
            summary=" ".join(str(summary).split())[:2000],
            importance=level,
            evidence_ids=list(dict.fromkeys(i for i in evidence_ids or [] if i)),
            link=link,
            data=data or {},
        )
        statements.insert_model(event)  # Event.create, with its SQL built once
        # Deliveries for the matching subscriptions, and the job that sends them, commit
        # with the event (services/alerts/delivery.py's fan-out, registered when
        # ci_service.services loads): a crash after the commit loses nothing.
        for listener in _LISTENERS:
            listener(event)
        return event


def _since(value: Any) -> datetime | None:
    if value in (None, ""):
        return None
    try:
        return parse_datetime(value)
    except ValueError:
        raise ValidationFailed.field("since", "an ISO 8601 date-time") from None


def filtered_events(
    workspace_id: str,
    *,
    event_type: str | None = None,
    competitor_id: str | None = None,
    since: Any = None,
    importance: str | None = None,
):
    """The query of the workspace's events the filters keep, unordered: a bad type or
    importance is a 400, another workspace's ``competitorId`` a 404 (as for jobs);
    ``importance`` is a minimum (``normal`` keeps normal and high)."""
    if event_type is not None and event_type not in EVENT_TYPES:
        raise ValidationFailed.field("type", f"one of {', '.join(EVENT_TYPES)}")
    if importance is not None and importance not in IMPORTANCE:
        raise ValidationFailed.field("importance", f"one of {', '.join(IMPORTANCE)}")
    query = Event.select().where(Event.workspace == workspace_id)
    if competitor_id is not None:
        get_competitor(workspace_id, competitor_id)  # 404 for a foreign or missing one
        query = query.where(Event.competitor_id == competitor_id)
    if event_type is not None:
        query = query.where(Event.type == event_type)
    if importance is not None:
        query = query.where(Event.importance.in_(IMPORTANCE[IMPORTANCE.index(importance) :]))
    when = _since(since)
    if when is not None:
        query = query.where(Event.created_at >= when)
    return query


def unread_by(user_id: str):
    """The condition "``user_id`` has no read mark on the event" (a correlated NOT EXISTS
    the (user, event) unique index answers; read marks: ``services.alerts.reads``)."""
    marks = EventRead.select(SQL("1")).where(
        (EventRead.user == user_id) & (EventRead.event == Event.id)
    )
    return ~fn.EXISTS(marks)


def list_events(
    workspace_id: str,
    *,
    event_type: str | None = None,
    competitor_id: str | None = None,
    since: Any = None,
    importance: str | None = None,
    limit: int | None = None,
    offset: int | None = None,
    unread_for: str | None = None,
) -> list[Event]:
    """The workspace's events the filters keep (:func:`filtered_events`), newest first, at
    most ``LIST_CAP``; ``unread_for``: only those that person has not read."""
    query = filtered_events(
        workspace_id,
        event_type=event_type,
        competitor_id=competitor_id,
        since=since,
        importance=importance,
    )
    if unread_for is not None:
        query = query.where(unread_by(unread_for))
    cap = LIST_CAP if limit is None else min(max(int(limit), 1), LIST_CAP)
    query = query.order_by(Event.created_at.desc(), Event.id.desc())
    return list(query.offset(max(int(offset or 0), 0)).limit(cap))


def absolute_link(link: str | None, public_url: str | None = None) -> str | None:
    """``public_url`` (default: the setting, else serve's address) + a page path; an
    absolute http(s) link stays as it is."""
    if not link:
        return None
    if link.startswith(("http://", "https://")):
        return link
    if public_url is None:
        from ci_service.settings import load_settings

        public_url = load_settings().base_url
    return public_url.rstrip("/") + "/" + link.lstrip("/")


def event_to_dict(row: Event, public_url: str | None = None) -> dict[str, Any]:
    """An event as the API lists it; ``link`` absolute (see :func:`absolute_link`)."""
    return {
        "id": row.id,
        "workspaceId": row.workspace_id,
        "type": row.type,
        "competitorId": row.competitor_id,
        "title": row.title,
        "summary": row.summary,
        "importance": row.importance,
        "evidenceIds": list(row.evidence_ids or []),
        "link": absolute_link(row.link, public_url),
        "data": dict(row.data or {}),
        "createdAt": iso(row.created_at),
    }
