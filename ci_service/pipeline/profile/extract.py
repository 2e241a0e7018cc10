"""Company profile from a site snapshot (deterministic rules, documented in docs/pipeline.md; the
text patterns live in ``pipeline.profile.rules``, places in ``profile.places``, who a
sentence is about in ``pipeline.subject``, layouts in ``profile.layouts``, the industry in
``profile.industry`` and the customers and partners of record sets, testimonials and
stories in ``pipeline.customers``).

Every page is read: profile pages (``SitePage.kind`` about, contact or team; without a kind
a path segment or title such as about, about-*, company, contact, contact-*, our-story,
team, people, investors, investment), then the home page, then all others (a blog post or a
press list often states the company's origin). On those other pages a match counts only when
the company is its subject: ``company_name`` or the site's domain label (also without its
dots: "acme.io" is "acmeio"), or "we"/"our" for headquarters and funding, in the sentence
before the match, or the match is in the "About Acme" boilerplate of a press release. A post
about another firm never becomes our competitor's profile. Legal and utility pages, sentences
with "©", "copyright" or "all rights reserved" and all-caps sentences are never read. For
each field the strongest phrasing wins, then the earlier page.

- yearFounded: "founded / established / incorporated (in ...) 2016", "est. 1998"; then
  "... began / started in (January) 2014", "Acme was launched in 2014" (the company as the
  subject) and the first sentence of an "Our story" / "History" section starting "In 2014";
  then "since 2009" with we / our / the company in the sentence. Rejected: years after this
  year or before 1800, sentences about a person ("who founded", "his", "her"), someone
  else's founding (the last name before the match is not the company's: "X Capital was
  founded in 1995", "Before Acme, Jane co-founded ..."), and on team pages any year whose
  sentence does not name the company: bios are never our history.
- headquarters: "headquartered in X", "headquarters / HQ (is) in / at / : X", "HQ: <postal
  address>", a place label before "HQ" ("Singapore HQ", "Denver Office (HQ)", taking the
  city and state of the address below it); then a postal address block on a profile page (a
  street line, then a city with a country, or a US "City, ST 12345" / "City, State 12345"
  line; quoted up to its city line); then "based in X", "we are located in X" (the company
  as the subject, not its servers) and the origin "founded in X"; then "offices in X, Y and
  Z" (the first place); then addresses in the home or a profile page's markup (JSON-LD
  ``PostalAddress`` of any type, microdata, the footer). Profile and home pages come before
  any other page (a dated post is the last resort). The value is a clean "City, Country"
  (or "City, ST"), never a sentence.
- employeeCount: "250 employees / staff / team members", "a team of 40", "40-strong team",
  "employs 120", "50+ people" (profile pages only, not "join 10,000+ people"); "over" /
  "more than" / "+" give "200+", "50-200 employees" a range. Not the size of others
  ("for companies with 50 employees", "up to 10 staff").
- revenue: "annual revenue of $40 million".
- funding (a list of {round, amount, currency, date, investors}): a sentence saying money
  was raised, closed, secured, received or granted, with an amount or investors: round
  (pre-seed, seed, Series A-H, angel, bridge, grant), amount as a number with its ISO 4217
  currency ("£300,000", "$4.5M", "€2 million", "GBP 300k"; not a total: "brings its funding
  to $4.6M"), date ("in December 2019" -> "2019-12", "on 5 March 2021" -> "2021-03-05")
  with ``dateText``, the date as the page writes it ("December 2019"), for display,
  investors ("led by", "backed by", "funded by", "an investment by / investments from",
  "investors include A, B and C", "participation from"; "from X" only after an amount, a
  round or an investment, never "veterans / engineers from X"). Money the company still
  seeks is no funding. An investors section or page lists firms (``profile_layouts``). An
  entry that repeats a round (its investors only, or the same round without a different
  amount or date) is merged into it.
- customers (a list of names): after "trusted / used / loved by", "customers / clients
  include", "signups / users from (the likes of)", "companies / teams like" (the last two:
  two names at least; "companies like" only in a sentence about use or trust); what
  ``pipeline.customers.extract.page_customers`` reads from stories, logo walls, story
  cards and testimonials. A list ends at its first word that is no name; generic words,
  countries, the company itself and counts ("12,000 signups", "15k users", "2M+
  developers", "10K Teams") are never customers, nor a customer count: "over 12,000
  signups from A, B and C" names A, B and C, the figure is not stored.
- JSON-LD ``Organization`` (any page): ``foundingDate``, ``address`` (PostalAddress as
  "City, Region, Country"), ``numberOfEmployees`` win over text. Such a value is cited by a
  text rule's match with the same value, else by a sentence of that page naming the value
  and what it is ("since March of 2011"); otherwise it keeps only the id of the page's
  evidence, and is dropped when ``evidence`` is given and the page was not recorded.
- industry: what the company says it is or makes ("Acme is an online survey tool", "Acme, a
  developer of software for research and development, ...", the home page's description),
  see ``profile_industry``; nothing stated, no industry (never a default).
- pricingLinks, offeringLinks, newsFeed: pricing pages, product pages
  (``products.is_product_page``) and ``pipeline.news.extract.news_feed``.

Citations: every value read from text keeps ``Cite(page.url, sentence)``; with ``evidence``
(the recorded snapshot's EvidenceMap) a cite that does not resolve drops the value (the
next candidate is tried), and ``sources`` / ``quotes`` map each field to its evidence ids and
sentences; funding entries and customers carry their own ``evidenceIds`` / ``quotes``. A
value read from markup (meta description, title, footer) cites the page's evidence id only.
Without ``evidence`` (older callers) values are kept without sources. Found values replace
stored ones (the website is the source); fields not found are left alone, with their
sources. Links keep the ``discoveredAt`` of their first discovery.
"""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import urlsplit

