"""Pricing plans from a competitor's pricing pages, stored on its offerings, and the price
changes between two collections.

Pricing pages: pages whose URL or title says pricing, plans or price
(``profile.is_pricing_page``) and pages the site links to with such words ("Pricing",
"Self-hosting plans"); blog, news and dated article pages are not. Pages whose URL says
pricing come first.

Rules, per page (the first source to give a plan name and period wins):

1. Plan cards (from the page's markup, without nav, footer, aside, cookie banners and
   struck-out prices): sibling elements that each hold a plan name (a heading, an element
   whose class says title/name/plan/tier, or a label in front of the price such as
   "Zephyr $1,000 / month") and a price. A card holding its own group of cards (an
   "Enterprise" card listing "Zephyr" and "Linux" prices) gives their plans, which inherit
   its features. Without markup: a short name line followed within two lines by a price.
2. Tables (rows written "cell | cell" in the page text): plan names in the first row, a row
   with prices gives each column's plan; rows with a check or value give its features.
3. JSON-LD ``Offer`` / ``AggregateOffer`` (with ``priceSpecification`` billing terms).
4. Sentences: "$1,000/month (Zephyr)", "The Pro plan costs $49 per user per month",
   "from $29/month" (named "Starting price" when no plan is named, and only when the page
   gave no other plan).

A price is an amount with a currency symbol or ISO code ("$1,000", "49,99 €", "GBP 20");
its period ("/ month", "per year", "annually", "one-time"), and unit ("per user", "per
seat", "per end-user", "flat") are read from the words after it (or the next short line).
A monthly price "billed annually" is stored as the yearly price (12 times the amount). Two
prices with different periods ("$10 / MONTH [ $89 / YEAR ]") are two plan records. "Free"
or "$0" is price 0; "Contact sales", "Custom", "Let's talk", "Flexible pricing", "On
request" make an ``onRequest`` plan with no price. The features are the bulleted, listed or
checked lines of the card. Each plan cites the verbatim line of the page text that states
its price (with the plan name when it is the line before); a plan whose line is not in the
stored evidence is dropped when saved.

The same plan name on two pages (cloud and self-host pricing) keeps both: the later page's
plans are named "Standard (Self-host)", the label being the page's last URL segment (its
first heading when that segment is generic).

Saving (:func:`save_pricing`): a plan goes to the competitor's offering its name (or its
page's URL) names by a word no other offering has ("Zephyr" -> "Zephyr microPlatform"),
else to the offering named like the company, else the first one; a competitor without
offerings gets one named after the company. The offerings' ``pricing`` lists are replaced
in one transaction. Changes are found across all the competitor's offerings (a plan moving
between offerings is no change), keyed by plan name and period: ``price_changed`` (price,
currency, period, unit or onRequest differ; a plan whose period changed is paired by name),
``plan_added``, ``plan_removed``; stored newest first (at most 100) in the offering's
``pricingChanges``. The first collection (no stored plans) records none. A stored plan
whose page was not read in this collection is kept and never reported removed; a collection
that finds no plan changes nothing.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ci_service.pipeline.evidence import Cite, sentence_at, sentences
from ci_service.pipeline.site import SitePage, SiteSnapshot

log = logging.getLogger("ci_service.pipeline")

MAX_PLANS = 60
MAX_FEATURES = 30
PRICING_WORDS = re.compile(r"\b(?:pricing|prices?|plans?)\b", re.IGNORECASE)
NOT_PRICING_PATH = re.compile(
    r"/(?:blog|news|press|insights|articles?|posts?|tags?|categories|category)/|/(?:19|20)\d\d/",
    re.IGNORECASE,
)
GENERIC_SEGMENTS = {"pricing", "price", "prices", "plans", "plan", "index.html", "index.htm"}

_CODES = "USD|EUR|GBP|CHF|CAD|AUD|NZD|JPY|INR|SEK|NOK|DKK|PLN|BRL|MXN|SGD|HKD|ZAR|CNY"
_SYMBOLS = {"$": "USD", "US$": "USD", "A$": "AUD", "AU$": "AUD", "C$": "CAD", "CA$": "CAD"}
_SYMBOLS.update({"NZ$": "NZD", "HK$": "HKD", "S$": "SGD", "R$": "BRL", "€": "EUR", "£": "GBP"})
_SYMBOLS.update({"¥": "JPY", "₹": "INR"})
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d{1,3}(?:\.\d{3})+(?:,\d{1,2})?|\d+(?:[.,]\d{1,2})?"
AMOUNT = re.compile(
    rf"(?:(?P<sym>(?:US|AU|A|CA|C|NZ|HK|S|R)?\$|€|£|¥|₹)|\b(?P<code>{_CODES})\s?)\s?"
    rf"(?P<num>{_NUM})(?![\d])"
    rf"|(?<![\w.,])(?P<num2>{_NUM})\s?(?:(?P<sym2>€|£|\$)|(?P<code2>{_CODES})\b)"
)
_PERIODS = (
    ("month", r"(?:/|\bper\b|\ba\b|\beach\b)\s*(?:mo|mon|month|mth)s?\b|\bmonthly\b|\bmonth\b"),
    ("year", r"(?:/|\bper\b|\ba\b|\beach\b)\s*(?:yr|year|annum)s?\b|\bannually\b|\byearly\b"),
    ("year", r"\byear\b"),
    ("one-time", r"\bone[- ]?time\b|\bonce\b|\blifetime\b|\bone[- ]off\b|\bperpetual\b"),
)
_BILLED_YEARLY = re.compile(
    r"\b(?:billed|paid|charged|invoiced)\s+(?:annually|yearly|per year|every year)\b", re.I
)
_UNIT = re.compile(
    r"^\s*(?:(?:per|/|each|a|an)\s*)?(end[- ]?users?|users?|seats?|members?|agents?|editors?|"
    r"hosts?|nodes?|devices?|licen[cs]es?|projects?|sites?|servers?|instances?|employees?|"
    r"contacts?|admins?|creators?|builders?|people|persons?)\b",
    re.IGNORECASE,
)
_FLAT = re.compile(r"\bflat\b", re.IGNORECASE)
ON_REQUEST = re.compile(
    r"\W*(?:contact\s+(?:us|sales|our\s+sales(?:\s+team)?)|talk\s+to\s+(?:us|sales|an\s+expert)"
    r"|let'?s\s+talk|get\s+(?:a\s+)?quote|request\s+(?:a\s+)?(?:quote|pricing)|(?:price\s+)?on\s+"
    r"request|custom(?:\s+(?:pricing|price|quote))?|flexible\s+pricing|tailored\s+pricing|"
    r"call\s+us|ask\s+us)\W*",
    re.IGNORECASE,
)
# A sentence that opens with one of these ("Contact sales for SSO and audit logs.") under a
# plan name says the plan's price is on request.
ON_REQUEST_START = re.compile(
    r"(?:contact\s+(?:us|sales)|talk\s+to\s+(?:us|sales)|let'?s\s+talk|get\s+a\s+quote|"
    r"request\s+a\s+quote|(?:price\s+)?on\s+request|custom\s+(?:pricing|quote))\b",
    re.IGNORECASE,
)
FREE = re.compile(r"\W*(?:free(?:\s+forever)?|always\s+free|forever\s+free|\$0)\W*", re.I)
_NAME_BEFORE = re.compile(
    r"(?:^|[.;:!?]\s+|\bthe\s+)([A-Z][\w+&.'-]*(?:\s+[A-Z0-9][\w+&.'-]*){0,3})"
    r"(?:\s+(?:plan|tier|edition|package|subscription|license))?\s*"
    r"(?:costs?|is|are|starts?\s+at|starting\s+at|from|at|for|:|–|—|-)\s*(?:only\s+|just\s+)?$"
)
_NAME_AFTER = re.compile(r"^[^()]{0,25}?\(([A-Z][^()]{0,40})\)")
_FROM = re.compile(r"\b(?:from|starting\s+at|starts\s+at|as\s+low\s+as)\s*$", re.IGNORECASE)
_NOT_NAMES = {"plans", "pricing", "price", "prices", "it", "this", "we", "you", "for", "only"}
_NOT_NAMES |= {"just", "starting", "start", "our", "all", "each", "every", "and", "or", "the"}


@dataclass
class PlanDraft:
    name: str
    price: float | None
    currency: str | None
    period: str | None  # "month", "year", "one-time" or None
    unit: str | None  # "per user", "per seat", "per end-user", "flat" or None
    on_request: bool = False
    price_text: str | None = None
    features: list[str] = field(default_factory=list)
    cite: Cite | None = None
    page_url: str = ""
    edition: str = ""  # the card group or page label the plan was listed under


@dataclass
class Price:
    amount: float
    currency: str | None
    period: str | None
    unit: str | None
    text: str


# -- prices ------------------------------------------------------------------------------


def number(raw: str) -> float | None:
    """ "1,000" -> 1000, "49,99" -> 49.99, "1.000,50" -> 1000.5."""
    if "," in raw and "." in raw:
        decimal = "," if raw.rfind(",") > raw.rfind(".") else "."
        raw = raw.replace("." if decimal == "," else ",", "").replace(decimal, ".")
    elif "," in raw:
        raw = raw.replace(",", "") if re.fullmatch(r"\d{1,3}(?:,\d{3})+", raw) else raw
        raw = raw.replace(",", ".")
    elif re.fullmatch(r"\d{1,3}(?:\.\d{3})+", raw):
        raw = raw.replace(".", "")
    try:
        return float(raw)
    except ValueError:
        return None


def qualifiers(after: str) -> tuple[str | None, str | None, bool]:
    """(period, unit, billed yearly) from the words after an amount."""
    head = after[:60]
    found = [(m.start(), name) for name, rx in _PERIODS if (m := re.search(rx, head, re.I))]
    period = min(found)[1] if found else None
    unit_match = _UNIT.match(head)
    unit = None
    if unit_match:
        word = unit_match.group(1).lower().replace(" ", "-")
        word = "end-user" if word.startswith("end") else word
        word = {"people": "person", "persons": "person"}.get(word, word)
        unit = "per " + (word[:-1] if word.endswith("s") and word != "end-user" else word)
    elif _FLAT.search(head):
        unit = "flat"
    return period, unit, bool(_BILLED_YEARLY.search(after[:80]))


def prices(line: str, next_line: str = "") -> list[Price]:
    """The prices stated in ``line`` (qualifiers from ``next_line`` when the line has none)."""
    matches = list(AMOUNT.finditer(line))
    out = []
    for i, match in enumerate(matches):
        amount = number(match.group("num") or match.group("num2") or "")
        if amount is None:
            continue
        symbol = match.group("sym") or match.group("sym2")
        currency = _SYMBOLS.get(symbol or "") or match.group("code") or match.group("code2")
        end = matches[i + 1].start() if i + 1 < len(matches) else len(line)
        after = line[match.end() : end]
        period, unit, yearly = qualifiers(after)
        text = line[match.start() : end].strip(" [](),;")
        if period is None and unit is None and i == len(matches) - 1 and next_line:
            if len(next_line.split()) <= 6 and not AMOUNT.search(next_line):
                period, unit, yearly = qualifiers(next_line)
                text = f"{text} {next_line}" if period or unit else text
        if period == "month" and yearly:
            amount, period = round(amount * 12, 2), "year"
        out.append(Price(amount, currency, period, unit, text[:200]))
    return out


def is_on_request(line: str) -> bool:
    return len(line.split()) <= 6 and bool(ON_REQUEST.fullmatch(line))


def is_free(line: str) -> bool:
    return bool(FREE.fullmatch(line))


def find_quote(text: str, *candidates: str) -> str | None:
    """The first candidate found in ``text`` (whitespace and case aside), as ``text`` has it."""
    for candidate in candidates:
        words = candidate.split()
        if not words:
            continue
        pattern = r"\s+".join(re.escape(w) for w in words)
        match = re.search(rf"(?<!\w){pattern}" if words[0][0].isalnum() else pattern, text, re.I)
        if match:
            return match.group(0)
    return None


def amount_quote(text: str, amount: float, name: str = "") -> str | None:
    """The sentence of ``text`` stating ``amount`` (one that also names ``name`` first)."""
    hits = [m for m in AMOUNT.finditer(text) if number(m.group("num") or m.group("num2")) == amount]
    hits.sort(key=lambda m: name.casefold() not in sentence_at(text, m.start()).casefold())
    return sentence_at(text, hits[0].start(), hits[0].end()) if hits else None


def plans_from_price(
    name: str, found: list[Price], url: str, quote: str | None, **extra: Any
) -> list[PlanDraft]:
    """One plan per period among ``found`` (the first price of a period wins)."""
    plans: dict[str | None, PlanDraft] = {}
    for price in found:
        if price.period not in plans:
            plans[price.period] = PlanDraft(
                name=name,
                price=price.amount,
                currency=price.currency,
                period=price.period,
                unit=price.unit,
                price_text=price.text,
                cite=Cite(url, quote) if quote else None,
                page_url=url,
                **extra,
            )
    return list(plans.values())


# -- pages -------------------------------------------------------------------------------


def _path_key(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.netloc.lower()}{parts.path.rstrip('/')}"


def pricing_pages(snapshot: SiteSnapshot) -> list[SitePage]:
    """The snapshot's pricing pages, once each, pages whose URL says pricing first."""
    from ci_service.pipeline.profile import is_pricing_page

    linked = {
        _path_key(url)
        for page in snapshot.pages
        for url, text in page.links
        if text and len(text.split()) <= 4 and PRICING_WORDS.search(text)
    }
    chosen: dict[str, SitePage] = {}
    for page in snapshot.pages:
        key = _path_key(page.url)
        if key in chosen or NOT_PRICING_PATH.search(urlsplit(page.url).path):
            continue
        if is_pricing_page(page) or key in linked:
            chosen[key] = page
    return sorted(
        chosen.values(),
        key=lambda p: (not PRICING_WORDS.search(urlsplit(p.url).path.replace("-", " ")), p.depth),
    )


