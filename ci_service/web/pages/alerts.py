"""Settings → Alerts: the workspace's subscriptions to change events (``/settings/alerts``).

Same service and rules as ``/api/subscriptions``: everyone who reads the workspace sees the
list (never a target or secret, only its hint); EDITORs make personal subscriptions,
ADMIN/OWNER workspace-wide ones; delete, rotate and "send test" are offered only where the
person may use them, and Resume for a paused or disabled one. A new webhook secret is shown
once, in the answer to the form that made it (create or rotate).

Issue 29: a stopped subscription with missed alerts offers, instead of a plain Resume, "N
alerts were missed while paused — Send them / Don't send" (two resume forms, no script);
an active one with missed alerts offers "Send them". Each subscription's deliveries are
listed at ``/settings/alerts/<id>/deliveries``, with Retry on failed and missed ones.

Muted (``services.alerts.mutes``): the workspace's mutes in words ("Price changes — Globex —
subscription “Pricing”"), who made each and when, Unmute where the person may remove it
(``mutes.can_remove``), and "Mute for a subscription" for the subscriptions they manage;
its routes are in ``alerts_mutes``.
"""

from __future__ import annotations

from typing import Any

from flask import current_app, redirect, request, url_for

from ci_service.errors import Conflict, Forbidden, ValidationFailed
from ci_service.services.alerts import mutes, replay
from ci_service.services.alerts import subscriptions as subs
from ci_service.services.alerts.events import EVENT_TYPES
from ci_service.services.identity import users as people
from ci_service.services.identity.auth import READ, WRITE
from ci_service.services.workspace import competitors
from ci_service.store.alerts import CHANNELS, DIGESTS
from ci_service.store.events import IMPORTANCE
from ci_service.web.pages import bp
from ci_service.web.pages.context import can, page, principal
from ci_service.web.pages.kinds import kind_label, kind_plural
from ci_service.web.pages.settings_access import render
from ci_service.web.pages.settings_forms import form_errors

EMPTY_FORM = {
    "name": "",
    "channel": "webhook",
    "target": "",
    "eventTypes": [],
    "competitorIds": [],
    "minImportance": "low",
    "digest": "none",
    "scope": "personal",
}
NOTICES = {
    "deleted": "Subscription deleted.",
    "resumed": "Subscription active again.",
    "test": "Test message queued: it is sent in the background (see its deliveries).",
    "resumed-sent": "Subscription active again; its missed alerts are being sent.",
    "missed-sent": "The missed alerts are being sent.",
    "retried": "Delivery queued again: it is sent in the background.",
    "muted": "Muted: that subscription no longer tells of it.",
    "unmuted": "Unmuted: alerts tell of it again.",
}
EMPTY_MUTE_FORM = {"subscriptionId": "", "eventType": "", "url": "", "competitorId": ""}
DELIVERY_PAGE = 100


def _form_data(form) -> dict[str, Any]:
    """The POST /api/subscriptions body the form stands for."""
    return {
        "name": form.get("name", ""),
        "channel": form.get("channel", ""),
        "target": form.get("target", ""),
        "eventTypes": form.getlist("eventTypes"),
        "competitorIds": form.getlist("competitorIds"),
        "minImportance": form.get("minImportance", "low"),
        "digest": form.get("digest", "none"),
        "scope": form.get("scope", "personal"),
    }


def _mute_views(who, rows, names: dict[str, str]) -> list[dict[str, Any]]:
    """The workspace's mutes in plain words: what, whose competitor, which subscriptions."""
    found = mutes.list_mutes(who.workspace_id)
    if not found:
        return []
    by_id = {row.id: row for row in rows}
    emails = {user["id"]: user["email"] for user in people.list_users(who.workspace_id)}
    views = []
    for mute in found:
        sub = by_id.get(mute.subscription_id)
        if mute.url and mute.event_type:
            what = f"{kind_plural(mute.event_type).capitalize()} on page {mute.url}"
        elif mute.url:
            what = f"Page {mute.url}"
        else:
            what = kind_plural(mute.event_type or "").capitalize()
        words = [what]
        if mute.competitor_id:
            words.append(names.get(mute.competitor_id, "a competitor"))
        if mute.subscription_id is None:
            words.append("every subscription")
        else:  # ``rows`` holds every subscription: the fallback is only defensive
            words.append(f"subscription “{sub.name}”" if sub else "one subscription")
        data = mutes.mute_to_dict(mute)
        data["words"] = " — ".join(words)
        data["by"] = emails.get(mute.created_by_id)
        data["canRemove"] = can(WRITE) and mutes.can_remove(who, mute, sub)
        views.append(data)
    return views


def _alerts_page(status=200, errors=None, form=None, new_secret=None, notice=None, mute_form=None):
    who = principal()
    rows = subs.list_subscriptions(who.workspace_id)
    rivals = competitors.list_competitors(who.workspace_id)
    names = {row.id: row.name for row in rivals}
    items = []
    for row, data in zip(rows, subs.subscriptions_to_dicts(rows), strict=True):
        data["competitorNames"] = [names.get(i, i) for i in data["competitorIds"]]
        data["canManage"] = can(WRITE) and subs.can_manage(who, row)
        items.append(data)
    mute_views = _mute_views(who, rows, names)
    return render(
        "alerts.html",
        status,
        subscriptions=items,
        competitors=[{"id": r.id, "name": r.name} for r in rivals],
        event_types=EVENT_TYPES,
        importances=IMPORTANCE,
        digests=DIGESTS,
        channels=CHANNELS,
        scopes=["personal", "workspace"] if who.role in subs.MANAGERS else ["personal"],
        form=form or dict(EMPTY_FORM),
        errors=errors or [],
        new_secret=new_secret,
        notice=notice,
        mutes=mute_views,
        mute_form=mute_form or dict(EMPTY_MUTE_FORM),
        # "Mute for a subscription" offers the ones the person may manage.
        mute_subscriptions=[{"id": i["id"], "name": i["name"]} for i in items if i["canManage"]],
        kinds=[(t, kind_label(t)) for t in EVENT_TYPES],
    )


