"""Same-site crawl: breadth-first over a competitor's pages, with sitemap and feed discovery.

"Same site" is the start page's host (after its redirects) with a leading ``www.`` ignored,
on http or https, on the same non-default port. Links to other hosts are not followed.
Pages are fetched through the caller's :class:`~ci_service.intel.fetch.Fetcher`, so the SSRF
guard, limits, politeness delay and robots.txt all apply. Assets are skipped by extension
and by content type; PDF and DOCX links on the site are collected as ``documents`` and feeds
(``<link rel="alternate">`` or feed-looking links) as ``feeds``, for the pipeline to fetch.

Sitemaps come from robots.txt ``Sitemap:`` lines, else ``/sitemap.xml``, and from the usual
sitemap paths when those give no page (reading them: :mod:`ci_service.intel.sitemaps`).

A page whose ``<meta http-equiv="refresh">`` sends the reader on at once is a redirect: the
start page's is followed (a home page that sends to ``/en/``, at most three in a row), a
deeper page's target on the same site is read in its place (a site generator's alias page).
"""

from __future__ import annotations

import hashlib
import heapq
import itertools
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from ci_service.intel.crawl_order import (
    ABOUT_PAGE,
    FAMILY_BUDGET,
    RANK_DEFERRED,
    RANK_KEY,
    RANK_START,
    USUAL_ABOUT_PATHS,
    crawl_rank,
    family_of,
    is_mirror_copy,
)
from ci_service.intel.errors import BlockedUrl, FetchError, RobotsDisallowed
from ci_service.intel.extract import Page, extract_html
from ci_service.intel.fetch import REDIRECT_STATUSES, Fetcher, FetchResult
from ci_service.intel.sitemaps import USUAL_SITEMAP_PATHS, read_sitemaps
from ci_service.intel.urls import DEFAULT_PORTS, normalize_url

MAX_REFRESHES = 3  # meta refreshes followed in a row from the start page
FETCHES_PER_PAGE = 2  # fetch attempts (pages, errors, duplicates) per page of the cap
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
DOCUMENT_TYPES = frozenset(
    {
        "application/pdf",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    }
)
FEED_CONTENT_TYPES = frozenset({"application/rss+xml", "application/atom+xml"})
DOCUMENT_EXTENSIONS = frozenset({".pdf", ".docx"})
ASSET_EXTENSIONS = frozenset(
    ".jpg .jpeg .png .gif .webp .svg .ico .bmp .tif .tiff .avif .css .js .mjs .map .json "
    ".woff .woff2 .ttf .otf .eot .mp4 .webm .mov .avi .mkv .mp3 .wav .ogg .m4a .zip .gz .tgz "
    ".bz2 .xz .rar .7z .tar .exe .dmg .pkg .msi .iso .apk .csv .xls .xlsx .ppt .pptx .doc "
    ".odt .ods .odp .rtf .txt .xml .rss .atom .wasm".split()
)
FEED_PATH_ENDINGS = ("/feed", "/feed/", "/rss", "/rss/", "/atom", ".rss", ".atom")
FEED_FILE_NAMES = frozenset({"rss.xml", "atom.xml", "feed.xml", "index.xml", "feed.rss"})
PROBE_FEED_PATHS = ("/feed", "/rss.xml", "/atom.xml", "/feed.xml", "/index.xml", "/blog/feed")
# Query parameters that only track a visit: the same page with or without them is one page.
TRACKING_PARAMS = re.compile(
    r"^(?:utm_\w+|gclid|gbraid|wbraid|fbclid|msclkid|dclid|yclid|mc_cid|mc_eid|_ga|_gl|_hsenc|"
    r"_hsmi|hsctatracking|mkt_tok|ref|ref_src|referrer|source|trk|igshid|si|s_kwcid)$",
    re.IGNORECASE,
)
_INDEX_FILE = re.compile(r"/(?:index|default)\.(?:html?|php|aspx?)$", re.IGNORECASE)