def page_label(page: SitePage) -> str:
    segments = [s for s in urlsplit(page.url).path.split("/") if s]
    if segments and segments[-1].lower() not in GENERIC_SEGMENTS:
        words = re.sub(r"\.html?$", "", segments[-1]).replace("_", " ")
        return words[:1].upper() + words[1:40]
    heading = next((h for h, level, _t in page.sections if level and h.strip()), "")
    return (heading or re.split(r"\s+[|–—-]\s+", page.title)[0]).strip()[:60]


def _table_plans(page: SitePage) -> list[PlanDraft]:
    """Plans from "name | name" header rows and a row of prices below them."""
    out: list[PlanDraft] = []
    header: list[str] = []
    features: dict[int, list[str]] = {}
    for line in page.text.splitlines():
        if " | " not in line and not line.startswith("| "):
            header = []
            continue
        cells = [c.strip() for c in line.split("|")]
        if not header or len(cells) != len(header):
            names = cells[1:]
            if len(names) >= 2 and all(
                c and len(c.split()) <= 5 and not AMOUNT.search(c) for c in names
            ):
                header, features = cells, {}
            continue
        label = cells[0]
        found = {j: prices(c) for j, c in enumerate(cells) if j}
        if any(found.values()):
            for j, row_prices in found.items():
                for price in row_prices:
                    if price.period is None:
                        price.period = qualifiers(label)[0]
                if row_prices:
                    out += plans_from_price(header[j], row_prices, page.url, line)
                elif is_on_request(cells[j]):
                    out.append(on_request_plan(header[j], cells[j], page.url, line))
                if out and row_prices:
                    out[-1].features = features.setdefault(j, [])
            continue
        for j, cell in enumerate(cells[1:], start=1):
            if cell and cell.lower() not in ("✗", "✕", "×", "—", "-", "no", "n/a") and label:
                item = label if cell.lower() in ("✓", "✔", "✅", "yes", "included") else None
                features.setdefault(j, []).append(item or f"{label}: {cell}"[:200])
    for plan in out:
        plan.features = plan.features[:MAX_FEATURES]
    return out


