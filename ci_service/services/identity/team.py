"""Team rules the settings pages need beyond ``services.identity.users``: who may invite whom.

An invite grants a role, so it follows ``people.set_role``'s rule: only an OWNER grants the
OWNER role (an ADMIN invites VIEWERs, EDITORs and ADMINs), and so only an OWNER revokes or
renews an invite to the OWNER role.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from ci_service.errors import Forbidden
from ci_service.services.identity import users as people
from ci_service.services.identity.auth import Principal
from ci_service.store.db import transaction
from ci_service.store.identity import ROLES


def grantable_roles(acting: Principal) -> list[str]:
    """The roles ``acting`` may give (in an invite or a role change)."""
    return [role for role in ROLES if role != "OWNER" or acting.role == "OWNER"]


def invite_member(
    workspace_id: str,
    email: Any,
    role: Any,
    acting: Principal,
    lifetime: timedelta = people.INVITE_LIFETIME,
):
    """A one-time invite (see ``people.invite``); returns (token, invite)."""
    _check_owner_rule(role, acting)
    return people.invite(workspace_id, email, role, lifetime)


def _check_owner_rule(role: str, acting: Principal) -> None:
    if role == "OWNER" and acting.role != "OWNER":
        raise Forbidden("Only an OWNER can grant or take the OWNER role")


def revoke_member_invite(workspace_id: str, invite_id: str, acting: Principal):
    """Revoke a pending invite (404 for another workspace's or a used one)."""
    _check_owner_rule(people.pending_invite(workspace_id, invite_id).role, acting)
    return people.revoke_invite(workspace_id, invite_id)


def renew_invite(workspace_id: str, invite_id: str, acting: Principal):
    """A new link for a pending invite: the old one is revoked and a new invite made for the
    same address and role (the old link cannot be shown again: only its hash is stored).
    Returns (token, invite)."""
    with transaction():  # both or neither: the person is never left without a link
        old = people.pending_invite(workspace_id, invite_id)
        _check_owner_rule(old.role, acting)
        people.revoke_invite(workspace_id, invite_id)
        return people.invite(workspace_id, old.email, old.role)
