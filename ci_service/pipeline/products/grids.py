"""Offerings read from a grid of repeated records (``pipeline.records``): the cards of a
services page, a product line-up, a list of loan types or treatments.

A record set is a grid of offerings when three or more of its records have a name (one to
six words, not a sentence) and a line that describes it (four words or more), on the home
page or on a page of kind ``product`` at the top of the site (a section index such as
``/services/``), and either
- the set's heading says what the company offers (services, products, solutions, what we
  offer, in several languages) and not that these are features, benefits or reasons, or
- the set has no heading and is the page's own list: the page's address or title names
  what the company offers ("/services.html", "Leistungen | Acme"), or
- most records link to pages of their own on the site: product pages, or (from the home
  page) pages of no other kind side by side in one folder below the root (three or more:
  "/treatments/<name>/").
Without such a grid, the lists of a page so named give its offerings (``service_lists``);
a folder of pages, one per service, gives one offering per page (``service_tree``).
Each record is an offering named by its name, described by its line, on its own page when
it links to one. A set under a heading about audiences, customers, partners, the team,
steps, questions or prices is never one, and in a set whose heading does not name
offerings neither is a record so named ("Strategic Partnerships", "Why us").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ci_service.pipeline.page_kind_names import OTHER, PRODUCT
from ci_service.pipeline.products.names import name_ok
from ci_service.pipeline.products.service_lists import service_list_items
from ci_service.pipeline.products.service_tree import tree_offerings
from ci_service.pipeline.products.sources import blocked
from ci_service.pipeline.records import record_sets
from ci_service.pipeline.site import SitePage

MIN_OFFERINGS = 3
OFFERING_HEADING = re.compile(
    r"\b(?:services?|products?|solutions?|offerings?|what we (?:offer|do)|our (?:work|range)|"
    r"treatments?|programs?|programmes?|courses?|"
    r"leistungen|angebot\w*|produkte?|lösungen|dienstleistungen|prestations|produits?|offres?|"
    r"servicios|productos?|soluciones|cursos|servizi|prodotti|soluzioni|diensten|producten|"
    r"oplossingen|tjänster|produkter|lösningar|tjenester|løsninger|usluge|proizvodi|rešenja|"
    r"serviços|produtos|soluções)\b",
    re.IGNORECASE,
)
NOT_OFFERINGS = re.compile(
    r"\b(?:features?|benefits?|why|how|reasons?|advantages?|steps?|process|faq|questions?|"
    r"pric\w*|plans?|customers?|clients?|partners?|partnerships?|testimonials?|reviews?|team|"
    r"people|news|"
    r"blog|posts?|articles?|insurance|for (?:\w+ )?(?:teams|companies|businesses))\b",
    re.IGNORECASE,
)


@dataclass
class Offering:
    name: str
    description: str
    url: str  # the offering's own page, else the grid's page


def _section_index(page: SitePage) -> bool:
    return page.depth == 0 or (
        page.kind == "product" and len([s for s in urlsplit(page.url).path.split("/") if s]) <= 1
    )


def offering_grids(
    page: SitePage, product_page: Callable[[str], SitePage | None]
) -> list[Offering]:
    """The offerings of the page's grids (see the module's docstring); ``product_page``
    gives the snapshot's product page at a URL, or None."""
    if not _section_index(page):
        return []
    out: list[Offering] = []
    for found in record_sets(page.html, page.url):
        if NOT_OFFERINGS.search(found.heading):
            continue
        rows = []
        for record in found.records:
            description = next((line for line in record.lines if len(line.split()) >= 4), "")
            if name_ok(record.name) and description:
                rows.append((record, description))
        if len(rows) < MIN_OFFERINGS or len(rows) < 0.8 * len(found.records):
            continue
        own = [product_page(r.link) if r.link else None for r, _d in rows]
        own = _sibling_pages(own, page)
        linked = {p.url for p in own if p is not None and p.url != page.url}
        headed = bool(OFFERING_HEADING.search(found.heading))
        named = headed or (not found.heading.strip() and not found.nested and names_offerings(page))
        if not named and len(linked) < 0.6 * len(rows):
            continue
        for (record, description), target in zip(rows, own, strict=True):
            if NOT_OFFERINGS.search(record.name) and not headed:
                continue  # "Strategic Partnerships", "Why us" among a page's sections
            url = target.url if target is not None else page.url
            out.append(Offering(record.name, description, url))
    return out


def names_offerings(page: SitePage) -> bool:
    """A page whose address or title names what the company offers ("/services.html",
    "Leistungen | Acme"): its top-level grid without a heading is that list."""
    path = urlsplit(page.url).path.rstrip("/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
    title = re.split(r"\s+[|–—:-]\s+", page.title or "")[0]
    return page.depth != 0 and bool(
        OFFERING_HEADING.fullmatch(path.replace("-", " ").strip())
        or OFFERING_HEADING.fullmatch(title.strip())
    )


def _folder(url: str) -> str:
    return urlsplit(url).path.rstrip("/").rsplit("/", 1)[0]


def _sibling_pages(own: list[SitePage | None], page: SitePage) -> list[SitePage | None]:
    """The linked pages that are offerings' own pages: product pages, and from the home
    page, pages of no other kind that sit side by side in one folder below the root
    ("/treatments/x/", "/treatments/y/", ...), in any language; the rest are None."""
    if page.depth != 0:
        return [p if p is not None and p.kind == PRODUCT else None for p in own]
    folders = Counter(
        _folder(p.url) for p in own if p is not None and p.kind == OTHER and p.url != page.url
    )
    shared = {f for f, n in folders.items() if f and n >= MIN_OFFERINGS}
    return [
        p
        if p is not None and (p.kind == PRODUCT or (p.kind == OTHER and _folder(p.url) in shared))
        else None
        for p in own
    ]


def grid_offerings(finder: Any, excluded: Callable[[str], bool]) -> None:
    """Add the offerings of every page's grids to ``products._Finder`` ``finder``; no
    offering is read from, or placed on, a page whose path ``excluded`` says never holds
    products (integrations, docs, posts ...)."""

    def product_page(url: str) -> SitePage | None:
        target = finder.page(url) if finder.internal(url) and not excluded(url) else None
        if target is None or blocked(target):
            return None
        return target if target.kind in (PRODUCT, OTHER) else None

    for page in finder.pages:
        if blocked(page) or excluded(page.url):
            continue
        found_here = offering_grids(page, product_page)
        for found in found_here:
            pages = [found.url] if found.url != page.url else []
            finder.add(found.name, found.url, found.description, pages)
        if not found_here and page.kind in (PRODUCT, OTHER) and names_offerings(page):
            for name, item in service_list_items(page.html, NOT_OFFERINGS):
                finder.add(name, page.url, item, [])
    # Last: a service page a grid already named ("Kronen en bruggen" linking to /kronen/)
    # keeps the grid's name.
    tree_offerings(finder, OFFERING_HEADING)
