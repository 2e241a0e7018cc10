"""Pricing plans from a competitor's pricing pages, stored on its offerings, and the price
changes between two collections.

Pricing pages: pages of kind pricing (``pipeline.page_kinds``: prices and plan words in
the page's content), pages whose URL or title says pricing, plans or price, in English or
the other languages the pipeline reads (``profile.is_pricing_page``) and pages the site
links to with such words ("Pricing", "On-premises plans", "Cene"); blog, news and dated
article pages are not, nor pages whose kind (``SitePage.kind``, when known) is legal,
utility, archive, post or careers. Pages of kind pricing or whose URL says pricing come
first.

Rules, per page (the first source to give a plan name and period wins):

1. Plan cards (from the page's markup, without nav, footer, aside, cookie banners and
   struck-out prices): sibling elements that each hold a plan name (a heading, an element
   whose class says title/name/plan/tier, or a label in front of the price such as
   "Orbit $1,000 / month") and a price. A card holding its own group of cards (an
   "Enterprise" card listing "Orbit" and "Nova" prices) gives their plans, which inherit
   its features. Details (header names, testimonials, shop plumbing, split spans) are in
   :mod:`ci_service.pipeline.pricing.cards`. Without card markup: a short name line followed
   within two lines by a price, "Free" or an on-request phrase (lines the markup shows as
   shop plumbing or quotations left out).
2. Tables (rows written "cell | cell" in the page text), plans as columns or one row per
   plan ("Plan | Price | Includes"): :mod:`ci_service.pipeline.pricing.tables`.
3. JSON-LD ``Offer`` / ``AggregateOffer`` (with ``priceSpecification`` billing terms).
4. Sentences: "$1,000/month (Orbit)", "The Pro plan costs $49 per user per month",
   "from $29/month" (named "Starting price" when no plan is named, and only when the page
   gave no other plan).

A price is an amount with a currency symbol or ISO code ("$1,000", "49,99 €", "GBP 20");
its period ("/ month", "per year", "annually", "one-time"), and unit ("per user", "per
seat", "per end-user", "per GB", "per message", "flat") are read from the first words after
it (or the next short line). Numbers keep their precision ("$0.005") and the page's decimal
convention; trial lengths, counts and years are never prices; shop plumbing (shipping,
cart, installments), savings, old prices and figures in quotations or sentences ("$75,000
in revenue") are not plan prices (:mod:`ci_service.pipeline.pricing.money`).
A monthly price "billed annually" is stored as the yearly price (12 times the amount). Two
prices with different periods ("$10 / MONTH [ $89 / YEAR ]") are two plan records. "Free"
or "$0" is price 0; "Contact sales", "Custom", "Custom plans", "Let's talk", "Request a
quote", "Request for quotation", "Flexible pricing", "On request" make an ``onRequest``
plan with no price. The features are the bulleted, listed or
checked lines of the card. Each plan cites the verbatim line of the page text that states
its price (with the plan name when it is the line before); a plan whose line is not in the
stored evidence is dropped when saved.

Not sold yet: a plan whose own card (its lines, buttons included, and those of a card
holding its group), table row or column says "Coming soon", "Beta", "Early access", "On
the roadmap", "Planned", "Join the waitlist" (a whole line or cell, or the words closing its
name or price line: "Teams (beta)") gets ``coming_soon`` (stored as ``"comingSoon": true``);
JSON-LD offers say so with ``availability`` PreOrder or PreSale. Other cards of the page
and the page's own words never mark a plan, nor does a feature's "SSO (beta)".

The same plan name on two pages (cloud and self-host pricing) keeps both: the later page's
plans are named "Standard (Self-host)", the label being the page's last URL segment (its
first heading when that segment is generic).

Saving (``save_pricing`` in ``services/collection/pricing_store.py``): a plan goes to the
competitor's offering its name (or its page's URL) names by a word no other offering has
("Orbit" -> "Orbit Cloud"), else to the offering named like the company, else the first one;
a competitor without offerings gets one named after the company. The offerings' ``pricing``
lists are replaced in one transaction. Changes are found across all the competitor's
offerings (a plan moving between offerings is no change), keyed by plan name and period:
``price_changed`` (price, currency, period, unit or onRequest differ; a plan whose period
changed is paired by name), ``plan_added``, ``plan_removed``; stored newest first (at most
100) in the offering's ``pricingChanges``. The first collection (no stored plans) records
none. A stored plan whose page was not read in this collection is kept and never reported
removed; a collection that finds no plan changes nothing.
"""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import urlsplit