ProgressCallback = Callable[[int, int, str], None]
"""``progress(pages_done, max_pages, url)`` after each page is crawled."""


@dataclass
class CrawledPage:
    """A stored page: ``page`` holds what was read from it; ``result.content`` is emptied
    once the page is parsed (``page.html`` keeps the markup)."""

    url: str
    depth: int
    result: FetchResult
    page: Page


@dataclass
class CrawlResult:
    """Pages in crawl order; ``skipped``/``errors`` are (url, reason) pairs."""

    start_url: str
    pages: list[CrawledPage] = field(default_factory=list)
    feeds: list[str] = field(default_factory=list)
    documents: list[str] = field(default_factory=list)
    sitemaps: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)
    cancelled: bool = False


_META_CHARSET = re.compile(rb"<meta[^>]{0,200}charset", re.IGNORECASE)


def html_for_extraction(result: FetchResult) -> str | bytes:
    """The page as the parser should see it: the HTTP header's charset wins; else bytes,
    so lxml reads a ``<meta charset>``; else UTF-8, the web's default (lxml alone would
    guess Latin-1 and garble every non-ASCII title, which change tracking then reports as
    a change)."""
    if result.charset:
        return result.text
    if _META_CHARSET.search(result.content[:4096]):
        return result.content
    return result.content.decode("utf-8", errors="replace")


def site_key(url: str) -> str:
    """``host[:port]`` with a leading ``www.`` dropped: the crawl's notion of one site."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower().removeprefix("www.")
    port = parts.port
    if port is not None and port != DEFAULT_PORTS.get(parts.scheme.lower()):
        return f"{host}:{port}"
    return host


def canonical_url(url: str) -> str:
    """``url`` as one page is known by: no tracking parameters (the rest sorted), no
    ``index.html``, no trailing slash except the root's. Used to tell pages apart, not to
    fetch them (a server may need its own form)."""
    parts = urlsplit(url)
    path = _INDEX_FILE.sub("/", parts.path or "/")
    path = path.rstrip("/") or "/"
    query = sorted(
        (k, v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
        if not TRACKING_PARAMS.match(k)
    )
    return urlunsplit((parts.scheme, parts.netloc, path, urlencode(query), ""))


def _dedupe_key(url: str) -> str:
    parts = urlsplit(canonical_url(url))
    return f"{site_key(url)}{parts.path}?{parts.query}"


def _content_key(page: Page) -> str | None:
    """A fingerprint of a page's text; None for pages too short to call duplicates."""
    text = " ".join(page.text.split())
    if len(text) < 200:
        return None
    return hashlib.sha256(text.casefold().encode("utf-8")).hexdigest()


def _extension(url: str) -> str:
    return posixpath.splitext(urlsplit(url).path.lower())[1]


def looks_like_feed_url(url: str) -> bool:
    path = urlsplit(url).path.lower()
    return path.endswith(FEED_PATH_ENDINGS) or posixpath.basename(path) in FEED_FILE_NAMES


def _add(items: list[str], url: str) -> None:
    if url not in items:
        items.append(url)


# -- sitemaps -------------------------------------------------------------------------------


def discover_sitemaps(fetcher: Fetcher, url: str) -> list[str]:
    """Sitemap URLs for ``url``'s site: robots.txt ``Sitemap:`` lines, else ``/sitemap.xml``."""
    origin = normalize_url("/", url) or url
    listed: list[str] = []
    if fetcher.policy.respect_robots:
        try:
            listed = [s for s in fetcher.robots(url).sitemaps if normalize_url(s)]
        except FetchError:
            listed = []
    same_site = [s for s in listed if site_key(s) == site_key(url)]
    return same_site or [urljoin(origin, "/sitemap.xml")]


# -- crawl ----------------------------------------------------------------------------------


