"""Saving product drafts as a competitor's offerings (``products.save_products``).

A draft matches an existing offering of the competitor by name (case-insensitive): a
match is updated (its features keep their ids, a known feature takes the newest
evidence), anything else is created; one transaction each, the graph kept in step, and
the competitor's ``products``/``categories`` lists follow its active offerings. A product
created after the competitor's first collect is a ``competitor.product_added`` event,
written with it (during the first collect everything is new, so nothing is announced).

A product a collect no longer finds is retired (:func:`retire_missing`): marked inactive
(``isActive`` false), never deleted, so its features, pricing, hand edits and the records
that refer to it stay; a ``competitor.product_removed`` event says so. Only when the
evidence is a whole-site crawl's (``ingest.CrawlEvidence``), and only when a page that
named the product before was fetched in this crawl and no longer names it, no page that
still names it was fetched, and no page that named it failed to load (a page gone, HTTP
404/410, is not a failure). An offering named like the company (the pricing step's
placeholder, or the company's own product) is never retired. A retired product a later
collect finds again is active again, and a ``product_added`` event.

With an :class:`~ci_service.pipeline.evidence.EvidenceMap`, each feature's ``"cite"``
becomes ``evidenceIds`` and ``quotes`` (the resolved sentence with its ``#:~:text=``
link); a feature whose cite does not resolve is dropped, and a product with neither a
resolving cite nor a cited feature is not saved. The ``cite`` key never reaches storage.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ci_service.pipeline import taxonomy
from ci_service.pipeline.evidence import EvidenceMap
from ci_service.pipeline.products import integrations as integrations
from ci_service.pipeline.products.integrations import Supported
from ci_service.pipeline.taxonomy import merge_items

if TYPE_CHECKING:
    from ci_service.pipeline.products.extract import ProductDraft


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


def save_offering_fields(
    workspace_id: str, offering: Any, data: dict[str, Any], sources: list | None = None
) -> Any:
    """Update a competitor offering with the product view's fields (name, description,
    valueProps, features, categories, capabilities), and ``sources`` (the sentences that
    state the product) when given, in one transaction, keeping the graph in step.
    ``services.workspace.offerings.update_offering`` takes only the offering view's fields
    for competitor offerings, so the same schema and apply step are used here."""
    from ci_service.services.common.fields import load
    from ci_service.services.graph import sync as graph_sync
    from ci_service.services.workspace import offerings as service
    from ci_service.store.db import transaction
    from ci_service.timeutil import utcnow

    values = load(service.ProductUpdateSchema, data)
    with transaction():
        row = service.get_offering(workspace_id, offering.id)
        service._apply(row, values, workspace_id)
        if sources is not None:
            row.sources = sources
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
    from ci_service.services.alerts import changes as change_events
    from ci_service.services.workspace.offerings import create_offering
    from ci_service.store.db import transaction
    from ci_service.store.resources import Offering

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
        citation = evidence.resolve(draft.cite) if evidence is not None else None
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
                    if citation is not None:
                        Offering.update(sources=[citation]).where(Offering.id == row.id).execute()
                        row.sources = [citation]
                    created = True
                    if announce:
                        change_events.product_added(workspace_id, competitor_id, row, citation)
            existing[key] = row
            if created:
                rows.append(row)
                continue
        row = save_offering_fields(
            workspace_id,
            row,
            {
                "description": draft.description or row.description,
                "valueProps": list(dict.fromkeys((row.value_props or []) + draft.value_props)),
                "features": merge_items(row.features, features),
                "categories": merge_items(row.categories, categories),
            },
            # the sentence that states it on the pages read this time
            sources=[citation] if citation is not None else None,
        )
        if not row.is_active:
            with transaction():  # retired by an earlier collect, listed again now
                Offering.update(is_active=True).where(Offering.id == row.id).execute()
                row.is_active = True
                if announce:
                    change_events.product_added(workspace_id, competitor_id, row, citation)
        rows.append(row)
    if announce and evidence is not None:
        found = {taxonomy.normalize(draft.name) for draft in drafts}
        retire_missing(workspace_id, competitor_id, found, evidence)
    sync_competitor_lists(workspace_id, competitor_id)
    return rows


def _names(text: str, name: str) -> bool:
    """Whether ``text`` names ``name`` (a whole word or words, any case or spacing)."""
    words = [re.escape(w) for w in name.split()]
    if not words:
        return False
    return re.search(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)", text, re.I) is not None


def retire_missing(
    workspace_id: str, competitor_id: str, found: set[str], evidence: EvidenceMap
) -> list[Any]:
    """Mark inactive the competitor's active offerings this crawl did not find (``found``:
    the normalized names it found) and that the pages which named them no longer name,
    each a ``competitor.product_removed`` event (the rule is in the module docstring);
    returns the retired rows."""
    from ci_service.pipeline.evidence import Cite, sentences
    from ci_service.services.alerts import changes as change_events
    from ci_service.services.intel import items as intel
    from ci_service.services.workspace.competitors import get_competitor
    from ci_service.store.db import transaction
    from ci_service.store.resources import Offering

    failed = getattr(evidence, "failed", None)
    if failed is None:
        return []  # not a whole-site crawl: what it did not read says nothing
    company = taxonomy.normalize(get_competitor(workspace_id, competitor_id).name)
    missing = [
        o
        for o in competitor_offerings(workspace_id, competitor_id)
        if o.is_active
        and taxonomy.normalize(o.name) not in found
        and taxonomy.normalize(o.name) not in (company, "product")
    ]
    if not missing:
        return []
    # Each page's latest stored version, and (for a page this crawl read) the one before.
    latest = intel.latest_page_versions(workspace_id, competitor_id)
    before_ids = {
        url: (row.previous_item_id if url in evidence else row.id) for url, row in latest.items()
    }
    texts = intel.contents([i for i in before_ids.values() if i])
    retired = []
    for offering in missing:
        named = [url for url, i in before_ids.items() if _names(texts.get(i, ""), offering.name)]
        read = [url for url in named if url in evidence]
        if not read or any(url in failed for url in named):
            continue  # nothing read now says so, or a page that listed it failed to load
        if any(evidence.resolve(Cite(url, offering.name)) for url in read):
            continue  # a page read now still holds the name: the extractor missed it
        page = read[0]
        line = next((s for s in sentences(texts[before_ids[page]]) if _names(s, offering.name)), "")
        with transaction():
            row = Offering.get_or_none(Offering.id == offering.id)
            if row is None or not row.is_active:
                continue
            row.is_active = False
            row.save(only=[Offering.is_active])
            change_events.product_removed(
                workspace_id,
                row,
                change_events.where_read(page, line),
                [i for i in (evidence.evidence_id(url) for url in read) if i],
            )
        retired.append(row)
    return retired


def _offering_named(workspace_id: str, competitor_id: str, key: str) -> Any:
    """The competitor's offering whose normalized name is ``key``, if any."""
    for offering in competitor_offerings(workspace_id, competitor_id):
        if taxonomy.normalize(offering.name) == key:
            return offering
    return None