from ci_service.pipeline.evidence import Cite, sentences
from ci_service.pipeline.pricing.cards import card_plans
from ci_service.pipeline.pricing.drafts import (
    MAX_FEATURES,
    PlanDraft,
    on_request_plan,
    plans_from_price,
)
from ci_service.pipeline.pricing.money import (  # noqa: F401 (re-exported for the card rules)
    AMOUNT,
    FREE,
    ON_REQUEST,
    ON_REQUEST_START,
    TRIAL,
    Price,
    amount_quote,
    ends_not_yet,
    find_quote,
    is_free,
    is_not_yet,
    is_on_request,
    is_plumbing,
    is_prose,
    is_quoted,
    number,
    page_money,
    prices,
    qualifiers,
)
from ci_service.pipeline.pricing.product_prices import product_page_plans
from ci_service.pipeline.pricing.tables import table_plans
from ci_service.pipeline.site import SitePage, SiteSnapshot

log = logging.getLogger("ci_service.pipeline")

MAX_PLANS = 60
PRICING_WORDS = re.compile(
    r"\b(?:pricing|prices?|plans?|cene|cijene|cenovnik|cjenik|preise|tarife?|tarifs|prix|"
    r"precios|planes)\b",
    re.IGNORECASE,
)
# A link that names the site's pricing page: "Pricing", "Plans & prices", "Preise"; not a
# thing called a plan ("Permit plan set", "Business plan").
PRICING_LINK = re.compile(
    r"\b(?:pricing|prices|price\s+list|plans|cene|cijene|cenovnik|cjenik|preise|tarife?|"
    r"tarifs|prix|precios|planes)\b",
    re.IGNORECASE,
)
NOT_PRICING_PATH = re.compile(
    r"/(?:blog|news|press|insights|articles?|posts?|tags?|categories|category)/|/(?:19|20)\d\d/",
    re.IGNORECASE,
)
GENERIC_SEGMENTS = {"pricing", "price", "prices", "plans", "plan", "index.html", "index.htm"}
# Page kinds (``SitePage.kind``, when known) whose prices are never plans: legal text,
# utility pages (cart, search, sign-in), archives, dated posts and job posts.
NO_PLAN_KINDS = frozenset({"legal", "utility", "archive", "post", "careers"})

_NAME_BEFORE = re.compile(
    r"(?:^|[.;:!?]\s+|\bthe\s+)([A-Z][\w+&.'-]*(?:\s+[A-Z0-9][\w+&.'-]*){0,3})"
    r"(?:\s+(?:plan|tier|edition|package|subscription|license))?\s*"
    r"(?:costs?|is|are|starts?\s+at|starting\s+at|from|at|for|:|–|—|-)\s*(?:only\s+|just\s+)?$"
)
_NAME_AFTER = re.compile(r"^[^()]{0,25}?\(([A-Z][^()]{0,40})\)")
_FROM = re.compile(r"\b(?:from|starting\s+at|starts\s+at|as\s+low\s+as)\s*$", re.IGNORECASE)
_NOT_NAMES = {"plans", "pricing", "price", "prices", "it", "this", "we", "you", "for", "only"}
_NOT_NAMES |= {"just", "starting", "start", "our", "all", "each", "every", "and", "or", "the"}
# schema.org availability of an offer not sold yet ("https://schema.org/PreOrder").
_PRE_ORDER = re.compile(r"\bPre-?(?:Order|Sale)\b", re.IGNORECASE)


# -- pages -------------------------------------------------------------------------------


def _path_key(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.netloc.lower()}{parts.path.rstrip('/')}"


