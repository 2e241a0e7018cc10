"""Reading sitemaps: the page URLs a site lists for crawlers.

Sitemap indexes are followed up to ``MAX_SITEMAP_FILES`` files. XML is parsed by the
standard library with DTDs refused (sitemaps never need one), which rules out
entity-expansion tricks; gzip and plain-text sitemaps are read too. An entry written as a
path ("/about/", from a generator without its base URL) is read against the sitemap's own
address. Which sitemaps a site has is the crawl's business (``intel.crawl``).
"""

from __future__ import annotations

import zlib
from collections import deque
from urllib.parse import urljoin
from xml.etree import ElementTree

from ci_service.intel.errors import FetchError
from ci_service.intel.fetch import Fetcher

MAX_SITEMAP_FILES = 10
MAX_SITEMAP_BYTES = 20 * 1024 * 1024
USUAL_SITEMAP_PATHS = (
    "/sitemap.xml",
    "/sitemap_index.xml",
    "/wp-sitemap.xml",
    "/sitemap-index.xml",
)
_SITEMAP_ACCEPT = "application/xml,text/xml;q=0.9,*/*;q=0.5"


def parse_sitemap(data: bytes) -> tuple[list[str], list[str]]:
    """(page URLs, child sitemap URLs) of a sitemap or sitemap index; gzip and text accepted.

    Unreadable input gives two empty lists. A document with a DTD is refused.
    """
    if data[:2] == b"\x1f\x8b":
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            data = inflater.decompress(data, MAX_SITEMAP_BYTES)
        except zlib.error:
            return [], []
    data = data.removeprefix(b"\xef\xbb\xbf")
    head = data[:4096].lower()
    if b"<!doctype" in head or b"<!entity" in data.lower():
        return [], []
    if not data.lstrip().startswith(b"<"):
        lines = data.decode("utf-8", "replace").split()
        return [line for line in lines if line.startswith(("http://", "https://"))], []
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError:
        return [], []
    locs = [
        (el.text or "").strip()
        for el in root.iter()
        if isinstance(el.tag, str) and el.tag.rsplit("}", 1)[-1] == "loc"
    ]
    locs = [loc for loc in locs if loc]
    if root.tag.rsplit("}", 1)[-1] == "sitemapindex":
        return [], locs
    return locs, []


def read_sitemaps(
    fetcher: Fetcher, sitemaps: list[str], *, max_urls: int = 1000
) -> tuple[list[str], list[str]]:
    """(page URLs, sitemap files read) following indexes; fetch failures are skipped."""
    queue, seen, read, urls = deque(sitemaps), set(sitemaps), [], []
    while queue and len(read) < MAX_SITEMAP_FILES and len(urls) < max_urls:
        sitemap = queue.popleft()
        try:
            result = fetcher.get(
                sitemap,
                accept=_SITEMAP_ACCEPT,
                max_bytes=min(fetcher.policy.max_bytes, MAX_SITEMAP_BYTES),
            )
        except FetchError:
            continue
        if not result.ok:
            continue
        read.append(result.url)
        pages, children = parse_sitemap(result.content)
        # Generators misconfigured without a base URL write "/about/" for a page's <loc>:
        # a path is read against the sitemap's own address (the crawl keeps its site only).
        pages = [urljoin(result.url, page) for page in pages]
        children = [urljoin(result.url, child) for child in children]
        urls.extend(pages[: max_urls - len(urls)])
        for child in children:
            if child not in seen:
                seen.add(child)
                queue.append(child)
    return urls, read
