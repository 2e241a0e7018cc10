"""Settings → Alerts, Muted: make a mute for one subscription, or remove one
(``services.alerts.mutes``, as ``POST /api/mutes`` and ``DELETE /api/mutes/{id}``). The list and
the form are drawn by ``alerts._alerts_page``; mutes for every subscription are made from
Changes ("Mute this page", "Mute price changes from Globex")."""

from __future__ import annotations

import re
from typing import Any

from flask import redirect, request, url_for

from ci_service.errors import Forbidden, ValidationFailed
from ci_service.services.alerts import mutes
from ci_service.services.identity.auth import WRITE
from ci_service.web.pages import bp
from ci_service.web.pages.alerts import _alerts_page
from ci_service.web.pages.context import page, principal

# The service names the body's fields; the form's labels read better to a person.
FIELD_LABELS = {
    "subscriptionId": "subscription",
    "eventType": "kind of change",
    "url": "page URL",
    "competitorId": "competitor",
}
_FIELD_NAMES = re.compile(r"\b(" + "|".join(FIELD_LABELS) + r")\b")


def _form_data(form) -> dict[str, Any]:
    """The form as the POST /api/mutes body ("" is not given)."""
    return {
        name: (form.get(name) or "").strip() or None
        for name in ("subscriptionId", "eventType", "url", "competitorId")
    }


def mute_errors(error: ValidationFailed) -> list[str]:
    """One line per field message, worded with the form's labels."""
    fields = (error.details or {}).get("fields") or {}
    out = []
    for name, messages in fields.items():
        label = FIELD_LABELS.get(name, name)
        for message in messages:
            text = _FIELD_NAMES.sub(lambda m: FIELD_LABELS[m.group(1)], message)
            line = text if text.startswith(label) else f"{label}: {text}"
            out.append(line[:1].upper() + line[1:])
    return out or [error.message]


@bp.route("/settings/alerts/mutes", methods=["POST"])
@page(WRITE)
def settings_alerts_mute():
    who = principal()
    data = _form_data(request.form)
    try:
        if data["subscriptionId"] is None:  # else a competitor alone mutes everyone's
            raise ValidationFailed.field("subscriptionId", "choose one of your subscriptions")
        mutes.create_mute(who.workspace_id, who, data)
    except (ValidationFailed, Forbidden) as exc:
        errors = mute_errors(exc) if isinstance(exc, ValidationFailed) else [exc.message]
        shown = {name: value or "" for name, value in data.items()}
        return _alerts_page(exc.status, errors, mute_form=shown)
    return redirect(url_for("pages.settings_alerts", done="muted") + "#muted", 303)


@bp.route("/settings/alerts/mutes/<mute_id>/delete", methods=["POST"])
@page(WRITE)
def settings_alerts_unmute(mute_id):
    """Unmute; another workspace's mute is the 404 page (``mutes.get_mute``)."""
    who = principal()
    try:
        mutes.delete_mute(who.workspace_id, who, mute_id)
    except Forbidden as exc:
        return _alerts_page(exc.status, [exc.message])
    return redirect(url_for("pages.settings_alerts", done="unmuted") + "#muted", 303)
