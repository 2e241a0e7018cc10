"""People in the web app: users with passwords, invites, sign-in and sessions.

Rules:

- A person signs in with e-mail and password (hashed with argon2id, ``argon2-cffi``). Their
  memberships are the workspace ``User`` rows with that address; with several, they pick
  one after signing in. Roles and plans gate pages exactly as they gate the API
  (``services.identity.auth.check_access`` on a principal built from the session).
- Sign-in attempts are throttled: ``MAX_ACCOUNT_FAILURES`` failures per account and
  ``MAX_ADDRESS_FAILURES`` per client address in ``THROTTLE_WINDOW`` lock further tries
  out until the window ends (a correct password included). A failed attempt costs the
  same argon2 work whether or not the account exists, and the error never says which
  part was wrong.
- Sessions are rows (only a SHA-256 of the token is stored), valid ``SESSION_LIFETIME``;
  signing out, a password change and removing the user from the workspace end them.
- Connected apps (OAuth connections of the tool server, services/identity/oauth_tokens.py): a
  password change, on any path, ends all of the person's in the same transaction (a stolen
  password's apps go with it); removing the person from a workspace deletes theirs there.
  Signing out leaves them: it ends this browser's session, not the apps the person
  connected, which they disconnect under Settings > Connected apps.
- Invites are one-time links valid ``INVITE_LIFETIME``: accepting one sets the password (or,
  when the person already has one, checks it) and adds them to the workspace with the role.
  A pending invite can be revoked (deleted); its link then opens the "not valid" page.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ci_service.errors import Forbidden, NotFound, RateLimited, Unauthorized, ValidationFailed
from ci_service.services.identity import oauth_tokens
from ci_service.services.identity.auth import Principal
from ci_service.store.db import transaction
from ci_service.store.identity import ROLES, SCOPES, Tenant, User, Workspace
from ci_service.store.people import Invite, Login, SignInThrottle, WebSession
from ci_service.timeutil import iso, utcnow

SESSION_LIFETIME = timedelta(days=14)
INVITE_LIFETIME = timedelta(hours=72)
THROTTLE_WINDOW = timedelta(minutes=15)
MAX_ACCOUNT_FAILURES = 5
MAX_ADDRESS_FAILURES = 20
MIN_PASSWORD = 8
MAX_PASSWORD = 1024
SIGN_IN_MESSAGE = "Wrong e-mail address or password"
# Session principals are not rate limited like keys; a high limit keeps the shape.
SESSION_RATE_LIMIT = 1_000_000_000

_hasher = None


def _password_hasher():
    global _hasher
    if _hasher is None:
        from argon2 import PasswordHasher

        _hasher = PasswordHasher()
    return _hasher


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def normalize_email(email: Any) -> str:
    text = " ".join(str(email or "").split()).lower()
    if not text or "@" not in text or len(text) > 320 or " " in text:
        raise ValidationFailed("Invalid e-mail address", {"fields": {"email": ["not valid"]}})
    return text


def _check_password(password: Any) -> str:
    if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise ValidationFailed(
            f"A password has {MIN_PASSWORD} to {MAX_PASSWORD} characters",
            {"fields": {"password": [f"at least {MIN_PASSWORD} characters"]}},
        )
    return password


def _check_role(role: Any) -> str:
    if role not in ROLES:
        raise ValidationFailed("Unknown role", {"fields": {"role": [f"one of {list(ROLES)}"]}})
    return role


# -- users and passwords ------------------------------------------------------------------


def _login(email: str, create: bool = False) -> Login | None:
    login = Login.get_or_none(Login.email == email)
    if login is None and create:
        login = Login.create(email=email)
    return login


def create_user(workspace_id: str, email: Any, role: Any, password: str | None = None) -> User:
    """Add (or update the role of) ``email`` in the workspace, with a password if given."""
    email, role = normalize_email(email), _check_role(role)
    if password is not None:
        _check_password(password)
    with transaction():
        Workspace.get_by_id(workspace_id)
        user = User.get_or_none((User.workspace == workspace_id) & (User.email == email))
        if user is None:
            user = User.create(workspace=workspace_id, email=email, role=role)
        elif user.role != role:
            user.role = role
            user.save()
        login = _login(email, create=True)
        if password is not None:
            _store_password(login, password)
    return user


def _store_password(login: Login, password: str) -> None:
    login.password_hash = _password_hasher().hash(password)
    login.password_changed_at = utcnow()
    login.save()
    # Every session opened before the change ends, and every app connected with the old
    # password: whoever had it may have connected one.
    WebSession.update(revoked_at=utcnow()).where(
        (WebSession.login == login.id) & WebSession.revoked_at.is_null()
    ).execute()
    oauth_tokens.end_connections_of(login.email)


def set_password(email: Any, password: str) -> None:
    """Set a person's password; ends all their sessions and connected apps. 404 for an
    unknown address."""
    email = normalize_email(email)
    _check_password(password)
    with transaction():
        if not User.select().where(User.email == email).exists():
            raise NotFound("No user has this e-mail address")
        _store_password(_login(email, create=True), password)


def change_password(login: Login, current: str, new: str) -> None:
    """A signed-in person's own change: checks the current password first."""
    if not _verify(login, current):
        raise Unauthorized("The current password is wrong")
    _check_password(new)
    with transaction():
        _store_password(Login.get_by_id(login.id), new)


