"""Subscriptions to events and the deliveries made for them.

A :class:`Subscription` says which events (types, competitors, minimum importance) go where
(a signed webhook, or an Apprise URL for chat and e-mail), one at a time or as a daily or
weekly digest. Targets and webhook secrets are stored encrypted (``services.secrets_box``):
they must be read back to send, and nobody reads them from the database.

A :class:`Delivery` is one message to send: an event (``kind`` event), a digest (``kind``
digest, ``digest_key`` "daily:2026-11-24") or a test. It is created in the same transaction
as the event it carries, so a crash between the commit and the send loses nothing: the
delivery job sends it later (at least once; ``message_id`` is the ``webhook-id`` receivers
deduplicate by).

A :class:`Mute` silences one page (``url``) or one event type for one subscription, or for
every subscription when it names only a competitor (rules in ``services.alerts.mutes``).
"""

from __future__ import annotations

from peewee import CharField, ForeignKeyField, IntegerField, TextField

from ci_service.store.base import BaseModel, JSONField, UTCDateTimeField
from ci_service.store.competitors import Competitor
from ci_service.store.events import Event
from ci_service.store.identity import User, Workspace
from ci_service.timeutil import utcnow

CHANNELS = ("webhook", "apprise")
DIGESTS = ("none", "daily", "weekly")
SUBSCRIPTION_STATUSES = ("active", "paused", "disabled")
SCOPES = ("personal", "workspace")
DELIVERY_KINDS = ("event", "digest", "test")
# missed: not sent because its subscription was paused or disabled (sent on request only)
DELIVERY_STATUSES = ("pending", "delivered", "failed", "missed")


class Subscription(BaseModel):
    workspace = ForeignKeyField(Workspace, on_delete="CASCADE")
    owner = ForeignKeyField(User, null=True, on_delete="SET NULL")
    name = CharField(max_length=200)
    scope = CharField(max_length=20, default="personal")
    event_types = JSONField(default=list)  # empty: every type
    competitor_ids = JSONField(default=list)  # empty: every competitor (and none)
    min_importance = CharField(max_length=10, default="low")
    channel = CharField(max_length=20)
    target_encrypted = TextField()
    target_hint = CharField(max_length=300, default="")  # scheme and host, for display
    secret_encrypted = TextField(null=True)  # webhook: the current whsec_ secret
    previous_secret_encrypted = TextField(null=True)  # during a rotation
    previous_secret_expires_at = UTCDateTimeField(null=True)
    digest = CharField(max_length=10, default="none")
    status = CharField(max_length=20, default="active")
    status_reason = CharField(max_length=500, null=True)
    failing_since = UTCDateTimeField(null=True)
    last_digest_at = UTCDateTimeField(null=True)
    created_at = UTCDateTimeField(default=utcnow)
    updated_at = UTCDateTimeField(default=utcnow)


class Delivery(BaseModel):
    workspace = ForeignKeyField(Workspace, on_delete="CASCADE")
    subscription = ForeignKeyField(Subscription, backref="deliveries", on_delete="CASCADE")
    event = ForeignKeyField(Event, null=True, on_delete="CASCADE")
    kind = CharField(max_length=10, default="event")
    digest_key = CharField(max_length=40, null=True)
    message_id = CharField(max_length=64, unique=True)
    payload = JSONField(default=dict)  # what is sent (digests and tests: built when made)
    status = CharField(max_length=20, default="pending")
    attempts = IntegerField(default=0)
    last_status = IntegerField(null=True)
    last_error = CharField(max_length=1000, null=True)
    next_attempt_at = UTCDateTimeField(default=utcnow)
    delivered_at = UTCDateTimeField(null=True)
    created_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = (
            (("status", "next_attempt_at"), False),
            (("subscription", "event"), True),
            (("subscription", "digest_key"), True),
        )


ALERT_MODELS = [Subscription, Delivery]


class Mute(BaseModel):
    """Not in ``ALERT_MODELS``: migration 0023 creates it (0012 must not change)."""

    workspace = ForeignKeyField(Workspace, on_delete="CASCADE")
    subscription = ForeignKeyField(Subscription, null=True, on_delete="CASCADE")
    competitor = ForeignKeyField(Competitor, null=True, on_delete="CASCADE")
    event_type = CharField(max_length=60, null=True)
    url = CharField(max_length=2000, null=True)  # normalised (services.alerts.mutes.normal_url)
    created_by = ForeignKeyField(User, null=True, on_delete="SET NULL")
    created_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = ((("workspace", "created_at"), False),)
