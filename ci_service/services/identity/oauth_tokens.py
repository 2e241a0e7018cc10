"""Connections, authorization codes and tokens of the tool server's OAuth (issue 17).

Rules:

- A connection (``OAuthGrant``) is one person in one workspace allowing one client some
  scopes; consenting again to the same client there updates it. Tokens act as that person
  with their role *now*, in that workspace with its plan *now* (a downgrade or a role change
  applies to the next request), with the connection's scopes mapped onto the same
  ``Access`` rules as a key's (services/identity/auth.py). The rate limit is a key's default
  (``RATE_LIMIT`` an hour), counted per connection across refreshes.
- Codes live ``CODE_LIFETIME`` and work once; a second use revokes the connection (RFC 6749
  §4.1.2: tokens issued from a code used twice may be stolen).
- Access tokens live ``ACCESS_LIFETIME``, refresh tokens ``REFRESH_LIFETIME``. A refresh
  rotates: the old pair stops working at once; presenting a rotated refresh token again
  revokes the connection (reuse detection), except within the grace window
  (``oauth_refresh_grace_seconds``) after its rotation: then it is a client retrying a
  refresh whose answer it lost (or sent several at once), and it gets a new pair too
  (issue 25). The window counts from the first rotation; retries never extend it.
- A password change ends all the person's connections, in every workspace
  (``end_connections_of``, from services/identity/users.py in the change's transaction); removing a
  person from a workspace deletes their connections there with the ``User`` row. Signing
  out does not: it ends the browser session only, and connected apps keep working until
  disconnected (Settings > Connected apps) or the password changes.
- Only SHA-256 hashes of codes and tokens are stored; lookups by hash are followed by a
  constant-time comparison. Every bad token is the same 401.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta
from typing import Any

from ci_service.errors import NotFound, Unauthorized, UpgradeRequired, ValidationFailed
from ci_service.services.identity.auth import Principal, plan_at_least, role_at_least
from ci_service.store.db import database, joined_transaction, transaction
from ci_service.store.identity import Tenant, User, Workspace
from ci_service.store.oauth import OAuthClient, OAuthCode, OAuthGrant, OAuthToken
from ci_service.timeutil import iso, utcnow

CODE_LIFETIME = timedelta(minutes=5)
ACCESS_LIFETIME = timedelta(hours=1)
REFRESH_LIFETIME = timedelta(days=30)
RATE_LIMIT = 1000  # requests an hour, as a key's default (DECISIONS.md)
ACCESS_PREFIX = "ci_at_"
REFRESH_PREFIX = "ci_rt_"
CODE_PREFIX = "ci_code_"
TOOL_SERVER_PLAN = "ENTERPRISE"
INVALID_TOKEN_MESSAGE = "Invalid, expired or revoked access token"


def digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def new_secret(prefix: str) -> str:
    return prefix + secrets.token_urlsafe(32)


# -- connections ----------------------------------------------------------------------------


def membership(user_id: str) -> tuple[User, Workspace, Tenant] | None:
    row = (
        User.select(User, Workspace, Tenant)
        .join(Workspace)
        .join(Tenant)
        .where(User.id == user_id)
        .first()
    )
    if row is None:
        return None
    return row, row.workspace, row.workspace.tenant


def connect(client: OAuthClient, user_id: str, scopes: list[str], resource: str) -> OAuthGrant:
    """Create or update the connection of ``client`` to this person in this workspace.

    The workspace must be on the tool server's plan (403 UPGRADE_REQUIRED otherwise)."""
    found = membership(user_id)
    if found is None:
        raise NotFound("Workspace not found")
    _user, workspace, tenant = found
    if not plan_at_least(tenant.plan, TOOL_SERVER_PLAN):
        raise UpgradeRequired(
            f"Workspace '{workspace.name}' is on the {tenant.plan} plan; the tool server "
            "is only available for Enterprise customers",
            requiredPlan=TOOL_SERVER_PLAN,
        )
    if not scopes:
        raise ValidationFailed.field("scope", "choose at least one scope")
    with transaction():
        grant = (
            OAuthGrant.select()
            .where(
                (OAuthGrant.client == client.id)
                & (OAuthGrant.user == user_id)
                & OAuthGrant.revoked_at.is_null()
            )
            .first()
        )
        if client.first_connected_at is None:  # used from now on: never expires unused
            OAuthClient.update(first_connected_at=utcnow()).where(
                (OAuthClient.id == client.id) & OAuthClient.first_connected_at.is_null()
            ).execute()
        if grant is None:
            return OAuthGrant.create(
                client=client.id, user=user_id, scopes=scopes, resource=resource
            )
        grant.scopes, grant.resource = scopes, resource
        grant.save()
    return grant


