"""Subscriptions: who hears about which events, where.

Rules (REST ``/api/subscriptions``, the ``ci-service alerts`` commands and the settings page
all come here):

- **Who may change what.** VIEWER changes nothing. A ``personal`` subscription belongs to
  the EDITOR (or higher) who made it; only its owner or an ADMIN/OWNER may change, test,
  rotate or delete it. A ``workspace`` subscription is managed by ADMIN/OWNER only.
  Everyone who can read the workspace can list them (never a target or secret).
- **What it matches.** ``eventTypes`` is a subset of ``events.EVENT_TYPES`` (empty: every
  type); ``competitorIds`` must be the workspace's own competitors (empty: all, and events
  about no competitor); ``minImportance`` low|normal|high.
- **Where it goes.** ``channel`` ``webhook``: an http(s) URL with a host, signed with the
  Standard Webhooks scheme. ``apprise``: any URL Apprise's own parser accepts (``slack://``,
  ``workflows://`` or a Power Automate URL for Microsoft Teams, ``discord://``,
  ``mmost://``, ``mailto://``/``mailtos://``, ``json://``, ``form://`` ...), except the
  desktop-only ones. The target is stored encrypted (``secrets_box``); only ``targetHint``
  (scheme and host, never a token) is shown again. The SSRF guard runs when a target is
  saved (``delivery_send.target_problem``: a 400 on ``target``) and when it is sent;
  ``alerts_allow_private_urls``, not the crawler's allowance, lets private addresses in.
- **Secrets.** A webhook gets ``whsec_`` + base64 of 24 random bytes, stored encrypted and
  shown once, in the answer that made it. ``rotate_secret`` makes a new one (shown once) and
  keeps the previous one valid for 24 hours, so both sign during the switch.
- ``digest`` none|daily|weekly. Every write is one transaction; another workspace's id is a
  404, as a missing one.
"""

from __future__ import annotations

import base64
import ipaddress
import re
import secrets
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from ci_service.errors import Forbidden, NotFound, ValidationFailed
from ci_service.services.alerts import delivery
from ci_service.services.alerts import replay as delivery_replay

# Who may change a subscription and finding one live in ``access`` (replay and mutes ask
# them too); they are part of this module's API, so they are imported here by name.
from ci_service.services.alerts.access import (  # noqa: F401
    MANAGERS,
    can_manage,
    find_subscription,
    get_subscription,
    is_manager,
    require_manage,
)
from ci_service.services.alerts.apprise_urls import apprise_accepts, quiet_apprise
from ci_service.services.alerts.events import EVENT_TYPES
from ci_service.services.alerts.send import target_problem
from ci_service.settings import Settings, load_settings
from ci_service.store import secrets_box
from ci_service.store.alerts import (
    CHANNELS,
    DIGESTS,
    SCOPES,
    Delivery,
    Subscription,
)
from ci_service.store.competitors import Competitor
from ci_service.store.db import transaction
from ci_service.store.events import IMPORTANCE
from ci_service.store.identity import ROLES, User
from ci_service.timeutil import iso, utcnow

SECRET_PREFIX = "whsec_"
ROTATION_GRACE = timedelta(hours=24)
MAX_NAME = 200
MAX_TARGET = 2000
MAX_COMPETITORS = 500
DELIVERY_LIST_CAP = 1000
USER_STATUSES = ("active", "paused")  # "disabled" is set by delivery (a 410 answer)
# Apprise plugins that notify the server's own desktop or log, not a person.
LOCAL_ONLY_SCHEMES = {"windows", "macosx", "dbus", "kde", "qt", "glib", "gnome", "syslog"}
_HOSTNAME = re.compile(r"^(?:[a-z0-9-]+\.)+[a-z]{2,}$|^localhost$")


# -- who may (services/alerts/access.py) -------------------------------------------------------


def _check_create(actor, scope: str) -> None:
    if actor is None:
        return
    if ROLES.index(actor.role) < ROLES.index("EDITOR"):
        raise Forbidden("This operation needs role EDITOR or higher")
    if scope == "workspace" and not is_manager(actor):
        raise Forbidden("Workspace-wide subscriptions need role ADMIN or OWNER")