def list_users(workspace_id: str) -> list[dict[str, Any]]:
    rows = list(
        User.select().where(User.workspace == workspace_id).order_by(User.created_at, User.id)
    )
    emails = [r.email for r in rows if r.email]
    can_sign_in = {
        login.email
        for login in Login.select(Login.email).where(
            Login.email.in_(emails) & Login.password_hash.is_null(False)
        )
    }
    return [
        {
            "id": row.id,
            "email": row.email,
            "role": row.role,
            "canSignIn": row.email in can_sign_in,
            "createdAt": iso(row.created_at),
        }
        for row in rows
    ]


def set_role(workspace_id: str, user_id: str, role: Any, acting: Principal) -> User:
    """Change a member's role (ADMIN or OWNER; only an OWNER grants or takes OWNER)."""
    role = _check_role(role)
    with transaction():
        user = _member(workspace_id, user_id)
        if "OWNER" in (role, user.role) and acting.role != "OWNER":
            raise Forbidden("Only an OWNER can grant or take the OWNER role")
        user.role = role
        user.save()
    return user


def remove_user(workspace_id: str, user_id: str, acting: Principal) -> None:
    """Remove a member from the workspace; their sessions there, their keys and their
    connected apps there end (deleted with the row, in this transaction)."""
    with transaction():
        user = _member(workspace_id, user_id)
        if user.id == acting.user_id:
            raise ValidationFailed("You cannot remove yourself", {"fields": {"userId": ["self"]}})
        if user.role == "OWNER" and acting.role != "OWNER":
            raise Forbidden("Only an OWNER can remove an OWNER")
        user.delete_instance(recursive=True)


def _member(workspace_id: str, user_id: str) -> User:
    user = User.get_or_none((User.id == user_id) & (User.workspace == workspace_id))
    if user is None:
        raise NotFound("User not found")
    return user


# -- invites ------------------------------------------------------------------------------


def invite(workspace_id: str, email: Any, role: Any, lifetime: timedelta = INVITE_LIFETIME):
    """A one-time invite; returns (token, invite). The token is shown once, never stored."""
    email, role = normalize_email(email), _check_role(role)
    token = secrets.token_urlsafe(32)
    with transaction():
        Workspace.get_by_id(workspace_id)
        row = Invite.create(
            token_hash=_digest(token),
            workspace=workspace_id,
            email=email,
            role=role,
            expires_at=utcnow() + lifetime,
        )
    return token, row


