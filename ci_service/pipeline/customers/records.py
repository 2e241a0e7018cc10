"""Customers and partners read from a page's repeated records (``pipeline.records``): a
wall of client logos, a grid of case studies or portfolio work, a list of client names; a
row of partner, reseller or technology-partner logos.

A record set names customers when its heading says so (customers, clients, trusted by,
used by, our work, portfolio, references, case studies, in several languages), or when
the page is of kind ``customer`` and the set has a heading and records that are logos or
links (a page's rating labels "Setup Time", "Price Fairness" are neither), or when its
cards each link to the customer story of the client they name, whatever the heading
("Granite Solar Works" linking to /case-studies/granite-solar-works); a set under a
heading about partners, integrations, investors, press, awards or the team names none. A
record set names partners when its heading names partners as a set ("Partners", "Our
technology partners", "Partnerships", "Resellers", "Supported by", "Memberships", the
insurance plans a practice accepts, in several languages), not a tagline
("Your partner for ..."), and not customers, investors or an invitation to become one. A
set inside a card of another set (each card's rating labels or services) names nothing.

Each record gives one name: its text when that is a short name (``names.company_name``),
else its logo's alternative text (each logo of a record that is only logos); in a wall of
logos a record without one is the wall's caption, not a name. The words most of a page's
logos share at their end are dropped (``names.without_shared_words``). A wall without a
heading whose first cell is text among logos takes that caption as its heading. The quote is the
record's line that holds the name, or the name itself, as the page's text writes it; when
the name is only in a logo, the set's heading (the page's statement of what these are). A
card that says the thing is the company's own ("Acme-owned platform", "in-house") is no
client's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from ci_service.pipeline.customers.names import company_name, logo_text, without_shared_words
from ci_service.pipeline.customers.pages import is_story_link, slug, spelled
from ci_service.pipeline.records import Record, RecordSet, record_sets
from ci_service.pipeline.site import SitePage
from ci_service.pipeline.subject import about_us

MIN_NAMES = 3
NAMED_SHARE = 0.7
CUSTOMER_HEADING = re.compile(
    r"\b(?:customers?|clients?|trusted by|used by|loved by|who uses|our work|portfolio|"
    r"references?|case stud(?:y|ies)|success stories|kunden|referenzen|clientèle|"
    r"ils nous font confiance|clientes|referencias|klanten|referenties|kunder|referenser|"
    r"clienti|referenze|klijenti|reference|klienci)\b",
    re.IGNORECASE,
)
# A set of partners: the plural, "partnerships", or "partner" as a heading's last word
# ("Certified Partner"); "Your partner for smart kitchens" is a tagline.
PARTNER_HEADING = re.compile(
    r"\b(?:partners|partnerships?|alliances?|resellers?|distributors?|partenaires|socios|"
    r"aliados|partnere|vertriebspartner|certified (?:partner|by)|supported by|"
    r"in (?:cooperation|collaboration) with|memberships?|affiliations?|accreditations?|"
    r"gefördert (?:durch|von)|unterstützt (?:durch|von)|in kooperation mit|soutenu par|"
    r"en collaboration avec|con el apoyo de|met steun van|i samarbete med|"
    r"insurance (?:plans|providers|carriers|companies)|accepted insurances?|"
    r"insurances? (?:we )?accept(?:ed)?)\b|\bpartner\W*$",
    re.IGNORECASE,
)
NOT_PARTNERS = re.compile(
    r"\b(?:customers?|clients?|investors?|backed by|press|as seen|featured in|team|people|"
    r"become a partner|partner with us|join)\b",
    re.IGNORECASE,
)
NOT_CUSTOMERS = re.compile(
    r"\b(?:partners?|integrations?|investors?|backed by|press|as seen|featured in|awards?|"
    r"team|people|insurance|certifi\w+|members? of|technolog\w+|tools|stack)\b",
    re.IGNORECASE,
)

_OWN_WORDS = re.compile(r"\b(?:in-house|our own)\b")

Named = list[tuple[str, str]]  # (name, quote)


class SetNames(NamedTuple):
    customers: Named
    partners: Named
    owned: list[str]  # names of cards that say they are the company's own


def customers_and_partners(
    page: SitePage,
    aliases: Sequence[str] = (),
    *,
    stories_only: bool = False,
    sets: list[RecordSet] | None = None,
) -> SetNames:
    """(name, quote) of the customers and of the partners the page's record sets name, in
    page order, never the company itself (``aliases``: its names, case-folded); the page's
    markup is read once for both. With ``stories_only`` only cards that link to their
    customer stories are read (a page that is no customer page, profile page or home
    page). ``sets``: the page's record sets when the caller has read them already."""
    text = " ".join((page.text or "").split())
    customer_page = (page.kind or "") == "customer"
    customers: Named = []
    partners: Named = []
    owned: list[str] = []
    for found in record_sets(page.html, page.url) if sets is None else sets:
        if found.nested:
            continue  # a card's own list (its rating labels, its services)
        heading = " ".join((found.heading or _caption(found.records)).split())
        if stories_only:
            names_customers = _story_cards(found.records)
        else:
            names_customers = not NOT_CUSTOMERS.search(heading) and bool(
                CUSTOMER_HEADING.search(heading)
                or (customer_page and heading and _logos_or_links(found.records))
                or _story_cards(found.records)
            )
        if names_customers:
            customers.extend(_names(found, heading, text, aliases, owned))
        if stories_only:
            continue
        if PARTNER_HEADING.search(heading) and not NOT_PARTNERS.search(heading):
            partners.extend(_names(found, heading, text, aliases, owned))
    ours = list(aliases)
    customers = [(n, q) for n, q in customers if not about_us(n, ours)]
    partners = [(n, q) for n, q in partners if not about_us(n, ours)]
    return SetNames(_trimmed(customers, text), _trimmed(partners, text), owned)