from ci_service.pipeline.customers.extract import page_customers
from ci_service.pipeline.customers.names import is_count
from ci_service.pipeline.evidence import Cite, EvidenceMap, sentences

# News moved to pipeline.news.extract; re-exported for the callers that import them from here.
from ci_service.pipeline.news.extract import news_entries, news_feed  # noqa: F401
from ci_service.pipeline.profile.imprint import imprint_candidates
from ci_service.pipeline.profile.industry import TITLE_PARTS, industry_candidates
from ci_service.pipeline.profile.layouts import investor_entries, markup_headquarters
from ci_service.pipeline.profile.places import address_place, clean_place
from ci_service.pipeline.profile.rules import (
    COPYRIGHT,
    MAX_LIST,
    MAX_TEXT,
    YEAR,
    Candidate,
    page_candidates,
    segments,
    valid_year,
)
from ci_service.pipeline.site import SitePage, SiteSnapshot
from ci_service.pipeline.subject import without_legal_suffix
from ci_service.timeutil import iso, utcnow

log = logging.getLogger("ci_service.pipeline")


_PROFILE_SEGMENT = re.compile(
    r"^(?:about(?:[-_]\w+)*|company|our-?company|contact(?:[-_]\w+)*|who-?we-?are|our-?story|"
    r"story|history|mission|imprint|impressum|investors?|investment|funding|locations|offices|"
    r"(?:our-?|the-?|meet-(?:the-)?)?team|people|leadership)"
    r"(?:\.html?|\.php)?$",
    re.I,
)
_PROFILE_TITLE = re.compile(
    r"^(?:about|contact|company|our story|who we are|investors?|(?:meet )?(?:the |our )?team)\b",
    re.I,
)
# ``SitePage.kind`` (``pipeline.page_kinds``), when the page has one, decides the rank.
_KIND_RANK = {"about": 0, "contact": 0, "team": 0, "home": 1, "legal": 3, "utility": 3}
_ARCHIVE = {"blog", "news", "insights", "posts", "tags", "tag", "categories", "category"}
# Legal texts name other parties, addresses and sums of every kind: never profile evidence.
_LEGAL_PAGE = re.compile(r"^(?:terms|tos|privacy|legal|cookies?|gdpr|dpa|eula|licen[cs]e)", re.I)
OWNED = "owned"  # a candidate naming what the site calls its own, never stored
_BRACKETED = re.compile(r"\(([^()]*)\)")
_FORMERLY = re.compile(r"^(?:formerly|previously|aka|also known as|née|ex)\s+", re.I)