def pricing_pages(snapshot: SiteSnapshot) -> list[SitePage]:
    """The snapshot's pricing pages, once each, pages whose URL says pricing first.

    A site that names its pricing page (its path or title says pricing, or a link says so)
    states its prices there: pages that are only priced by their content (a calculator, an
    article about another vendor's price list, a catalogue) are then not read for plans.
    Without such a page, every page of kind pricing is read."""
    from ci_service.pipeline.profile.extract import is_pricing_page, names_pricing

    linked = {
        _path_key(url)
        for page in snapshot.pages
        for url, text in page.links
        if text and len(text.split()) <= 4 and PRICING_LINK.search(text)
    }
    chosen: dict[str, SitePage] = {}
    for page in snapshot.pages:
        key = _path_key(page.url)
        if key in chosen or NOT_PRICING_PATH.search(urlsplit(page.url).path):
            continue
        if (page.kind or "") in NO_PLAN_KINDS:
            continue
        # The page's kind (read from its prices and plan words) or its name says pricing.
        if page.kind == "pricing" or is_pricing_page(page) or key in linked:
            chosen[key] = page

    def named(page: SitePage) -> bool:
        return _path_key(page.url) in linked or names_pricing(page.url, page.title)

    if any(named(p) for p in chosen.values()):
        chosen = {k: p for k, p in chosen.items() if named(p)}
    return sorted(
        chosen.values(),
        key=lambda p: (
            not (
                p.kind == "pricing" or PRICING_WORDS.search(urlsplit(p.url).path.replace("-", " "))
            ),
            p.depth,
        ),
    )


def page_label(page: SitePage) -> str:
    segments = [s for s in urlsplit(page.url).path.split("/") if s]
    if segments and segments[-1].lower() not in GENERIC_SEGMENTS:
        words = re.sub(r"\.html?$", "", segments[-1]).replace("_", " ")
        return words[:1].upper() + words[1:40]
    heading = next((h for h, level, _t in page.sections if level and h.strip()), "")
    return (heading or re.split(r"\s+[|–—-]\s+", page.title)[0]).strip()[:60]


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
        # schema.org writes decimals with a point ("1.500" is 1.5)
        amount = (
            number(str(raw).replace(" ", ""), ".") if isinstance(raw, str | int | float) else None
        )
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
        if period is None and unit is None and quote:
            # The offer says no period; the page's sentence with the amount may ("2.400 €
            # una tantum per postazione").
            said = next((p for p in prices(quote) if p.amount == amount), None)
            period, unit = (said.period, said.unit) if said else (None, None)
        found = [Price(amount, currency, period, unit, f"{raw} {currency or ''}".strip())]
        soon = _PRE_ORDER.search(str(offer.get("availability") or "")) is not None
        out += plans_from_price(name.strip()[:200], found, page.url, quote, coming_soon=soon)
    return out


def _prose_plans(page: SitePage, skipped: set[str] = frozenset()) -> list[PlanDraft]:
    out = []
    kept = (x for x in page.text.splitlines() if " ".join(x.split()).casefold() not in skipped)
    for sentence in sentences("\n".join(kept)):
        if " | " in sentence or len(sentence.split()) < 4 or is_quoted(sentence):
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


def _text_cards(page: SitePage, skipped: set[str] = frozenset()) -> list[PlanDraft]:
    """Without markup: a short name line, then (within two lines) a price line (lines of
    shop plumbing and quotations in the markup, ``skipped``, left out)."""
    lines = [line.strip() for line in page.text.splitlines()]
    lines = ["" if " ".join(x.split()).casefold() in skipped else x for x in lines]
    out: list[PlanDraft] = []
    for i, line in enumerate(lines):
        if not line or " | " in line or len(line.split()) > 12:
            continue
        found = prices(line, lines[i + 1] if i + 1 < len(lines) else "")
        found = [] if is_prose(line, found) else found
        free = not found and is_free(line)
        if not found and not free and not is_on_request(line) and not ON_REQUEST_START.match(line):
            continue
        before = [x for x in lines[max(0, i - 3) : i] if x][-2:]
        names = [x for x in before if _looks_like_name(x)]
        if not names:
            continue
        name = min(reversed(names), key=lambda x: len(x.split()))  # a name, not its tagline
        quote = find_quote(page.text, f"{name} {line}", line)
        if found:
            plans = plans_from_price(name, found, page.url, quote)
        elif free:
            cite = Cite(page.url, quote) if quote else None
            plans = [PlanDraft(name, 0.0, None, None, None, False, line, [], cite, page.url)]
        else:
            plans = [on_request_plan(name, line, page.url, quote)]
        bullets, after = [], []
        for nxt in lines[i + 1 : i + 40]:
            if prices(nxt) or is_on_request(nxt) or is_free(nxt):
                break
            after.append(nxt)
            if re.match(r"[✓✔✅•·*+-]\s*\S", nxt) and not is_not_yet(nxt.lstrip("✓✔✅•·*+- ")):
                bullets.append(nxt.lstrip("✓✔✅•·*+- ").strip()[:200])
        at = max(j for j in range(max(0, i - 3), i) if lines[j] == name)
        soon = _says_not_yet(lines[at:i] + _own_tail(after), name, line)
        for plan in plans:
            plan.features = bullets[:MAX_FEATURES]
            plan.coming_soon = soon
        out += plans
    return out


