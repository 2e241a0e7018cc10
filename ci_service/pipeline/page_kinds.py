"""What a fetched page is, decided from what it contains.

Every page of a crawl gets one kind before anything is extracted from it (:func:`classify`,
called by ``pipeline.site.read_site``). Extractors read facts only from the kinds that hold
them: plans from pricing pages, people from team and about pages, news from dated posts and
news lists; legal, utility and archive pages give no offering, feature, plan, person or
news item.

The kind is decided the way a reader decides it, from the page's content: its headings
(the title and h1 in several languages), an article body with a date, the density of prices
and plan words, name-and-title pairs, legal vocabulary, forms (password, search, contact),
job-post vocabulary, and how many dated entries it lists. The URL path and the menu label
are hints that add weight; none decides alone, so a site whose pricing lives at
``/what-it-costs`` or whose team page is called "Crew" is still read right.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any
from urllib.parse import urlsplit

from ci_service.pipeline.article_dates import article_date
from ci_service.pipeline.html_text import element_text, parse_html
from ci_service.pipeline.page_kind_names import (  # re-exported: callers use page_kinds.X
    ABOUT,
    ARCHIVE,
    CAPABILITY_KINDS,
    CAREERS,
    CONTACT,
    CUSTOMER,
    HOME,
    KINDS,
    LEGAL,
    NEWS_KINDS,
    NEWS_LIST,
    NO_FACTS,
    OTHER,
    POST,
    PRICING,
    PRODUCT,
    TEAM,
    UTILITY,
)
from ci_service.pipeline.page_kind_names import HEADING_WORDS as _HEADING_WORDS

_HEADING_RE = {
    kind: re.compile(rf"^(?:{words})$", re.IGNORECASE) for kind, words in _HEADING_WORDS.items()
}
_HEADING_ANY = {
    kind: re.compile(rf"\b(?:{words})\b", re.IGNORECASE) for kind, words in _HEADING_WORDS.items()
}

_LEGAL_WORDS = re.compile(
    r"\b(?:personal (?:data|information)|cookies?|liabilit(?:y|ies)|warrant(?:y|ies)|"
    r"indemnif\w*|governing law|jurisdiction|hereby|herein|pursuant|third[- ]part(?:y|ies)|"
    r"data controller|data processor|gdpr|disclos\w+|consent|arbitration|terminat\w+|"
    r"shall|licensee|licensor|agreement)\b",
    re.IGNORECASE,
)
_PRICE = re.compile(
    r"(?:[$€£¥₹]\s?\d[\d,.]*)|(?:\b\d[\d.,]*\s?(?:€|eur|usd|gbp|chf|din|rsd|kn|kr)\b)",
    re.IGNORECASE,
)
_PLAN_WORDS = re.compile(
    r"(?:/\s?(?:mo|month|yr|year|user|seat)\b|\bper (?:month|year|user|seat|agent|node|"
    r"member)\b|\bbilled (?:annually|monthly|yearly)\b|\bmonthly\b|\bannually\b|"
    r"\bfree (?:plan|tier|forever)\b|\bcontact sales\b|\bcustom pricing\b|"
    r"\brequest a quote\b|\bmese[cč]no\b|\bgodi[sš]nje\b|\bpro monat\b|\bpar mois\b|"
    r"\bal mes\b)",
    re.IGNORECASE,
)
_JOB_WORDS = re.compile(
    r"\b(?:responsibilities|requirements|qualifications|apply now|how to apply|"
    r"job description|full[- ]time|part[- ]time|what you'?ll do|you will|about the role|"
    r"the role|we(?: are|'re) looking for|ideal candidate|job application|years'? (?:of )?"
    r"experience|what we offer|benefits|salary|nice to have)\b",
    re.IGNORECASE,
)
_STORY_WORDS = re.compile(
    r"\b(?:case study|customer story|success story|the challenge|the solution|the results?|"
    r"challenge|solution|results|testimonial)\b",
    re.IGNORECASE,
)
_ADDRESS = re.compile(
    r"\b\d{1,5}\s+(?:[A-Z][\w.'-]*\s){0,4}(?:street|st\.?|avenue|ave\.?|road|rd\.?|"
    r"boulevard|blvd\.?|drive|dr\.?|lane|ln\.?|way|suite|place|square|plaza|court|"
    r"strasse|straße|ulica|bulevar)\b|\b(?:suite|ste\.?)\s+\d+|\b\d{5}(?:-\d{4})?\b"
    r"|\b[A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2}\b",
    re.IGNORECASE,
)
_PHONE = re.compile(r"(?:\+\d[\d ().-]{7,}\d|\(\d{3}\)\s?\d{3}-\d{4}|\b\d{3}[.-]\d{3}[.-]\d{4}\b)")
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.]+\b")
_TITLE_WORDS = re.compile(
    r"\b(?:ceo|cto|coo|cfo|cmo|cpo|cso|vp|svp|evp|chief|founder|co-?founder|president|"
    r"director|head of|manager|engineer|officer|chairman|chair|partner|advisor|adviser|"
    r"board member|lead|designer|developer|scientist|architect|marketing|sales|operations|"
    r"direktor|osniva[cč]|gesch[äa]ftsf[üu]hrer|gr[üu]nder|fondateur|directeur|fundador|"
    r"director general)\b",
    re.IGNORECASE,
)
_NAME_WORD = re.compile(r"^[^\W\d_][^\W\d_'’.-]*$")


def _is_name_line(line: str) -> bool:
    """Two to four capitalised words in any alphabet ("Jane Doe", "Marko Petrović")."""
    words = line.split()
    return 2 <= len(words) <= 4 and all(w[0].isupper() and _NAME_WORD.match(w) for w in words)


_DATE_ONLY = re.compile(
    r"^(?:\d{1,2}\.?\s+)?(?:jan\w*|feb\w*|mar\w*|apr\w*|may|jun\w*|jul\w*|aug\w*|sep\w*|"
    r"oct\w*|nov\w*|dec\w*)\.?,?\s+(?:\d{1,2},?\s+)?(?:19|20)\d\d$|^(?:19|20)\d\d(?:[-/]\d{1,2})?$",
    re.IGNORECASE,
)
_ARCHIVE_PATH = re.compile(
    r"/(?:tags?|categor(?:y|ies)|authors?|archives?|topics?)/|/page/\d+/?$|"
    r"/(?:19|20)\d\d/(?:\d{1,2}/)?(?:\d{1,2}/)?$|[@?](?:author|category|tag)="
)
_SPLIT_TITLE = re.compile(r"\s+[–—|·:»-]\s+")


def _words(text: str) -> int:
    return len(text.split())


_LEGAL_NAME = re.compile(
    r"\bterms\s*(?:&|and)\s*conditions\b|\bterms\s+of\s+(?:service|use)\b|"
    r"\bprivacy\s+(?:policy|notice|statement)\b|\bcookie\s+(?:policy|notice)\b|"
    r"\blegal\s+notice\b|\bdata\s+processing\s+agreement\b|datenschutzerkl|"
    r"nutzungsbedingungen|gesch[äa]ftsbedingungen|mentions\s+l[ée]gales|"
    r"conditions\s+g[ée]n[ée]rales|pol[íi]tica\s+de\s+privacidad|aviso\s+legal|"
    r"algemene\s+voorwaarden|privacyverklaring|integritetspolicy",
    re.IGNORECASE,
)


def _head(title: str) -> str:
    """The title's first part ("Pricing | Example Co" -> "Pricing")."""
    parts = [p.strip() for p in _SPLIT_TITLE.split(title or "") if p.strip()]
    return parts[0] if parts else ""