def revoke_grant(grant_id: str) -> None:
    """End a connection and every token issued under it (idempotent)."""
    now = utcnow()
    with transaction():
        OAuthGrant.update(revoked_at=now).where(
            (OAuthGrant.id == grant_id) & OAuthGrant.revoked_at.is_null()
        ).execute()
        OAuthToken.update(revoked_at=now).where(
            (OAuthToken.grant == grant_id) & OAuthToken.revoked_at.is_null()
        ).execute()


def end_connections_of(email: str) -> int:
    """Revoke every live connection of the person with this address, in every workspace,
    and every token issued under them (a password change). Joins the caller's transaction;
    returns how many connections ended."""
    now = utcnow()
    grants = OAuthGrant.select(OAuthGrant.id).where(
        OAuthGrant.user.in_(User.select(User.id).where(User.email == email))
        & OAuthGrant.revoked_at.is_null()
    )
    with joined_transaction():
        OAuthToken.update(revoked_at=now).where(
            OAuthToken.grant.in_(grants) & OAuthToken.revoked_at.is_null()
        ).execute()
        return OAuthGrant.update(revoked_at=now).where(OAuthGrant.id.in_(grants)).execute()


def _grant_query():
    return (
        OAuthGrant.select(OAuthGrant, OAuthClient, User)
        .join(OAuthClient)
        .switch(OAuthGrant)
        .join(User)
        .where(OAuthGrant.revoked_at.is_null())
        .order_by(OAuthGrant.created_at, OAuthGrant.id)
    )


def list_connections(workspace_id: str, user_id: str | None = None) -> list[OAuthGrant]:
    """Live connections in a workspace (one person's when ``user_id`` is given)."""
    query = _grant_query().where(User.workspace == workspace_id)
    if user_id is not None:
        query = query.where(OAuthGrant.user == user_id)
    return list(query)


def list_all_connections() -> list[OAuthGrant]:
    return list(_grant_query())


def may_manage(acting: Principal, grant: OAuthGrant) -> bool:
    """One's own connections; an ADMIN or OWNER also everyone's in the workspace."""
    return grant.user_id == acting.user_id or role_at_least(acting.role, "ADMIN")


def revoke_connection(grant_id: str, acting: Principal | None = None) -> OAuthGrant:
    """Revoke a live connection (``acting``: of the caller's workspace, that they may manage;
    None: the CLI, any). Another workspace's or person's connection is a 404."""
    query = _grant_query().where(OAuthGrant.id == grant_id)
    if acting is not None:
        query = query.where(User.workspace == acting.workspace_id)
    grant = query.first()
    if grant is None or (acting is not None and not may_manage(acting, grant)):
        raise NotFound.of("Connection")
    revoke_grant(grant.id)
    return grant


def connection_to_dict(grant: OAuthGrant) -> dict[str, Any]:
    from ci_service.services.identity.oauth_clients import display_name

    return {
        "id": grant.id,
        "clientId": grant.client.id,
        "clientName": display_name(grant.client),
        "userId": grant.user.id,
        "userEmail": grant.user.email,
        "workspaceId": grant.user.workspace_id,
        "scopes": list(grant.scopes),
        "createdAt": iso(grant.created_at),
        "lastUsedAt": iso(grant.last_used_at),
    }


