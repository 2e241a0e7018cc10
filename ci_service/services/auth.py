"""Who is calling, and may they do this.

``authenticate`` turns a raw key into a ``Principal``; ``check_access`` applies the rules of
DECISIONS.md in one order for REST and tools alike: scope, then role, then plan.
"""

from __future__ import annotations

import hmac
import ipaddress
from dataclasses import dataclass
from datetime import datetime

from ci_service.errors import (
    Forbidden,
    InsufficientScope,
    IpNotAllowed,
    Unauthorized,
    UpgradeRequired,
)
from ci_service.services.apikeys import KEY_PATTERN, hash_key, key_prefix
from ci_service.store.identity import PLANS, ROLES, ApiKey, Tenant, User
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


def authenticate(raw_key: str | None) -> Principal:
    """The principal behind ``raw_key``; one 401 for every way a key can be bad."""
    if not raw_key or not KEY_PATTERN.match(raw_key):
        raise Unauthorized(UNAUTHORIZED_MESSAGE)
    digest = hash_key(raw_key)
    candidates = (
        ApiKey.select(ApiKey, User, Tenant)
        .join(User, on=(ApiKey.user == User.id))
        .switch(ApiKey)
        .join(Tenant, on=(ApiKey.tenant == Tenant.id))
        .where(ApiKey.prefix == key_prefix(raw_key))
    )
    match = None
    for row in candidates:
        # Constant-time comparison of the stored hash with the presented key's hash.
        if hmac.compare_digest(row.key_hash, digest):
            match = row
    now = utcnow()
    if match is None or match.revoked_at is not None:
        raise Unauthorized(UNAUTHORIZED_MESSAGE)
    if match.expires_at is not None and match.expires_at <= now:
        raise Unauthorized(UNAUTHORIZED_MESSAGE)
    return Principal(
        key_id=match.id,
        user_id=match.user.id,
        workspace_id=match.workspace_id,
        tenant_id=match.tenant_id,
        role=match.user.role,
        plan=match.tenant.plan,
        scopes=tuple(match.scopes),
        rate_limit=match.rate_limit,
        allowed_ips=tuple(match.allowed_ips or ()),
        expires_at=match.expires_at,
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
