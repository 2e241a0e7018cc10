"""OAuth 2.1 for the tool server (issue 17): clients, connections, codes and tokens.

- :class:`OAuthClient`: a registered client (RFC 7591) or one known by its client ID
  metadata document (its ``id`` is then the document's https URL). A client secret, when
  one was issued, is stored as a SHA-256 hash. A registration keeps the address it came
  from (the registration throttle counts by it) and when a person first connected it
  (registrations never connected expire, issue 25).
- :class:`OAuthGrant`: a *connection*: one person (a workspace ``User`` row, so one
  workspace and that person's role there) allowed one client some scopes. People see and
  revoke these; revoking one ends every token issued under it.
- :class:`OAuthCode`: an authorization code (hash only), single-use and short-lived.
- :class:`OAuthToken`: an access token and its refresh token (hashes only). A refresh
  rotates: the row is revoked and ``replaced_by`` names its successor.

No table has a ``workspace_id`` column: the workspace is the grant's user's, so these rows
are not workspace data for the response cache (store/data_version.py), and removing a
person from a workspace deletes their connections there with the ``User`` row.
"""

from __future__ import annotations

from peewee import CharField, ForeignKeyField

from ci_service.store.base import BaseModel, JSONField, UTCDateTimeField
from ci_service.store.identity import User
from ci_service.timeutil import utcnow


class OAuthClient(BaseModel):
    # The client_id: generated at registration, or a metadata document's URL.
    id = CharField(primary_key=True, max_length=2048)
    client_name = CharField(max_length=200, null=True)
    redirect_uris = JSONField()
    grant_types = JSONField()
    response_types = JSONField()
    scope = CharField(max_length=200)
    token_endpoint_auth_method = CharField(max_length=40)
    secret_hash = CharField(max_length=64, null=True)
    metadata = JSONField(default=dict)  # the registered metadata, echoed back to the client
    source = CharField(max_length=20)  # "registration" or "metadata_document"
    created_at = UTCDateTimeField(default=utcnow)
    fetched_at = UTCDateTimeField(null=True)  # metadata documents: when last read
    # Issue 25 (migration 0018): the client address of a registration, and when the first
    # connection to the client was made (None: never used, so it expires).
    registered_from = CharField(max_length=100, null=True)
    first_connected_at = UTCDateTimeField(null=True)

    class Meta:
        table_name = "oauth_client"


class OAuthGrant(BaseModel):
    client = ForeignKeyField(OAuthClient, backref="grants", on_delete="CASCADE")
    user = ForeignKeyField(User, backref="oauth_grants", on_delete="CASCADE")
    scopes = JSONField()
    resource = CharField(max_length=2048)
    created_at = UTCDateTimeField(default=utcnow)
    last_used_at = UTCDateTimeField(null=True)
    revoked_at = UTCDateTimeField(null=True)

    class Meta:
        table_name = "oauth_grant"


class OAuthCode(BaseModel):
    code_hash = CharField(max_length=64, unique=True)
    grant = ForeignKeyField(OAuthGrant, backref="codes", on_delete="CASCADE")
    redirect_uri = CharField(max_length=2048)
    scopes = JSONField()
    resource = CharField(max_length=2048)
    code_challenge = CharField(max_length=128)
    code_challenge_method = CharField(max_length=10)
    created_at = UTCDateTimeField(default=utcnow)
    expires_at = UTCDateTimeField()
    used_at = UTCDateTimeField(null=True)

    class Meta:
        table_name = "oauth_code"


class OAuthToken(BaseModel):
    grant = ForeignKeyField(OAuthGrant, backref="tokens", on_delete="CASCADE")
    access_hash = CharField(max_length=64, unique=True)
    refresh_hash = CharField(max_length=64, unique=True, null=True)
    scopes = JSONField()
    resource = CharField(max_length=2048)
    created_at = UTCDateTimeField(default=utcnow)
    expires_at = UTCDateTimeField()
    refresh_expires_at = UTCDateTimeField(null=True)
    revoked_at = UTCDateTimeField(null=True)
    replaced_by = CharField(max_length=64, null=True)  # the token row a refresh made

    class Meta:
        table_name = "oauth_token"


OAUTH_MODELS = [OAuthClient, OAuthGrant, OAuthCode, OAuthToken]
