"""People who sign in to the web app: their login, sessions, invites and sign-in throttle.

A :class:`Login` is a person by e-mail address, across workspaces: each workspace they
belong to has its own ``User`` row (``store.identity``) with that address and a role there.
Only hashes are stored: the password's (argon2id), a session token's and an invite token's
(SHA-256); a session is revocable and ends when its login's password changes.
"""

from __future__ import annotations

from peewee import CharField, ForeignKeyField, IntegerField

from ci_service.store.base import BaseModel, UTCDateTimeField
from ci_service.store.identity import User, Workspace
from ci_service.timeutil import utcnow


class Login(BaseModel):
    email = CharField(max_length=320, unique=True)  # lower-cased
    password_hash = CharField(max_length=255, null=True)
    password_changed_at = UTCDateTimeField(null=True)
    created_at = UTCDateTimeField(default=utcnow)


class WebSession(BaseModel):
    token_hash = CharField(max_length=64, unique=True)
    login = ForeignKeyField(Login, backref="sessions", on_delete="CASCADE")
    # The workspace membership the person works in; null until they pick one. Removing the
    # user from the workspace deletes the row, and so ends the session.
    user = ForeignKeyField(User, null=True, on_delete="CASCADE")
    csrf_token = CharField(max_length=64)
    created_at = UTCDateTimeField(default=utcnow)
    last_seen_at = UTCDateTimeField(default=utcnow)
    expires_at = UTCDateTimeField()
    revoked_at = UTCDateTimeField(null=True)


class Invite(BaseModel):
    token_hash = CharField(max_length=64, unique=True)
    workspace = ForeignKeyField(Workspace, on_delete="CASCADE")
    email = CharField(max_length=320)
    role = CharField(max_length=20)
    created_at = UTCDateTimeField(default=utcnow)
    expires_at = UTCDateTimeField()
    used_at = UTCDateTimeField(null=True)


class SignInThrottle(BaseModel):
    """Failed sign-ins per account or address in the current window."""

    key = CharField(max_length=400, unique=True)  # "account:<email>" or "address:<ip>"
    window_start = UTCDateTimeField()
    failures = IntegerField(default=0)


PEOPLE_MODELS = [Login, WebSession, Invite, SignInThrottle]
