"""Saving the capability mapping of a competitor's or our offerings (the mapping itself:
``pipeline/capabilities.py``)."""

from __future__ import annotations

from typing import Any

from ci_service.pipeline.capabilities import map_offering, own_capability_ids
from ci_service.pipeline.llm import LLMProvider, get_provider
from ci_service.services.collection.product_store import (
    competitor_offerings,
    save_offering_fields,
    sync_competitor_lists,
)


def analyze_offerings(
    workspace_id: str,
    offerings: list[Any],
    *,
    provider: LLMProvider | None = None,
    tick=None,
) -> dict[str, int]:
    """Map and save every offering; returns counts for the job log."""
    provider = provider or get_provider()
    own_ids = own_capability_ids(workspace_id)
    own_categories = own_capability_ids(workspace_id, "categories")
    counts = {"offerings": 0, "capabilities": 0}
    for number, offering in enumerate(offerings, start=1):
        capabilities, categories = map_offering(offering, own_ids, provider, own_categories)
        save_offering_fields(
            workspace_id,
            offering,
            {"capabilities": capabilities[:500], "categories": categories[:500]},
        )
        counts["offerings"] += 1
        counts["capabilities"] += len(capabilities)
        if tick is not None:
            tick(number / max(len(offerings), 1), f"Mapped capabilities of {offering.name}")
    return counts


def analyze_competitor(workspace_id: str, competitor_id: str, *, tick=None) -> dict[str, int]:
    """All of a competitor's offerings, then its category list."""
    offerings = competitor_offerings(workspace_id, competitor_id)
    counts = analyze_offerings(workspace_id, offerings, tick=tick)
    if offerings:
        sync_competitor_lists(workspace_id, competitor_id)
    return counts
