"""The first-run checklist of an empty workspace: add our product, then a competitor, then a
battlecard. A battlecard needs both (it sets our product against a competitor), which is why
the steps come in this order; the checklist is gone once all three exist."""

from __future__ import annotations

from typing import Any

from ci_service.store.analysis import Battlecard
from ci_service.store.competitors import Competitor
from ci_service.store.resources import Offering


def _exists(query) -> bool:
    return query.limit(1).exists()


def first_run(workspace_id: str) -> dict[str, Any]:
    """``{"done": {step: bool}, "complete": bool}`` for the steps in order: ``product`` (one
    of ours), ``competitor`` and ``battlecard`` (any, generating ones included: the
    step is to start one)."""
    done = {
        "product": _exists(
            Offering.select(Offering.id).where(
                Offering.workspace == workspace_id, Offering.competitor.is_null(True)
            )
        ),
        "competitor": _exists(
            Competitor.select(Competitor.id).where(Competitor.workspace == workspace_id)
        ),
        "battlecard": _exists(
            Battlecard.select(Battlecard.id).where(Battlecard.workspace == workspace_id)
        ),
    }
    return {"done": done, "complete": all(done.values())}
