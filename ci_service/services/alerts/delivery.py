"""Delivery: sending events to subscriptions, reliably, from the job runner.

**Matching.** An event goes to a subscription when the subscription is active, in the
event's workspace, lists the event's type (or no types), lists the event's competitor (or
no competitors: then events without a competitor match too) and the event's importance is
at least ``min_importance``, unless a mute (``services.alerts.mutes``: a page or an event type, for
the subscription or for the competitor) covers it; digests leave muted events out too.

**Missed** (issue 29). An event that would match a paused or disabled subscription is not
lost: :func:`fan_out` records it for that subscription with status ``missed`` (not sent,
not picked up by the sender), except the subscription's own pause or disable notice.
Pausing or disabling also turns the subscription's pending deliveries into missed ones.
They are sent only when asked (``services.alerts.replay``: resume with ``sendMissed``,
send-missed, retry).

**Rows first, sending later.** :func:`fan_out` runs inside ``events.emit``, in the
transaction of the change: for each matching subscription whose ``digest`` is ``none`` it
creates a pending :class:`Delivery` (kind ``event``, ``message_id`` ``msg_<uuid hex>``, the
payload below) and enqueues a ``deliver-notifications`` job for the workspace unless one is
queued or running. Digest subscriptions get nothing per event (``delivery_digest``). A crash
between the commit and the send loses nothing: the rows are there, and the scheduler's
30-second scan (:func:`wake`) enqueues the job for every workspace with due deliveries
(jobs failed "Interrupted" by a restart). The job sends every pending delivery of its
workspace whose ``next_attempt_at`` has come, each at most once per run.

**Retries leave on time** (issue 29). The job is a row with a ``run_after``, so it can be
queued *for later*: when a run ends, :func:`arm_next` queues the workspace's next run for
its earliest pending delivery if that is due within ``ARM_HORIZON`` (60 s), and the
30-second scan does the same for every workspace (so a later retry is armed before it is
due). Any process's idle worker claims the job at its time (it waits no longer than the
earliest ``run_after``), whoever leads the scheduler; nothing lives only in one process's
memory and no worker thread sleeps. A new
event meanwhile brings a waiting job forward (:func:`ensure_job`): a workspace still has
one delivery job at a time (a running one arms its successor as it ends).

**Outcomes.** Delivered on 2xx. Timeouts, connection errors, 408, 429 and 5xx are retried
with exponential back-off and jitter: 30 s x 2^(attempts before) +-20 %, at most 6 h; a
``Retry-After`` (seconds or HTTP date) is honoured instead (at least 1 s, at most 24 h).
Other 4xx and 3xx fail without retry. 410 fails the delivery and disables the subscription
(status ``disabled``; the event ``subscription.disabled``, data ``{subscriptionId,
reason}``, in the same transaction). A subscription whose sends have failed continuously
(``failing_since``, cleared by any success) for ``delivery_pause_after_days`` is paused; the
pause is itself an event (``subscription.paused``) emitted in the same transaction.
Disabling or pausing turns the subscription's other pending deliveries into missed ones. Each
attempt records ``attempts``, ``last_status``, ``last_error`` (never a target or secret) and
``next_attempt_at``. Test deliveries are sent whatever the subscription's status.

**Webhook payload** (JSON, the body that is signed)::

    {"type": "competitor.price_changed",          # the event type
     "timestamp": "2026-11-24T09:30:00.000Z",     # when the event happened
     "data": {"event": {...},                     # the event as GET /api/events lists it
              "url": "https://ci.example.com/competitors/<id>"}}   # the record, or null

Digests: ``{"type": "digest.daily"|"digest.weekly", "timestamp": <period end>, "data":
{"digest": {key, period, start, end, eventCount, omitted, competitors: [{competitorId,
competitorName, url, events: [event + url]}]}}}``. The test message: ``{"type":
"subscription.test", "timestamp", "data": {subscriptionId, message}}``.
"""

from __future__ import annotations

