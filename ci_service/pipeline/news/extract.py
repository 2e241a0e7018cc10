"""News without feeds: entries read from news/press/blog list pages and article pages,
merged with the feed entries.

- A **news section** is a URL path segment such as ``news``, ``press``, ``press-releases``,
  ``newsroom``, ``blog``, ``insights``, ``updates``, ``in-the-media``, ``announcements``,
  ``articles`` or ``stories`` (:data:`NEWS_SECTIONS`).
- An **article page** has a slug after a news section (``/blog/launch``,
  ``/insights/2018/07/27/update-0-25/``; not ``/blog/page/2``, ``/news/tag/x`` or a bare
  year); JSON-LD alone does not make one (site templates often mark every page a
  ``BlogPosting``). Its date: JSON-LD ``datePublished``, else a ``article:published_time``-style
  meta tag, else the first ``<time datetime>``, else a date written just below the h1, else
  ``/YYYY/MM/DD/`` in the URL. Title: JSON-LD ``headline``, else h1, else the page title
  without its " | Site" suffix; summary: the meta description, else the first text line.
- A **list page** is a news-section URL that is not an article (``/press/``,
  ``/blog/page/2/``) or a page titled News, Press, Blog, Newsroom, Insights, Media or
  Updates. Each link of its HTML (outside nav, page header and footer) to another page that
  is not a tag/category/author/pagination link, and that stands alone (in or around a
  heading, an image link, or at least 40% of its block's text; not a link inside an
  excerpt's sentence) is an entry candidate; its **entry** is the
  largest element around the link that links to no other candidate. A candidate with a
  date in its entry (``<time datetime>``, else a written date such as "Feb 19, 2021", "27
  July 2018" or "2018-07-27") becomes a NewsEntry: the title is the heading that holds (or
  is held by) the link, else the link text, else the entry's first heading; the summary is
  the entry's first paragraph of six words or more. External links count too (an "in the
  media" page lists other sites' articles).
- Dates are parsed with ``dateparser``; a date before 1990 or more than two days ahead
  (a feed's zero date, an events calendar) counts as no date.
- Titles and summaries read here from a page's markup (headings, link texts, excerpts)
  have what the parser left as entities decoded once (``intel.feeds.decode_entities``), as
  the page's own title, description and JSON-LD already are: a site that escapes twice
  never gives a "Q&amp;A" or "I&rsquo;m" title.

:func:`news_entries` merges everything: feed entries first, then article pages, then list
entries; an entry with the same URL (canonical form: no ``www.``, query tracking
parameters, fragment or trailing slash), else the same normalised title, as an earlier one
only fills that one's missing date and summary. Only dated entries are kept (the date the
page or feed states), and only entries of news pages (``pipeline.page_kinds``: a post or
a news list; a whole-site feed's privacy, pricing or archive entries are not news). The
result is sorted newest first, so it is stable across runs.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from ci_service.intel.boilerplate import is_site_frame, page_body
from ci_service.intel.feeds import decode_entities
from ci_service.pipeline.article_dates import (  # noqa: F401 (re-exported)
    ARTICLE_TYPES,
    DATE_META,
    article_date,
    article_json_ld,
    time_date,
)
from ci_service.pipeline.html_text import element_text, parse_html
from ci_service.pipeline.news.dates import _DATE, find_date, parse_date, url_date
from ci_service.pipeline.page_kinds import NEWS_KINDS, OTHER, title_kind, url_kind
from ci_service.pipeline.site import NewsEntry, SitePage, SiteSnapshot

MAX_NEWS = 50
MAX_LIST_ENTRIES = 100
NEWS_SECTIONS = frozenset(
    """news press press-releases press-release pressreleases newsroom news-room pressroom
    press-room blog blogs insights updates in-the-media in-the-news media-coverage coverage
    announcements articles stories company-news latest-news news-and-events news-events
    """.split()
)
LIST_SEGMENTS = frozenset(
    "page tag tags category categories author authors archive archives topic topics search "
    "feed rss".split()
)
LIST_TITLE_WORDS = frozenset(
    "news press blog newsroom insights media updates announcements articles".split()
)
_READ_MORE = re.compile(
    r"^(?:read|learn|see|view|continue|find out|more|full story|details)\b|^[→»›>]+$",
    re.IGNORECASE,
)
_LIST_QUERY = re.compile(r"(?:^|&)(?:author|category|tag|cat|s|q|page)=", re.IGNORECASE)
# The same listing saved by a mirroring tool ("index.html@author=12.html").
_SAVED_LIST_QUERY = re.compile(r"[@?&](?:author|category|tag)=", re.IGNORECASE)
_COMMENT = re.compile(r"#comment|[?&]replytocom=", re.IGNORECASE)
_COMMENT_TITLE = re.compile(r"^(?:comment on |by: |re: )", re.IGNORECASE)
_BYLINE = re.compile(r"^(?:by|posted|written|published|filed|in)\b", re.IGNORECASE)
_SKIP_TAGS = frozenset("script style noscript template svg nav".split())
_BLOCKS = frozenset("p li div td dd dt article section blockquote figure figcaption".split())


# -- URLs and pages ----------------------------------------------------------------------------


def _segments(url: str) -> list[str]:
    path = urlsplit(url).path.lower()
    return [s for s in path.split("/") if s and s not in ("index.html", "index.htm")]


def _section(segments: list[str]) -> int | None:
    return next((i for i, s in enumerate(segments) if s in NEWS_SECTIONS), None)


def is_article_url(url: str) -> bool:
    """A slug after a news section, not a listing (tag, category, page, bare dates)."""
    segments = _segments(url)
    at = _section(segments)
    if at is None:
        return False
    rest = segments[at + 1 :]
    if not rest or any(s in LIST_SEGMENTS for s in rest):
        return False
    return any(not s.isdigit() for s in rest)


def _is_news_article(page: SitePage) -> bool:
    # The page's kind decides (``pipeline.page_kinds``: a dated article body, read from the
    # content); a page built without one (a test, a caller of its own) falls back to the
    # URL. Never JSON-LD alone: site templates often mark every page a BlogPosting.
    kind = getattr(page, "kind", "")
    if kind:
        return kind == "post"
    return is_article_url(page.url)


def is_list_page(page: SitePage) -> bool:
    """A page classified as a news list; without a kind, a news-section URL that is not
    an article, or a page titled News/Press/Blog/..."""
    kind = getattr(page, "kind", "")
    if kind:
        return kind == "news-list"
    if _is_news_article(page):
        return False
    if _section(_segments(page.url)) is not None:
        return True
    head = re.split(r"\s+[–—|·:-]\s+", page.title or "", maxsplit=1)[0].lower()
    return bool(set(re.findall(r"[a-z]+", head)) & LIST_TITLE_WORDS)


def url_key(url: str) -> str:
    """A URL's canonical form for deduplication."""
    parts = urlsplit(url or "")
    host = parts.netloc.rsplit("@", 1)[-1].lower().removeprefix("www.")
    query = [
        (k, v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
        if not k.lower().startswith(("utm_", "ref", "fbclid", "gclid"))
    ]
    path = re.sub(r"/(?:index\.html?)?$", "", parts.path) or ""
    return urlunsplit(("", host, path, urlencode(query), ""))


def _title_key(title: str) -> str:
    key = " ".join(re.findall(r"\w+", (title or "").casefold()))
    return key if len(key) >= 12 else ""  # short titles ("Update") are not unique enough


def _document(page: SitePage) -> Any:
    return parse_html(getattr(page, "html", "") or "")


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split())