# -- codes ----------------------------------------------------------------------------------


def save_code(code: str, grant: OAuthGrant, redirect_uri: str, challenge: str, method: str):
    """Store a new code's hash, bound to the connection, redirect URI and PKCE challenge."""
    with transaction():
        OAuthCode.create(
            code_hash=digest(code),
            grant=grant.id,
            redirect_uri=redirect_uri,
            scopes=list(grant.scopes),
            resource=grant.resource,
            code_challenge=challenge,
            code_challenge_method=method,
            expires_at=utcnow() + CODE_LIFETIME,
        )


def _presented(model, hash_field, value: Any, prefix: str, client_id: str):
    """The ``model`` row (with its grant) whose ``hash_field`` is the hash of the presented
    secret ``value``, when ``value`` looks like one (``prefix``) and the row belongs to
    ``client_id``; else None. Whether it is still live is the caller's rule."""
    if not isinstance(value, str) or not value.startswith(prefix) or len(value) > 200:
        return None
    wanted = digest(value)
    row = model.select(model, OAuthGrant).join(OAuthGrant).where(hash_field == wanted).first()
    if row is None or not hmac.compare_digest(getattr(row, hash_field.name), wanted):
        return None
    if row.grant.client_id != client_id:
        return None
    return row


def find_code(code: Any, client_id: str) -> OAuthCode | None:
    """A live code of ``client_id``. A code presented a second time revokes its connection
    (call inside the token request's transaction)."""
    row = _presented(OAuthCode, OAuthCode.code_hash, code, CODE_PREFIX, client_id)
    if row is None:
        return None
    if row.used_at is not None:
        revoke_grant(row.grant_id)
        return None
    if row.expires_at <= utcnow() or row.grant.revoked_at is not None:
        return None
    return row


def use_code(row: OAuthCode) -> None:
    OAuthCode.update(used_at=utcnow()).where(OAuthCode.id == row.id).execute()


# -- tokens ---------------------------------------------------------------------------------


def save_tokens(grant_id: str, token: dict[str, Any], scopes: list[str], resource: str) -> str:
    """Store the hashes of a freshly generated token pair; returns the row id."""
    now = utcnow()
    refresh = token.get("refresh_token")
    row = OAuthToken.create(
        grant=grant_id,
        access_hash=digest(token["access_token"]),
        refresh_hash=digest(refresh) if refresh else None,
        scopes=scopes,
        resource=resource,
        expires_at=now + timedelta(seconds=int(token["expires_in"])),
        refresh_expires_at=(now + REFRESH_LIFETIME) if refresh else None,
    )
    return row.id


def find_refresh_token(value: Any, client_id: str, grace_seconds: float = 0) -> OAuthToken | None:
    """The token row of a refresh token of ``client_id`` that may be used now: a live one, or
    one rotated less than ``grace_seconds`` ago (a retry) whose successor was not revoked.
    A rotated one presented later revokes its connection (call inside the token request's
    transaction)."""
    row = _presented(OAuthToken, OAuthToken.refresh_hash, value, REFRESH_PREFIX, client_id)
    if row is None or row.grant.revoked_at is not None:
        return None
    if row.refresh_expires_at is None or row.refresh_expires_at <= utcnow():
        return None
    if row.replaced_by is not None:
        # A rotated token's revoked_at is its rotation time: revocations never overwrite it.
        if row.revoked_at + timedelta(seconds=max(grace_seconds, 0)) > utcnow():
            successor = OAuthToken.get_or_none(OAuthToken.id == row.replaced_by)
            if successor is not None and (
                successor.revoked_at is None or successor.replaced_by is not None
            ):
                return row
            return None  # the pair it led to was revoked on purpose
        revoke_grant(row.grant_id)
        return None
    if row.revoked_at is not None:
        return None
    return row


