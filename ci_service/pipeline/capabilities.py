"""Map an offering's features to capabilities and categories (CAPABILITY nodes, IMPLEMENTS).

Rules (deterministic unless an LLM provider is configured for the classification):

- Each feature is a capability of the same name. When one of our own products already
  has a capability with the same normalised name, its id is reused, so our product and
  the competitor's offering IMPLEMENT the same CAPABILITY node; otherwise the id is
  ``cap-<slug>`` (shared by every competitor naming it).
- Each feature is classified into categories: the category keyword table plus the
  offering's own categories are the labels; the provider picks among them (the default
  provider by keywords). The offering keeps its categories and gains the new ones; a
  category named like one of our products' categories takes its id (one matrix row).
- Capabilities already on the offering are kept (merged by name).

The offering is saved through the product view's schema with ``graph_sync.sync_offering``,
which creates the CAPABILITY nodes and IMPLEMENTS edges, one transaction per offering.
"""

from __future__ import annotations

from typing import Any

from ci_service.pipeline import taxonomy
from ci_service.pipeline.llm import LLMProvider


def own_capability_ids(
    workspace_id: str, field: str = "capabilities"
) -> dict[str, tuple[str, str]]:
    """Normalised name -> (id, name) of our own products' capabilities (or categories)."""
    from ci_service.store.resources import Offering

    found: dict[str, tuple[str, str]] = {}
    for row in Offering.select().where(
        Offering.workspace == workspace_id, Offering.competitor.is_null()
    ):
        for item in getattr(row, field) or []:
            name = item.get("name", "")
            found.setdefault(taxonomy.normalize(name), (item["id"], name))
    return found


def align(items: list[dict], own: dict[str, tuple[str, str]] | None) -> list[dict]:
    """Items named like one of ours take our id and name (one matrix row, one node)."""
    out = []
    for item in items:
        match = (own or {}).get(taxonomy.normalize(item.get("name", "")))
        out.append({**item, "id": match[0], "name": match[1]} if match else item)
    return out


def map_offering(
    offering: Any,
    own_ids: dict[str, tuple[str, str]],
    provider: LLMProvider,
    own_categories: dict[str, tuple[str, str]] | None = None,
) -> tuple[list[dict], list[dict]]:
    """(capabilities, categories) for one offering, from its features."""
    capabilities = []
    categories = list(offering.categories or [])
    labels = list(taxonomy.CATEGORY_KEYWORDS) + [
        c["name"] for c in categories if c.get("name") not in taxonomy.CATEGORY_KEYWORDS
    ]
    by_label = {c["name"].casefold(): c for c in categories if c.get("name")}
    for feature in offering.features or []:
        name = (feature.get("name") or "").strip()
        if not name:
            continue
        item = taxonomy.capability_item(name, feature.get("description", ""))
        if taxonomy.normalize(name) in own_ids:  # the same node as our product's
            item["id"], item["name"] = own_ids[taxonomy.normalize(name)]
        capabilities.append(item)
        text = f"{name}. {feature.get('description', '')}".strip()
        for label in provider.classify(text, labels):
            if label.casefold() not in by_label:
                category = taxonomy.category_item(label)
                by_label[label.casefold()] = category
                categories.append(category)
    merged_caps = taxonomy.merge_items(offering.capabilities or [], capabilities)
    return merged_caps, taxonomy.merge_items([], align(categories, own_categories))