def _rank(page: SitePage) -> int:
    """0 for profile pages, 1 for the home page, 2 for the rest, 3 for legal pages (unread)."""
    parts = segments(page)
    if any(_LEGAL_PAGE.match(s) for s in parts):
        return 3
    if page.kind:
        return _KIND_RANK.get(page.kind, 2)
    if parts and parts[0] in _ARCHIVE:
        return 2
    if any(_PROFILE_SEGMENT.match(s) for s in parts) or _PROFILE_TITLE.match(page.title or ""):
        return 0
    return 1 if not parts else 2


_TITLE_SEPARATOR = re.compile(r"\s+[|–—·:-]\s+")
_NOT_BRAND = {"home", "homepage", "blog", "news", "welcome", "about", "contact", "index"}


def _brand(snapshot: SiteSnapshot) -> str | None:
    """The site's own name as its titles carry it: the first or last segment of the home
    page's title that ends the titles of at least 3 pages and of a third of them
    ("Pricing | Acme Cloud", "About us – Acme Cloud")."""
    titles = [_TITLE_SEPARATOR.split(p.title or "") for p in snapshot.pages[:200]]
    home = next((t for p, t in zip(snapshot.pages, titles, strict=False) if _rank(p) == 1), [])
    for segment in dict.fromkeys([home[-1], home[0]] if len(home) > 1 else []):
        name = segment.strip()
        edges = sum(1 for t in titles if len(t) > 1 and name in (t[0].strip(), t[-1].strip()))
        if (
            edges >= max(3, len(titles) / 3)
            and len(name.split()) <= 4
            and name.casefold() not in _NOT_BRAND
        ):
            return name
    return None


def _aliases(snapshot: SiteSnapshot, company_name: str) -> list[str]:
    entered = company_name.strip()
    # "Acme, Inc. (formerly Oldname)", "Nordlys (Nordlys Digital AB)": each name apart.
    outside = " ".join(_BRACKETED.sub(" ", entered).split())
    inside = [_FORMERLY.sub("", part).strip() for part in _BRACKETED.findall(entered)]
    names = {entered, outside, *inside}
    names |= {without_legal_suffix(entered), without_legal_suffix(outside)}
    label = (urlsplit(snapshot.start_url).hostname or "").removeprefix("www.").split(".")[0]
    if len(label) >= 3 and label.isalpha() and label != "localhost":
        names.add(label)
    if brand := _brand(snapshot):  # "Acme Cloud" for a company entered as "Acme"
        names.add(without_legal_suffix(brand))
    return [n.casefold() for n in names if len(n) >= 3]


def _json_ld_candidates(page: SitePage, index: int) -> list[Candidate]:
    from ci_service.intel.jsonld import ORGANIZATION_TYPES, find_typed

    found: list[Candidate] = []
    for org in find_typed(page.json_ld, ORGANIZATION_TYPES):
        values: dict[str, Any] = {}
        if match := re.search(rf"\b({YEAR})\b", str(org.get("foundingDate") or "")):
            values["yearFounded"] = valid_year(match.group(1))
        address = org.get("address")
        address = address[0] if isinstance(address, list) and address else address
        if isinstance(address, dict):
            parts = [address.get(k) for k in ("addressLocality", "addressRegion", "addressCountry")]
            parts = [p.get("name") if isinstance(p, dict) else p for p in parts]
            values["headquarters"] = clean_place(", ".join(str(p) for p in parts if p))
        elif isinstance(address, str):
            values["headquarters"] = address_place(address) or clean_place(address)
        employees = org.get("numberOfEmployees")
        if isinstance(employees, dict):
            low, high = employees.get("value") or employees.get("minValue"), None
            if not employees.get("value"):
                high = employees.get("maxValue")
            employees = f"{low}-{high}" if low and high else low or high
        if isinstance(employees, int | str) and re.fullmatch(r"\d+(?:-\d+)?\+?", str(employees)):
            values["employeeCount"] = str(employees)
        for name, value in values.items():
            if value:
                found.append(Candidate(name, value, None, (-1, 0, index, 0), page.url))
    return found


