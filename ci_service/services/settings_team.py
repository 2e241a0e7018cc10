"""Team rules the settings pages need beyond ``services.people``: who may invite whom.

An invite grants a role, so it follows ``people.set_role``'s rule: only an OWNER grants the
OWNER role (an ADMIN invites VIEWERs, EDITORs and ADMINs).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from ci_service.errors import Forbidden
from ci_service.services import people
from ci_service.services.auth import Principal
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
    if role == "OWNER" and acting.role != "OWNER":
        raise Forbidden("Only an OWNER can grant or take the OWNER role")
    return people.invite(workspace_id, email, role, lifetime)
