"""Background jobs, persisted so they survive a busy pool and a restart."""

from __future__ import annotations

from peewee import BooleanField, CharField, FloatField, ForeignKeyField, TextField

from ci_service.store.base import BaseModel, JSONField, UTCDateTimeField
from ci_service.store.identity import Workspace
from ci_service.timeutil import utcnow

JOB_STATUSES = ("running", "completed", "failed")
STEP_STATUSES = ("pending", "running", "completed", "failed")


class Job(BaseModel):
    workspace = ForeignKeyField(Workspace, backref="jobs", on_delete="CASCADE")
    # Plain id, not a foreign key: a job's history outlives a deleted competitor.
    competitor_id = CharField(max_length=64, null=True, index=True)
    type = CharField(max_length=64, index=True)
    display_title = CharField(max_length=300)
    status = CharField(max_length=20, default="running", index=True)
    progress = FloatField(default=0)
    current_step = CharField(max_length=200, default="Queued")
    steps = JSONField(default=list)  # [{id, name, status}]
    metadata = JSONField(default=dict)
    payload = JSONField(default=dict)  # arguments for the handler (JSON, never pickle)
    error = TextField(null=True)
    cancel_requested = BooleanField(default=False)
    created_at = UTCDateTimeField(default=utcnow, index=True)
    started_at = UTCDateTimeField(default=utcnow)
    claimed_at = UTCDateTimeField(null=True)  # None: queued, waiting for a worker
    completed_at = UTCDateTimeField(null=True)