def list_pending_invites(workspace_id: str) -> list[dict[str, Any]]:
    """The workspace's invites not used yet and not expired, newest first. Only a hash of
    each link's token is stored, so the links themselves cannot be listed."""
    rows = Invite.select().where(
        (Invite.workspace == workspace_id)
        & Invite.used_at.is_null()
        & (Invite.expires_at > utcnow())
    )
    return [
        {
            "id": row.id,
            "email": row.email,
            "role": row.role,
            "createdAt": iso(row.created_at),
            "expiresAt": iso(row.expires_at),
        }
        for row in rows.order_by(Invite.created_at.desc(), Invite.id)
    ]


def pending_invite(workspace_id: str, invite_id: str) -> Invite:
    """A pending invite of the workspace; 404 for another workspace's, a used or an
    unknown one."""
    row = Invite.get_or_none((Invite.id == invite_id) & (Invite.workspace == workspace_id))
    if row is None or row.used_at is not None:
        raise NotFound("Invite not found")
    return row


def revoke_invite(workspace_id: str, invite_id: str) -> Invite:
    """Delete a pending invite: its link then opens the "not valid" page. Returns the
    deleted row (its e-mail address and role, for a new link)."""
    with transaction():
        row = pending_invite(workspace_id, invite_id)
        row.delete_instance()
    return row


def open_invite(token: str) -> Invite:
    """The pending invite behind ``token``; 404 for an unknown, used or expired one."""
    row = Invite.get_or_none(Invite.token_hash == _digest(str(token or "")))
    if row is None or row.used_at is not None or row.expires_at <= utcnow():
        raise NotFound("This invite link is not valid (unknown, used or expired)")
    return row


def accept_invite(token: str, password: str) -> tuple[Login, User]:
    """Join the invite's workspace. A new person sets ``password``; one who already has a
    password confirms it. The invite can be used once."""
    with transaction():
        row = open_invite(token)
        login = _login(row.email, create=True)
        if login.password_hash:
            if not _verify(login, password):
                raise Unauthorized("Enter the password you already use for this address")
        else:
            _check_password(password)
            _store_password(login, password)
        user = User.get_or_none((User.workspace == row.workspace_id) & (User.email == row.email))
        if user is None:
            user = User.create(workspace=row.workspace_id, email=row.email, role=row.role)
        row.used_at = utcnow()
        row.save()
    return login, user


# -- sign-in ------------------------------------------------------------------------------

_DUMMY_HASH: str | None = None


def _verify(login: Login | None, password: Any) -> bool:
    """argon2 verification; the same work for an unknown person (a dummy hash)."""
    global _DUMMY_HASH
    from argon2.exceptions import InvalidHashError, VerificationError

    hasher = _password_hasher()
    if _DUMMY_HASH is None:
        _DUMMY_HASH = hasher.hash(secrets.token_hex(16))
    stored = login.password_hash if login is not None and login.password_hash else _DUMMY_HASH
    try:
        ok = hasher.verify(stored, str(password or "")[:MAX_PASSWORD])
    except (VerificationError, InvalidHashError):
        ok = False
    return ok and login is not None and bool(login.password_hash)


def _throttle_rows(keys: list[str]) -> list[SignInThrottle]:
    now = utcnow()
    rows = []
    for key in keys:
        row = SignInThrottle.get_or_none(SignInThrottle.key == key)
        if row is None:
            row = SignInThrottle.create(key=key, window_start=now, failures=0)
        elif row.window_start + THROTTLE_WINDOW <= now:
            row.window_start, row.failures = now, 0
            row.save()
        rows.append(row)
    return rows


