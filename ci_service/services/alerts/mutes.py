"""Mutes: a page or an event type that one subscription, or every subscription, no longer
hears about (REST ``/api/mutes`` and ``ci-service alerts mute|mutes|unmute`` come here).

- **What a mute names.** ``eventType`` and/or ``url`` (at least one), and
  ``subscriptionId`` and/or ``competitorId`` (at least one). With a subscription it silences
  that subscription only (for the named competitor only, when one is named too); with only
  a competitor it silences every subscription of the workspace.
- **The rule** (:func:`muted`): a mute matches an event when each field it names equals the
  event's: ``competitorId``, the subscription, ``type``, and ``url`` against the event's
  ``data.url``. URLs are compared normalised (:func:`normal_url`: no fragment, no trailing
  slash, lower-case scheme and host).
- **Who may.** VIEWER changes nothing. A subscription's mutes follow the subscription's own
  rule (``subscriptions.can_manage``: its owner or an ADMIN/OWNER; workspace-wide ones
  ADMIN/OWNER); a competitor's mutes, which reach everyone's subscriptions, need EDITOR.
- Another workspace's subscription or mute is a 404, its competitor a 400 on
  ``competitorId`` (as ``services.alerts.subscriptions`` treats competitor ids). Creating a mute
  that exists already returns the existing one.
"""

from __future__ import annotations

from typing import Any

from ci_service.errors import Forbidden, NotFound, ValidationFailed
from ci_service.services.alerts.access import can_manage, get_subscription, require_manage
from ci_service.services.alerts.events import EVENT_TYPES
from ci_service.services.alerts.muting import muted, muted_for, normal_url, unmuted
from ci_service.services.identity.auth import role_at_least
from ci_service.store.alerts import Mute, Subscription
from ci_service.store.competitors import Competitor
from ci_service.store.db import transaction
from ci_service.timeutil import iso

MAX_URL = 2000
LIST_CAP = 1000


# -- validation --------------------------------------------------------------------------


def _url(value: Any) -> str | None:
    if value is None:
        return None
    url = normal_url(value) if isinstance(value, str) else None
    if url is None:
        raise ValidationFailed.field("url", "an http(s) URL of a page")
    if len(url) > MAX_URL:
        raise ValidationFailed.field("url", f"at most {MAX_URL} characters")
    return url


def _event_type(value: Any) -> str | None:
    if value is None:
        return None
    if value not in EVENT_TYPES:
        raise ValidationFailed.field("eventType", f"one of {', '.join(EVENT_TYPES)}")
    return value


def _competitor_id(workspace_id: str, value: Any) -> str | None:
    if value is None:
        return None
    found = (
        isinstance(value, str)
        and Competitor.select(Competitor.id)
        .where(Competitor.id == value, Competitor.workspace == workspace_id)
        .exists()
    )
    if not found:  # another workspace's competitor reads exactly like a missing one
        raise ValidationFailed.field("competitorId", "unknown competitor id")
    return value


def _may_mute_everyone(actor) -> bool:
    """A mute without a subscription silences everyone's subscriptions: EDITOR or higher."""
    return actor is None or role_at_least(actor.role, "EDITOR")


def _check_competitor_wide(actor) -> None:
    if not _may_mute_everyone(actor):
        raise Forbidden("This operation needs role EDITOR or higher")


def can_remove(actor, row: Mute, subscription: Subscription | None = None) -> bool:
    """May ``actor`` remove ``row`` (the rule :func:`delete_mute` enforces)? For pages that
    offer Unmute only where it works; ``subscription``, the mute's own when it has one,
    spares a query per mute."""
    if row.subscription_id is None:
        return _may_mute_everyone(actor)
    if subscription is None or subscription.id != row.subscription_id:
        subscription = row.subscription
    return can_manage(actor, subscription)


def _check_may_change(actor, workspace_id: str, row: Mute) -> None:
    if row.subscription_id is not None:
        require_manage(actor, get_subscription(workspace_id, row.subscription_id))
    else:
        _check_competitor_wide(actor)


# -- writing and reading -----------------------------------------------------------------


def create_mute(workspace_id: str, actor, data: dict[str, Any]) -> Mute:
    """Mute a page or an event type (see the module docstring); ``actor`` None: the
    operator. Returns the new mute, or the same one made before."""
    event_type = _event_type(data.get("eventType"))
    url = _url(data.get("url"))
    if event_type is None and url is None:
        raise ValidationFailed.field("eventType", "eventType or url (or both) is required")
    subscription_id = data.get("subscriptionId")
    if subscription_id is not None and not isinstance(subscription_id, str):
        raise ValidationFailed.field("subscriptionId", "a subscription id")
    if subscription_id is None and data.get("competitorId") is None:
        raise ValidationFailed.field(
            "subscriptionId", "subscriptionId or competitorId (or both) is required"
        )
    with transaction():
        competitor_id = _competitor_id(workspace_id, data.get("competitorId"))
        if subscription_id is not None:
            require_manage(actor, get_subscription(workspace_id, subscription_id))
        else:
            _check_competitor_wide(actor)
        fields = {
            "subscription": subscription_id,
            "competitor": competitor_id,
            "event_type": event_type,
            "url": url,
        }
        query = Mute.select().where(Mute.workspace == workspace_id)
        for name, value in fields.items():
            column = getattr(Mute, name)
            query = query.where(column.is_null() if value is None else column == value)
        existing = query.first()
        if existing is not None:
            return existing
        return Mute.create(
            workspace=workspace_id,
            created_by=getattr(actor, "user_id", None),
            **fields,
        )


def get_mute(workspace_id: str, mute_id: str) -> Mute:
    row = Mute.select().where(Mute.id == mute_id, Mute.workspace == workspace_id).first()
    if row is None:
        raise NotFound.of("Mute")
    return row


def find_mute(mute_id: str) -> Mute:
    """By id alone, for the operator's CLI."""
    row = Mute.get_or_none(Mute.id == mute_id)
    if row is None:
        raise NotFound.of("Mute")
    return row


def list_mutes(
    workspace_id: str, subscription_id: str | None = None, competitor_id: str | None = None
) -> list[Mute]:
    """The workspace's mutes, oldest first; filtered by subscription or competitor (an id
    of another workspace, or none, lists nothing)."""
    query = Mute.select().where(Mute.workspace == workspace_id)
    if subscription_id:
        query = query.where(Mute.subscription == subscription_id)
    if competitor_id:
        query = query.where(Mute.competitor == competitor_id)
    return list(query.order_by(Mute.created_at, Mute.id).limit(LIST_CAP))


def delete_mute(workspace_id: str, actor, mute_id: str) -> None:
    with transaction():
        row = get_mute(workspace_id, mute_id)
        _check_may_change(actor, workspace_id, row)
        row.delete_instance()


def mute_to_dict(row: Mute) -> dict[str, Any]:
    return {
        "id": row.id,
        "workspaceId": row.workspace_id,
        "subscriptionId": row.subscription_id,
        "competitorId": row.competitor_id,
        "eventType": row.event_type,
        "url": row.url,
        "createdBy": row.created_by_id,
        "createdAt": iso(row.created_at),
    }


__all__ = [
    "can_remove",
    "create_mute",
    "delete_mute",
    "find_mute",
    "get_mute",
    "list_mutes",
    "muted",
    "muted_for",
    "mute_to_dict",
    "normal_url",
    "unmuted",
]