# -- article pages -----------------------------------------------------------------------------


def article_entry(page: SitePage, source: str = "") -> NewsEntry | None:
    """The NewsEntry of an article page (undated when the page gives no date: the merge may
    date it from a feed entry), else None."""
    if not _is_news_article(page):
        return None
    doc = _document(page)
    found = article_json_ld(page) or {}
    heading = next(doc.iter("h1"), None) if doc is not None else None
    parts = [p.strip() for p in re.split(r"\s+[–—|·]\s+", page.title or "") if p.strip()]
    h1 = decode_entities(element_text(heading)) if heading is not None else ""
    if h1 and h1.casefold() in {p.casefold() for p in parts[1:]}:
        h1 = ""  # the site's name in an h1 logo, not the article's title
    title = _one_line(str(found.get("headline") or "")) or h1
    title = title or (parts[0] if parts else "")
    summary = page.description or next(
        (line for _h, _l, text in page.sections for line in text.splitlines() if line), ""
    )
    # A post states its date near its start ("Posted on 5 March 2024 by ...") when no
    # markup carries it.
    when = article_date(page, doc) or find_date((page.text or "")[:300], page.language)
    return NewsEntry(
        (title or page.url)[:500],
        page.url,
        when,
        summary[:2000],
        source or (urlsplit(page.url).hostname or ""),
        "",
    )