def sign_in(email: Any, password: Any, address: str | None) -> Login:
    """The person's login when the password is right; 401 otherwise, 429 when throttled."""
    try:
        email = normalize_email(email)
    except ValidationFailed:
        email = ""
    keys = [f"account:{email}", f"address:{address or 'unknown'}"]
    limits = [MAX_ACCOUNT_FAILURES, MAX_ADDRESS_FAILURES]
    with transaction():
        rows = _throttle_rows(keys)
        for row, limit in zip(rows, limits, strict=True):
            if row.failures >= limit:
                wait = (row.window_start + THROTTLE_WINDOW - utcnow()).total_seconds()
                minutes = max(1, int(wait // 60) + 1)
                raise RateLimited(
                    f"Too many failed sign-ins; try again in {minutes} minute(s)",
                    details={"retryAfter": int(wait) + 1},
                    headers={"Retry-After": str(int(wait) + 1)},
                )
    login = _login(email) if email else None
    if _verify(login, password) and memberships(login):
        with transaction():
            SignInThrottle.delete().where(SignInThrottle.key == keys[0]).execute()
        return login
    with transaction():
        SignInThrottle.update(failures=SignInThrottle.failures + 1).where(
            SignInThrottle.key.in_(keys)
        ).execute()
    raise Unauthorized(SIGN_IN_MESSAGE)


@dataclass(frozen=True)
class Membership:
    user_id: str
    workspace_id: str
    workspace_name: str
    role: str
    plan: str


def memberships(login: Login | None) -> list[Membership]:
    if login is None:
        return []
    rows = (
        User.select(User, Workspace, Tenant)
        .join(Workspace)
        .join(Tenant)
        .where(User.email == login.email)
        .order_by(Workspace.name)
    )
    return [
        Membership(r.id, r.workspace.id, r.workspace.name, r.role, r.workspace.tenant.plan)
        for r in rows
    ]


# -- sessions -----------------------------------------------------------------------------


def start_session(login: Login, user_id: str | None = None) -> tuple[str, WebSession]:
    """A new session (token shown once); with one membership it is chosen at once."""
    token = secrets.token_urlsafe(32)
    if user_id is None:
        members = memberships(login)
        user_id = members[0].user_id if len(members) == 1 else None
    with transaction():
        row = WebSession.create(
            token_hash=_digest(token),
            login=login.id,
            user=user_id,
            csrf_token=secrets.token_urlsafe(32),
            expires_at=utcnow() + SESSION_LIFETIME,
        )
    return token, row


def session_for(token: str | None) -> WebSession | None:
    """The live session behind a cookie value, or None."""
    if not token or len(token) > 200:
        return None
    row = WebSession.get_or_none(WebSession.token_hash == _digest(token))
    now = utcnow()
    if row is None or row.revoked_at is not None or row.expires_at <= now:
        return None
    if row.last_seen_at + timedelta(minutes=1) <= now:  # at most one write a minute
        WebSession.update(last_seen_at=now).where(WebSession.id == row.id).execute()
    return row


def choose_workspace(session: WebSession, user_id: str) -> None:
    """Work in one of the person's workspaces (404 for a membership that is not theirs)."""
    if not any(m.user_id == user_id for m in memberships(session.login)):
        raise NotFound("Workspace not found")
    with transaction():
        WebSession.update(user=user_id).where(WebSession.id == session.id).execute()


def end_session(session: WebSession) -> None:
    with transaction():
        WebSession.update(revoked_at=utcnow()).where(WebSession.id == session.id).execute()


def csrf_ok(session_token: str, presented: Any) -> bool:
    return isinstance(presented, str) and hmac.compare_digest(session_token, presented)


def principal_for(session: WebSession) -> Principal | None:
    """The session's principal in its chosen workspace: that user's role and the plan, all
    scopes (a person's rights are their role's), as a key's principal would be."""
    if session.user_id is None:
        return None
    row = (
        User.select(User, Workspace, Tenant)
        .join(Workspace)
        .join(Tenant)
        .where(User.id == session.user_id)
        .first()
    )
    if row is None:
        return None
    return Principal(
        key_id=f"session:{session.id}",
        user_id=row.id,
        workspace_id=row.workspace.id,
        tenant_id=row.workspace.tenant.id,
        role=row.role,
        plan=row.workspace.tenant.plan,
        scopes=tuple(SCOPES),
        rate_limit=SESSION_RATE_LIMIT,
        allowed_ips=(),
        expires_at=session.expires_at,
    )


def is_expired(when: datetime | None) -> bool:
    return when is not None and when <= utcnow()
