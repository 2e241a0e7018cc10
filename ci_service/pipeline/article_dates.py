"""The date an article page states: :func:`article_date` (JSON-LD ``datePublished``, else a
``article:published_time``-style meta tag, else the first ``<time>``, else a date written
beside the h1, else ``/YYYY/MM/DD/`` in the URL), with the JSON-LD and ``<time>`` readers it
uses.

Separate from ``pipeline.news.extract`` so ``pipeline.page_kinds`` (which dates a page to
tell a post from a static page) need not import ``news``, which imports ``page_kinds`` to
keep only news pages' entries: every import runs one way (no cycle). Pages are typed
``Any`` here for the same reason (``SitePage`` lives in ``pipeline.site``, which imports
``page_kinds``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ci_service.pipeline.html_text import element_text
from ci_service.pipeline.news.dates import find_date, parse_date, url_date

ARTICLE_TYPES = frozenset(
    "NewsArticle BlogPosting Article Report PressRelease TechArticle LiveBlogPosting".split()
)
DATE_META = (
    "article:published_time",
    "og:published_time",
    "datepublished",
    "date",
    "dc.date",
    "dc.date.issued",
    "dcterms.created",
    "pubdate",
    "publish-date",
    "publish_date",
    "parsely-pub-date",
)


def article_json_ld(page: Any) -> dict[str, Any] | None:
    """The page's first JSON-LD object of an article type (:data:`ARTICLE_TYPES`), else None."""
    from ci_service.intel.jsonld import types_of

    for block in page.json_ld or []:
        if not isinstance(block, dict):
            continue
        graph = block.get("@graph") or []
        for obj in [block, *(graph if isinstance(graph, list) else [graph])]:
            if isinstance(obj, dict) and types_of(obj) & ARTICLE_TYPES:
                return obj
    return None


def time_date(node: Any, lang: str) -> datetime | None:
    """The date of a ``<time>`` element: its ``datetime``, else the date it writes."""
    return parse_date(node.get("datetime")) or find_date(element_text(node), lang)


def article_date(page: Any, doc: Any) -> datetime | None:
    """The date ``page`` (a ``SitePage``; ``doc`` its parsed markup or None) states, else None."""
    found = article_json_ld(page) or {}
    if when := parse_date(found.get("datePublished") or found.get("dateCreated")):
        return when
    if doc is not None:
        for meta in doc.iter("meta"):
            key = (meta.get("property") or meta.get("name") or meta.get("itemprop") or "").lower()
            if key in DATE_META and (when := parse_date(meta.get("content"))):
                return when
        # The article's own <time> first: a sidebar of other posts may come earlier.
        for node in [*doc.xpath("//article//time|//main//time"), *doc.iter("time")]:
            if when := time_date(node, page.language):
                return when
        heading = next(doc.iter("h1"), None)
        if heading is not None and heading.getparent() is not None:
            # A date written beside the h1 ("July 27, 2018" under the title).
            around = element_text(heading.getparent())
            if len(around) <= 600:
                if when := find_date(around.replace(element_text(heading), " "), page.language):
                    return when
    return url_date(page.url)
