"""Integrations and supported platforms: what a competitor's product connects to or runs on.

Two page shapes, recognised by URL and headings (never by site):

- **detail pages**: one page per integration under a path segment such as
  ``/integration(s)/``, ``/connectors/``, ``/apps/``, ``/marketplace/`` or ``/plugins/``
  followed by a slug. The name is the page's h1 (or title) with "integration", "connector",
  "Connect X to Y" and the site name taken off; the quote is the first sentence of the page
  that names it (else its h1 line).
- **list pages**: a page whose path, title or headings say integrations, connectors (in
  several languages: "Integrationen", "koppelingen", "intégrations" ...), supported
  devices/hardware/platforms or compatibility. Under each heading that says so
  (or, on such a page, any heading), the short list lines (1–8 words, starting with a
  capital or digit, not a sentence, not a call to action) are the items. On such a page a
  grid of repeated records (``pipeline.records``: cards with a name and a line or two)
  gives one item per record whose name is such a line, quoted by the record's line that
  names it: a directory of two dozen connectors is read from its one index page. Not a
  set under a sentence that does not say integrations (a call to action), nor the set of
  the page's sections (its names head the other sets), nor a figure ("22").

Items become features of the competitor's offerings, ``"<Name>"`` with a description
saying what it is ("Integration", or the list's heading such as "Reference boards"),
each citing its line. Pages whose kind gives no features (posts, archives, legal, team,
pricing ... ``product_sources.NO_FEATURE_KINDS``) are not read, and a line that is a date,
a byline, a form field or site chrome ("Name (required)", "By Jane Doe") is no item. A list
heading that names one of the offerings (shared words) files its items there; everything
else goes to the primary offering.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from ci_service.pipeline.evidence import Cite, sentences
from ci_service.pipeline.products.layout import chrome_name, junk
from ci_service.pipeline.products.sources import blocked
from ci_service.pipeline.records import record_sets
from ci_service.pipeline.site import SitePage, SiteSnapshot

# "Integrations" and "connectors" in German, Dutch, French, Spanish, Italian, Portuguese,
# the Scandinavian languages and Polish too.
_INTEGRATION_WORDS = (
    r"integrations?|connectors?|integrationen|schnittstellen|anbindungen|konnektoren|"
    r"integraties|koppelingen|int[ée]grations?|connecteurs|integraciones|conectores|"
    r"integrazioni|connettori|integra[çc][õo]es|integrationer|integrasjoner|integracje"
)
DETAIL_PATH = re.compile(
    rf"/(?:{_INTEGRATION_WORDS}|apps|marketplace|plugins?|extensions)/([^/]+)/?$",
    re.IGNORECASE,
)
LIST_WORDS = re.compile(
    rf"\b(?:{_INTEGRATION_WORDS}|supported (?:devices|hardware|platforms|boards)|"
    r"hardware|devices|compatib\w+|works with|connects? (?:with|to))\b",
    re.IGNORECASE,
)
CTA = re.compile(
    r"\b(?:get started|sign ?up|sign in|log ?in|learn more|read more|contact|book|request|"
    r"try|download|subscribe|view|see all|back to|visit|docs|pricing|home)\b",
    re.IGNORECASE,
)
NAME_NOISE = re.compile(
    r"\s*(?:\bintegrations?\b|\bconnectors?\b|\bplugin\b|\bapp\b)\s*", re.IGNORECASE
)
MAX_ITEMS = 60
MAX_NAME = 60


@dataclass
class Supported:
    name: str
    kind: str  # "Integration" or the list's heading
    cite: Cite
    heading: str = ""


def _clean_name(text: str, company: str) -> str:
    text = re.split(r"\s+[|–—]\s+|\s+-\s+", text, maxsplit=1)[0]
    match = re.match(r"(?i)connect\s+(.+?)\s+(?:to|with)\s+(.+)$", text)
    if match:
        first, second = match.group(1), match.group(2)
        text = second if company and first.casefold() == company.casefold() else first
    text = (
        re.sub(rf"(?i)\b(?:with|for|and)\s+{re.escape(company)}\b", "", text) if company else text
    )
    return " ".join(NAME_NOISE.sub(" ", text).split()).strip(" :-")


def _item_line(line: str) -> str | None:
    line = line.strip(" •·*-–—\t")
    line = re.sub(r"\s*\*+$", "", line).strip()
    words = line.split()
    if not 1 <= len(words) <= 8 or len(line) > MAX_NAME:
        return None
    if not (line[0].isupper() or line[0].isdigit()) or line.endswith((".", ":", "?", "!")):
        return None
    if not re.search(r"[^\W\d_]", line):
        return None  # "22", "9+": a figure of a stats row
    if CTA.search(line) or re.search(r"[$€£]|\d+\s*%", line):
        return None
    if re.search(r"\(\d+\)$", line):  # "Data Source (11)": a filter with its count
        return None
    if junk(line) or chrome_name(line):  # a date, a byline, a form field, site chrome
        return None
    return line


def _detail(page: SitePage, company: str) -> Supported | None:
    if not DETAIL_PATH.search(urlsplit(page.url).path):
        return None
    heading = next((h for h, level, _t in page.sections if level == 1 and h.strip()), "")
    name = _clean_name(heading or page.title, company)
    if not name or len(name) > MAX_NAME or (company and name.casefold() == company.casefold()):
        return None
    # The heading line itself is the cleanest quote (sentences around it on such pages
    # often run into "Back to integrations" links); else the first sentence naming it.
    lines = [line.strip() for line in page.text.splitlines()]
    quote = heading if heading and heading in lines else None
    quote = quote or next(
        (s for s in sentences(page.text) if name.casefold() in s.casefold()), None
    )
    if quote is None:
        return None
    return Supported(name, "Integration", Cite(page.url, quote))


def _is_list_page(page: SitePage) -> bool:
    where = f"{urlsplit(page.url).path} {page.title}"
    return bool(LIST_WORDS.search(where)) or any(
        LIST_WORDS.search(h or "") for h, _l, _t in page.sections
    )


def _list_items(page: SitePage) -> list[Supported]:
    page_says = bool(LIST_WORDS.search(f"{urlsplit(page.url).path} {page.title}"))
    out = []
    for heading, _level, text in page.sections:
        listed = LIST_WORDS.search(heading or "")
        if not (listed or (page_says and heading)) or (not listed and _sentence(heading)):
            continue
        lines = [line for line in text.splitlines() if line.strip()]
        if sum(1 for line in lines if not re.search(r"[^\W\d_]", line)) >= 2:
            continue  # figures and their labels: a stats row ("13" / "Live now")
        items = [(line, _item_line(line)) for line in lines]
        names = [(line, name) for line, name in items if name]
        if len(names) < 2 or len(names) < len(lines) / 2:
            continue  # prose under the heading, not a list
        group = heading.strip()
        for line, name in names:
            if LIST_WORDS.search(name):  # "Linux reference devices": a group's own heading
                group = name
                continue
            out.append(Supported(name, group, Cite(page.url, line.strip()), group))
    return out


def _sentence(heading: str) -> bool:
    heading = heading.strip()
    return heading.endswith((".", "!", "?")) or len(heading.split()) >= 7


def _grid_items(page: SitePage) -> list[Supported]:
    """Items of the page's record grids (a name per card), each quoted by its card's line
    that names it (or the name's own line), when that quote is in the page's text."""
    text = " ".join(page.text.split())
    page_says = bool(LIST_WORDS.search(f"{urlsplit(page.url).path} {page.title}"))
    out = []
    sets = record_sets(page.html, page.url)
    headings = {" ".join(f.heading.split()).casefold() for f in sets if f.heading.strip()}
    for found in sets:
        listed = LIST_WORDS.search(found.heading)
        if not (page_says or listed):
            continue
        if not listed and _sentence(found.heading):
            continue  # a call to action or a pitch under its own sentence, not a directory
        if sum(" ".join(r.name.split()).casefold() in headings for r in found.records) >= 2:
            continue  # the page's sections, whose headings head the sets of integrations
        kind = found.heading.strip() if listed else "Integration"
        names = [(r, _item_line(r.name)) for r in found.records]
        if sum(1 for _r, name in names if name) < max(3, len(names) * 0.8):
            continue  # not a grid of named things (a filter bar, prose blocks)
        for record, name in names:
            if not name or LIST_WORDS.search(name):
                continue
            lines = [line for line in record.lines if name.casefold() in line.casefold()]
            quote = next((q for q in [*lines, name] if " ".join(q.split()) in text), None)
            if quote is not None:
                out.append(Supported(name, kind, Cite(page.url, quote), kind))
    return out


def extract_supported(snapshot: SiteSnapshot, company_name: str = "") -> list[Supported]:
    """Integrations and supported platforms named on the site, deduplicated by name."""
    found: dict[str, Supported] = {}
    pages = [p for p in snapshot.pages if not blocked(p, features=True)]
    for page in pages:
        detail = _detail(page, company_name)
        if detail is not None:
            found.setdefault(detail.name.casefold(), detail)
    for page in pages:
        if DETAIL_PATH.search(urlsplit(page.url).path) or not _is_list_page(page):
            continue
        for item in _list_items(page) + _grid_items(page):
            found.setdefault(item.name.casefold(), item)
    return list(found.values())[:MAX_ITEMS]


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2}
