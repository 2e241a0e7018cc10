"""Settings → Alerts: the workspace's subscriptions to change events (``/settings/alerts``).

Same service and rules as ``/api/subscriptions``: everyone who reads the workspace sees the
list (never a target or secret, only its hint); EDITORs make personal subscriptions,
ADMIN/OWNER workspace-wide ones; delete, rotate and "send test" are offered only where the
person may use them, and Resume for a paused or disabled one. A new webhook secret is shown
once, in the answer to the form that made it (create or rotate).
"""

from __future__ import annotations

from typing import Any

from flask import current_app, redirect, request, url_for

from ci_service.errors import Forbidden, ValidationFailed
from ci_service.services import competitors
from ci_service.services import subscriptions as subs
from ci_service.services.auth import READ, WRITE
from ci_service.services.events import EVENT_TYPES
from ci_service.store.alerts import CHANNELS, DIGESTS
from ci_service.store.events import IMPORTANCE
from ci_service.web.pages import bp
from ci_service.web.pages.context import can, page, principal
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
}


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


def _alerts_page(status=200, errors=None, form=None, new_secret=None, notice=None):
    who = principal()
    rows = subs.list_subscriptions(who.workspace_id)
    rivals = competitors.list_competitors(who.workspace_id)
    names = {row.id: row.name for row in rivals}
    items = []
    for row in rows:
        data = subs.subscription_to_dict(row)
        data["competitorNames"] = [names.get(i, i) for i in data["competitorIds"]]
        data["canManage"] = can(WRITE) and subs.can_manage(who, row)
        items.append(data)
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
    """A paused or disabled subscription sends again (as PATCH ``status: active``)."""
    who = principal()
    try:
        subs.update_subscription(who.workspace_id, subscription_id, who, {"status": "active"})
    except Forbidden as exc:
        return _alerts_page(exc.status, [exc.message])
    return redirect(url_for("pages.settings_alerts", done="resumed"))