def on_request_plan(name: str, line: str, url: str, quote: str | None, **extra: Any) -> PlanDraft:
    cite = Cite(url, quote) if quote else None
    return PlanDraft(name, None, None, None, None, True, line[:200], [], cite, url, **extra)


def _offers(node: Any, context: str = "", depth: int = 0):
    if depth > 6:
        return
    if isinstance(node, list):
        for item in node:
            yield from _offers(item, context, depth + 1)
    elif isinstance(node, dict):
        from ci_service.intel.jsonld import OFFER_TYPES, types_of

        name = node.get("name") if isinstance(node.get("name"), str) else context
        if types_of(node) & OFFER_TYPES:
            yield name, node
        for key in ("offers", "@graph", "itemListElement", "hasOfferCatalog"):
            if key in node:
                yield from _offers(node[key], name, depth + 1)


def _jsonld_plans(page: SitePage) -> list[PlanDraft]:
    out = []
    for name, offer in _offers(page.json_ld):
        spec = offer.get("priceSpecification")
        spec = (spec[0] if spec else {}) if isinstance(spec, list) else spec
        spec = spec if isinstance(spec, dict) else {}
        raw = next((v for v in (offer.get("price"), spec.get("price"), offer.get("lowPrice"))
                    if v not in (None, "")), None)  # fmt: skip
        amount = number(str(raw).replace(" ", "")) if isinstance(raw, str | int | float) else None
        if not name or amount is None or isinstance(raw, bool):
            continue
        terms = " ".join(str(spec.get(k) or "") for k in ("unitText", "billingDuration"))
        terms += " " + {"MON": "month", "ANN": "year"}.get(str(spec.get("unitCode")), "")
        period, unit, _ = qualifiers(re.sub(r"\bP1M\b", "month", re.sub(r"\bP1Y\b", "year", terms)))
        if period is None and unit is None:
            period, unit, _ = qualifiers(" per " + terms.strip())
        currency = offer.get("priceCurrency") or spec.get("priceCurrency")
        currency = currency.upper()[:8] if isinstance(currency, str) and currency else None
        quote = amount_quote(page.text, amount, name)
        found = [Price(amount, currency, period, unit, f"{raw} {currency or ''}".strip())]
        out += plans_from_price(name.strip()[:200], found, page.url, quote)
    return out


