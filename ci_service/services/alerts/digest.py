"""Digests: one message per subscription per day or week, made by the hourly scan.

- Periods are UTC: a day runs from midnight to midnight (key ``daily:YYYY-MM-DD``), a week
  is an ISO week from Monday (``weekly:YYYY-Www``). The scan digests the last *complete*
  period; a period wholly missed while the service was down is not sent late.
- A digest holds the events of the period that match the subscription (same rules as
  single events; events from before the subscription was created are left out), grouped by
  competitor (events without one under "Workspace"), groups ordered by their most
  important event, events by importance (high first) then time. At most ``MAX_EVENTS``
  events are listed; ``omitted`` counts the rest.
- One thing, once (issue 29): of several ``battlecard.updated`` events of one battlecard
  (``data.battlecardId``), or ``competitor.page_changed`` events of one page (``data.url``),
  a digest lists the latest only (``latest_per_thing``).
- Nothing is created when nothing happened. At most one digest delivery exists per
  subscription and key (a unique index backs the check), and ``last_digest_at`` records the
  period end so later scans skip it. The scan skips paused and disabled subscriptions;
  resumed, the next scan makes the last complete period's digest if it was not made.
- **On demand** (:func:`make_digest_now`, issue 29): the events since the last digest (the
  later of ``last_digest_at`` and the end of the last on-demand digest; without either the
  last day, or week for a weekly subscription) up to now, key ``now:<ISO time>``. It does
  not touch ``last_digest_at``: the scheduled digest still comes, with its whole period.
- Sent like any delivery: the JSON to a webhook; to Apprise as HTML e-mail (with a
  plain-text alternative) or a Markdown chat message.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from peewee import IntegrityError

from ci_service.services.alerts.delivery import ensure_job, importance_at_least, new_message_id
from ci_service.services.alerts.events import event_to_dict
from ci_service.services.alerts.messages import absolute
from ci_service.services.alerts.muting import unmuted
from ci_service.settings import Settings, load_settings
from ci_service.store.alerts import Delivery, Subscription
from ci_service.store.competitors import Competitor
from ci_service.store.db import transaction
from ci_service.store.events import IMPORTANCE, Event
from ci_service.timeutil import iso, parse_datetime, utcnow

log = logging.getLogger("ci_service.delivery")

MAX_EVENTS = 500
WORKSPACE_GROUP = "Workspace"
NOW_PREFIX = "now:"
# Event types whose later event of the same thing supersedes the earlier: data field naming it.
SAME_THING = {"battlecard.updated": "battlecardId", "competitor.page_changed": "url"}


def last_period(period: str, now: datetime) -> tuple[str, datetime, datetime]:
    """(key, start, end) of the last complete ``daily`` or ``weekly`` period before ``now``."""
    now = now.astimezone(UTC)
    midnight = datetime(now.year, now.month, now.day, tzinfo=UTC)
    if period == "daily":
        start = midnight - timedelta(days=1)
        return f"daily:{start.date().isoformat()}", start, midnight
    if period == "weekly":
        end = midnight - timedelta(days=midnight.weekday())  # this week's Monday
        start = end - timedelta(days=7)
        year, week, _ = start.isocalendar()
        return f"weekly:{year}-W{week:02d}", start, end
    raise ValueError(f"unknown digest period {period}")


def period_events(sub: Subscription, start: datetime, end: datetime) -> list[Event]:
    since = max(start, sub.created_at) if sub.created_at else start
    query = Event.select().where(
        Event.workspace == sub.workspace_id, Event.created_at >= since, Event.created_at < end
    )
    if sub.event_types:
        query = query.where(Event.type.in_(list(sub.event_types)))
    if sub.competitor_ids:
        query = query.where(Event.competitor_id.in_(list(sub.competitor_ids)))
    rows = query.order_by(Event.created_at, Event.id)

    return unmuted(sub, [e for e in rows if importance_at_least(e.importance, sub.min_importance)])


def latest_per_thing(events: list[Event]) -> list[Event]:
    """``events`` without the superseded ones (``SAME_THING``), in their order."""
    latest: dict[tuple[str, str], Event] = {}
    for event in events:
        thing = _thing(event)
        if thing is None:
            continue
        kept = latest.get(thing)
        if kept is None or (event.created_at, event.id) > (kept.created_at, kept.id):
            latest[thing] = event
    return [e for e in events if (thing := _thing(e)) is None or latest[thing] is e]


def _thing(event: Event) -> tuple[str, str] | None:
    field = SAME_THING.get(event.type)
    value = (event.data or {}).get(field) if field else None
    return (event.type, str(value)) if value else None


def _rank(level: str) -> int:
    return IMPORTANCE.index(level) if level in IMPORTANCE else 0


def build_digest(
    sub: Subscription,
    key: str,
    start: datetime,
    end: datetime,
    events: list[Event],
    public_url,
    period: str | None = None,
) -> dict[str, Any]:
    """The digest payload (see ``services.alerts.delivery``'s docstring). ``period``: daily or
    weekly (default: the subscription's)."""
    period = period or sub.digest
    events = latest_per_thing(events)
    ordered = sorted(events, key=lambda e: (-_rank(e.importance), e.created_at, e.id))
    listed, omitted = ordered[:MAX_EVENTS], max(len(ordered) - MAX_EVENTS, 0)
    ids = {e.competitor_id for e in listed if e.competitor_id}
    names = dict(
        Competitor.select(Competitor.id, Competitor.name)
        .where(Competitor.id.in_(list(ids)))
        .tuples()
    )
    groups: dict[str | None, dict[str, Any]] = {}
    for event in listed:
        cid = event.competitor_id
        group = groups.setdefault(
            cid,
            {
                "competitorId": cid,
                "competitorName": names.get(cid, cid) if cid else WORKSPACE_GROUP,
                "url": absolute(f"/competitors/{cid}", public_url) if cid in names else None,
                "events": [],
            },
        )
        group["events"].append(
            {**event_to_dict(event, public_url), "url": absolute(event.link, public_url)}
        )
    ranked = sorted(
        groups.values(),
        key=lambda g: (-_rank(g["events"][0]["importance"]), g["competitorName"].lower()),
    )
    return {
        "type": f"digest.{period}",
        "timestamp": iso(end),
        "data": {
            "digest": {
                "key": key,
                "period": period,
                "start": iso(start),
                "end": iso(end),
                "eventCount": len(ordered),
                "omitted": omitted,
                "competitors": ranked,
            }
        },
    }


def make_digest(
    sub: Subscription, now: datetime, config: Settings | None = None
) -> Delivery | None:
    """The digest delivery of ``sub``'s last complete period, if one is due and non-empty."""
    key, start, end = last_period(sub.digest, now)
    if sub.last_digest_at is not None and sub.last_digest_at >= end:
        return None
    config = config or load_settings()
    with transaction():
        made = None
        exists = (
            Delivery.select()
            .where(Delivery.subscription == sub.id, Delivery.digest_key == key)
            .exists()
        )
        if not exists and (sub.created_at is None or sub.created_at < end):
            events = period_events(sub, start, end)
            if events:
                made = _create(
                    sub, key, now, build_digest(sub, key, start, end, events, config.base_url)
                )
        Subscription.update(last_digest_at=end).where(Subscription.id == sub.id).execute()
    return made


def _create(sub: Subscription, key: str, now: datetime, payload: dict[str, Any]) -> Delivery:
    """The digest delivery, due now, and the job that sends it (in the caller's
    transaction)."""
    made = Delivery.create(
        workspace=sub.workspace_id,
        subscription=sub,
        kind="digest",
        digest_key=key,
        message_id=new_message_id(),
        payload=payload,
        next_attempt_at=now,
    )
    ensure_job(sub.workspace_id)
    return made


def digest_since(sub: Subscription, now: datetime) -> datetime:
    """Where an on-demand digest starts: the later of ``last_digest_at`` and the end of the
    last on-demand digest made (not failed); else a week ago (weekly) or a day ago."""
    marks = [sub.last_digest_at] if sub.last_digest_at is not None else []
    last = (
        Delivery.select(Delivery.digest_key)
        .where(
            Delivery.subscription == sub.id,
            Delivery.kind == "digest",
            Delivery.digest_key.startswith(NOW_PREFIX),
            Delivery.status.in_(("pending", "delivered")),
        )
        .order_by(Delivery.created_at.desc(), Delivery.id.desc())
        .first()
    )
    if last is not None:
        marks.append(parse_datetime(last.digest_key[len(NOW_PREFIX) :]))
    if marks:
        return min(max(marks), now)
    return now - timedelta(days=7 if sub.digest == "weekly" else 1)


def make_digest_now(
    sub: Subscription, now: datetime | None = None, config: Settings | None = None
) -> tuple[Delivery | None, str | None]:
    """An on-demand digest of ``sub`` (any ``digest`` setting) and the job that sends it:
    (delivery, None), or (None, why not) when no matching event happened."""
    now = now or utcnow()
    start = digest_since(sub, now)
    events = period_events(sub, start, now)
    if not events:
        return None, f"No matching events since {iso(start)}"
    config = config or load_settings()
    key = NOW_PREFIX + iso(now)
    period = "weekly" if sub.digest == "weekly" else "daily"
    with transaction():
        made = _create(
            sub, key, now, build_digest(sub, key, start, now, events, config.base_url, period)
        )
    return made, None


def enqueue_due_digests(now: datetime | None = None) -> list[Delivery]:
    """The hourly scan: make every active digest subscription's due digest."""
    now = now or utcnow()
    config = load_settings()
    made = []
    subscriptions = Subscription.select().where(
        Subscription.status == "active", Subscription.digest.in_(("daily", "weekly"))
    )
    for sub in subscriptions:
        try:
            row = make_digest(sub, now, config)
        except IntegrityError:  # made meanwhile by another process: nothing to do
            continue
        if row is not None:
            made.append(row)
    if made:
        log.info("made %d digest(s)", len(made))
    return made


__all__ = [
    "build_digest",
    "digest_since",
    "enqueue_due_digests",
    "last_period",
    "latest_per_thing",
    "make_digest",
    "make_digest_now",
    "period_events",
]
