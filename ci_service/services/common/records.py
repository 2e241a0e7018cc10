"""Reading one record of a workspace, a 404 when it is missing or another workspace's.

Here, below every domain, so that a module that ``workspace.competitors`` itself depends
on (alerts' event feed, the matrix, battlecards, job views) asks the same question without
importing it back.
"""

from __future__ import annotations

from ci_service.errors import NotFound
from ci_service.store.competitors import Competitor


def get_competitor(workspace_id: str, competitor_id: str) -> Competitor:
    row = Competitor.get_or_none(
        (Competitor.id == competitor_id) & (Competitor.workspace == workspace_id)
    )
    if row is None:
        raise NotFound.of("Competitor")
    return row