def _prose_plans(page: SitePage) -> list[PlanDraft]:
    out = []
    for sentence in sentences(page.text):
        if " | " in sentence or len(sentence.split()) < 4:
            continue
        for price in AMOUNT.finditer(sentence):
            found = prices(sentence[price.start() :])[:1]
            before = sentence[: price.start()]
            after = sentence[price.end() :]
            named = _NAME_AFTER.match(after) or _NAME_BEFORE.search(before)
            name = re.sub(r"^(?:The|Our|An?)\s+", "", named.group(1).strip()) if named else ""
            if name.split()[0].casefold() in _NOT_NAMES if name else True:
                name = "Starting price" if _FROM.search(before) else ""
            if name and found and (found[0].period or found[0].unit or name == "Starting price"):
                out += plans_from_price(name, found, page.url, sentence)
    return out


def _text_cards(page: SitePage) -> list[PlanDraft]:
    """Without markup: a short name line, then (within two lines) a price line."""
    lines = [line.strip() for line in page.text.splitlines()]
    out: list[PlanDraft] = []
    for i, line in enumerate(lines):
        if not line or " | " in line or len(line.split()) > 12:
            continue
        found = prices(line, lines[i + 1] if i + 1 < len(lines) else "")
        if not found and not is_on_request(line) and not ON_REQUEST_START.match(line):
            continue
        before = [x for x in lines[max(0, i - 3) : i] if x][-2:]
        names = [x for x in before if _looks_like_name(x)]
        if not names:
            continue
        name = min(reversed(names), key=lambda x: len(x.split()))  # a name, not its tagline
        quote = find_quote(page.text, f"{name} {line}", line)
        plans = (
            plans_from_price(name, found, page.url, quote)
            if found
            else [on_request_plan(name, line, page.url, quote)]
        )
        bullets = []
        for nxt in lines[i + 1 : i + 40]:
            if prices(nxt) or is_on_request(nxt):
                break
            if re.match(r"[✓✔✅•·*+-]\s*\S", nxt):
                bullets.append(nxt.lstrip("✓✔✅•·*+- ").strip()[:200])
        for plan in plans:
            plan.features = bullets[:MAX_FEATURES]
        out += plans
    return out


