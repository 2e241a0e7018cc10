"""Who is calling, and may they do this.

``authenticate`` turns a raw key into a ``Principal``; ``check_access`` applies the rules of
DECISIONS.md in one order for REST and tools alike: scope, then role, then plan.
"""

from __future__ import annotations

import hmac
import ipaddress
import threading
from dataclasses import dataclass
from datetime import datetime

from ci_service.errors import (
    Forbidden,
    InsufficientScope,
    IpNotAllowed,
    Unauthorized,
    UpgradeRequired,
)
from ci_service.services.identity.api_keys import KEY_PATTERN, hash_key, key_prefix
from ci_service.store.change_token import change_token
from ci_service.store.db import database
from ci_service.store.identity import PLANS, ROLES, ApiKey
from ci_service.timeutil import utcnow

UNAUTHORIZED_MESSAGE = "Invalid or missing API key"
ENTERPRISE_KEYS_MESSAGE = "API keys are only available for Enterprise customers"


@dataclass(frozen=True)
class Principal:
    key_id: str
    user_id: str
    workspace_id: str
    tenant_id: str
    role: str
    plan: str
    scopes: tuple[str, ...]
    rate_limit: int
    allowed_ips: tuple[str, ...]
    expires_at: datetime | None
    data_version: int | None = None  # the workspace's, when the key was checked
    kind: str = "key"  # "key", or "oauth" for a tool server bearer token (services/oauth_tokens)


# One statement for every authenticated request: the key, its user's role, the tenant's
# plan and the workspace's data version (the response cache's key; web/response_cache.py).
# Plain SQL, built once: peewee compiling the joined query was most of a cached read.
_KEY_SQL = (
    "SELECT k.id, k.key_hash, k.revoked_at, k.expires_at, k.scopes, k.rate_limit, "
    "k.allowed_ips, k.workspace_id, k.tenant_id, u.id, u.role, t.plan, w.data_version "
    'FROM api_key k JOIN "user" u ON u.id = k.user_id JOIN tenant t ON t.id = k.tenant_id '
    "JOIN workspace w ON w.id = k.workspace_id WHERE k.prefix = {param}"
)


_SQL_BY_PARAM: dict[str, str] = {}
# The principals of rows seen lately, by the row as read: a revoked key, a new role or plan,
# a write's data version each make a different row at once, in every process; only turning
# an unchanged row into a Principal again (JSON, dates, a frozen dataclass) is skipped.
_PRINCIPALS: dict[tuple, Principal] = {}
_PRINCIPALS_MAX = 1024
# Per thread, by the key's hash: the principal and the database's change token when its row
# was read (store/change_token.py). While the token is the same nothing has been committed
# anywhere since, so the row is the row and the statement is not run again; any commit
# (a revocation in another process included) makes the next request read it.
_seen = threading.local()
_SEEN_MAX = 256


def authenticate(raw_key: str | None) -> Principal:
    """The principal behind ``raw_key``; one 401 for every way a key can be bad."""
    if not raw_key or not KEY_PATTERN.match(raw_key):
        raise Unauthorized(UNAUTHORIZED_MESSAGE)
    digest = hash_key(raw_key)
    token = change_token()
    if token is not None:
        seen = getattr(_seen, "keys", None)
        hit = seen.get(digest) if seen is not None else None
        if hit is not None and hit[0] == token:
            return _unexpired(hit[1])
    sql = _SQL_BY_PARAM.get(database.param)
    if sql is None:
        sql = _SQL_BY_PARAM[database.param] = _KEY_SQL.format(param=database.param)
    match = None
    for row in database.execute_sql(sql, (key_prefix(raw_key),)).fetchall():
        # Constant-time comparison of the stored hash with the presented key's hash.
        if hmac.compare_digest(row[1], digest):
            match = row
    if match is None or match[2] is not None:
        raise Unauthorized(UNAUTHORIZED_MESSAGE)
    match = tuple(match)
    principal = _PRINCIPALS.get(match)
    if principal is None:
        principal = _principal(match)
        if len(_PRINCIPALS) >= _PRINCIPALS_MAX:
            _PRINCIPALS.clear()
        _PRINCIPALS[match] = principal
    if token is not None:  # read before the statement: a commit since makes it stale
        seen = getattr(_seen, "keys", None)
        if seen is None or len(seen) >= _SEEN_MAX:
            seen = _seen.keys = {}
        seen[digest] = (token, principal)
    return _unexpired(principal)


def _unexpired(principal: Principal) -> Principal:
    if principal.expires_at is not None and principal.expires_at <= utcnow():
        raise Unauthorized(UNAUTHORIZED_MESSAGE)
    return principal


def _principal(match: tuple) -> Principal:
    (key_id, _hash, _revoked, expires, scopes, rate_limit, allowed_ips, workspace_id,
     tenant_id, user_id, role, plan, data_version) = match  # fmt: skip
    expires_at = ApiKey.expires_at.python_value(expires)
    return Principal(
        key_id=key_id,
        user_id=user_id,
        workspace_id=workspace_id,
        tenant_id=tenant_id,
        role=role,
        plan=plan,
        scopes=tuple(ApiKey.scopes.python_value(scopes) or ()),
        rate_limit=rate_limit,
        allowed_ips=tuple(ApiKey.allowed_ips.python_value(allowed_ips) or ()),
        expires_at=expires_at,
        data_version=data_version,
    )


def check_ip(principal: Principal, remote_addr: str | None) -> None:
    """403 IP_NOT_ALLOWED unless the key has no allowlist or the address is on it."""
    if not principal.allowed_ips:
        return
    try:
        address = ipaddress.ip_address((remote_addr or "").split("%", 1)[0])
    except ValueError:
        raise IpNotAllowed("Requests from this IP address are not allowed for this key") from None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    for entry in principal.allowed_ips:
        network = ipaddress.ip_network(entry, strict=False)
        if address.version == network.version and address in network:
            return
    raise IpNotAllowed("Requests from this IP address are not allowed for this key")


def role_at_least(role: str, minimum: str) -> bool:
    return ROLES.index(role) >= ROLES.index(minimum)


def plan_at_least(plan: str, minimum: str) -> bool:
    return PLANS.index(plan) >= PLANS.index(minimum)


@dataclass(frozen=True)
class Access:
    """What an operation needs. ``plan_message`` overrides the generic upgrade message."""

    scope: str = "read"
    min_role: str = "VIEWER"
    plan: str | None = None
    plan_message: str | None = None


READ = Access()
WRITE = Access(scope="write", min_role="EDITOR")


def check_access(principal: Principal, access: Access) -> None:
    if access.scope not in principal.scopes:
        raise InsufficientScope(f"This operation needs the '{access.scope}' scope")
    if not role_at_least(principal.role, access.min_role):
        raise Forbidden(f"This operation needs role {access.min_role} or higher")
    if access.plan is not None and not plan_at_least(principal.plan, access.plan):
        message = access.plan_message or f"This feature needs the {access.plan} plan or higher"
        raise UpgradeRequired(message, requiredPlan=access.plan)
