"""Events: what changed at a competitor (or in the workspace), stored when it happens.

An event is written in the same transaction as the change it describes (see
``services.alerts.events.emit``), so there is no change without its event and no event without its
change. Events are history: deleting a competitor keeps its events (``competitor_id`` stays
as written; the record link may then 404).
"""

from __future__ import annotations

from peewee import CharField, ForeignKeyField, TextField

from ci_service.store.base import BaseModel, JSONField, UTCDateTimeField
from ci_service.store.identity import User, Workspace
from ci_service.timeutil import utcnow

IMPORTANCE = ("low", "normal", "high")  # low to high
# The values of Event.type (services/alerts/events.py documents each); here so that the CLI
# can offer them without loading the services.
EVENT_TYPES = (
    "competitor.price_changed",
    "competitor.product_added",
    "competitor.product_removed",
    "competitor.news",
    "competitor.person_added",
    "competitor.person_removed",
    "competitor.page_changed",
    "battlecard.updated",
    "deal.recorded",
    "job.failed",
    "subscription.paused",
    "subscription.disabled",
)


class Event(BaseModel):
    # No index of its own: (workspace, created_at) below leads with it (migration 0016).
    workspace = ForeignKeyField(Workspace, on_delete="CASCADE", index=False)
    type = CharField(max_length=60)
    competitor_id = CharField(max_length=64, null=True, index=True)
    title = CharField(max_length=500)
    summary = TextField(default="")
    importance = CharField(max_length=10, default="normal")
    evidence_ids = JSONField(default=list)
    link = CharField(max_length=500, null=True)
    data = JSONField(default=dict)
    created_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = ((("workspace", "created_at"), False),)


class EventRead(BaseModel):
    """One person's read mark on one event (the Changes page, issue 29; migration 0022).

    No ``workspace_id`` column on purpose: a read mark is personal bookkeeping, not workspace
    data, so it must not bump the workspace's data version (store/data_version.py puts its
    triggers on every table with that column) and empty the REST response cache. The event
    says whose workspace it is; deleting the person or the event deletes the mark.
    """

    # No index of its own: (user, event) below leads with it.
    user = ForeignKeyField(User, on_delete="CASCADE", index=False)
    event = ForeignKeyField(Event, on_delete="CASCADE", index=True)
    read_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = ((("user", "event"), True),)
