"""Profile facts a page states by its layout rather than in a sentence (see
``pipeline.profile.extract``):

- investors: an "Investors" / "Our investors" / "Backed by" section (or a page so titled)
  lists firms, often as cards "Person / Firm": each line naming a firm (a word such as
  Ventures, Capital, Partners, Fund, Investments, or a legal suffix) is an investor. People
  (angels) are left out: a bare name cannot be told from a team member's. One funding entry
  ``{investors}`` cited by the section's text from its heading to its last firm.
- headquarters: addresses in markup (``profile_places.markup_addresses``: JSON-LD
  ``PostalAddress``, microdata, the footer), below every sentence of a profile page.
"""

from __future__ import annotations

import re
from typing import Any

from ci_service.pipeline.evidence import Cite
from ci_service.pipeline.profile.places import markup_addresses
from ci_service.pipeline.site import SitePage
from ci_service.pipeline.subject import about_us

MAX_SECTION = 6000  # characters of an investors section read
_INVESTOR_HEADING = re.compile(
    r"^(?:our[ \t]+)?(?:investors?(?![ \t]+relations)|backers|funding|(?:backed|funded)[ \t]+by|"
    r"(?:our[ \t]+)?investment[ \t]+partners)\b",
    re.I,
)
_FIRM_WORD = re.compile(
    r"\b(?:Ventures?|Capital|Partners|Fund|Funds|VC|Investments?|Investors|Holdings|Angels|"
    r"Equity|Accelerator|Incubator|Seed|Growth|Ltd|Inc|LLC|GmbH|plc|AG|SA|BV|LLP|LP)\b\.?",
    re.I,
)
_FIRM_LINE = re.compile(r"^[A-Z0-9][\w'’&.-]*(?:[ \t]+[\w'’&.-]+){0,6}$")
_LOWER_OK = set("of de du la le von van der and & the fund funds capital ventures partners".split())
_NOT_FIRM = re.compile(r"\b(?:twitter|linkedin|facebook|github|email|website|read more)\b", re.I)


def _section_spans(page: SitePage, text: str) -> list[tuple[int, int]]:
    """(start, end) in ``text`` of each investors section (the whole page when its title is
    "Investors")."""
    spans = []
    if _INVESTOR_HEADING.match(page.title or ""):
        spans.append((0, min(len(text), MAX_SECTION)))
    for number, (heading, level, _body) in enumerate(page.sections):
        if not heading or not _INVESTOR_HEADING.match(heading.strip()) or len(heading) > 60:
            continue
        start = text.find(heading)
        if start < 0:
            continue
        end = start + MAX_SECTION
        for later, later_level, _ in page.sections[number + 1 : number + 200]:
            where = text.find(later, start + len(heading), end) if later else -1
            if later_level <= level and where > start:
                end = where
                break
        spans.append((start, min(end, len(text))))
        if len(spans) >= 5:
            break
    return spans


def investor_entries(page: SitePage, text: str, aliases: list[str]) -> list[tuple[dict, Cite]]:
    """One ``{investors}`` entry per investors section of the page, with its quote."""
    out = []
    for start, end in _section_spans(page, text)[:5]:
        firms: list[str] = []
        last = start
        for line in re.finditer(r"[^\n]+", text[start:end]):
            name = " ".join(line.group(0).split()).rstrip(".,;:")
            if (
                _FIRM_LINE.match(name)
                and all(w[0].isupper() or w[0].isdigit() or w in _LOWER_OK for w in name.split())
                and _FIRM_WORD.search(name)
                and not _NOT_FIRM.search(name)
                and not about_us(name, aliases)
                and not _INVESTOR_HEADING.match(name)
                and name not in firms
            ):
                firms.append(name)
                last = start + line.end()
        if firms:
            out.append(({"investors": firms[:20]}, Cite(page.url, text[start:last])))
    return out


def markup_headquarters(page: SitePage) -> list[tuple[str, Any]]:
    """(place, quote or None) of the addresses in the page's markup; the quote only when
    the page's text holds it (the stored evidence is the text)."""
    found = []
    for place, quote in markup_addresses(page.json_ld, page.html or ""):
        stated = " ".join(quote.split()) in " ".join(page.text.split())
        found.append((place, quote if stated else None))
    return found[:5]