# A sentence of the JSON-LD page that states the value: it names the value and says what it is.
_STATES = {
    "yearFounded": re.compile(r"found|establish|since|began|started|\best\b", re.I),
    "headquarters": re.compile(r"headquarter|\bHQ\b|based|located|address|office", re.I),
    "employeeCount": re.compile(r"employ|people|staff|team", re.I),
}


def _cite_json_ld(candidate: Candidate, text_found: list[Candidate], page: SitePage) -> None:
    """Give a JSON-LD value the sentence that states it, when the site has one."""
    token = str(candidate.value).split(",")[0].split("-")[0].strip(" +")
    word = re.compile(rf"(?<![\w.,]){re.escape(token)}(?![\w]|[.,]\d)", re.I)
    for other in sorted(text_found, key=lambda c: c.order):
        if other.field == candidate.field and word.search(str(other.value)):
            candidate.cite, candidate.page_url = other.cite, other.page_url
            return
    for sentence in sentences(page.text[:MAX_TEXT]):
        if word.search(sentence) and _STATES[candidate.field].search(sentence):
            if not COPYRIGHT.search(sentence):
                candidate.cite = Cite(page.url, sentence)
                return


def _profile_pages(snapshot: SiteSnapshot) -> list[tuple[int, SitePage]]:
    seen: set[str] = set()
    pages = []
    for page in snapshot.pages:
        if page.url not in seen:
            seen.add(page.url)
            pages.append(page)
    ranked = sorted(((_rank(p), p) for p in pages), key=lambda item: item[0])
    return [(rank, page) for rank, page in ranked if rank < 3]


def _facts(
    snapshot: SiteSnapshot, evidence: EvidenceMap | None, company_name: str
) -> tuple[dict[str, Any], dict[str, list[str]], dict[str, list[dict[str, Any]]]]:
    """Profile facts with their sources and quotes (see the module docstring)."""
    aliases = _aliases(snapshot, company_name)
    text_found: list[Candidate] = []
    json_found: list[tuple[Candidate, SitePage]] = []
    for index, (rank, page) in enumerate(_profile_pages(snapshot)):
        try:
            text_found.extend(page_candidates(page, rank, index, aliases))
            text_found.extend(industry_candidates(page, rank, index, aliases))
            text_found.extend(_layout_candidates(page, rank, index, aliases))
            json_found.extend((c, page) for c in _json_ld_candidates(page, index))
        except Exception:  # a hostile page must not cost the other pages' facts
            log.warning("profile rules skipped %s", page.url, exc_info=True)
    for index, page in enumerate(snapshot.pages):
        text_found.extend(imprint_candidates(page, index))
    for candidate, page in json_found:
        _cite_json_ld(candidate, text_found, page)
    values: dict[str, Any] = {}
    sources: dict[str, list[str]] = {}
    quotes: dict[str, list[dict[str, Any]]] = {}
    lists: dict[str, list[dict[str, Any]]] = {"funding": [], "customers": [], "partners": []}
    everything = sorted(text_found + [c for c, _ in json_found], key=lambda c: c.order)
    owned = {str(c.value).casefold() for c in everything if c.field == OWNED}
    for candidate in everything:
        if candidate.field in values or candidate.field == OWNED:
            continue  # the best candidate of this field is already chosen
        if candidate.field == "customers" and str(candidate.value).casefold() in owned:
            continue  # the site calls it its own on some page
        cited = evidence.resolve(candidate.cite) if evidence is not None else None
        ids = [cited["evidenceId"]] if cited else []
        if evidence is not None and not cited:
            page_id = None if candidate.cite else evidence.evidence_id(candidate.page_url)
            if page_id is None:
                continue  # a value whose sentence is not in the stored evidence is dropped
            ids = [page_id]
        if candidate.field in lists:
            value = candidate.value
            if candidate.field == "customers" and is_count(str(value)):
                continue  # "12,000 signups" counts people; it names no customer
            entry = dict(value) if isinstance(value, dict) else {"name": value}
            _add_listed(lists[candidate.field], entry, ids, cited)
            continue
        values[candidate.field] = candidate.value
        if ids:
            sources[candidate.field] = ids
        if cited:
            quotes[candidate.field] = [cited]
    lists["funding"] = _fold_funding(lists["funding"])
    for name, entries in lists.items():
        if entries:
            values[name] = entries[:MAX_LIST]
            sources[name] = list(dict.fromkeys(i for e in entries for i in e["evidenceIds"]))
            listed = [q for e in entries for q in e["quotes"]]
            quotes[name] = [q for i, q in enumerate(listed) if q not in listed[:i]][:MAX_LIST]
            if not sources[name]:
                del sources[name], quotes[name]
    return values, sources, quotes