# -- list pages ----------------------------------------------------------------------------


def _skipped(el: Any, body_size: int) -> bool:
    return el.tag in _SKIP_TAGS or is_site_frame(el, body_size)


def _candidates(doc: Any, page: SitePage) -> dict[str, list[Any]]:
    """Entry candidate URL -> its anchors, in document order."""
    body, body_size = page_body(doc)
    # The elements themselves, not id()s: lxml proxies are recreated, so ids get reused.
    skipped = {
        anchor
        for el in body.iter(*_SKIP_TAGS, "header", "footer")
        if _skipped(el, body_size)
        for anchor in el.iter("a")
    }
    own = url_key(page.url)
    found: dict[str, list[Any]] = {}
    for anchor in body.iter("a"):
        if anchor in skipped:
            continue
        href = (anchor.get("href") or "").strip()
        if not href or href.startswith(("#", "mailto:", "tel:", "javascript:")):
            continue
        url = urljoin(page.url, href).split("#", 1)[0]
        if not url.startswith(("http://", "https://")) or url_key(url) == own:
            continue
        segments = _segments(url)
        if not segments or any(s in LIST_SEGMENTS for s in segments):
            continue
        parts = urlsplit(url)
        if _LIST_QUERY.search(parts.query) or _SAVED_LIST_QUERY.search(parts.path):
            continue  # an author's or a category's listing ("?author=12"), not an entry
        if _section(segments) == len(segments) - 1:
            continue  # another section's root (/press/ from /blog/)
        if _standalone(anchor):
            found.setdefault(url, []).append(anchor)
    return found


def _standalone(anchor: Any) -> bool:
    """A title or image link, not a link inside a sentence of an excerpt."""
    text = element_text(anchor)
    if not text or any(_is_heading(el) for el in anchor.iter()):
        return True
    block = anchor
    for block in anchor.iterancestors():
        if _is_heading(block):
            return True
        if block.tag in _BLOCKS:
            break
    around = element_text(block)
    # A title leads its entry ("Title" <br> "date" <br> "summary" in one paragraph); a link
    # inside an excerpt's sentence does not start it.
    return len(text) >= 0.4 * len(around) or (len(text) >= 15 and around.startswith(text))


def _entry_element(anchor: Any, url: str, owners: dict[Any, set[str]]) -> Any:
    element = anchor
    for parent in anchor.iterancestors():
        if parent.tag in ("body", "html") or owners.get(parent, set()) - {url}:
            break
        if len(parent.text_content()) > 3000:
            break
        element = parent
    return element


def _is_heading(el: Any) -> bool:
    return isinstance(el.tag, str) and re.fullmatch(r"h[1-6]", el.tag) is not None


def _entry_title(anchors: list[Any], entry: Any) -> str:
    for anchor in anchors:
        for el in [*anchor.iterancestors(), *anchor.iterdescendants()]:
            if _is_heading(el) and (text := element_text(el)):
                return text
    texts = [element_text(a) or _one_line(a.get("title")) for a in anchors]
    texts = [t for t in texts if t and not _READ_MORE.match(t) and not _DATE.fullmatch(t)]
    if texts:
        return max(texts, key=len)
    heading = next((el for el in entry.iter() if _is_heading(el)), None)
    return element_text(heading) if heading is not None else ""


def _entry_summary(entry: Any, title: str) -> str:
    for el in entry.iter("p", "div", "span"):
        if len(el) and el.tag != "p":
            continue  # only leaf blocks: a wrapper repeats the title and the date
        text = decode_entities(element_text(el))  # as the (decoded) title is
        if _BYLINE.match(text) or title in text or _DATE.fullmatch(text):
            continue
        if len(text.split()) >= 6:
            return text[:2000]
    return ""


def list_entries(page: SitePage, source: str = "") -> list[NewsEntry]:
    """The dated entries of a news/press/blog list page (none for any other page)."""
    if not is_list_page(page):
        return []
    doc = _document(page)
    if doc is None:
        return []
    candidates = _candidates(doc, page)
    owners: dict[Any, set[str]] = {}
    for url, anchors in candidates.items():
        for anchor in anchors:
            for parent in anchor.iterancestors():
                owners.setdefault(parent, set()).add(url)
    entries: list[NewsEntry] = []
    for url, anchors in candidates.items():
        entry = _entry_element(anchors[0], url, owners)
        title = decode_entities(_entry_title(anchors, entry))
        if len(title) < 3 or _DATE.fullmatch(title):
            continue
        when = None
        for node in entry.iter("time"):
            if when := time_date(node, page.language):
                break
        text = decode_entities(element_text(entry)).replace(title, " ")
        when = when or find_date(text, page.language) or url_date(url)
        if when is None:
            continue
        host = source or (urlsplit(url).hostname or "")
        entries.append(NewsEntry(title[:500], url, when, _entry_summary(entry, title), host, ""))
        if len(entries) >= MAX_LIST_ENTRIES:
            break
    return entries