def _looks_like_name(line: str) -> bool:
    return (
        0 < len(line.split()) <= 5
        and not AMOUNT.search(line)
        and not line.endswith((":", ".", "!", "?"))
        and not re.match(r"[✓✔✅•·*+-]", line)
        and not is_on_request(line)
        and line.casefold() not in ("coming soon", "get started", "most popular", "recommended")
    )


def _merge(target: dict[tuple[str, str | None], PlanDraft], plans: list[PlanDraft]) -> None:
    for plan in plans:
        target.setdefault((plan.name.casefold(), plan.period), plan)


def page_plans(page: SitePage) -> list[PlanDraft]:
    """The plans one pricing page states (see the module rules)."""
    from ci_service.pipeline.pricing_html import card_plans

    found: dict[tuple[str, str | None], PlanDraft] = {}
    cards = card_plans(page) if page.html else []
    _merge(found, cards)
    _merge(found, _table_plans(page))
    _merge(found, _jsonld_plans(page))
    if not cards:
        _merge(found, _text_cards(page))
    prose = _prose_plans(page)
    _merge(found, [p for p in prose if p.name != "Starting price" or not found])
    return list(found.values())


def extract_pricing(snapshot: SiteSnapshot) -> list[PlanDraft]:
    """The plans of the snapshot's pricing pages; bad markup or text never raises."""
    plans: list[PlanDraft] = []
    seen: set[str] = set()
    for page in pricing_pages(snapshot):
        try:
            found = page_plans(page)
        except Exception:  # hostile markup must not cost the collect its other facts
            log.warning("pricing of %s skipped: unreadable page", page.url, exc_info=True)
            continue
        names = {p.name.casefold() for p in found}
        if names & seen:
            label = page_label(page)
            for plan in found:
                plan.name = f"{plan.name} ({label})"[:200] if label else plan.name
                plan.edition = plan.edition or label
        seen |= {p.name.casefold() for p in found}
        plans.extend(found)
    return plans[:MAX_PLANS]


# Saving lives in its own module to keep this one about reading pages.
from ci_service.pipeline.pricing_store import save_pricing  # noqa: E402, F401