import logging
import random
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from ci_service.services.alerts import events, messages
from ci_service.services.alerts.muting import muted_for

# The job's scheduling lives apart (size); re-exported: callers import it from here.
from ci_service.services.alerts.schedule import (
    ARM_HORIZON,
    JOB_TYPE,
    _due,
    active_job,
    arm_next,
    earliest_pending,
    ensure_job,
    wake,
)
from ci_service.services.alerts.send import Outcome, WebhookSender, is_email, send_apprise
from ci_service.settings import Settings, load_settings
from ci_service.store import statements
from ci_service.store.alerts import Delivery, Subscription
from ci_service.store.db import joined_transaction, transaction
from ci_service.store.events import IMPORTANCE, Event
from ci_service.timeutil import iso, utcnow

log = logging.getLogger("ci_service.delivery")

BASE_BACKOFF = 30.0
MAX_BACKOFF = 6 * 3600.0
MAX_RETRY_AFTER = 24 * 3600.0
JITTER = 0.2
BATCH = 50
MISSED = "missed"


def new_message_id() -> str:
    return "msg_" + uuid.uuid4().hex


def matches(subscription: Subscription, event: Event, *, any_status: bool = False) -> bool:
    """The one matching rule. ``any_status``: as if the subscription were active (what a
    paused or disabled one misses)."""
    if not any_status and subscription.status != "active":
        return False
    if subscription.workspace_id != event.workspace_id:
        return False
    types = subscription.event_types or []
    if types and event.type not in types:
        return False
    competitors = subscription.competitor_ids or []
    if competitors and event.competitor_id not in competitors:
        return False
    return importance_at_least(event.importance, subscription.min_importance)


def importance_at_least(level: str, minimum: str | None) -> bool:
    floor = IMPORTANCE.index(minimum) if minimum in IMPORTANCE else 0
    return level in IMPORTANCE and IMPORTANCE.index(level) >= floor


def fan_out(event: Event, config: Settings | None = None) -> list[Delivery]:
    """Create the event's deliveries (``missed`` for a paused or disabled subscription) and
    queue the sender; in the caller's transaction."""
    sql = statements.select_sql(
        Subscription, "t.workspace_id = {param} AND t.digest = 'none'", "fan-out"
    )  # every event of every write asks: a statement built once
    subscriptions = statements.select_models(Subscription, sql, [event.workspace_id])
    targets = [
        s for s in subscriptions if matches(s, event, any_status=True) and not _own_notice(s, event)
    ]
    if targets:
        is_muted = muted_for(event)  # the workspace's mutes, read once for every subscription
        targets = [s for s in targets if not is_muted(s)]
    if not targets:
        return []
    config = config or load_settings()
    payload = messages.event_payload(event, config.base_url)
    with joined_transaction():
        made = [
            Delivery.create(
                workspace=event.workspace_id,
                subscription=sub,
                event=event,
                kind="event",
                message_id=new_message_id(),
                payload=payload,
                status="pending" if sub.status == "active" else MISSED,
                next_attempt_at=event.created_at,
            )
            for sub in targets
        ]
        if any(row.status == "pending" for row in made):
            ensure_job(event.workspace_id)
    return made


def _own_notice(subscription: Subscription, event: Event) -> bool:
    """A stopped subscription does not "miss" the notice that it was stopped."""
    return (
        subscription.status != "active"
        and (event.data or {}).get("subscriptionId") == subscription.id
    )


def create_test_delivery(subscription: Subscription, now: datetime | None = None) -> Delivery:
    """A "send test" message for ``subscription``, sent by the delivery job."""
    now = now or utcnow()
    with transaction():
        row = Delivery.create(
            workspace=subscription.workspace_id,
            subscription=subscription,
            kind="test",
            message_id=new_message_id(),
            payload=messages.test_payload(subscription.id, now),
            next_attempt_at=now,
        )
        ensure_job(subscription.workspace_id)
    return row