def _caption(records: list[Record]) -> str:
    """A logo wall's caption written as its first cell ("Our references" before the logos):
    the set's heading when the markup gives it none."""
    first, rest = (records[0], records[1:]) if records else (None, [])
    if first is None or first.images or first.link or len(rest) < MIN_NAMES:
        return ""
    logos = sum(1 for r in rest if r.images)
    return first.name if logos >= NAMED_SHARE * len(rest) else ""


def _story_cards(records: list[Record]) -> bool:
    """Cards that each link to the customer story of the client they name
    (/case-studies/granite-solar-works for "Granite Solar Works")."""
    told = 0
    for record in records:
        link = slug(record.link) if is_story_link(record.link) else ""
        name = spelled(record.name)
        told += bool(link and name and (name.startswith(link) or link.startswith(name)))
    return told >= MIN_NAMES and told >= NAMED_SHARE * len(records)


def _logos_or_links(records: list[Record]) -> bool:
    return sum(1 for r in records if r.images or r.link) >= NAMED_SHARE * len(records)


def _names(
    found: RecordSet, heading: str, text: str, aliases: Sequence[str], owned: list[str]
) -> Named:
    """(name, quote) of each record of a set of named things, or none when most of its
    records name nothing; a record that says it is the company's own ("Acme-owned", "our
    own", "in-house") names no client."""
    wall = sum(1 for r in found.records if r.images) * 2 > len(found.records)
    names: Named = []
    named_records = 0
    for record in found.records:
        if wall and not record.images:
            continue  # the wall's caption card, not a logo
        if _owned(record.text, aliases):
            owned.append(record.name)
            named_records += 1
            continue
        before = len(names)
        name = company_name(record.name) if record.name in text else None
        if name is not None:
            names.append((name, name))
        elif record.images:
            logos = record.images if record.name == record.images[0] else record.images[:1]
            for alt in logos:
                if logo := company_name(logo_text(alt)):
                    quote = logo if logo in text else (heading if heading in text else "")
                    if quote:
                        names.append((logo, quote))
        named_records += len(names) > before
    if named_records >= MIN_NAMES and named_records >= NAMED_SHARE * len(found.records):
        return names
    return []


def _owned(text: str, aliases: Sequence[str]) -> bool:
    low = text.casefold()
    if _OWN_WORDS.search(low):
        return True
    # "Acme-owned" for Acme Studio: the name's first word is enough here.
    names = {n for alias in aliases for n in (alias, alias.split()[0]) if len(n) >= 4}
    return any(re.search(rf"\b{re.escape(name)}[- ]owned\b", low) for name in names)


def _trimmed(named: Named, text: str) -> Named:
    """The names without the words most of the page's logos share at their end; a quote
    that was the whole name is the trimmed name when the page's text holds it."""
    trimmed = without_shared_words([name for name, _quote in named])
    out: Named = []
    for (name, quote), short in zip(named, trimmed, strict=True):
        if short != name and quote == name:
            quote = short if short in text else name
        out.append((short, quote))
    return out
