"""Products of a competitor from a site snapshot, stored as the competitor's offerings.

Deterministic rules (README "Intel pipeline"):

- A product page is a page with a schema.org Product/SoftwareApplication/Service in its
  JSON-LD, or whose URL path sits below ``/product(s)/``, ``/solution(s)/``,
  ``/platform/`` or ``/feature(s)/`` (the listing page itself is not a product).
- name: JSON-LD ``name``, else the page's first h1, else its title before " – " or " | ".
- description: JSON-LD ``description``, else the meta description, else the provider's
  summary of the page's prose (by default its first sentences, at most 500 characters).
- features: the lines (list items) under headings that mention features, capabilities,
  highlights or "what you get"; "Name: detail" or "Name – detail" splits into name and
  description. Without such a heading: the page's h2/h3 headings.
- categories: JSON-LD ``category``/``applicationCategory`` plus the category keyword table
  (``taxonomy.CATEGORY_KEYWORDS``) over name, description and features.
- valueProps: JSON-LD offers as "Plan: 49 USD" and short lines under "why"/"benefits"
  headings.

Saving matches existing offerings of the competitor by name (case-insensitive): a match is
updated (its features keep their ids), anything else is created. One transaction each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ci_service.pipeline import taxonomy
from ci_service.pipeline.site import SitePage, SiteSnapshot

PRODUCT_PATH = re.compile(r"^/(?:products?|solutions?|platform|features?)/[^/]+", re.IGNORECASE)
FEATURE_HEADING = re.compile(
    r"feature|capabilit|highlight|what you get|what's included|includes", re.IGNORECASE
)
BENEFIT_HEADING = re.compile(r"\bwhy\b|benefit|advantage", re.IGNORECASE)
BOILERPLATE_HEADINGS = re.compile(
    r"^(?:pricing|contact|about|faq|resources|news|blog|get started|footer|menu|"
    r"related|customers|testimonials)\b",
    re.IGNORECASE,
)
_SPLIT = re.compile(r"\s*(?::|\s[–—-]\s)\s*")
MAX_FEATURES = 30
MAX_PRODUCTS = 25


@dataclass
class ProductDraft:
    name: str
    url: str
    description: str = ""
    features: list[dict[str, str]] = field(default_factory=list)
    categories: list[dict[str, str]] = field(default_factory=list)
    value_props: list[str] = field(default_factory=list)


def _json_ld_products(page: SitePage) -> list[dict[str, Any]]:
    from ci_service.intel.jsonld import product_facts

    return [p for p in product_facts(page.json_ld) if p.get("name")]


def is_product_page(page: SitePage) -> bool:
    if _json_ld_products(page):
        return True
    return bool(PRODUCT_PATH.match(urlsplit(page.url).path.rstrip("/") + "/"))


def _heading_name(page: SitePage) -> str:
    for heading, level, _text in page.sections:
        if level == 1 and heading.strip():
            return heading.strip()
    title = re.split(r"\s+[–—|-]\s+", page.title or "", maxsplit=1)[0].strip()
    return title


def _summary(page: SitePage) -> str:
    """The page's prose (lines of five words or more), summarised by the LLM provider
    (by default: its first sentences, at most 500 characters)."""
    from ci_service.pipeline.llm import get_provider

    prose = [
        line.strip()
        for _heading, _level, text in page.sections
        for line in text.splitlines()
        if len(line.split()) >= 5
    ]
    return get_provider().summarize("\n".join(prose[:20]), max_chars=500) if prose else ""


def _feature(line: str) -> dict[str, str] | None:
    line = line.strip(" •·-*\t")
    if not line or len(line) > 300:
        return None
    parts = _SPLIT.split(line, maxsplit=1)
    name, description = (parts[0], parts[1]) if len(parts) == 2 and parts[0] else (line, "")
    if len(name) > 80:  # a sentence, not a feature name
        name, description = name[:80].rsplit(" ", 1)[0], line
    return taxonomy.feature_item(name.strip(" .:"), description.strip())


def _features(page: SitePage) -> list[dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for heading, _level, text in page.sections:
        if FEATURE_HEADING.search(heading or ""):
            for line in text.splitlines():
                item = _feature(line)
                if item and item["id"] not in found:
                    found[item["id"]] = item
    if not found:
        for heading, level, text in page.sections:
            if level in (2, 3) and heading and not BOILERPLATE_HEADINGS.match(heading):
                if FEATURE_HEADING.search(heading) or BENEFIT_HEADING.search(heading):
                    continue
                first = text.splitlines()[0][:300] if text else ""
                item = taxonomy.feature_item(heading[:80], first)
                found.setdefault(item["id"], item)
    return list(found.values())[:MAX_FEATURES]


def _value_props(page: SitePage, offers: list[dict[str, Any]]) -> list[str]:
    props = []
    for offer in offers:
        price = offer.get("price") or offer.get("lowPrice")
        if price:
            label = offer.get("name") or "Price"
            props.append(f"{label}: {price} {offer.get('priceCurrency', '')}".strip())
    for heading, _level, text in page.sections:
        if BENEFIT_HEADING.search(heading or ""):
            props.extend(line.strip()[:300] for line in text.splitlines() if line.strip())
    return list(dict.fromkeys(props))[:10]


def _categories(name: str, description: str, features: list[dict], extra: list[str]) -> list:
    text = " ".join([name, description] + [f"{f['name']} {f['description']}" for f in features])
    names = [e for e in extra if e] + taxonomy.categories_for(text)
    items: dict[str, dict[str, str]] = {}
    for category in names:
        item = taxonomy.category_item(category)
        items.setdefault(item["id"], item)
    return list(items.values())


def draft_from_page(page: SitePage) -> ProductDraft | None:
    facts = next(iter(_json_ld_products(page)), {})
    name = (facts.get("name") or _heading_name(page)).strip()[:200]
    if not name:
        return None
    description = facts.get("description") or page.description or _summary(page)
    features = _features(page)
    extra = [facts["category"]] if facts.get("category") else []
    return ProductDraft(
        name=name,
        url=page.url,
        description=description[:2000],
        features=features,
        categories=_categories(name, description, features, extra),
        value_props=_value_props(page, facts.get("offers", [])),
    )


def extract_products(snapshot: SiteSnapshot) -> list[ProductDraft]:
    """One draft per product page, deduplicated by name (the first page wins)."""
    drafts: dict[str, ProductDraft] = {}
    for page in snapshot.pages:
        if not is_product_page(page):
            continue
        draft = draft_from_page(page)
        if draft is not None and taxonomy.normalize(draft.name) not in drafts:
            drafts[taxonomy.normalize(draft.name)] = draft
    return list(drafts.values())[:MAX_PRODUCTS]


def merge_items(current: list[dict], found: list[dict]) -> list[dict]:
    """``current`` items plus ``found`` ones whose name is new; a known name keeps its id and
    gains a description it lacked."""
    by_name = {taxonomy.normalize(i.get("name", "")): dict(i) for i in current or []}
    for item in found:
        key = taxonomy.normalize(item["name"])
        if key in by_name:
            if not by_name[key].get("description") and item.get("description"):
                by_name[key]["description"] = item["description"]
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


def save_products(workspace_id: str, competitor_id: str, drafts: list[ProductDraft]) -> list:
    """Create or update the competitor's offerings from ``drafts``; returns the rows."""
    from ci_service.pipeline.capabilities import align, own_capability_ids
    from ci_service.services.offerings import create_offering

    own_categories = own_capability_ids(workspace_id, "categories")
    for draft in drafts:
        draft.categories = align(draft.categories, own_categories)
    existing = {
        taxonomy.normalize(o.name): o for o in competitor_offerings(workspace_id, competitor_id)
    }
    rows = []
    for draft in drafts:
        row = existing.get(taxonomy.normalize(draft.name))
        if row is None:
            rows.append(
                create_offering(
                    workspace_id,
                    {
                        "name": draft.name,
                        "description": draft.description,
                        "audience": "",
                        "valueProps": draft.value_props,
                        "features": draft.features,
                        "categories": draft.categories,
                    },
                    competitor_id=competitor_id,
                    view="product",
                )
            )
            continue
        rows.append(
            save_offering_fields(
                workspace_id,
                row,
                {
                    "description": draft.description or row.description,
                    "valueProps": list(dict.fromkeys((row.value_props or []) + draft.value_props)),
                    "features": merge_items(row.features, draft.features),
                    "categories": merge_items(row.categories, draft.categories),
                },
            )
        )
    sync_competitor_lists(workspace_id, competitor_id)
    return rows


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
