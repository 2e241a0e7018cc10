"""Tenants, workspaces, users and API keys."""

from __future__ import annotations

from peewee import CharField, ForeignKeyField, IntegerField

from ci_service.store.base import BaseModel, JSONField, UTCDateTimeField
from ci_service.timeutil import utcnow

PLANS = ("STARTER", "PRO", "ENTERPRISE")
ROLES = ("VIEWER", "EDITOR", "ADMIN", "OWNER")  # low to high
SCOPES = ("read", "write", "admin")


class Tenant(BaseModel):
    """The account: holds the plan."""

    name = CharField(max_length=200)
    plan = CharField(max_length=20)
    created_at = UTCDateTimeField(default=utcnow)


class Workspace(BaseModel):
    tenant = ForeignKeyField(Tenant, backref="workspaces", on_delete="CASCADE")
    name = CharField(max_length=200, unique=True)
    created_at = UTCDateTimeField(default=utcnow)
    # Bumped by database triggers on every write to the workspace's data, in the writer's
    # transaction (store/data_version.py); the REST response cache keys by it.
    data_version = IntegerField(default=0)


class User(BaseModel):
    workspace = ForeignKeyField(Workspace, backref="users", on_delete="CASCADE")
    email = CharField(max_length=320, null=True)
    role = CharField(max_length=20)
    created_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = ((("workspace", "email"), True),)


class ApiKey(BaseModel):
    """An API key. Only a SHA-256 hash of the full key is stored, never the key."""

    tenant = ForeignKeyField(Tenant, on_delete="CASCADE")
    workspace = ForeignKeyField(Workspace, backref="api_keys", on_delete="CASCADE")
    user = ForeignKeyField(User, backref="api_keys", on_delete="CASCADE")
    name = CharField(max_length=100)
    prefix = CharField(max_length=32, index=True)
    key_hash = CharField(max_length=64, unique=True)
    scopes = JSONField()
    rate_limit = IntegerField(default=1000)
    allowed_ips = JSONField(default=list)
    created_at = UTCDateTimeField(default=utcnow)
    expires_at = UTCDateTimeField(null=True)
    revoked_at = UTCDateTimeField(null=True)
    last_used_at = UTCDateTimeField(null=True)


class RateLimitCounter(BaseModel):
    """Persisted request count of a key's current one-hour window (survives restarts)."""

    window_start = IntegerField()  # Unix seconds, a multiple of 3600
    count = IntegerField()