def _path_segments(url: str) -> list[str]:
    path = urlsplit(url).path.lower()
    segments = [s for s in re.split(r"/+", path) if s]
    if segments and re.fullmatch(r"index\.\w+", segments[-1]):
        segments.pop()
    return [re.sub(r"\.\w{2,5}$", "", s) for s in segments]


def _language_home(page: Any, segments: list[str]) -> bool:
    """The site's home page in another language: a path of only a language code ("/pt/",
    "/en-gb/") that the page is written in."""
    if len(segments) != 1:
        return False
    code = re.fullmatch(r"([a-z]{2})(?:[-_][a-z]{2,4})?", segments[0])
    return code is not None and code.group(1) == (getattr(page, "language", "") or "")[:2]


def _h1(doc: Any) -> str:
    if doc is None:
        return ""
    node = next(doc.iter("h1"), None)
    return " ".join(node.text_content().split()) if node is not None else ""


def _forms(doc: Any) -> Counter:
    found: Counter = Counter()
    if doc is None:
        return found
    for form in doc.iter("form"):
        found["form"] += 1
        for field in form.iter("input", "textarea", "select"):
            kind = (field.get("type") or field.tag).lower()
            name = (field.get("name") or "").lower()
            if kind == "password":
                found["password"] += 1
            elif kind == "search" or name in ("q", "s", "search", "query"):
                found["search"] += 1
            elif kind == "textarea":
                found["textarea"] += 1
            elif kind not in ("hidden", "submit", "button"):
                found["field"] += 1
    return found