def due_deliveries(workspace_id: str, now: datetime, exclude=(), limit: int = BATCH):
    query = (
        Delivery.select(Delivery, Subscription)
        .join(Subscription)
        .where(Delivery.workspace == workspace_id, _due(now))
        .order_by(Delivery.next_attempt_at, Delivery.created_at, Delivery.id)
    )
    if exclude:
        query = query.where(Delivery.id.not_in(list(exclude)))
    return list(query.limit(limit))


def backoff(attempts_before: int, rng: random.Random | None = None) -> float:
    """Seconds to the next try: 30 s x 2^attempts, +-20 % jitter, at most 6 h."""
    base = min(BASE_BACKOFF * 2 ** min(max(attempts_before, 0), 20), MAX_BACKOFF)
    jittered = base * (1 + (rng or random).uniform(-JITTER, JITTER))
    return min(jittered, MAX_BACKOFF)


def send_due(
    workspace_id: str,
    *,
    clock: Callable[[], datetime] = utcnow,
    check: Callable[[], None] = lambda: None,
    config: Settings | None = None,
) -> dict[str, int]:
    """Send the workspace's due deliveries, each at most once; counts by outcome."""
    config = config or load_settings()
    counts = {"delivered": 0, "retry": 0, "failed": 0}
    tried: set[str] = set()
    with WebhookSender(
        allow_private=bool(config.alerts_allow_private_urls),
        timeout=float(config.delivery_timeout_seconds),
        max_bytes=int(config.delivery_max_answer_bytes),
    ) as webhooks:
        while True:
            batch = due_deliveries(workspace_id, clock(), exclude=tried)
            if not batch:
                return counts
            for row in batch:
                check()
                tried.add(row.id)
                outcome = attempt(row, webhooks, config)
                counts[record(row, outcome, clock(), config)] += 1


def attempt(row: Delivery, webhooks: WebhookSender, config: Settings) -> Outcome:
    """One send of ``row`` (no database writes); never raises."""
    from ci_service.store import secrets_box

    subscription = row.subscription
    try:
        target = secrets_box.decrypt(subscription.target_encrypted)
        secrets = []
        if subscription.channel == "webhook":
            secrets.append(secrets_box.decrypt(subscription.secret_encrypted or ""))
            expires = subscription.previous_secret_expires_at
            if subscription.previous_secret_encrypted and (expires is None or expires > utcnow()):
                secrets.append(secrets_box.decrypt(subscription.previous_secret_encrypted))
    except Exception:
        return Outcome(False, error="the stored target or secret cannot be decrypted (key?)")
    try:
        if subscription.channel == "webhook":
            body = _json(row.payload)
            return webhooks.send(target, secrets, row.message_id, body)
        if subscription.channel == "apprise":
            title, body, body_format = messages.render(row.payload, html=is_email(target))
            return send_apprise(
                target,
                title,
                body,
                body_format,
                allow_private=bool(config.alerts_allow_private_urls),
                timeout=float(config.delivery_timeout_seconds),
            )
        return Outcome(False, error=f"unknown channel {subscription.channel!r}")
    except Exception as exc:  # a bug must cost one delivery attempt, not the whole job
        log.exception("delivery %s: unexpected error", row.id)
        return Outcome(False, error=f"internal error ({type(exc).__name__})", retry=True)


def _json(payload: dict[str, Any]) -> str:
    import json

    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False, sort_keys=False)


def record(row: Delivery, outcome: Outcome, now: datetime, config: Settings) -> str:
    """Write an attempt's outcome (one transaction); returns delivered, retry or failed."""
    with transaction():
        fields: dict[str, Any] = {
            "attempts": Delivery.attempts + 1,
            "last_status": outcome.status,
            "last_error": (outcome.error or None) and outcome.error[:1000],
        }
        if outcome.ok:
            result = "delivered"
            fields.update(status="delivered", delivered_at=now, last_error=None)
        elif outcome.retry and not outcome.gone:
            result = "retry"
            wait = backoff(row.attempts)
            if outcome.retry_after is not None:
                wait = min(max(outcome.retry_after, 1.0), MAX_RETRY_AFTER)
            fields["next_attempt_at"] = now + timedelta(seconds=wait)
        else:
            result = "failed"
            fields["status"] = "failed"
        updated = (
            Delivery.update(**fields)
            .where(Delivery.id == row.id, Delivery.status == "pending")
            .execute()
        )
        if updated:
            _follow_subscription(row, outcome, now, config)
    log.info(
        "delivery %s (%s) attempt %d: %s%s",
        row.id,
        row.kind,
        row.attempts + 1,
        result,
        f" ({outcome.error})" if outcome.error else "",
    )
    return result