# -- validation --------------------------------------------------------------------------------


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def target_hint(url: str) -> str:
    """``scheme://host`` for display. Chat URLs often carry tokens where a host would be
    (``slack://T000/B000/XXX``): a host is shown only when it looks like a host name."""
    try:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        host = (parts.hostname or "").lower()
    except ValueError:
        return ""
    if not (_HOSTNAME.match(host) or _is_ip(host)):
        host = ""
    elif ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}"[:300]


def _allow_private(config: Settings | None) -> bool:
    """``alerts_allow_private_urls`` (None: from the environment, as the CLI and jobs do)."""
    return bool((config or load_settings()).alerts_allow_private_urls)


def _check_target(channel: str, target: Any, allow_private: bool) -> str:
    if not isinstance(target, str) or not target.strip():
        raise ValidationFailed.field("target", "is required")
    target = target.strip()
    if len(target) > MAX_TARGET or any(ch.isspace() for ch in target):
        raise ValidationFailed.field("target", "must be a URL without spaces")
    if channel == "webhook":
        try:
            parts = urlsplit(target)
            ok = parts.scheme.lower() in ("http", "https") and bool(parts.hostname)
        except ValueError:
            ok = False
        if not ok:
            raise ValidationFailed.field("target", "must be an http(s) URL with a host")
    else:
        scheme = target.split("://", 1)[0].lower() if "://" in target else ""
        if scheme in LOCAL_ONLY_SCHEMES or not apprise_accepts(target):
            raise ValidationFailed.field(
                "target", "must be an Apprise URL (slack://, workflows://, mailto://, json://, ...)"
            )

    with quiet_apprise():
        problem = target_problem(channel, target, allow_private=allow_private)
    if problem is not None:
        raise ValidationFailed.field("target", problem)
    return target


