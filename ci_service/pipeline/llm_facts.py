"""Facts a language model reads from the pages, kept only when grounded.

With ``CI_SERVICE_LLM_BASE_URL`` and ``CI_SERVICE_LLM_MODEL`` set, :func:`learn` sends the
pages that hold company facts (about, company, team, pricing, product, contact, investors
and the home page; at most ``MAX_PAGES``) to the model, which answers facts of the kinds in
``llm.FACTS_PROMPT``, each with the sentence that states it. The grounding rule:

- a fact whose ``quote`` is not found verbatim in that page's text (whitespace and case
  aside) is dropped, and so is one whose quote is not in the stored evidence;
- values are checked by kind (a plausible year, a number for a price, a short name ...);
  an invalid fact is dropped;
- a malformed answer (not JSON, not a list of objects) loses only that page's facts, and
  the rules' facts stand.

Drops are counted and logged once per page, never with the model's text. The merge fills
what the rules did not find (profile fields the rules left empty; people, customers,
products, features and plans under names the rules did not have); a rule's fact is never
replaced.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ci_service.pipeline.evidence import Cite, EvidenceMap, quote_in
from ci_service.pipeline.site import SitePage, SiteSnapshot

log = logging.getLogger("ci_service.pipeline.llm")

MAX_PAGES = 12
PAGE_WORDS = re.compile(
    r"about|company|team|people|leadership|founder|investor|investment|funding|pricing|plans|"
    r"product|platform|features|contact|customers|story",
    re.IGNORECASE,
)
PROFILE_KINDS = ("yearFounded", "headquarters", "employeeCount")


@dataclass
class Learned:
    """Grounded facts: each entry holds its resolved citation under ``"citation"``."""

    profile: dict[str, tuple[Any, dict[str, Any]]] = field(default_factory=dict)
    funding: list[dict[str, Any]] = field(default_factory=list)
    customers: list[dict[str, Any]] = field(default_factory=list)
    people: list[dict[str, Any]] = field(default_factory=list)
    products: list[dict[str, Any]] = field(default_factory=list)
    features: list[dict[str, Any]] = field(default_factory=list)
    plans: list[dict[str, Any]] = field(default_factory=list)
    dropped: int = 0


def fact_pages(snapshot: SiteSnapshot) -> list[SitePage]:
    chosen = [p for p in snapshot.pages if p.depth == 0 or PAGE_WORDS.search(urlsplit(p.url).path)]
    return chosen[:MAX_PAGES]


def learn(snapshot: SiteSnapshot, evidence: EvidenceMap, company_name: str = "") -> Learned | None:
    """The model's grounded facts, or None when no model is configured."""
    from ci_service.pipeline.llm import DeterministicProvider, get_provider

    provider = get_provider()
    if isinstance(provider, DeterministicProvider):
        return None
    learned = Learned()
    for page in fact_pages(snapshot):
        if not page.text.strip():
            continue
        facts = provider.extract_facts(page.text, company=company_name)
        if facts is None:
            continue
        before = learned.dropped
        for fact in facts:
            if not _take(learned, fact, page, evidence):
                learned.dropped += 1
        if learned.dropped > before:
            log.info(
                "LLM facts of %s: %d dropped (quote not in the page or invalid value)",
                page.url,
                learned.dropped - before,
            )
    return learned


def _text(value: Any, limit: int = 200) -> str | None:
    if not isinstance(value, str):
        return None
    value = " ".join(value.split())
    return value[:limit] if value else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if value >= 0 else None
    if isinstance(value, str):
        digits = re.sub(r"[^\d.]", "", value)
        try:
            return float(digits) if digits else None
        except ValueError:
            return None
    return None


def _take(learned: Learned, fact: dict[str, Any], page: SitePage, evidence: EvidenceMap) -> bool:
    """Validate one fact and file it; False when it is dropped."""
    quote = _text(fact.get("quote"), 2000)
    if not quote or not quote_in(page.text, quote):
        return False
    citation = evidence.resolve(Cite(page.url, quote))
    if citation is None:
        return False
    kind = fact.get("kind")
    if kind == "yearFounded":
        year = fact.get("year", fact.get("value"))
        year = int(year) if isinstance(year, int | str) and str(year).isdigit() else None
        if year is None or not 1800 <= year <= 2100 or str(year) not in quote:
            return False
        learned.profile.setdefault("yearFounded", (year, citation))
    elif kind in ("headquarters", "employeeCount"):
        value = _text(fact.get("value"), 200)
        if not value:
            return False
        learned.profile.setdefault(kind, (value, citation))
    elif kind == "funding":
        investors = [v for v in (_text(i) for i in fact.get("investors") or []) if v]
        entry = {
            "round": _text(fact.get("round"), 100),
            "amount": _number(fact.get("amount")),
            "currency": _text(fact.get("currency"), 8),
            "date": _text(fact.get("date"), 100),
            "investors": investors[:10],
        }
        if not (entry["round"] or entry["amount"] or investors):
            return False
        learned.funding.append({**entry, "citation": citation})
    elif kind in ("customer", "person", "product"):
        name = _text(fact.get("name"), 200)
        if not name or name.casefold() not in quote.casefold():
            return False
        entry = {"name": name, "citation": citation}
        if kind == "person":
            entry["title"] = _text(fact.get("title"), 200) or ""
            learned.people.append(entry)
        elif kind == "customer":
            learned.customers.append(entry)
        else:
            entry["description"] = _text(fact.get("description"), 2000) or ""
            entry["url"] = page.url
            learned.products.append(entry)
    elif kind == "feature":
        name = _text(fact.get("name"), 80)
        if not name:
            return False
        learned.features.append(
            {
                "product": _text(fact.get("product"), 200) or "",
                "name": name,
                "description": _text(fact.get("description"), 2000) or "",
                "citation": citation,
            }
        )
    elif kind == "plan":
        name = _text(fact.get("name"), 200)
        price = _number(fact.get("price"))
        on_request = fact.get("onRequest") is True
        if not name or (price is None and not on_request):
            return False
        period = fact.get("period") if fact.get("period") in ("month", "year", "one-time") else None
        learned.plans.append(
            {
                "name": name,
                "price": None if on_request else price,
                "currency": _text(fact.get("currency"), 8),
                "period": period,
                "unit": _text(fact.get("unit"), 100),
                "onRequest": on_request,
                "citation": citation,
            }
        )
    else:
        return False
    return True