def _follow_subscription(row: Delivery, outcome: Outcome, now: datetime, config: Settings):
    """The subscription's side of an attempt: failing since, 410 disable, pause."""
    sub = Subscription.get_by_id(row.subscription_id)
    if outcome.ok:
        if sub.failing_since is not None:
            Subscription.update(failing_since=None).where(Subscription.id == sub.id).execute()
        return
    if sub.status != "active":
        return
    since = sub.failing_since or now
    if sub.failing_since is None:
        Subscription.update(failing_since=now).where(Subscription.id == sub.id).execute()
    if outcome.gone:
        _stop(sub, "disabled", "The endpoint answered 410 Gone; delivery was stopped", now, row)
        return
    days = float(config.delivery_pause_after_days)
    if days > 0 and since <= now - timedelta(days=days):
        reason = f"Deliveries have failed since {iso(since)} ({days:g} days or more)"
        if outcome.error:
            reason += f"; last error: {outcome.error}"
        _stop(sub, "paused", reason[:500], now, row)


def _stop(sub: Subscription, status: str, reason: str, now: datetime, current: Delivery) -> None:
    """Pause or disable ``sub`` and say so with an event (``subscription.paused`` or
    ``.disabled``), in the caller's transaction; ``current`` fails, the subscription's other
    pending deliveries are missed (sent again on request)."""
    reason = reason[:500]
    Subscription.update(status=status, status_reason=reason, updated_at=now).where(
        Subscription.id == sub.id
    ).execute()
    Delivery.update(status="failed").where(
        Delivery.id == current.id, Delivery.status == "pending"
    ).execute()
    miss_pending(sub.id)
    log.warning("subscription %s %s", sub.id, status)
    events.emit(
        sub.workspace_id,
        f"subscription.{status}",
        f"Subscription {sub.name!r} was {status}",
        reason,
        importance="high",
        link="/settings/alerts",
        data={"subscriptionId": sub.id, "reason": reason},
    )


def miss_pending(subscription_id: str) -> int:
    """The subscription's pending deliveries (not tests, which are sent whatever its
    status) become missed: it was paused or disabled."""
    return (
        Delivery.update(status=MISSED)
        .where(
            Delivery.subscription == subscription_id,
            Delivery.status == "pending",
            Delivery.kind != "test",
        )
        .execute()
    )


def delivery_to_dict(row: Delivery) -> dict[str, Any]:
    """A delivery as the API shows it (no payload, target or secret)."""
    return {
        "id": row.id,
        "subscriptionId": row.subscription_id,
        "eventId": row.event_id,
        "kind": row.kind,
        "digestKey": row.digest_key,
        "messageId": row.message_id,
        "status": row.status,
        "attempts": row.attempts,
        "lastStatus": row.last_status,
        "lastError": row.last_error,
        "nextAttemptAt": iso(row.next_attempt_at) if row.status == "pending" else None,
        "deliveredAt": iso(row.delivered_at),
        "createdAt": iso(row.created_at),
    }


__all__ = [
    "ARM_HORIZON",
    "JOB_TYPE",
    "MISSED",
    "active_job",
    "arm_next",
    "backoff",
    "create_test_delivery",
    "delivery_to_dict",
    "due_deliveries",
    "earliest_pending",
    "ensure_job",
    "fan_out",
    "matches",
    "miss_pending",
    "send_due",
    "wake",
]