def _one_of(name: str, value: Any, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ValidationFailed.field(name, f"one of {', '.join(allowed)}")
    return value


def _name(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationFailed.field("name", "is required")
    name = " ".join(value.split())
    if len(name) > MAX_NAME:
        raise ValidationFailed.field("name", f"at most {MAX_NAME} characters")
    return name


def _event_types(value: Any) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValidationFailed.field("eventTypes", "must be an array of event types")
    unknown = sorted({v for v in value if v not in EVENT_TYPES})
    if unknown:
        raise ValidationFailed.field(
            "eventTypes", f"unknown types {unknown}; allowed: {', '.join(EVENT_TYPES)}"
        )
    return [t for t in EVENT_TYPES if t in value]


def _competitor_ids(workspace_id: str, value: Any) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValidationFailed.field("competitorIds", "must be an array of competitor ids")
    wanted = list(dict.fromkeys(value))
    if len(wanted) > MAX_COMPETITORS:
        raise ValidationFailed.field("competitorIds", f"at most {MAX_COMPETITORS} ids")
    found = {
        row.id
        for row in Competitor.select(Competitor.id).where(
            Competitor.workspace == workspace_id, Competitor.id.in_(wanted)
        )
    }
    unknown = [v for v in wanted if v not in found]
    if unknown:  # another workspace's competitor reads exactly like a missing one
        raise ValidationFailed.field("competitorIds", f"unknown competitor ids: {unknown}")
    return wanted


def new_secret() -> str:
    """A Standard Webhooks secret: ``whsec_`` + base64 of 24 random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(24)).decode("ascii")


# -- reading -----------------------------------------------------------------------------------


def list_subscriptions(workspace_id: str) -> list[Subscription]:
    query = Subscription.select().where(Subscription.workspace == workspace_id)
    return list(query.order_by(Subscription.created_at, Subscription.id))


def read_target(row: Subscription) -> str:
    """The decrypted target, for the sender only (never log or show it)."""
    return secrets_box.decrypt(row.target_encrypted)


def signing_secrets(row: Subscription, now=None) -> list[str]:
    """The secrets that sign a webhook now: the current one, and during a rotation the
    previous one (Standard Webhooks receivers accept a signature by either)."""
    if row.channel != "webhook" or not row.secret_encrypted:
        return []
    out = [secrets_box.decrypt(row.secret_encrypted)]
    now = now or utcnow()
    expires = row.previous_secret_expires_at
    if row.previous_secret_encrypted and expires is not None and expires > now:
        out.append(secrets_box.decrypt(row.previous_secret_encrypted))
    return out


# -- writing -----------------------------------------------------------------------------------


def create_subscription(
    workspace_id: str,
    actor,
    data: dict[str, Any],
    *,
    owner_id: str | None = None,
    config: Settings | None = None,
) -> tuple[Subscription, str | None]:
    """Create one; returns it and the webhook secret (None for Apprise), shown only now.
    ``actor``: the principal (None: the operator, who names the owner with ``owner_id``).
    ``config``: the service's settings (None: the environment's)."""
    scope = _one_of("scope", data.get("scope", "personal"), SCOPES)
    _check_create(actor, scope)
    channel = _one_of("channel", data.get("channel"), CHANNELS)
    fields = {
        "name": _name(data.get("name")),
        "event_types": _event_types(data.get("eventTypes")),
        "competitor_ids": _competitor_ids(workspace_id, data.get("competitorIds")),
        "min_importance": _one_of("minImportance", data.get("minImportance", "low"), IMPORTANCE),
        "digest": _one_of("digest", data.get("digest", "none"), DIGESTS),
    }
    target = _check_target(channel, data.get("target"), _allow_private(config))
    owner = actor.user_id if actor is not None else owner_id
    if scope == "personal" and owner is None:
        raise ValidationFailed.field("owner", "a personal subscription needs an owner")
    secret = new_secret() if channel == "webhook" else None
    with transaction():
        row = Subscription.create(
            workspace=workspace_id,
            owner=owner,
            scope=scope,
            channel=channel,
            target_encrypted=secrets_box.encrypt(target),
            target_hint=target_hint(target),
            secret_encrypted=secrets_box.encrypt(secret) if secret else None,
            **fields,
        )
    return row, secret


def update_subscription(
    workspace_id: str,
    subscription_id: str,
    actor,
    data: dict[str, Any],
    *,
    config: Settings | None = None,
) -> Subscription:
    """Change the given fields (``channel`` cannot change: make a new subscription).
    Pausing makes its pending deliveries missed; ``sendMissed: true`` with ``status:
    active`` queues the missed ones (``services.alerts.replay``), without it they stay."""
    send_missed = delivery_replay.send_missed_flag(data)
    target = None
    if "target" in data:
        # Checked before the write transaction: the target's host lookup may take a moment,
        # and the write lock must not wait on DNS.
        current = get_subscription(workspace_id, subscription_id)
        require_manage(actor, current)
        target = _check_target(current.channel, data["target"], _allow_private(config))
    with transaction():
        row = get_subscription(workspace_id, subscription_id)
        require_manage(actor, row)
        if "channel" in data and data["channel"] != row.channel:
            raise ValidationFailed.field("channel", "cannot change; create a new subscription")
        if "scope" in data:
            scope = _one_of("scope", data["scope"], SCOPES)
            if scope != row.scope:
                if not is_manager(actor):
                    raise Forbidden("Workspace-wide subscriptions need role ADMIN or OWNER")
                if scope == "personal" and row.owner_id is None:
                    if actor is None:
                        raise ValidationFailed.field("owner", "a personal one needs an owner")
                    row.owner = actor.user_id
                row.scope = scope
        if "name" in data:
            row.name = _name(data["name"])
        if "eventTypes" in data:
            row.event_types = _event_types(data["eventTypes"])
        if "competitorIds" in data:
            row.competitor_ids = _competitor_ids(workspace_id, data["competitorIds"])
        if "minImportance" in data:
            row.min_importance = _one_of("minImportance", data["minImportance"], IMPORTANCE)
        if "digest" in data:
            row.digest = _one_of("digest", data["digest"], DIGESTS)
        if target is not None:
            row.target_encrypted = secrets_box.encrypt(target)
            row.target_hint = target_hint(target)
        if "status" in data:
            row.status = _one_of("status", data["status"], USER_STATUSES)
            row.status_reason = None
            row.failing_since = None
        row.updated_at = utcnow()
        row.save()
        delivery_replay.after_update(row, send_missed)
    return row


def delete_subscription(workspace_id: str, subscription_id: str, actor) -> None:
    """Delete it with its deliveries (pending ones are not sent)."""
    with transaction():
        row = get_subscription(workspace_id, subscription_id)
        require_manage(actor, row)
        Delivery.delete().where(Delivery.subscription == row.id).execute()
        row.delete_instance()


def rotate_secret(workspace_id: str, subscription_id: str, actor) -> tuple[Subscription, str]:
    """A new webhook secret (returned once); the previous one signs too for 24 hours."""
    with transaction():
        row = get_subscription(workspace_id, subscription_id)
        require_manage(actor, row)
        if row.channel != "webhook":
            raise ValidationFailed.field("channel", "only webhook subscriptions have a secret")
        secret = new_secret()
        row.previous_secret_encrypted = row.secret_encrypted
        row.previous_secret_expires_at = utcnow() + ROTATION_GRACE
        row.secret_encrypted = secrets_box.encrypt(secret)
        row.updated_at = utcnow()
        row.save()
    return row, secret


def list_deliveries(
    workspace_id: str, subscription_id: str, *, limit: int | None = None, offset: int = 0
) -> list[Delivery]:
    """The subscription's deliveries, newest first."""
    row = get_subscription(workspace_id, subscription_id)
    cap = DELIVERY_LIST_CAP if limit is None else min(max(int(limit), 1), DELIVERY_LIST_CAP)
    query = (
        Delivery.select()
        .where(Delivery.subscription == row.id, Delivery.workspace == workspace_id)
        .order_by(Delivery.created_at.desc(), Delivery.id.desc())
    )
    return list(query.offset(max(int(offset or 0), 0)).limit(cap))


def send_test(workspace_id: str, subscription_id: str, actor) -> Delivery:
    """Queue a test message to the subscription's target, with the job that sends it, in
    one transaction (``services.alerts.delivery.create_test_delivery``)."""
    with transaction():
        row = get_subscription(workspace_id, subscription_id)
        require_manage(actor, row)
        return delivery.create_test_delivery(row)


# -- views -------------------------------------------------------------------------------------


def subscription_to_dict(row: Subscription, missed_count: int | None = None) -> dict[str, Any]:
    """Never the target or a secret: only the hint and whether a secret exists.
    ``missedCount``: its missed deliveries (counted here unless given)."""
    if missed_count is None:
        missed_count = delivery_replay.missed_counts([row.id]).get(row.id, 0)
    return {
        "id": row.id,
        "workspaceId": row.workspace_id,
        "ownerId": row.owner_id,
        "name": row.name,
        "scope": row.scope,
        "eventTypes": list(row.event_types or []),
        "competitorIds": list(row.competitor_ids or []),
        "minImportance": row.min_importance,
        "channel": row.channel,
        "targetHint": row.target_hint,
        "hasSecret": bool(row.secret_encrypted),
        "previousSecretExpiresAt": iso(row.previous_secret_expires_at),
        "digest": row.digest,
        "status": row.status,
        "statusReason": row.status_reason,
        "failingSince": iso(row.failing_since),
        "lastDigestAt": iso(row.last_digest_at),
        "missedCount": missed_count,
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }


def subscriptions_to_dicts(rows: list[Subscription]) -> list[dict[str, Any]]:
    """:func:`subscription_to_dict` of each, the missed counts read in one query."""
    counts = delivery_replay.missed_counts([row.id for row in rows])
    return [subscription_to_dict(row, counts.get(row.id, 0)) for row in rows]


def delivery_to_dict(row: Delivery) -> dict[str, Any]:
    """A delivery as the API shows it (``services.alerts.delivery.delivery_to_dict``)."""
    return delivery.delivery_to_dict(row)


def owner_for_email(workspace_id: str, email: str | None) -> str | None:
    """The id of the workspace's user with this e-mail (CLI ``--email``); 404 if none."""
    if not email:
        return None
    user = (
        User.select()
        .where(User.workspace == workspace_id, User.email == email.strip().lower())
        .first()
    )
    if user is None:
        raise NotFound.of("User")
    return user.id
