"""Customers a site's testimonials name: the company of the person quoted.

A testimonial is a quotation (a ``<blockquote>``/``<q>``, or a record of a set whose
records quote somebody: ``pipeline.records``) with its attribution: "Mira Holt, Co-founder,
Bramble & Finch", "— Tomas Quill, VP of Sales at Larkspur Foods", "Petra Lindqvist,
Geschäftsführer - stays4teams", or the person on one line and "Partner, Northwind
Goods" on the next. The company is a customer when the attribution names a person
(``people.text.clean_name``) and then a job title (``people.text.clean_title``) before it.
An attribution without a person ("Plant Supervisor, Regional Utility"), without a job
title ("Jane Roe, Austin, TX") or with more parts than person, title and company names
none, and neither does a place or the company itself. A company name opens with a capital
or a digit, or is one word with a digit or a dot in it ("stays4teams", "shop.io"). The
quote is the attribution as the page's text writes it.
"""

from __future__ import annotations

import re
from typing import Any

from ci_service.intel.boilerplate import is_chrome_element, page_body
from ci_service.pipeline.customers.names import company_name
from ci_service.pipeline.html_text import parse_html
from ci_service.pipeline.people.text import PLACE_AND_TIME_WORDS, clean_name, clean_title
from ci_service.pipeline.records import RecordSet, block_lines, record_sets
from ci_service.pipeline.site import SitePage
from ci_service.pipeline.subject import about_us

MAX_ATTRIBUTION = 120  # characters: an attribution is a line, not a sentence
MAX_QUOTED_BLOCK = 1500  # characters of a quotation's surroundings read for its attribution
MAX_TESTIMONIALS = 40
_LEAD = re.compile(r"^[\s\-–—~―•]+")
_SPLIT = re.compile(r"\s*[,|]\s*|\s+[-–—/]\s+|\s+(?:at|@|bei|chez|hos|presso|på)\s+")
_QUOTATION = re.compile(r"^\s*[\"“”„«»‘’‚‹›「『]")
_BRAND_WORD = re.compile(r"^(?=\S*[a-z])(?=\S*[\d.])[\w.&-]{3,}$")


def _company(raw: str, aliases: list[str]) -> str | None:
    name = " ".join(raw.split()).strip(" .")
    if about_us(name, aliases):
        return None
    words = [w.casefold().strip(".,") for w in name.split()]
    if not words or all(w in PLACE_AND_TIME_WORDS for w in words):
        return None
    if len(name) <= 2 or name.isupper() and len(name) <= 3:
        return None  # "TX", "NY": a state, not a company
    return company_name(name) or (name if _BRAND_WORD.match(name) else None)


def attribution(line: str, following: str, aliases: list[str]) -> tuple[str, str] | None:
    """(company, person) that an attribution line (and the line after it) names."""
    parts = [p for p in _SPLIT.split(_LEAD.sub("", line)) if p]
    if len(parts) == 1 and following:
        parts += [p for p in _SPLIT.split(_LEAD.sub("", following)) if p]
    if len(parts) != 3:
        return None
    person, title, company = parts
    if clean_name(person) is None or clean_title(title) is None:
        return None
    name = _company(company, aliases)
    return (name, person) if name else None


def _quote(text: str, line: str, following: str, person: str, company: str) -> str | None:
    """The attribution as the page's text writes it."""
    for candidate in (line, f"{line} {following}"):
        tidy = re.sub(r"\s+([,.;:])", r"\1", candidate)
        if tidy in text:
            return tidy
    start = text.find(person)
    while start >= 0:
        end = text.find(company, start, start + MAX_ATTRIBUTION)
        if end >= 0:
            return text[start : end + len(company)]
        start = text.find(person, start + 1)
    return None


def _quoted_blocks(html: str, sets: list[RecordSet]) -> list[list[str]]:
    """The lines of each quotation with its attribution: records of ``sets`` (the page's
    record sets) that quote somebody, and each ``<blockquote>``/``<q>`` with what stands
    around it."""
    blocks = [
        [record.name, *record.lines] for found in sets for record in found.records if record.quoted
    ]
    doc = parse_html(html)
    if doc is None:
        return blocks
    root, _size = page_body(doc)
    for quoted in root.iter("blockquote", "q"):
        if any(is_chrome_element(node) for node in quoted.iterancestors()):
            continue
        blocks.append(block_lines(_surroundings(quoted)))
    return blocks


def _surroundings(quoted: Any) -> Any:
    """The quotation's smallest ancestor that holds more than it (its attribution), as long
    as that stays a card's size."""
    around = quoted
    words = len(" ".join(quoted.itertext()).split())
    for parent in quoted.iterancestors():
        text = " ".join(parent.itertext())
        if len(text) > MAX_QUOTED_BLOCK:
            break
        around = parent
        if len(text.split()) > words:
            break
    return around


def testimonial_customers(
    page: SitePage, aliases: list[str], sets: list[RecordSet] | None = None
) -> list[tuple[str, str]]:
    """(company, quote) of each company whose person the page's testimonials quote;
    ``sets``: the page's record sets when the caller has read them already."""
    text = " ".join((page.text or "").split())
    out: list[tuple[str, str]] = []
    html = page.html or ""
    for lines in _quoted_blocks(html, record_sets(html, page.url) if sets is None else sets):
        for number, line in enumerate(lines):
            if len(line) > MAX_ATTRIBUTION or _QUOTATION.match(line):
                continue
            following = lines[number + 1] if number + 1 < len(lines) else ""
            found = attribution(line, following, aliases)
            if found is None or any(name == found[0] for name, _ in out):
                continue
            if quote := _quote(text, line, following, found[1], found[0]):
                out.append((found[0], quote))
            break
    return out[:MAX_TESTIMONIALS]