def _people_pairs(text: str) -> int:
    """Name lines followed by a title line ("Jane Doe" / "Chief Executive Officer")."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    pairs = 0
    for this, following in zip(lines, lines[1:], strict=False):
        if (
            _is_name_line(this)
            and len(following) <= 80
            and _TITLE_WORDS.search(following)
            and not _TITLE_WORDS.search(this)
        ):
            pairs += 1
    inline = re.findall(
        r"\b[A-Z][a-z]+ [A-Z][a-z'’-]+,\s+(?:[A-Z][\w&-]* ){0,4}(?:CEO|CTO|COO|CFO|Founder|"
        r"Co-Founder|President|Director|Chairman|Chief\b)",
        text,
    )
    return pairs + len(inline) // 2


def _dated_entries(doc: Any, times: int) -> int:
    """How many distinct dated entries the page lists (its ``times`` time elements, or
    its distinct written dates)."""
    from ci_service.pipeline.news.dates import _DATE

    if doc is None:
        return 0
    return max(times, len(set(m.group(0) for m in _DATE.finditer(element_text(doc)))))


def _hint(kind: str, head: str, h1: str, segments: list[str]) -> float:
    """Weight from the page's own names for itself: title, h1, URL."""
    weight = 0.0
    exact, anywhere = _HEADING_RE[kind], _HEADING_ANY[kind]
    for text, full, part in ((head, 3.0, 1.0), (h1, 3.0, 1.0)):
        text = (text or "").strip(" :!.")
        if not text:
            continue
        if exact.match(text):
            weight += full
        elif _words(text) <= 6 and anywhere.search(text):
            weight += part
    if segments:
        last = segments[-1].replace("-", " ").replace("_", " ")
        if exact.match(last):
            weight += 2.0
        elif anywhere.search(last) or any(exact.match(s.replace("-", " ")) for s in segments[:-1]):
            weight += 0.5
    return weight