def find_token(value: Any) -> OAuthToken | None:
    """The token row of an access or refresh token string (for revocation), live or not."""
    if not isinstance(value, str) or len(value) > 200:
        return None
    wanted = digest(value)
    if value.startswith(ACCESS_PREFIX):
        row = OAuthToken.get_or_none(OAuthToken.access_hash == wanted)
        return row if row is not None and hmac.compare_digest(row.access_hash, wanted) else None
    if value.startswith(REFRESH_PREFIX):
        row = OAuthToken.get_or_none(OAuthToken.refresh_hash == wanted)
        return row if row is not None and hmac.compare_digest(row.refresh_hash, wanted) else None
    return None


def rotate(old: OAuthToken, new_row_id: str) -> None:
    """The refresh of ``old`` made ``new_row_id``: ``old`` stops working. A retry within the
    grace window leaves it as it is, so the window keeps counting from the first rotation."""
    OAuthToken.update(revoked_at=utcnow(), replaced_by=new_row_id).where(
        (OAuthToken.id == old.id) & OAuthToken.replaced_by.is_null()
    ).execute()


def revoke_token(row: OAuthToken, *, whole_grant: bool) -> None:
    if whole_grant:
        revoke_grant(row.grant_id)
        return
    with transaction():
        OAuthToken.update(revoked_at=utcnow()).where(
            (OAuthToken.id == row.id) & OAuthToken.revoked_at.is_null()
        ).execute()


# One statement per tool server request, like a key's (services/identity/auth.py): the token, its
# connection, the person's role now, the plan now and the workspace's data version.
_TOKEN_SQL = (
    "SELECT t.access_hash, t.revoked_at, t.expires_at, t.scopes, t.resource, g.id, "
    "g.revoked_at, u.id, u.role, w.id, w.tenant_id, tn.plan, w.data_version "
    "FROM oauth_token t JOIN oauth_grant g ON g.id = t.grant_id "
    'JOIN "user" u ON u.id = g.user_id JOIN workspace w ON w.id = u.workspace_id '
    "JOIN tenant tn ON tn.id = w.tenant_id WHERE t.access_hash = {param}"
)


def authenticate_bearer(value: str | None, resource: str) -> Principal:
    """The principal behind an access token presented to ``resource``; one 401 otherwise."""
    if not value or not value.startswith(ACCESS_PREFIX) or len(value) > 200:
        raise Unauthorized(INVALID_TOKEN_MESSAGE)
    wanted = digest(value)
    sql = _TOKEN_SQL.format(param=database.param)
    row = database.execute_sql(sql, (wanted,)).fetchone()
    if row is None or not hmac.compare_digest(row[0], wanted):
        raise Unauthorized(INVALID_TOKEN_MESSAGE)
    (_hash, revoked, expires, scopes, token_resource, grant_id, grant_revoked, user_id, role,
     workspace_id, tenant_id, plan, data_version) = row  # fmt: skip
    expires_at: datetime = OAuthToken.expires_at.python_value(expires)
    if revoked is not None or grant_revoked is not None or expires_at <= utcnow():
        raise Unauthorized(INVALID_TOKEN_MESSAGE)
    if not hmac.compare_digest(token_resource.encode(), resource.encode()):
        raise Unauthorized(INVALID_TOKEN_MESSAGE)  # RFC 8707: minted for another resource
    return Principal(
        key_id=f"oauth:{grant_id}",
        user_id=user_id,
        workspace_id=workspace_id,
        tenant_id=tenant_id,
        role=role,
        plan=plan,
        scopes=tuple(OAuthToken.scopes.python_value(scopes) or ()),
        rate_limit=RATE_LIMIT,
        allowed_ips=(),
        expires_at=expires_at,
        data_version=data_version,
        kind="oauth",
    )