def probe_feed_paths(fetcher: Fetcher, origin: str, skip: list[str] | None = None) -> list[str]:
    """Feeds at the usual paths of ``origin``'s site (``/feed``, ``/index.xml`` ...) that
    answer with RSS or Atom; URLs in ``skip`` (already tried) are not fetched again."""
    found: list[str] = []
    for path in PROBE_FEED_PATHS:
        url = urljoin(origin, path)
        if url in (skip or []):
            continue
        try:
            result = fetcher.get(url, accept="application/rss+xml,application/atom+xml,*/*;q=0.5")
        except FetchError:
            continue
        head = result.content[:2048].lower()
        if result.ok and (b"<rss" in head or b"<feed" in head or b"<rdf:rdf" in head):
            _add(found, result.url)
    return found


class _Crawl:
    """State of one crawl; :func:`crawl_site` is the interface."""

    def __init__(self, fetcher: Fetcher, start: str, max_depth: int, max_sitemap_urls: int):
        self.fetcher = fetcher
        self.result = CrawlResult(start_url=start)
        self.order = itertools.count()
        # (rank, depth, order, url): key pages first, then breadth-first within a rank.
        self.queue: list[tuple[int, int, int, str]] = [(RANK_START, 0, next(self.order), start)]
        self.seen = {_dedupe_key(start)}
        self.visited: dict[str, str] = {}  # dedupe key of a stored page -> its URL
        self.contents: dict[str, str] = {}  # text fingerprint -> URL of the page holding it
        self.site = site_key(start)
        self.max_depth = max_depth
        self.max_sitemap_urls = max_sitemap_urls
        self.family_pages: dict[str, int] = {}  # folder -> pages of it taken from the queue
        self.probes: set[str] = set()  # usual addresses tried although no page links them
        self.refreshes = 0  # meta refreshes followed from the start page

    def enqueue(self, url: str, depth: int, text: str = "", menu: bool = False) -> None:
        target = normalize_url(url)
        if target is None or site_key(target) != self.site:
            return
        if is_mirror_copy(target):
            return
        extension = _extension(target)
        if extension in DOCUMENT_EXTENSIONS:
            _add(self.result.documents, target)
        elif looks_like_feed_url(target):
            _add(self.result.feeds, target)
        elif extension in ASSET_EXTENSIONS or depth > self.max_depth:
            return
        elif _dedupe_key(target) not in self.seen:
            self.seen.add(_dedupe_key(target))
            rank = crawl_rank(target, text, menu)
            heapq.heappush(self.queue, (rank, depth, next(self.order), target))

    def pop(self) -> tuple[str, int]:
        """The next page to fetch; a page whose folder has had its budget waits behind
        the rest of the site (``crawl_order.FAMILY_BUDGET``)."""
        while True:
            rank, depth, order, url = heapq.heappop(self.queue)
            family = family_of(url)
            if family is None:
                return url, depth
            taken = self.family_pages.get(family, 0)
            if rank < RANK_DEFERRED and taken >= FAMILY_BUDGET:
                heapq.heappush(self.queue, (RANK_DEFERRED, depth, order, url))
                continue
            self.family_pages[family] = taken + 1
            return url, depth

    def duplicate_of(self, url: str, page: Page) -> str | None:
        """The stored page this one repeats (same canonical URL or same text), else None;
        records it as stored otherwise."""
        keys = [_dedupe_key(url)]
        canonical = normalize_url(page.canonical) if page.canonical else None
        if canonical and site_key(canonical) == self.site:
            keys.append(_dedupe_key(canonical))
        for key in keys:
            if key in self.visited:
                return self.visited[key]
        content = _content_key(page)
        if content is not None and content in self.contents:
            return self.contents[content]
        for key in keys:
            self.visited[key] = url
            self.seen.add(key)
        if content is not None:
            self.contents[content] = url
        return None

    def probe_about_pages(self) -> None:
        """When the start page links no page about the company, its usual addresses are
        tried among the key pages (a site that unlinked its about page still has it)."""
        queued = [entry[3] for entry in self.queue] + list(self.visited.values())
        if any(ABOUT_PAGE.search(urlsplit(url).path) for url in queued):
            return
        for path in USUAL_ABOUT_PATHS:
            target = normalize_url(path, self.result.start_url)
            if target and _dedupe_key(target) not in self.seen:
                self.seen.add(_dedupe_key(target))
                self.probes.add(target)
                heapq.heappush(self.queue, (RANK_KEY, 1, next(self.order), target))

    def visit(self, url: str, depth: int) -> CrawledPage | None:
        if url in self.probes:
            return self._probe(url, depth)
        return self._visit(url, depth)

    def _probe(self, url: str, depth: int) -> CrawledPage | None:
        """A guessed address: a miss is no error of the site's, so it is not recorded."""
        errors, skipped = len(self.result.errors), len(self.result.skipped)
        page = self._visit(url, depth)
        if page is None:
            del self.result.errors[errors:], self.result.skipped[skipped:]
        return page

    def _visit(self, url: str, depth: int) -> CrawledPage | None:
        crawl = self.result
        stay = None if depth == 0 else (lambda target: site_key(target) == self.site)
        try:
            result = self.fetcher.get(url, follow=stay)
        except RobotsDisallowed:
            crawl.skipped.append((url, "disallowed by robots.txt"))
            return None
        except BlockedUrl as exc:
            if depth == 0:
                raise
            crawl.errors.append((url, exc.message))
            return None
        except FetchError as exc:
            crawl.errors.append((url, exc.message))
            return None
        final = normalize_url(result.url) or result.url
        if result.status in REDIRECT_STATUSES and "location" in result.headers:
            target = urljoin(result.url, result.headers["location"])
            crawl.skipped.append((url, f"redirected off-site to {target}"))
            return None
        if depth == 0:
            self.site = site_key(final)  # follow a start redirect to www./https or a new domain
        self.seen.add(_dedupe_key(final))
        if not result.ok:
            crawl.errors.append((url, f"HTTP {result.status}"))
        elif result.content_type in DOCUMENT_TYPES:
            _add(crawl.documents, final)
        elif result.content_type in FEED_CONTENT_TYPES:
            _add(crawl.feeds, final)
        elif result.content_type and result.content_type not in HTML_TYPES:
            crawl.skipped.append((url, f"content type {result.content_type}"))
        else:
            page = extract_html(html_for_extraction(result), final)
            # The parsed page keeps the markup it needs; many crawls hold their pages at
            # once, so the raw body goes now rather than with the crawl.
            result.content = b""
            if page.refresh and normalize_url(page.refresh) != final:
                # A page that sends its reader on at once (a language redirect, a generator's
                # alias page) is a redirect: the target is read in its place.
                if depth == 0 and self.refreshes < MAX_REFRESHES:
                    self.refreshes += 1
                    return self._visit(page.refresh, 0)
                if site_key(page.refresh) == self.site:
                    self.enqueue(page.refresh, depth, page.title)
                    crawl.skipped.append((url, f"redirected to {page.refresh}"))
                    return None
            for feed in page.feeds:
                _add(crawl.feeds, feed)
            for link in page.links:
                # The start page's menu names the site's main pages; deeper pages' menus
                # repeat it (or are a blog's categories).
                self.enqueue(link.url, depth + 1, link.text, link.menu and depth == 0)
            original = self.duplicate_of(final, page)
            if original is not None:
                crawl.skipped.append((url, f"duplicate of {original}"))
                return None
            canonical = normalize_url(page.canonical) if page.canonical else None
            if canonical and site_key(canonical) == self.site and depth > 0:
                final = canonical  # the site's own name for the page: one page, one source
            return CrawledPage(final, depth, result, page)
        return None

    def read_sitemaps(self) -> None:
        origin = normalize_url("/", self.result.start_url) or self.result.start_url
        for page in self.result.pages[:1]:
            origin = page.url
        named = discover_sitemaps(self.fetcher, origin)
        urls, self.result.sitemaps = read_sitemaps(
            self.fetcher, named, max_urls=self.max_sitemap_urls
        )
        if not urls:
            # robots.txt may name a sitemap that is gone (404) or empty: the usual paths.
            usual = [urljoin(origin, path) for path in USUAL_SITEMAP_PATHS]
            urls, read = read_sitemaps(
                self.fetcher, [u for u in usual if u not in named], max_urls=self.max_sitemap_urls
            )
            self.result.sitemaps += read
        for url in urls:
            self.enqueue(url, 1)