# -- merging ---------------------------------------------------------------------------------


class _Merged:
    def __init__(self) -> None:
        self.entries: list[NewsEntry] = []
        self._by_key: dict[str, int] = {}

    def add(self, entry: NewsEntry, *aliases: str) -> None:
        entry = replace(entry, published=parse_date(entry.published) if entry.published else None)
        urls = [url_key(u) for u in (entry.url, *aliases) if u]
        keys = [k for k in (*urls, _title_key(entry.title)) if k]
        known = next((self._by_key[k] for k in keys if k in self._by_key), None)
        if known is None:
            known = len(self.entries)
            self.entries.append(entry)
        else:
            first = self.entries[known]
            self.entries[known] = replace(
                first,
                published=first.published or entry.published,
                summary=first.summary or entry.summary,
            )
        for key in keys:
            self._by_key.setdefault(key, known)


def _not_news(entry: NewsEntry, kinds: dict[str, str]) -> bool:
    """A feed entry for a page that is not news: a whole-site feed lists the privacy page,
    the pricing page and date archives too. The fetched page's kind decides; an entry whose
    page was not fetched is judged by its title."""
    if _COMMENT.search(entry.url or "") or _COMMENT_TITLE.match(entry.title or ""):
        return True  # a comment feed's entry: a reader's comment, not the company's news
    kind = kinds.get(url_key(entry.url)) if entry.url else None
    if kind:
        return kind not in NEWS_KINDS and kind != OTHER
    return bool(title_kind(entry.title) or (entry.url and url_kind(entry.url)))


def news_entries(snapshot: SiteSnapshot) -> list[NewsEntry]:
    """Feed entries, article pages and list-page entries, deduplicated, newest first.

    Only dated entries are news (a post's date is the one the page or feed states, never
    the crawl time), and a feed entry whose page is a legal, utility, archive, product,
    pricing, team or other non-news page is dropped."""
    kinds = {url_key(p.url): p.kind for p in snapshot.pages if getattr(p, "kind", "")}
    for page in snapshot.pages:
        if getattr(page, "kind", "") and page.canonical:
            kinds.setdefault(url_key(page.canonical), page.kind)
    for url, reason in snapshot.skipped:
        # A copy of a fetched page (an A/B copy of the home page) is what its original is.
        if reason.startswith("duplicate of ") and (original := kinds.get(url_key(reason[13:]))):
            kinds.setdefault(url_key(url), original)
    merged = _Merged()
    for entry in snapshot.news:
        if not _not_news(entry, kinds):
            merged.add(entry)
    host = urlsplit(snapshot.start_url).hostname or ""
    for page in snapshot.pages:
        if entry := article_entry(page, host):
            merged.add(entry, getattr(page, "canonical", "") or "")
    for page in snapshot.pages:
        for entry in list_entries(page, host):
            merged.add(entry)
    dated = [e for e in merged.entries if e.published and not _not_news(e, kinds)]
    dated.sort(key=lambda e: e.published, reverse=True)
    return dated


def news_feed(snapshot: SiteSnapshot, existing: list[dict[str, Any]] | None) -> list[dict]:
    """News entries merged into ``existing``: deduplicated, newest first, capped."""
    items: dict[str, dict[str, Any]] = {}
    fresh = [
        {
            "date": entry.published.date().isoformat() if entry.published else "",
            "title": entry.title[:500],
            "url": entry.url,
            "summary": entry.summary[:2000],
            "source": (entry.source or urlsplit(snapshot.start_url).hostname or "")[:500],
        }
        for entry in news_entries(snapshot)
    ]
    for item in fresh + list(existing or []):
        if not isinstance(item, dict):
            continue
        key = (item.get("url") or item.get("title") or "").strip().casefold()
        if key and key not in items:
            items[key] = {k: v for k, v in item.items() if not (k == "url" and not v)}
    ordered = sorted(items.values(), key=lambda i: str(i.get("date") or ""), reverse=True)
    return ordered[:MAX_NEWS]
