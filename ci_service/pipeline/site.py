"""Reading a whole site: crawl its pages, then fetch its feeds and documents.

:func:`read_site` is the one way every pipeline job looks at a website (a competitor's or
our own). It returns a :class:`SiteSnapshot` in memory; the jobs turn it into evidence,
trees, graph nodes, profiles and products.

Failures: a start URL the SSRF guard refuses fails the step with the guard's message; a
site where no page could be fetched fails it with "could not fetch any page of URL:
reason". Single pages, feeds or documents that fail (HTTP errors, size or time limits,
broken PDFs) are skipped, counted in ``errors`` and logged.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from ci_service.jobs.lanes import processing
from ci_service.jobs.types import JobContext, StepError
from ci_service.pipeline import context
from ci_service.pipeline.html_text import element_text, parse_html  # noqa: F401 (re-exported)
from ci_service.pipeline.snapshot_memory import LIVE, snapshot_size

log = logging.getLogger("ci_service.pipeline")

MAX_FEEDS = 5
MAX_DOCUMENTS = 10
DOCUMENT_ACCEPT = (
    "application/pdf,application/vnd.openxmlformats-officedocument.wordprocessingml.document,"
    "*/*;q=0.5"
)
FEED_ACCEPT = "application/rss+xml,application/atom+xml,application/xml;q=0.9,*/*;q=0.5"


@dataclass
class SiteDocument:
    url: str
    title: str
    kind: str  # "pdf" or "docx"
    sections: list[tuple[str, str]]  # (heading, text)
    text: str


@dataclass
class NewsEntry:
    title: str
    url: str
    published: datetime | None
    summary: str
    source: str
    guid: str


@dataclass
class SitePage:
    url: str
    title: str
    description: str
    text: str
    sections: list[tuple[str, int, str]]  # (heading, level, text)
    json_ld: list[dict[str, Any]]
    links: list[tuple[str, str]]  # (url, text)
    depth: int = 0
    # The page's markup (decoded, capped) for extractors that read structure: cards,
    # tables, definition lists (people, news lists, pricing, products).
    html: str = ""
    # Its ``rel=canonical`` URL ("" when none): news and people dedupe by it.
    canonical: str = ""
    # What the page is (``pipeline.page_kinds``: "product", "pricing", "team", "post",
    # "legal", ...), decided from its content when the site is read; "" until then.
    kind: str = ""
    # Its language (ISO 639-1 such as "en", "sr"), detected from its text; "" when unknown.
    language: str = ""


@dataclass
class SiteSnapshot:
    start_url: str
    pages: list[SitePage] = field(default_factory=list)
    documents: list[SiteDocument] = field(default_factory=list)
    news: list[NewsEntry] = field(default_factory=list)
    feeds: list[str] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def _page(crawled: Any) -> SitePage:
    page = crawled.page
    return SitePage(
        url=crawled.url,
        title=page.title or crawled.url,
        description=page.description,
        text=page.text,
        sections=[(s.heading, s.level, s.text) for s in page.sections],
        json_ld=list(page.json_ld),
        links=[(link.url, link.text) for link in page.links],
        depth=crawled.depth,
        html=page.html,
        canonical=page.canonical,
    )


_NEWS_FEED_PATH = re.compile(r"blog|news|press|insights|updates|posts|articles|stories", re.I)
_LOW_FEED_PATH = re.compile(r"/(?:tags?|categories|category|authors?|comments)/", re.I)


def _feed_order(url: str) -> tuple[int, int]:
    """News feeds first (blog, news, press ...), then the site's main feed, then the rest;
    tag, category and comment feeds last (they repeat the main feed's entries)."""
    path = urlsplit(url).path
    if _LOW_FEED_PATH.search(path):
        rank = 3
    elif _NEWS_FEED_PATH.search(path):
        rank = 0
    elif path.count("/") <= 1:
        rank = 1
    else:
        rank = 2
    return rank, len(path)


def _failure_reason(crawl: Any, fetcher: Any, url: str) -> str:
    if crawl.errors:
        return crawl.errors[0][1]
    try:
        robots = fetcher.robots(url)
        if robots.state == "unreachable":
            return "its robots.txt could not be fetched, so the site may not be crawled"
    except Exception:  # the reason is best effort; the step fails either way
        pass
    if crawl.skipped:
        return crawl.skipped[0][1]
    return "no HTML page found"


def read_site(
    ctx: JobContext | None,
    url: str,
    *,
    span: tuple[float, float] = (0.0, 1.0),
    documents: bool = True,
    feeds: bool = True,
    max_pages: int | None = None,
) -> SiteSnapshot:
    """Crawl ``url``'s site, its feeds and (``documents``) its PDF/DOCX files.

    Progress is reported within ``span`` of the current step, once per page.
    """
    from ci_service.intel.boilerplate import drop_repeated_lines
    from ci_service.intel.crawl import crawl_site, probe_feed_paths
    from ci_service.intel.errors import BlockedUrl
    from ci_service.pipeline.language import annotate_languages
    from ci_service.pipeline.page_kinds import classify_pages

    config = context.settings()
    pages_cap = max_pages or max(1, int(config.crawl_max_pages))
    context.check_resolvable(url)
    low, high = span
    memory_cap = max(0, int(config.crawl_memory_mb)) * 1024 * 1024
    if LIVE.wait_for_room(memory_cap, ctx.check_cancelled if ctx is not None else None):
        log.info("crawl of %s waited for crawled sites to be processed (memory cap)", url)

    def progress(done: int, total: int, page_url: str) -> None:
        if ctx is not None:
            fraction = low + (high - low) * 0.8 * min(done / max(total, 1), 1.0)
            ctx.progress(fraction, f"Fetched {done} page(s): {page_url}"[:300])

    def cancelled() -> bool:
        if ctx is not None:
            ctx.check_cancelled()  # raises (a BaseException) when the job was cancelled
        return False

    # The process's fetcher: every crawl's politeness and robots.txt rules in one place.
    with context.shared_fetcher(config) as fetcher:
        try:
            crawl = crawl_site(
                fetcher,
                url,
                max_pages=pages_cap,
                probe_feeds=feeds,
                progress=progress,
                should_cancel=cancelled,
            )
        except BlockedUrl as exc:
            raise StepError(exc.message) from None
        feeds_first = sorted(crawl.feeds, key=_feed_order)[:MAX_FEEDS]
        snapshot = SiteSnapshot(start_url=url, feeds=feeds_first)
        with processing():  # a burst of CPU: not more of these at once than job workers
            # Text most pages of the site repeat (menus, footers) is not evidence.
            drop_repeated_lines([p.page for p in crawl.pages])
            snapshot.pages = [_page(p) for p in crawl.pages if p.page.text or p.page.title]
            # The language first: page kinds, dates and prices are read in it.
            annotate_languages(snapshot.pages)
            classify_pages(snapshot.pages)
        del crawl.pages[:]  # the snapshot holds them now
        snapshot.errors.extend(crawl.errors)
        snapshot.skipped.extend(crawl.skipped)
        if not snapshot.pages:
            reason = _failure_reason(crawl, fetcher, url)
            raise StepError(f"could not fetch any page of {url}: {reason}")
        if feeds:
            _read_feeds(fetcher, snapshot)
            if not snapshot.news:
                # The feeds the pages named gave nothing (a dead link, HTML at a feed URL):
                # the usual feed paths may still hold the site's feed.
                origin = snapshot.pages[0].url
                snapshot.feeds = probe_feed_paths(fetcher, origin, skip=snapshot.feeds)[:MAX_FEEDS]
                _read_feeds(fetcher, snapshot)
            if ctx is not None:
                ctx.progress(low + (high - low) * 0.9, "Read news feeds")
        if documents:
            _read_documents(ctx, fetcher, snapshot, crawl.documents[:MAX_DOCUMENTS])
    for failed_url, reason in snapshot.errors:
        log.info("crawl of %s: skipped %s (%s)", url, failed_url, reason)
    LIVE.track(snapshot, snapshot_size(snapshot))
    return snapshot


def _read_feeds(fetcher: Any, snapshot: SiteSnapshot) -> None:
    from ci_service.intel.errors import ExtractionError, FetchError
    from ci_service.intel.feeds import parse_feed

    seen: set[str] = set()
    for feed_url in snapshot.feeds:
        try:
            result = fetcher.get(feed_url, accept=FEED_ACCEPT)
            if not result.ok:
                snapshot.errors.append((feed_url, f"HTTP {result.status}"))
                continue
            entries = parse_feed(result.content, result.url)
        except (FetchError, ExtractionError) as exc:
            snapshot.errors.append((feed_url, str(exc)))
            continue
        for entry in entries:
            key = entry.guid or entry.url or entry.title
            if not key or key in seen or not (entry.title or entry.summary):
                continue
            seen.add(key)
            snapshot.news.append(
                NewsEntry(
                    entry.title,
                    entry.url,
                    entry.published,
                    entry.summary,
                    entry.source,
                    entry.guid,
                )
            )


def fetch_document(fetcher: Any, url: str) -> SiteDocument:
    """Fetch and extract one PDF/DOCX; raises FetchError or ExtractionError."""
    from ci_service.intel.errors import ExtractionError, HttpError

    result = fetcher.get(url, accept=DOCUMENT_ACCEPT)
    if not result.ok:
        raise HttpError(f"GET {url} returned HTTP {result.status}", url, result.status)
    kind = "docx" if url.lower().endswith(".docx") or "word" in result.content_type else "pdf"
    if result.content_type == "application/pdf":
        kind = "pdf"
    try:
        return extract_document(result.content, kind, url)
    except ExtractionError as exc:
        raise ExtractionError(f"{url}: {exc}") from exc


def extract_document(data: bytes, kind: str, url: str, title: str = "") -> SiteDocument:
    """A PDF or DOCX as a :class:`SiteDocument`; raises ExtractionError when unreadable."""
    from ci_service.intel.extract import extract_docx, extract_pdf

    document = extract_docx(data) if kind == "docx" else extract_pdf(data)
    sections = [(s.heading, s.text) for s in document.sections if s.text.strip()]
    name = document.title or title or url.rsplit("/", 1)[-1]
    return SiteDocument(url, name, kind, sections, document.text)


def _read_documents(
    ctx: JobContext | None, fetcher: Any, snapshot: SiteSnapshot, urls: list[str]
) -> None:
    from ci_service.intel.errors import ExtractionError, FetchError

    for url in urls:
        if ctx is not None:
            ctx.check_cancelled()
        try:
            document = fetch_document(fetcher, url)
        except (FetchError, ExtractionError) as exc:
            # A broken or oversized document is skipped; it must not fail the job.
            log.warning("document %s skipped: %s", url, exc)
            snapshot.errors.append((url, str(exc)))
            continue
        if document.text.strip():
            snapshot.documents.append(document)


def snapshot_counts(snapshot: SiteSnapshot) -> dict[str, int]:
    return {
        "pages": len(snapshot.pages),
        "documents": len(snapshot.documents),
        "newsItems": len(snapshot.news),
        "skipped": len(snapshot.skipped) + len(snapshot.errors),
    }
