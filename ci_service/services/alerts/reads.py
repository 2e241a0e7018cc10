"""Read marks on events, per signed-in person (the Changes page, issue 29).

An event is unread for a person until they open it, mark it read, or mark all read; they
can mark it unread again. A mark is theirs alone (``store.events.EventRead``: no
workspace column, so it is never workspace data and never empties the REST cache); a
VIEWER may set their own marks. Another workspace's or a missing event is 404.

Filters (``event_type``, ``competitor_id``, ``importance`` minimum) mean what they mean for
``services.alerts.events.list_events``, which lists a person's unread ones (``unread_for``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ci_service.errors import NotFound, ValidationFailed
from ci_service.services.alerts import events
from ci_service.store.db import transaction
from ci_service.store.events import Event, EventRead
from ci_service.timeutil import parse_datetime, utcnow

# The nav's badge counts this far ("99+"): one COUNT over at most this many rows.
UNREAD_COUNT_CAP = 100
INSERT_BATCH = 500


def get_event(workspace_id: str, event_id: str) -> Event:
    """One of the workspace's events; 404 for another workspace's or a missing one."""
    row = Event.get_or_none(Event.id == str(event_id), Event.workspace == workspace_id)
    if row is None:
        raise NotFound.of("Event")
    return row


def _matching(
    workspace_id: str,
    *,
    event_type: str | None = None,
    competitor_id: str | None = None,
    importance: str | None = None,
    until: Any = None,
):
    """The workspace's events the filters keep (``events.filtered_events``, its checks and
    errors), none newer than ``until``."""
    query = events.filtered_events(
        workspace_id, event_type=event_type, competitor_id=competitor_id, importance=importance
    )
    if until not in (None, ""):
        query = query.where(Event.created_at <= _until(until))
    return query


def _until(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value
    try:
        return parse_datetime(value)
    except ValueError:
        raise ValidationFailed.field("until", "an ISO 8601 date-time") from None


def set_read(workspace_id: str, user_id: str, event_id: str, read: bool = True) -> Event:
    """Mark one event read (again: no change) or unread for ``user_id``."""
    with transaction():
        event = get_event(workspace_id, event_id)
        if read:
            _insert_marks(user_id, [event.id])
        else:
            EventRead.delete().where(
                (EventRead.user == user_id) & (EventRead.event == event.id)
            ).execute()
        return event


def _insert_marks(user_id: str, event_ids: list[str]) -> None:
    now = utcnow()
    for start in range(0, len(event_ids), INSERT_BATCH):
        rows = [
            {"user": user_id, "event": event_id, "read_at": now}
            for event_id in event_ids[start : start + INSERT_BATCH]
        ]
        # A mark already there (another tab, a double click) is kept as it is.
        EventRead.insert_many(rows).on_conflict_ignore().execute()


def mark_all_read(
    workspace_id: str,
    user_id: str,
    *,
    event_type: str | None = None,
    competitor_id: str | None = None,
    importance: str | None = None,
    until: Any = None,
) -> int:
    """Mark every event the filters keep read for ``user_id``; ``until`` (a date-time)
    leaves out events newer than the list the person saw. The number newly marked."""
    with transaction():
        query = _matching(
            workspace_id,
            event_type=event_type,
            competitor_id=competitor_id,
            importance=importance,
            until=until,
        ).where(events.unread_by(user_id))
        ids = [row.id for row in query.select(Event.id)]
        _insert_marks(user_id, ids)
        return len(ids)


def unread_count(workspace_id: str, user_id: str, cap: int = UNREAD_COUNT_CAP) -> int:
    """How many of the workspace's events ``user_id`` has not read, counted up to ``cap``
    (one query; the nav shows "99+" beyond)."""
    query = Event.select(Event.id).where(Event.workspace == workspace_id, events.unread_by(user_id))
    return query.limit(cap).count()


def read_ids(user_id: str, event_ids: list[str]) -> set[str]:
    """Which of ``event_ids`` ``user_id`` has read (one query for a page of the feed)."""
    if not event_ids:
        return set()
    query = EventRead.select(EventRead.event).where(
        (EventRead.user == user_id) & (EventRead.event.in_(list(event_ids)))
    )
    return {row.event_id for row in query}
