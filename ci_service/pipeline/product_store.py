"""Saving product drafts as a competitor's offerings (``products.save_products``).

A draft matches an existing offering of the competitor by name (case-insensitive): a
match is updated (its features keep their ids, a known feature takes the newest
evidence), anything else is created; one transaction each, the graph kept in step, and
the competitor's ``products``/``categories`` lists follow its offerings. A product created
after the competitor's first collect is a ``competitor.product_added`` event, written with
it (during the first collect everything is new, so nothing is announced).

With an :class:`~ci_service.pipeline.evidence.EvidenceMap`, each feature's ``"cite"``
becomes ``evidenceIds`` and ``quotes`` (the resolved sentence with its ``#:~:text=``
link); a feature whose cite does not resolve is dropped, and a product with neither a
resolving cite nor a cited feature is not saved. The ``cite`` key never reaches storage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ci_service.pipeline import taxonomy
from ci_service.pipeline.evidence import EvidenceMap

if TYPE_CHECKING:
    from ci_service.pipeline.products import ProductDraft


def merge_items(current: list[dict], found: list[dict]) -> list[dict]:
    """``current`` items plus ``found`` ones whose name is new; a known name keeps its id,
    gains a description it lacked and takes the newest evidence (``evidenceIds``,
    ``quotes``) when ``found`` has some."""
    by_name = {taxonomy.normalize(i.get("name", "")): dict(i) for i in current or []}
    for item in found:
        key = taxonomy.normalize(item["name"])
        if key in by_name:
            if not by_name[key].get("description") and item.get("description"):
                by_name[key]["description"] = item["description"]
            for extra in ("evidenceIds", "quotes"):
                if item.get(extra):
                    by_name[key][extra] = item[extra]
        else:
            by_name[key] = dict(item)
    ids: set[str] = set()
    out = []
    for item in by_name.values():
        if item["id"] in ids:
            continue
        ids.add(item["id"])
        out.append(item)
    return out


def cited_items(items: list[dict], evidence: EvidenceMap | None) -> list[dict]:
    """``items`` without their ``"cite"`` key; with ``evidence``, each keeps the resolved
    ``evidenceIds``/``quotes`` and one whose cite does not resolve is dropped."""
    out = []
    for item in items:
        clean = {k: v for k, v in item.items() if k != "cite"}
        if evidence is not None:
            resolved = evidence.resolve(item.get("cite"))
            if resolved is None:
                continue
            clean["evidenceIds"] = [resolved["evidenceId"]]
            clean["quotes"] = [resolved]
        out.append(clean)
    return out


def save_offering_fields(workspace_id: str, offering: Any, data: dict[str, Any]) -> Any:
    """Update a competitor offering with the product view's fields (name, description,
    valueProps, features, categories, capabilities) in one transaction, keeping the graph
    in step. ``services.offerings.update_offering`` takes only the offering view's fields
    for competitor offerings, so the same schema and apply step are used here."""
    from ci_service.services import graph_sync
    from ci_service.services import offerings as service
    from ci_service.services.fields import load
    from ci_service.store.db import transaction
    from ci_service.timeutil import utcnow

    values = load(service.ProductUpdateSchema, data)
    with transaction():
        row = service.get_offering(workspace_id, offering.id)
        service._apply(row, values, workspace_id)
        row.updated_at = utcnow()
        row.save()
        graph_sync.sync_offering(row)
    return row


def competitor_offerings(workspace_id: str, competitor_id: str) -> list[Any]:
    from ci_service.store.resources import Offering

    return list(
        Offering.select()
        .where(Offering.workspace == workspace_id, Offering.competitor == competitor_id)
        .order_by(Offering.created_at, Offering.id)
    )


def save_products(
    workspace_id: str,
    competitor_id: str,
    drafts: list[ProductDraft],
    evidence: EvidenceMap | None = None,
) -> list:
    """Create or update the competitor's offerings from ``drafts``; returns the rows.

    With ``evidence``, features keep the evidence their cite resolves to (others are
    dropped) and a product with no resolving cite and no cited feature is skipped."""
    from ci_service.pipeline.capabilities import align, own_capability_ids
    from ci_service.services import change_events
    from ci_service.services.offerings import create_offering
    from ci_service.store.db import transaction

    # During the competitor's first collect everything is new: no product_added events.
    announce = not change_events.first_collect(workspace_id, competitor_id)
    own_categories = own_capability_ids(workspace_id, "categories")
    existing = {
        taxonomy.normalize(o.name): o for o in competitor_offerings(workspace_id, competitor_id)
    }
    rows = []
    for draft in drafts:
        features = cited_items(draft.features, evidence)
        if evidence is not None and not features and evidence.resolve(draft.cite) is None:
            continue  # nothing on the stored pages states it
        categories = align(draft.categories, own_categories)
        key = taxonomy.normalize(draft.name)
        row = existing.get(key)
        if row is None:
            created = False
            with transaction():
                # Looked up again under the write lock: another run of this job (one queued
                # again while this one was frozen, say) may have made it meanwhile.
                row = _offering_named(workspace_id, competitor_id, key)
                if row is None:
                    row = create_offering(
                        workspace_id,
                        {
                            "name": draft.name,
                            "description": draft.description,
                            "audience": "",
                            "valueProps": draft.value_props,
                            "features": features,
                            "categories": categories,
                        },
                        competitor_id=competitor_id,
                        view="product",
                    )
                    created = True
                    if announce:
                        change_events.product_added(workspace_id, competitor_id, row)
            existing[key] = row
            if created:
                rows.append(row)
                continue
        rows.append(
            save_offering_fields(
                workspace_id,
                row,
                {
                    "description": draft.description or row.description,
                    "valueProps": list(dict.fromkeys((row.value_props or []) + draft.value_props)),
                    "features": merge_items(row.features, features),
                    "categories": merge_items(row.categories, categories),
                },
            )
        )
    sync_competitor_lists(workspace_id, competitor_id)
    return rows


def _offering_named(workspace_id: str, competitor_id: str, key: str) -> Any:
    """The competitor's offering whose normalized name is ``key``, if any."""
    for offering in competitor_offerings(workspace_id, competitor_id):
        if taxonomy.normalize(offering.name) == key:
            return offering
    return None


def sync_competitor_lists(workspace_id: str, competitor_id: str) -> None:
    """The competitor's ``products`` mirror its offerings; its ``categories`` gain theirs
    (categories set by hand are kept). Nothing changes while it has no offerings."""
    from ci_service.services.competitors import get_competitor, update_competitor

    offerings = competitor_offerings(workspace_id, competitor_id)
    if not offerings:
        return
    categories: list[dict] = []
    for offering in offerings:
        categories = merge_items(categories, offering.categories or [])
    categories = merge_items(categories, get_competitor(workspace_id, competitor_id).categories)
    update_competitor(
        workspace_id,
        competitor_id,
        {
            "products": [
                {"id": o.id, "name": o.name, "description": o.description} for o in offerings
            ],
            "categories": categories[:500],
        },
    )