def _own_tail(after: list[str]) -> list[str]:
    """The lines after a text card's price that are still its own: the next card takes its
    name (one of the last two lines above its price) and what follows that name."""
    kept = [x for x in after if x]
    for back in range(max(len(kept) - 2, 0), len(kept)):
        if _looks_like_name(kept[back]):
            return kept[:back]
    return kept


def _says_not_yet(own: list[str], name: str, line: str) -> bool:
    """Whether a text card says it is not sold yet: a status line of its own (``own``), or
    its name or price line closed by one ("Teams (beta)")."""
    return any(is_not_yet(x) for x in own) or ends_not_yet(name) or ends_not_yet(line)


def _looks_like_name(line: str) -> bool:
    return (
        0 < len(line.split()) <= 5
        and not AMOUNT.search(line)
        and not line.endswith((":", ".", "!", "?"))
        and ", " not in line
        and not TRIAL.search(line)
        and not is_plumbing(line)
        and not is_free(line)
        and not re.match(r"[✓✔✅•·*+-]", line)
        and not is_on_request(line)
        and not is_not_yet(line)
        and line.casefold() not in ("get started", "most popular", "recommended")
    )


# A name with no word, or only a size ("11 / 15", "0", "+", "20 GB"): a slide's counter or a
# feature's figure read as the name. A bundle named by what it holds ("200 minutes") is a
# plan's name on many sites.
_NOT_A_PLAN_NAME = re.compile(r"\W*(?:\d[\d\s.,:/%×x+-]*(?:[kmgtp]i?b|bytes?)?)?\W*", re.I)
# Words that lead, badge or qualify a price ("per user / month"), not a plan's name.
_PRICE_WORDS = re.compile(
    r"\W*(?:from|only|just|starting(?:\s+(?:at|from))?|prices?|pricing|plans?|costs?|total|"
    r"new|(?:most\s+)?popular|recommended|best\s+value|(?:per|billed|paid)\b.*|/.*|"
    # "Price" and "from" in other languages: Italian, German, French, Spanish, Portuguese,
    # Dutch, Scandinavian, Slavic
    r"prezz[oi]|preis(?:e)?|prix|tarifs?|tarife?|precios?|preços?|prijs(?:en)?|priser?|"
    r"cen[aey]|cijen[ae]|kosten|ab|à\s+partir\s+de|a\s+partir\s+de|desde|vanaf|da)\W*",
    re.I,
)


_OPEN_ENDS = frozenset(
    "at from for with to of by on in only just is are the a an and or ab vanaf à de desde "
    "da för fra från für".split()
)


def plan_name_ok(name: str) -> bool:
    """Whether a plan's name names it: not a count, a size, a question, or a word that
    leads a price ("From", "Only", "Pricing")."""
    if name.rstrip().endswith("?"):
        return False  # a question heading a worked example ("How is a $1,000 invoice paid?")
    words = name.split()
    if words and words[-1].casefold() in _OPEN_ENDS:
        return False  # a sentence's start ("Start with Acme at"), not a name
    return not (_NOT_A_PLAN_NAME.fullmatch(name) or _PRICE_WORDS.fullmatch(name))


def _merge(target: dict[tuple[str, str | None], PlanDraft], plans: list[PlanDraft]) -> None:
    for plan in plans:
        if not plan_name_ok(plan.name):
            continue  # the record is misread: a plan is named, not counted or introduced
        target.setdefault((plan.name.casefold(), plan.period), plan)


def page_plans(page: SitePage) -> list[PlanDraft]:
    """The plans one pricing page states (see the module rules)."""
    with page_money(page.text, page.language):
        found: dict[tuple[str, str | None], PlanDraft] = {}
        skipped: set[str] = set()
        cards = card_plans(page, skipped) if page.html else []
        _merge(found, cards)
        _merge(found, table_plans(page))
        _merge(found, _jsonld_plans(page))
        if not cards:
            _merge(found, _text_cards(page, skipped))
        prose = _prose_plans(page, skipped)
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
    if not plans:
        # No pricing page states a price: product pages that state one each.
        for page in snapshot.pages:
            for plan in product_page_plans(page):
                if plan.name.casefold() not in seen and plan_name_ok(plan.name):
                    seen.add(plan.name.casefold())
                    plans.append(plan)
    return plans[:MAX_PLANS]
