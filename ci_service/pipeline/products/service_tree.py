"""Offerings read from a folder of pages, one page per service.

Practices and agencies give each service a page of its own under a folder named for what
they offer, often grouped by category: ``/procedures/restorative/dental-crowns/``,
``/leistungen/physiotherapie/``, ``/services/web-design/``. A page there is an offering when
- the folder's name (the path's first segment) names offerings in some language
  (``grids.OFFERING_HEADING``, or "procedures", "soins", "tratamientos" ...);
- it is a leaf of that folder (no crawled page sits below it) one level down or more: a
  category page that holds other services' pages is no service;
- it is headed by a name (its h1, else its title's first part; one to six words, not a
  sentence) that shares a word with its address ("Dental crowns" at ``/dental-crowns/``);
- its kind is product or other (never a post, a legal, contact, team or careers page).
Three or more such pages make a tree; fewer are no evidence of one. The offering is named
by the page's heading and described by its first sentence.
"""

from __future__ import annotations

import re
from typing import Any

from ci_service.intel.urls import path_segments
from ci_service.pipeline import taxonomy
from ci_service.pipeline.evidence import sentences
from ci_service.pipeline.page_kind_names import OTHER, PRODUCT
from ci_service.pipeline.products.names import heading_name, name_ok, slug_words
from ci_service.pipeline.site import SitePage

MIN_TREE = 3
MAX_TREE = 40
SERVICE_FOLDER = re.compile(
    r"(?:our[-_])?(?:procedures?|treatments?|therapies|therapy|soins|tratamientos|"
    r"trattamenti|zabiegi|behandlinger|behandlingar|behandelingen|behandlungen)",
    re.IGNORECASE,
)


def tree_pages(
    pages: list[SitePage], offering_folder: re.Pattern[str]
) -> list[tuple[SitePage, str]]:
    """(page, the name it is headed by) of the services of a service tree (see the module
    docstring)."""
    paths = {tuple(path_segments(p.url)) for p in pages}
    found: list[tuple[SitePage, str]] = []
    for page in pages:
        parts = path_segments(page.url)
        if len(parts) < 2 or (page.kind or "") not in (PRODUCT, OTHER):
            continue
        folder = re.sub(r"\.html?$", "", parts[0]).replace("-", " ").replace("_", " ")
        if not (offering_folder.fullmatch(folder) or SERVICE_FOLDER.fullmatch(parts[0])):
            continue
        if any(len(p) > len(parts) and p[: len(parts)] == tuple(parts) for p in paths):
            continue  # a category: other services' pages sit below it
        name = heading_name(page)
        words = set(taxonomy.normalize(name).split())
        if not name_ok(name) or not words & slug_words(page.url):
            continue
        found.append((page, name))
    return found[:MAX_TREE] if len(found) >= MIN_TREE else []


def tree_offerings(finder: Any, offering_folder: re.Pattern[str]) -> None:
    """Add the service tree's pages to ``products._Finder`` ``finder`` as offerings, but
    not a page that is already an offering's own (a grid named it)."""
    claimed = {u for d in finder.drafts.values() for u in [d.url, *d.pages]}
    for page, name in tree_pages(finder.pages, offering_folder):
        if page.url in claimed:
            continue
        first = next(iter(sentences(page.text or "")), "")
        finder.add(name, page.url, first[:500], [page.url])