def crawl_site(
    fetcher: Fetcher,
    start_url: str,
    *,
    max_pages: int = 50,
    max_depth: int = 5,
    use_sitemaps: bool = True,
    probe_feeds: bool = False,
    max_sitemap_urls: int = 1000,
    progress: ProgressCallback | None = None,
    should_cancel: Callable[[], bool] | None = None,
) -> CrawlResult:
    """Crawl ``start_url``'s site breadth-first, up to ``max_pages`` HTML pages.

    Order: the start page, then key pages (about, company, team, pricing, products,
    contact, investors, press ... by path or link text in several languages, at most two
    segments deep), then every entry of the start page's menu whatever its label, then the
    rest breadth-first (links and the sitemap's URLs, and posts whose link announces a
    launch, release, funding, hire or award), then the other posts (dated paths, slugs
    under a blog or news section), then low-value pages (tags, categories, archives, legal,
    sign-in, any URL with a query). A page already stored under
    another URL (same canonical URL: ``rel=canonical``, tracking parameters, trailing slash,
    ``index.html``; or the same text) is skipped as a duplicate. At most ``2 * max_pages + 10``
    fetches are made, failed ones included. ``probe_feeds`` tries the
    usual feed paths when no page named a feed.
    Raises :class:`BlockedUrl` when the start page itself is refused by the SSRF guard (the
    job should fail with that message); every other failure is recorded in ``errors`` or
    ``skipped`` and the crawl goes on. ``should_cancel`` is checked before each fetch; a
    cancelled crawl returns what it has with ``cancelled=True``.
    """
    start = normalize_url(start_url)
    if start is None:
        raise BlockedUrl("not an http(s) URL with a host", start_url)
    state = _Crawl(fetcher, start, max_depth, max_sitemap_urls)
    crawl = state.result
    sitemaps_pending = use_sitemaps
    attempts = 0
    # Broken links everywhere (a menu of 404s) must not turn a 50-page crawl into hundreds
    # of polite, delayed fetches: fetches are capped, successful or not.
    max_attempts = max_pages * FETCHES_PER_PAGE + 10
    while state.queue and len(crawl.pages) < max_pages and attempts < max_attempts:
        if should_cancel is not None and should_cancel():
            crawl.cancelled = True
            break
        attempts += 1
        url, depth = state.pop()
        visited = state.visit(url, depth)
        if visited is not None:
            crawl.pages.append(visited)
            if progress is not None:
                progress(len(crawl.pages), max_pages, visited.url)
        if sitemaps_pending:
            sitemaps_pending = False
            state.read_sitemaps()
            state.probe_about_pages()
    if probe_feeds and not crawl.feeds and not crawl.cancelled:
        crawl.feeds.extend(probe_feed_paths(fetcher, normalize_url("/", start) or start))
    return crawl


__all__ = [
    "CrawlResult",
    "CrawledPage",
    "canonical_url",
    "crawl_rank",
    "crawl_site",
    "discover_sitemaps",
    "is_mirror_copy",
    "looks_like_feed_url",
    "normalize_url",
    "probe_feed_paths",
    "site_key",
]