def sync_competitor_lists(workspace_id: str, competitor_id: str) -> None:
    """The competitor's ``products`` mirror its active offerings (a retired one is no
    longer among them); its ``categories`` gain theirs (categories set by hand are kept).
    Nothing changes while it has no offerings."""
    from ci_service.services.workspace.competitors import get_competitor, update_competitor

    every = competitor_offerings(workspace_id, competitor_id)
    if not every:
        return
    offerings = [o for o in every if o.is_active]
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


def save_supported(
    workspace_id: str, competitor_id: str, items: list[Supported], evidence: EvidenceMap
) -> int:
    """Add the items as cited features of the competitor's offerings; returns how many."""
    offerings = competitor_offerings(workspace_id, competitor_id)
    if not offerings or not items:
        return 0
    primary = offerings[0]
    additions: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        citation = evidence.resolve(item.cite)
        if citation is None:
            continue
        target = primary
        heading_words = integrations.words(item.heading)
        for offering in offerings:
            if heading_words and heading_words & integrations.words(offering.name):
                target = offering
                break
        feature = taxonomy.feature_item(item.name, item.kind[:200])
        feature.update(evidenceIds=[citation["evidenceId"]], quotes=[citation])
        additions.setdefault(target.id, []).append(feature)
    saved = 0
    by_id = {o.id: o for o in offerings}
    for offering_id, features in additions.items():
        row = by_id[offering_id]
        current = list(row.features or [])
        names = {taxonomy.normalize(f.get("name", "")) for f in current}
        new = [f for f in features if taxonomy.normalize(f["name"]) not in names]
        if new:
            save_offering_fields(workspace_id, row, {"features": current + new})
            saved += len(new)
    return saved