# -- merging into the rules' results ------------------------------------------------------


def _cited(entry: dict[str, Any]) -> dict[str, Any]:
    citation = entry["citation"]
    out = {k: v for k, v in entry.items() if k != "citation"}
    return {**out, "evidenceIds": [citation["evidenceId"]], "quotes": [citation]}


def merge_profile(found: dict[str, Any], learned: Learned) -> dict[str, Any]:
    """``found`` (the rules' profile) with the model's values where the rules had none."""
    merged = dict(found)
    sources = dict(merged.get("sources") or {})
    quotes = dict(merged.get("quotes") or {})
    for key, (value, citation) in learned.profile.items():
        if merged.get(key) in (None, ""):
            merged[key] = value
            sources[key] = [citation["evidenceId"]]
            quotes[key] = [citation]
    known = {str(f.get("investors")) + str(f.get("amount")) for f in merged.get("funding") or []}
    funding = list(merged.get("funding") or [])
    for entry in learned.funding:
        if str(entry["investors"]) + str(entry["amount"]) not in known:
            funding.append(_cited(entry))
    customers = list(merged.get("customers") or [])
    names = {c.get("name", "").casefold() for c in customers}
    for entry in learned.customers:
        if entry["name"].casefold() not in names:
            names.add(entry["name"].casefold())
            customers.append(_cited(entry))
    for key, value in (("funding", funding), ("customers", customers)):
        if value:
            merged[key] = value
            sources[key] = list(dict.fromkeys(i for v in value for i in v.get("evidenceIds", [])))
    if sources:
        merged["sources"], merged["quotes"] = sources, quotes
    return merged


def merge_products(drafts: list[Any], learned: Learned) -> list[Any]:
    """The rules' product drafts plus the model's products and features by new names."""
    from ci_service.pipeline import taxonomy
    from ci_service.pipeline.products import extract as products

    by_name = {taxonomy.normalize(d.name): d for d in drafts}
    for entry in learned.products:
        key = taxonomy.normalize(entry["name"])
        if key and key not in by_name:
            draft = products.ProductDraft(
                name=entry["name"], url=entry["url"], description=entry["description"]
            )
            draft.cite = Cite(entry["url"], entry["citation"]["quote"])
            by_name[key] = draft
            drafts.append(draft)
    for entry in learned.features:
        target = by_name.get(taxonomy.normalize(entry["product"])) or (
            drafts[0] if drafts else None
        )
        if target is None:
            continue
        if any(
            taxonomy.normalize(f["name"]) == taxonomy.normalize(entry["name"])
            for f in target.features
        ):
            continue
        item = taxonomy.feature_item(entry["name"], entry["description"])
        item["cite"] = Cite(_page_url(entry["citation"]["url"]), entry["citation"]["quote"])
        target.features.append(item)
    return drafts


def merge_plans(plans: list[Any], learned: Learned) -> list[Any]:
    """The rules' plans plus the model's plans under names the rules did not have."""
    from ci_service.pipeline.pricing import plans as pricing

    names = {(p.name.casefold(), p.period) for p in plans}
    for entry in learned.plans:
        if (entry["name"].casefold(), entry["period"]) in names:
            continue
        url = _page_url(entry["citation"]["url"])
        plans.append(
            pricing.PlanDraft(
                name=entry["name"],
                price=entry["price"],
                currency=entry["currency"],
                period=entry["period"],
                unit=entry["unit"],
                on_request=entry["onRequest"],
                price_text=entry["citation"]["quote"][:200],
                features=[],
                cite=Cite(url, entry["citation"]["quote"]),
                page_url=url,
            )
        )
    return plans


def _page_url(url: str) -> str:
    return url.split("#:~:", 1)[0]
