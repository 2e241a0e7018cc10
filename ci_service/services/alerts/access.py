"""Who may change a subscription, and finding one: the rules every alerts module asks.

Below ``subscriptions`` (create, change, delete) so that the modules it calls (replay,
mutes) ask the same rules without importing it back.
"""

from __future__ import annotations

from ci_service.errors import Forbidden, NotFound
from ci_service.store.alerts import Subscription
from ci_service.store.identity import ROLES

MANAGERS = ("ADMIN", "OWNER")


def is_manager(actor) -> bool:
    return actor is None or actor.role in MANAGERS  # None: the operator (CLI)


def can_manage(actor, row: Subscription) -> bool:
    """May ``actor`` (a principal; None: the operator) change this subscription?"""
    if actor is None:
        return True
    if ROLES.index(actor.role) < ROLES.index("EDITOR"):
        return False
    if is_manager(actor):
        return True
    return row.scope == "personal" and row.owner_id is not None and row.owner_id == actor.user_id


def require_manage(actor, row: Subscription) -> None:
    if not can_manage(actor, row):
        if row.scope == "workspace":
            raise Forbidden("Workspace-wide subscriptions need role ADMIN or OWNER")
        raise Forbidden("Only its owner or an ADMIN or OWNER can change this subscription")


def get_subscription(workspace_id: str, subscription_id: str) -> Subscription:
    row = (
        Subscription.select()
        .where(Subscription.id == subscription_id, Subscription.workspace == workspace_id)
        .first()
    )
    if row is None:
        raise NotFound.of("Subscription")
    return row


def find_subscription(subscription_id: str) -> Subscription:
    """By id alone, for the operator's CLI."""
    row = Subscription.get_or_none(Subscription.id == subscription_id)
    if row is None:
        raise NotFound.of("Subscription")
    return row