@bp.route("/settings/alerts")
@page(READ)
def settings_alerts():
    return _alerts_page(notice=NOTICES.get(request.args.get("done", "")))


@bp.route("/settings/alerts", methods=["POST"])
@page(WRITE)
def settings_alerts_create():
    who = principal()
    data = _form_data(request.form)
    try:
        config = current_app.config["CI_SETTINGS"]
        row, secret = subs.create_subscription(who.workspace_id, who, data, config=config)
    except (ValidationFailed, Forbidden) as exc:
        return _alerts_page(
            exc.status, form_errors(exc) if exc.status == 400 else [exc.message], data
        )
    shown = {"name": row.name, "secret": secret, "created": True} if secret else None
    notice = None if secret else f"Subscription “{row.name}” created."
    return _alerts_page(new_secret=shown, notice=notice)


@bp.route("/settings/alerts/<subscription_id>/delete", methods=["POST"])
@page(WRITE)
def settings_alerts_delete(subscription_id):
    who = principal()
    try:
        subs.delete_subscription(who.workspace_id, subscription_id, who)
    except Forbidden as exc:
        return _alerts_page(exc.status, [exc.message])
    return redirect(url_for("pages.settings_alerts", done="deleted"))


@bp.route("/settings/alerts/<subscription_id>/rotate", methods=["POST"])
@page(WRITE)
def settings_alerts_rotate(subscription_id):
    who = principal()
    try:
        row, secret = subs.rotate_secret(who.workspace_id, subscription_id, who)
    except (ValidationFailed, Forbidden) as exc:
        return _alerts_page(exc.status, [exc.message])
    return _alerts_page(new_secret={"name": row.name, "secret": secret, "created": False})


@bp.route("/settings/alerts/<subscription_id>/test", methods=["POST"])
@page(WRITE)
def settings_alerts_test(subscription_id):
    who = principal()
    try:
        subs.send_test(who.workspace_id, subscription_id, who)
    except Forbidden as exc:
        return _alerts_page(exc.status, [exc.message])
    return redirect(url_for("pages.settings_alerts", done="test"))


@bp.route("/settings/alerts/<subscription_id>/resume", methods=["POST"])
@page(WRITE)
def settings_alerts_resume(subscription_id):
    """A paused or disabled subscription sends again (as PATCH ``status: active``); with
    ``sendMissed=yes`` its missed alerts too."""
    who = principal()
    send = request.form.get("sendMissed") == "yes"
    body = {"status": "active", "sendMissed": send}
    try:
        subs.update_subscription(who.workspace_id, subscription_id, who, body)
    except Forbidden as exc:
        return _alerts_page(exc.status, [exc.message])
    return redirect(url_for("pages.settings_alerts", done="resumed-sent" if send else "resumed"))


@bp.route("/settings/alerts/<subscription_id>/send-missed", methods=["POST"])
@page(WRITE)
def settings_alerts_send_missed(subscription_id):
    who = principal()
    try:
        replay.send_missed(who.workspace_id, subscription_id, who)
    except (Forbidden, Conflict) as exc:
        return _alerts_page(exc.status, [exc.message])
    return redirect(url_for("pages.settings_alerts", done="missed-sent"))


def _deliveries_page(subscription_id: str, status=200, errors=None, notice=None):
    who = principal()
    row = subs.get_subscription(who.workspace_id, subscription_id)  # another's: 404
    manage = can(WRITE) and subs.can_manage(who, row)
    deliveries = []
    for item in subs.list_deliveries(who.workspace_id, row.id, limit=DELIVERY_PAGE):
        data = subs.delivery_to_dict(item)
        data["canRetry"] = (
            manage
            and data["status"] in replay.RETRYABLE
            and (row.status == "active" or data["kind"] == "test")
        )
        deliveries.append(data)
    return render(
        "alerts_deliveries.html",
        status,
        sub=subs.subscription_to_dict(row),
        deliveries=deliveries,
        can_manage=manage,
        page_size=DELIVERY_PAGE,
        errors=errors or [],
        notice=notice,
    )


@bp.route("/settings/alerts/<subscription_id>/deliveries")
@page(READ)
def settings_alerts_deliveries(subscription_id):
    return _deliveries_page(subscription_id, notice=NOTICES.get(request.args.get("done", "")))


@bp.route("/settings/alerts/<subscription_id>/deliveries/<delivery_id>/retry", methods=["POST"])
@page(WRITE)
def settings_alerts_retry(subscription_id, delivery_id):
    """Retry, as ``POST /api/subscriptions/{id}/deliveries/{deliveryId}/retry``."""
    who = principal()
    try:
        replay.retry_delivery(who.workspace_id, subscription_id, delivery_id, who)
    except (Forbidden, Conflict) as exc:
        return _deliveries_page(subscription_id, exc.status, [exc.message])
    return redirect(
        url_for("pages.settings_alerts_deliveries", subscription_id=subscription_id, done="retried")
    )
