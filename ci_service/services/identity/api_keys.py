"""API keys: generation, hashing, validation, listing and revocation.

A key is ``svc_live_`` + 32 hex characters from ``secrets`` (a CSPRNG). Only its SHA-256
hash is stored; the full key is shown once, at creation. ``prefix`` is the marker plus the
first 8 hex characters, used to find candidate rows before a constant-time comparison.
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
import secrets
from datetime import datetime
from typing import Any

from ci_service.errors import NotFound, ValidationFailed
from ci_service.store.db import transaction
from ci_service.store.identity import ROLES, SCOPES, ApiKey, User, Workspace
from ci_service.timeutil import iso, parse_datetime, utcnow

KEY_MARKER = "svc_live_"
KEY_PATTERN = re.compile(r"^svc_live_[0-9a-f]{32}$")
MAX_NAME_LENGTH = 100
MAX_RATE_LIMIT = 1_000_000
MAX_ALLOWED_IPS = 100


def generate_key() -> str:
    return KEY_MARKER + secrets.token_hex(16)


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def key_prefix(key: str) -> str:
    return key[: len(KEY_MARKER) + 8]


def _fail(errors: dict[str, list[str]]) -> ValidationFailed:
    names = ", ".join(sorted(errors))
    return ValidationFailed(f"Invalid API key options: {names}", {"fields": errors})


def normalize_allowed_ips(values: Any) -> list[str]:
    """Each entry an IP address or CIDR network; returned in canonical form."""
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ValueError("must be an array of IP addresses or CIDR ranges")
    if len(values) > MAX_ALLOWED_IPS:
        raise ValueError(f"at most {MAX_ALLOWED_IPS} entries")
    normalized = []
    for value in values:
        try:
            network = ipaddress.ip_network(value.strip(), strict=False)
        except ValueError:
            raise ValueError(f"'{value}' is not an IP address or CIDR range") from None
        text = str(network)
        if network.num_addresses == 1:
            text = str(network.network_address)
        normalized.append(text)
    return normalized


def validate_key_options(
    *,
    name: Any,
    expires_at: Any = None,
    scopes: Any = None,
    rate_limit: Any = None,
    allowed_ips: Any = None,
) -> dict[str, Any]:
    """Check every option and return them normalized; report all bad fields at once."""
    errors: dict[str, list[str]] = {}
    out: dict[str, Any] = {}

    if name is None:
        errors["name"] = ["is required"]
    elif not isinstance(name, str) or not name.strip():
        errors["name"] = ["must be a non-empty string"]
    elif len(name) > MAX_NAME_LENGTH:
        errors["name"] = [f"must be at most {MAX_NAME_LENGTH} characters"]
    else:
        out["name"] = name.strip()

    out["expires_at"] = None
    if expires_at is not None:
        try:
            when = expires_at if isinstance(expires_at, datetime) else parse_datetime(expires_at)
        except (TypeError, ValueError) as exc:
            errors["expiresAt"] = [f"invalid date-time: {exc}"]
        else:
            if when <= utcnow():
                errors["expiresAt"] = ["must be in the future"]
            out["expires_at"] = when

    if scopes is None:
        out["scopes"] = list(SCOPES)
    elif not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
        errors["scopes"] = ["must be an array of strings"]
    elif not scopes:
        errors["scopes"] = ["must name at least one scope"]
    elif any(s not in SCOPES for s in scopes):
        bad = sorted({s for s in scopes if s not in SCOPES})
        errors["scopes"] = [f"unknown scopes {bad}; allowed: {', '.join(SCOPES)}"]
    else:
        out["scopes"] = [s for s in SCOPES if s in scopes]  # canonical order, no duplicates

    if rate_limit is None:
        out["rate_limit"] = 1000
    elif isinstance(rate_limit, bool) or not isinstance(rate_limit, int):
        errors["rateLimit"] = ["must be an integer"]
    elif not 1 <= rate_limit <= MAX_RATE_LIMIT:
        errors["rateLimit"] = [f"must be between 1 and {MAX_RATE_LIMIT}"]
    else:
        out["rate_limit"] = rate_limit

    if allowed_ips is None:
        out["allowed_ips"] = []
    else:
        try:
            out["allowed_ips"] = normalize_allowed_ips(allowed_ips)
        except ValueError as exc:
            errors["allowedIps"] = [str(exc)]

    if errors:
        raise _fail(errors)
    return out


def ensure_user(workspace: Workspace, email: str | None, role: str | None) -> User:
    """The workspace user with ``email`` (created if new); without email, a new user."""
    if role is not None and role not in ROLES:
        raise ValidationFailed.field("role", f"must be one of {', '.join(ROLES)}")
    if email is not None:
        email = email.strip().lower()
        if not email or "@" not in email or len(email) > 320:
            raise ValidationFailed.field("email", "must be an email address")
        user = User.get_or_none(User.workspace == workspace, User.email == email)
        if user is not None:
            if role is not None and user.role != role:
                user.role = role
                user.save()
            return user
    return User.create(workspace=workspace, email=email, role=role or "OWNER")


def create_key(user: User, **options: Any) -> tuple[ApiKey, str]:
    """Validate options, mint a key for ``user`` and return (row, full key)."""
    values = validate_key_options(**options)
    key = generate_key()
    with transaction():
        workspace = Workspace.get_by_id(user.workspace_id)
        row = ApiKey.create(
            tenant=workspace.tenant_id,
            workspace=workspace,
            user=user,
            name=values["name"],
            prefix=key_prefix(key),
            key_hash=hash_key(key),
            scopes=values["scopes"],
            rate_limit=values["rate_limit"],
            allowed_ips=values["allowed_ips"],
            expires_at=values["expires_at"],
        )
    return row, key


def list_keys(workspace_id: str) -> list[ApiKey]:
    return list(
        ApiKey.select()
        .where(ApiKey.workspace == workspace_id)
        .order_by(ApiKey.created_at, ApiKey.id)
    )


def get_key(key_id: str, workspace_id: str | None = None) -> ApiKey:
    query = ApiKey.select().where(ApiKey.id == key_id)
    if workspace_id is not None:
        query = query.where(ApiKey.workspace == workspace_id)
    row = query.first()
    if row is None:
        raise NotFound.of("API key")
    return row


def revoke_key(key_id: str, workspace_id: str | None = None) -> ApiKey:
    """Set revokedAt (idempotent: a revoked key keeps its first revocation time)."""
    with transaction():
        row = get_key(key_id, workspace_id)
        if row.revoked_at is None:
            row.revoked_at = utcnow()
            row.save()
    return row


def key_to_dict(row: ApiKey, *, detail: bool) -> dict[str, Any]:
    """``detail``: the create shape (scopes, rateLimit, allowedIps) instead of the list one."""
    data: dict[str, Any] = {
        "id": row.id,
        "tenantId": row.tenant_id,
        "name": row.name,
        "prefix": row.prefix,
        "createdAt": iso(row.created_at),
        "expiresAt": iso(row.expires_at),
    }
    if detail:
        data.update(scopes=row.scopes, rateLimit=row.rate_limit, allowedIps=row.allowed_ips)
    else:
        data.update(lastUsedAt=iso(row.last_used_at), revokedAt=iso(row.revoked_at))
    return data