def classify(page: Any, *, is_start: bool = False) -> str:
    """The kind of ``page`` (a ``SitePage``), one of :data:`KINDS`."""
    text = page.text or ""
    words = _words(text)
    doc = parse_html(getattr(page, "html", "") or "")
    head, h1 = _head(page.title or ""), _h1(doc)
    segments = _path_segments(page.url)
    raw = (getattr(page, "html", "") or "")[:512].lstrip().lower()
    if raw.startswith(("<?xml", "<rss", "<feed")):
        return ARCHIVE  # a feed saved as an HTML page
    if not segments or (is_start and len(segments) <= 1) or _language_home(page, segments):
        return HOME
    forms = _forms(doc)
    hints = {kind: _hint(kind, head, h1, segments) for kind in _HEADING_WORDS}
    scores: dict[str, float] = dict(hints)
    # A page one level under a folder named for products ("/produkte/<name>/") is one of
    # them, whatever it is called.
    if len(segments) >= 2 and _HEADING_RE[PRODUCT].match(segments[-2].replace("-", " ")):
        scores[PRODUCT] += 1.0

    legal_hits = len(_LEGAL_WORDS.findall(text))
    if words >= 150 and legal_hits * 1000 / words >= 12:
        scores[LEGAL] += 3.0
    if hints[LEGAL] >= 3:
        scores[LEGAL] += 2.0
    # "Acme Online Platform Terms & Conditions": a legal text's name inside a longer title
    # (dated "Effective May 26, 2023", it is still no post).
    if _LEGAL_NAME.search(head) or _LEGAL_NAME.search(h1):
        scores[LEGAL] += 5.0

    # A search box sits on every page of many sites: only a page about searching, or a
    # sign-in form on a short page, is a utility page.
    if (forms["password"] and words < 400) or (forms["search"] and hints[UTILITY]):
        scores[UTILITY] += 2.5
    if words < 60 and hints[UTILITY]:
        scores[UTILITY] += 2.0

    parts = urlsplit(page.url)
    if _ARCHIVE_PATH.search(parts.path + (f"?{parts.query}" if parts.query else "")):
        scores[ARCHIVE] += 7.0
    if _DATE_ONLY.match(head) or _DATE_ONLY.match(h1):
        scores[ARCHIVE] += 4.0

    prices = len(_PRICE.findall(text))
    # Plan words matter only beside prices (and are the slowest words to look for).
    plan_words = len(_PLAN_WORDS.findall(text)) if prices >= 2 else 0
    if prices >= 2 and plan_words >= 1:
        scores[PRICING] += min(prices, 8) * 0.5 + min(plan_words, 6) * 0.5
    elif prices >= 3 and words < 1500:
        scores[PRICING] += 1.0

    pairs = _people_pairs(text)
    if pairs >= 3:
        scores[TEAM] += 2.0 + min(pairs, 10) * 0.3

    addresses = len(_ADDRESS.findall(text)) + len(_PHONE.findall(text))
    if addresses and (forms["textarea"] or _EMAIL.search(text)) and words < 800:
        scores[CONTACT] += 1.5 + min(addresses, 3) * 0.5

    jobs = len(set(m.lower() for m in _JOB_WORDS.findall(text)))
    if jobs >= 3 or (jobs >= 2 and hints[CAREERS] > 0):
        scores[CAREERS] += 1.0 + jobs * 0.7

    stories = len(set(m.lower() for m in _STORY_WORDS.findall(text)))
    if stories >= 3:
        scores[CUSTOMER] += 1.0 + stories * 0.3

    times = len(list(doc.iter("time"))) if doc is not None else 0
    entries = _dated_entries(doc, times)
    headed = _headed_links(doc)
    published = _visible_date(page, doc, hints[NEWS_LIST] > 0)
    # A list page links many headed entries; an article has one heading of its own (and
    # perhaps a sidebar of other posts, which a few dates do not make a list).
    articles = len(list(doc.iter("article"))) if doc is not None else 0
    shape = max(headed, articles, times // 2 if times >= 6 else 0)
    # A list of dated entries with no markup of their own (title link, date, summary in one
    # paragraph each): many written dates, each near a link.
    shape = max(shape, _dated_links(doc) if entries >= 5 else 0)
    # Only a list that calls itself news, press, blog, media ... is news: an events calendar
    # or a list of webinars is dated too.
    list_shaped = entries >= 3 and shape >= 3
    # A page that calls itself "Blog" or "News" and shows three dated entries lists them,
    # however little markup each entry has.
    list_shaped = list_shaped or (entries >= 3 and hints[NEWS_LIST] >= 3.0)
    listing = list_shaped and hints[NEWS_LIST] > 0
    if published is not None and not list_shaped and words >= 25:
        scores[POST] = 4.0 + (2.0 if hints[NEWS_LIST] or _is_article_shaped(doc) else 0.0)
        # A dated article is a post even when it talks about prices or people ("The 12
        # best tools in 2021", "Meet our new CTO"), unless its own title names the kind.
        for kind in (PRICING, TEAM, ABOUT, CONTACT, CUSTOMER, PRODUCT, NEWS_LIST):
            if hints.get(kind, 0.0) < 3.0:
                scores[kind] -= 3.0
    if listing:
        scores[NEWS_LIST] += 2.0 + min(entries, 10) * 0.2
    elif not entries and hints[NEWS_LIST] < 3.0:
        # A news word inside a longer name ("Press brake and roll bending", "Media
        # servers") without a single dated entry: not a list of news.
        scores[NEWS_LIST] = min(scores[NEWS_LIST], 0.0)

    if _features_shaped(page):
        scores[PRODUCT] += 1.5

    kind, best = max(scores.items(), key=lambda item: item[1])
    if best < 1.5:
        return OTHER
    return kind


def _visible_date(page: Any, doc: Any, news_section: bool) -> Any:
    """The date an article shows its reader: in its URL, a ``<time>`` in its body, or
    written near its heading ("Posted on 3 March 2024 by ..."). A date only in the page's
    metadata counts under a news section: site templates stamp every page with one."""
    from ci_service.pipeline.news.dates import _URL_DATE, find_date

    if _URL_DATE.search(urlsplit(page.url).path):
        return article_date(page, doc)
    if doc is not None:
        for node in doc.xpath("//article//time|//main//time|//h1/following::time[1]"):
            if when := find_date(" ".join(node.text_content().split()), page.language) or (
                node.get("datetime") and article_date(page, doc)
            ):
                return when
    heading = ""
    if page.sections:
        heading = page.sections[0][0] or ""
    opening = (page.text or "")[:400]
    if heading and heading in opening:
        opening = opening.split(heading, 1)[1]
    if when := find_date(opening[:250], page.language):
        return when
    if news_section or _post_template(doc):
        return article_date(page, doc)
    return None


# The class a CMS template gives a single post's page (WordPress "single-post" and
# "type-post", Ghost "post-template", and the like): with a date in the page's metadata,
# it tells a post from a static page, which the same template stamps with a date too.
_POST_TEMPLATE = re.compile(r"\b(?:single-post|type-post|post-template|blog-post|article-page)\b")


def _post_template(doc: Any) -> bool:
    if doc is None:
        return False
    body = next(doc.iter("body"), None)
    classes = (body.get("class") or "") if body is not None else ""
    classes += " " + " ".join(a.get("class") or "" for a in doc.iter("article"))
    return bool(_POST_TEMPLATE.search(classes))


def _dated_links(doc: Any) -> int:
    """Paragraphs and list items that hold a link and a written date."""
    from ci_service.pipeline.news.dates import _DATE

    if doc is None:
        return 0
    count = 0
    for block in doc.iter("p", "li", "div"):
        if len(block) and next(block.iter("a"), None) is not None:
            text = element_text(block)
            if len(text) <= 600 and _DATE.search(text) and len(list(block.iter("a"))) <= 3:
                count += 1
    return count


def _headed_links(doc: Any) -> int:
    """Headings (h2-h4) that hold a link: the entries of a list page."""
    if doc is None:
        return 0
    return sum(1 for h in doc.iter("h2", "h3", "h4") if next(h.iter("a"), None) is not None)


def _is_article_shaped(doc: Any) -> bool:
    if doc is None:
        return False
    return next(doc.iter("article"), None) is not None


def _features_shaped(page: Any) -> bool:
    """Several short headed sections (a feature grid): how product pages read."""
    short = [s for s in page.sections if s[0] and 3 <= _words(s[2]) <= 80]
    return len(short) >= 3


def title_kind(title: str) -> str:
    """The kind a title alone names ("Privacy Policy | Example" -> legal, "9 November 2020"
    -> archive), else "": for feed entries whose page was not fetched."""
    head = _head(title).strip(" :!.")
    if _DATE_ONLY.match(head):
        return ARCHIVE
    for kind in (LEGAL, UTILITY, ARCHIVE, CAREERS, PRICING, CONTACT, TEAM, ABOUT):
        if _HEADING_RE[kind].match(head):
            return kind
    return ""


def url_kind(url: str) -> str:
    """The kind a URL's folders name ("/careers/backend-engineer/" -> careers, "/legal/dpa"
    -> legal), else "": a hint for a page that was not fetched, never for one that was."""
    for segment in _path_segments(url):
        words = segment.replace("-", " ").replace("_", " ")
        for kind in (CAREERS, LEGAL, UTILITY, PRICING, CONTACT):
            if _HEADING_RE[kind].match(words):
                return kind
    return ""


def classify_pages(pages: list[Any]) -> None:
    """Set ``kind`` on every page of a crawl (the first is the start page)."""
    for index, page in enumerate(pages):
        page.kind = classify(page, is_start=index == 0)


__all__ = [
    "CAPABILITY_KINDS",
    "KINDS",
    "NEWS_KINDS",
    "NO_FACTS",
    "classify",
    "classify_pages",
    "title_kind",
    "url_kind",
]
