"""Customers and partners read from a page's repeated records (``pipeline.records``): a
wall of client logos, a grid of case studies or portfolio work, a list of client names; a
row of partner, reseller or technology-partner logos.

A record set names customers when its heading says so (customers, clients, trusted by,
used by, our work, portfolio, references, case studies, in several languages), or when
the page is of kind ``customer`` and the set has a heading; a set under a heading about
partners, integrations, investors, press, awards or the team names none. A record set
names partners when its heading says partners, partnerships, alliances, resellers or
distributors (in several languages) and not customers, investors or an invitation to
become one. Each record gives one name: its text when that is a short name (one to five
words, starting with a capital, not a sentence, a call to action or a heading word), else
its logo's alternative text with "logo" and file-name noise taken off. The quote is the
record's line that holds the name, or the name itself, as the page's text writes it;
when the name is only in a logo, the set's heading (the page's statement of what these
are).
"""

from __future__ import annotations

import re

from ci_service.pipeline.records import RecordSet, record_sets
from ci_service.pipeline.site import SitePage

MIN_NAMES = 3
MAX_NAME_WORDS = 5
CUSTOMER_HEADING = re.compile(
    r"\b(?:customers?|clients?|trusted by|used by|loved by|who uses|our work|portfolio|"
    r"references?|case stud(?:y|ies)|success stories|kunden|referenzen|clientèle|"
    r"ils nous font confiance|clientes|referencias|klanten|referenties|kunder|referenser|"
    r"clienti|referenze|klijenti|reference|klienci)\b",
    re.IGNORECASE,
)
PARTNER_HEADING = re.compile(
    r"\b(?:partners?|partnerships?|alliances?|resellers?|distributors?|partenaires?|"
    r"socios|aliados|partnere|vertriebspartner|certified (?:partner|by))\b",
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
_LOGO_NOISE = re.compile(
    r"\b(?:logo|logotype|icon|image|img|client|customer)\b|\.(?:png|jpe?g|svg|webp|gif)$|[_-]",
    re.IGNORECASE,
)
_NOT_A_NAME = re.compile(
    r"[.!?:]$|\b(?:read|learn|view|see|more|download|watch|case study|contact|get)\b",
    re.IGNORECASE,
)


def _name(text: str) -> str | None:
    name = " ".join(text.split()).strip(" ,;|·–—-")
    words = name.split()
    if not 1 <= len(words) <= MAX_NAME_WORDS or len(name) > 60 or _NOT_A_NAME.search(name):
        return None
    if not (name[0].isupper() or name[0].isdigit()):
        return None
    return name


def _logo_name(alt: str) -> str | None:
    return _name(" ".join(_LOGO_NOISE.sub(" ", alt).split()))


Named = list[tuple[str, str]]  # (name, quote)


def customers_and_partners(page: SitePage) -> tuple[Named, Named]:
    """(name, quote) of the customers and of the partners the page's record sets name, in
    page order; the page's markup is read once for both."""
    text = " ".join((page.text or "").split())
    customer_page = (page.kind or "") == "customer"
    customers: Named = []
    partners: Named = []
    for found in record_sets(page.html, page.url):
        heading = " ".join(found.heading.split())
        if not NOT_CUSTOMERS.search(heading) and (
            CUSTOMER_HEADING.search(heading) or (customer_page and heading)
        ):
            customers.extend(_names(found, heading, text))
        if PARTNER_HEADING.search(heading) and not NOT_PARTNERS.search(heading):
            partners.extend(_names(found, heading, text))
    return customers, partners


def customers_in_records(page: SitePage) -> Named:
    """(name, quote) of the customers the page's record sets name, in page order."""
    return customers_and_partners(page)[0]


def partners_in_records(page: SitePage) -> Named:
    """(name, quote) of the partners the page's record sets name, in page order."""
    return customers_and_partners(page)[1]


def _names(found: RecordSet, heading: str, text: str) -> Named:
    """(name, quote) of each record of a set of named things, or none when most of its
    records name nothing."""
    names = []
    for record in found.records:
        name = _name(record.name) if record.name in text else None
        quote = name
        if name is None and record.images:
            name = _logo_name(record.images[0])
            quote = name if name and name in text else (heading if heading in text else None)
        if name and quote:
            names.append((name, quote))
    if len(names) >= MIN_NAMES and len(names) >= 0.7 * len(found.records):
        return names
    return []
