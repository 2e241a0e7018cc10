"""Sending again what was not delivered, and digests on demand (issue 29).

REST (``/api/subscriptions/{id}/...``), the ``ci-service alerts`` commands and the settings
page come here. The permission is "send test"'s: whoever may change the subscription
(``subscriptions.can_manage``); another workspace's subscription, or a delivery of another
subscription, is a 404.

- **Retry** a ``failed`` or ``missed`` delivery: it becomes ``pending``, due now, and the
  workspace's delivery job is queued. It keeps its ``messageId`` (the ``webhook-id``), so a
  receiver that did get it drops the copy; ``attempts`` keeps counting. A delivered or
  still pending one is a 409, and so is one of a paused or disabled subscription ("resume
  the subscription first"), except a test message, which is sent whatever the status.
- **Missed** deliveries (``services.alerts.delivery``: recorded while the subscription was paused or
  disabled) are sent when asked: resuming with ``sendMissed``, :func:`send_missed`, or one
  by one with retry. Resuming without asking leaves them missed.
- **Digest now**: ``delivery_digest.make_digest_now`` for an active subscription.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from peewee import IntegrityError, fn

from ci_service.errors import Conflict, NotFound, ValidationFailed
from ci_service.services.alerts import access as subs
from ci_service.services.alerts import delivery
from ci_service.settings import Settings
from ci_service.store.alerts import Delivery, Subscription
from ci_service.store.db import transaction
from ci_service.timeutil import utcnow

RETRYABLE = ("failed", delivery.MISSED)
RESUME_FIRST = "The subscription is {status}: resume the subscription first"


def _stopped(sub: Subscription) -> Conflict:
    return Conflict(RESUME_FIRST.format(status=sub.status))


def get_delivery(workspace_id: str, subscription_id: str, delivery_id: str) -> Delivery:
    """A delivery of that subscription in that workspace; 404 otherwise."""
    row = (
        Delivery.select()
        .where(
            Delivery.id == delivery_id,
            Delivery.subscription == subscription_id,
            Delivery.workspace == workspace_id,
        )
        .first()
    )
    if row is None:
        raise NotFound.of("Delivery")
    return row


def _requeue(ids: list[str], now: datetime) -> int:
    """Make these failed or missed deliveries pending and due now (in a transaction)."""
    if not ids:
        return 0
    return (
        Delivery.update(status="pending", next_attempt_at=now)
        .where(Delivery.id.in_(ids), Delivery.status.in_(RETRYABLE))
        .execute()
    )


def retry_delivery(
    workspace_id: str, subscription_id: str, delivery_id: str, actor, now: datetime | None = None
) -> Delivery:
    """Send a failed or missed delivery again (see the module docstring for the 409s)."""
    now = now or utcnow()
    with transaction():
        sub = subs.get_subscription(workspace_id, subscription_id)
        subs.require_manage(actor, sub)
        row = get_delivery(workspace_id, sub.id, delivery_id)
        if row.status == "delivered":
            raise Conflict("This delivery was delivered already; there is nothing to retry")
        if row.status == "pending":
            raise Conflict("This delivery is still pending: it is sent at its nextAttemptAt")
        if sub.status != "active" and row.kind != "test":
            raise _stopped(sub)
        _requeue([row.id], now)
        delivery.ensure_job(workspace_id)
    return Delivery.get_by_id(row.id)


def retry_failed(
    workspace_id: str, subscription_id: str, actor, now: datetime | None = None
) -> list[Delivery]:
    """Send all the subscription's failed deliveries again (``alerts retry --all-failed``)."""
    now = now or utcnow()
    with transaction():
        sub = subs.get_subscription(workspace_id, subscription_id)
        subs.require_manage(actor, sub)
        query = Delivery.select(Delivery.id).where(
            Delivery.subscription == sub.id, Delivery.status == "failed"
        )
        if sub.status != "active":
            query = query.where(Delivery.kind == "test")
        ids = [row.id for row in query]
        if _requeue(ids, now):
            delivery.ensure_job(workspace_id)
    return list(Delivery.select().where(Delivery.id.in_(ids)).order_by(Delivery.created_at))


def queue_missed(sub: Subscription, now: datetime | None = None) -> int:
    """Queue the (active) subscription's missed deliveries; in the caller's transaction."""
    now = now or utcnow()
    with transaction():
        count = (
            Delivery.update(status="pending", next_attempt_at=now)
            .where(Delivery.subscription == sub.id, Delivery.status == delivery.MISSED)
            .execute()
        )
        if count:
            delivery.ensure_job(sub.workspace_id)
    return count


def send_missed_flag(data: dict[str, Any]) -> bool:
    """A PATCH body's ``sendMissed``: a boolean, true only with ``status: active``."""
    flag = data.get("sendMissed", False)
    if not isinstance(flag, bool):
        raise ValidationFailed.field("sendMissed", "true or false")
    if flag and data.get("status") != "active":
        raise ValidationFailed.field("sendMissed", 'only with "status": "active"')
    return flag


def after_update(sub: Subscription, send_missed: bool) -> None:
    """A subscription's changed status, for its deliveries (in the update's transaction):
    paused, its pending ones are missed; resumed with ``sendMissed``, the missed are queued."""
    if sub.status == "paused":
        delivery.miss_pending(sub.id)
    elif send_missed and sub.status == "active":
        queue_missed(sub)


def send_missed(workspace_id: str, subscription_id: str, actor) -> int:
    """Queue what an active subscription missed while paused; how many (409 if stopped)."""
    with transaction():
        sub = subs.get_subscription(workspace_id, subscription_id)
        subs.require_manage(actor, sub)
        if sub.status != "active":
            raise _stopped(sub)
        return queue_missed(sub)


def missed_counts(subscription_ids: list[str]) -> dict[str, int]:
    """How many missed deliveries each subscription has (one query)."""
    if not subscription_ids:
        return {}
    rows = (
        Delivery.select(Delivery.subscription, fn.COUNT(Delivery.id))
        .where(Delivery.subscription.in_(subscription_ids), Delivery.status == delivery.MISSED)
        .group_by(Delivery.subscription)
        .tuples()
    )
    return {subscription_id: int(count) for subscription_id, count in rows}


def digest_now(
    workspace_id: str, subscription_id: str, actor, *, config: Settings | None = None
) -> tuple[Delivery | None, str | None]:
    """An on-demand digest: (delivery, None), or (None, reason) when nothing happened."""
    from ci_service.services.alerts.digest import make_digest_now

    sub = subs.get_subscription(workspace_id, subscription_id)
    subs.require_manage(actor, sub)
    if sub.status != "active":
        raise _stopped(sub)
    try:
        return make_digest_now(sub, config=config)
    except IntegrityError:  # another digest of the same millisecond: its key is taken
        raise Conflict("A digest was made at this very moment; ask again") from None


def replay_result(row: Delivery | None, reason: str | None = None) -> dict[str, Any]:
    """``{delivery}``, or ``{delivery: null, reason}``: the answer of a digest request."""
    if row is None:
        return {"delivery": None, "reason": reason}
    return {"delivery": delivery.delivery_to_dict(row)}


__all__ = [
    "after_update",
    "digest_now",
    "get_delivery",
    "missed_counts",
    "queue_missed",
    "replay_result",
    "retry_delivery",
    "retry_failed",
    "send_missed",
    "send_missed_flag",
]