def _absorbs(known: dict[str, Any], entry: dict[str, Any]) -> bool:
    """Whether ``entry`` tells of the round ``known`` already holds: investors alone that it
    names, or the same round without a different amount or date."""
    if not entry.get("round") and not entry.get("amount"):
        named = {i.casefold() for i in known.get("investors", [])}
        return bool(entry.get("investors")) and {i.casefold() for i in entry["investors"]} <= named
    if not known.get("round") or known.get("round") != entry.get("round"):
        return False
    amounts = {known.get("amount"), entry.get("amount")} - {None}
    dates = sorted(d for d in (known.get("date"), entry.get("date")) if d)
    return len(amounts) <= 1 and (len(dates) < 2 or dates[1].startswith(dates[0]))


def _fold_funding(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per round: "Investors: Foundation X" and "a seed round led by Foundation X"
    (or a seed round stated with and without its amount) become one entry."""
    kept: list[dict[str, Any]] = []
    for entry in entries:
        for number, known in enumerate(kept):
            if _absorbs(entry, known):  # the new entry is the round, the old one its investors
                base, other = dict(entry), known
            elif _absorbs(known, entry):
                base, other = known, entry
            else:
                continue
            for field in ("round", "amount", "currency", "date"):
                if not base.get(field) and other.get(field):
                    base[field] = other[field]
                    if field == "date" and other.get("dateText"):
                        base["dateText"] = other["dateText"]  # the wording of that date
            investors = known.get("investors", []) + entry.get("investors", [])
            if investors:
                base["investors"] = list(dict.fromkeys(investors))[:MAX_LIST]
            base["evidenceIds"] = list(dict.fromkeys(known["evidenceIds"] + entry["evidenceIds"]))
            base["quotes"] = known["quotes"] + [
                q for q in entry["quotes"] if q not in known["quotes"]
            ]
            kept[number] = base
            break
        else:
            kept.append(entry)
    return kept


def _layout_candidates(
    page: SitePage, rank: int, index: int, aliases: list[str]
) -> list[Candidate]:
    """Investors sections and addresses in markup (``pipeline.profile.layouts``), customers
    and partners (``pipeline.customers``)."""
    text, found = page.text[:MAX_TEXT], []
    if rank <= 1:
        for entry, cite in investor_entries(page, text, aliases):
            found.append(Candidate("funding", entry, cite, (0, rank, index, 0), page.url))
    named = page_customers(page, rank, aliases)
    first = 0 if named.customer_page else 1
    for number, (name, quote) in enumerate(named.customers):
        cite = Cite(page.url, quote)
        found.append(Candidate("customers", name, cite, (first, rank, index, number), page.url))
    for number, (name, quote) in enumerate(named.partners):
        cite = Cite(page.url, quote)
        found.append(Candidate("partners", name, cite, (1, rank, index, number), page.url))
    found.extend(Candidate(OWNED, name, None, (0,), page.url) for name in named.owned)
    for place, quote in markup_headquarters(page) if rank <= 1 else ():
        cite = Cite(page.url, quote) if quote else None
        found.append(Candidate("headquarters", place, cite, (0, 4, rank, index, 0), page.url))
    return found


def _add_listed(
    entries: list[dict[str, Any]], entry: dict[str, Any], ids: list[str], cited: dict | None
) -> None:
    """Add a funding entry or customer, merging one already listed under the same key."""

    def key(item: dict[str, Any]) -> str:
        if "name" in item:
            return item["name"].casefold()
        if item.get("round") or item.get("amount"):
            return f"{item.get('round')}|{item.get('amount')}"
        return "|".join(sorted(i.casefold() for i in item.get("investors", [])))

    for known in entries:
        if key(known) == key(entry):
            if entry.get("investors"):
                known["investors"] = list(
                    dict.fromkeys(known.get("investors", []) + entry["investors"])
                )
            known["evidenceIds"] = list(dict.fromkeys(known["evidenceIds"] + ids))
            if cited and cited not in known["quotes"]:
                known["quotes"].append(cited)
            return
    entries.append({**entry, "evidenceIds": ids, "quotes": [cited] if cited else []})


def _label(page: SitePage) -> str:
    title = re.split(r"\s+[–—|-]\s+", page.title or "", maxsplit=1)[0].strip()
    return (title or page.url)[:500]


def _links(
    pages: list[SitePage], existing: list[dict[str, Any]] | None, now: str
) -> list[dict[str, Any]]:
    known = {link.get("url"): link for link in existing or [] if isinstance(link, dict)}
    out = []
    for page in pages:
        first = known.get(page.url, {}).get("discoveredAt") or now
        out.append({"label": _label(page), "url": page.url, "discoveredAt": first})
    return out


PRICING_WHERE = re.compile(
    r"pricing|price|\b(?:cene|cijene|cenovnik|cjenik|preise|tarife?|tarifs|prix|precios|"
    r"planes)\b",
    re.I,
)
# "Plans" names a pricing page only as the page's whole name ("/plans/", "Plans | Acme", "Our
# plans & add-ons"): "Site Plans & Stamped Drawings" are drawings.
_PLANS_NAME = re.compile(r"(?:our\s+)?plans(?:\s*(?:&|and|\+)\s*[\w-]+)?", re.I)


def names_pricing(url: str, title: str) -> bool:
    """Whether a page's path or title names it a pricing page."""
    path = urlsplit(url).path
    if PRICING_WHERE.search(f"{path} {title}"):
        return True
    parts = [*(s for s in path.split("/") if s), *TITLE_PARTS.split(title or "")]
    return any(_PLANS_NAME.fullmatch(part.strip().replace("-", " ")) for part in parts)


_NOT_PRICING_KINDS = {"post", "news-list", "legal", "utility", "archive", "careers"}


def is_pricing_page(page: SitePage) -> bool:
    """A pricing page: its kind says so, or (a page of another kind than an article, a list
    or a legal page) its path or title says pricing, plans or prices (also "Cene", "Preise",
    "Tarifs", "Precios")."""
    if page.kind == "pricing":
        return True
    if page.kind in _NOT_PRICING_KINDS:
        return False
    return names_pricing(page.url, page.title)


def extract_profile(
    snapshot: SiteSnapshot,
    existing: dict[str, Any] | None = None,
    evidence: EvidenceMap | None = None,
    company_name: str = "",
) -> dict[str, Any]:
    """The companyProfile fields found in the snapshot (to merge into the stored one), with
    ``sources``/``quotes`` when ``evidence`` is given (see the module docstring)."""
    from ci_service.pipeline.products.extract import is_product_page

    existing = existing if isinstance(existing, dict) else {}
    profile, sources, quotes = _facts(snapshot, evidence, company_name)
    # The stored maps are replaced as a whole on save: keep the entries of the fields this
    # run did not find, drop those of the fields it found again (their new sources win).
    for name, found in (("sources", sources), ("quotes", quotes)):
        stored = existing.get(name) if isinstance(existing.get(name), dict) else {}
        merged = {k: v for k, v in stored.items() if k not in profile}
        merged.update(found)
        if merged or stored:
            profile[name] = merged
    now = iso(utcnow())
    pricing = [p for p in snapshot.pages if is_pricing_page(p)]
    if pricing:
        profile["pricingLinks"] = _links(pricing, existing.get("pricingLinks"), now)
    products = [p for p in snapshot.pages if is_product_page(p)]
    if products:
        profile["offeringLinks"] = _links(products, existing.get("offeringLinks"), now)
    feed = news_feed(snapshot, existing.get("newsFeed"))
    if feed:
        profile["newsFeed"] = feed
    return profile
