"""People named on a site (leadership, team, founders, board), each with the line naming them.

Pages (:func:`people_pages`): URL path or title saying about, team, leadership, management,
company, people, founders, board, executives, staff or "who we are" (or ``kind`` "team" or
"about"), then any other page with two or more person cards. Never: news/blog/press posts
and lists, tag/category/author listings (by ``kind`` or URL words), legal, utility and
archive pages, customer stories; product and pricing pages only when their URL or title
says team. ``humans.txt``: :func:`parse_humans_txt`, :func:`fetch_humans_txt`.

Layouts (:func:`extract_people`, ``pipeline.people.layout``) are read from the page HTML
rendered as lines and from ``text``: cards (a name line then a title line; in repeated
cards the title place may hold any short title the page states, "Keeper of the Vault"),
one-line people ("Name, Title", "Name - Title", "Name (Title)", "Name Title", "Jane
DoeChief Executive Officer"), a bio saying "Jane is our CTO"; JSON-LD ``Person`` with a
``jobTitle`` or under an organization's ``founder`` (not authors, editors or publishers).
Names and titles: ``pipeline.people.text``.

``founder``: the title says founder/co-founder, or the bio lines after the card do, or a
sentence says "founded by <name>" / "<name> co-founded", here or anywhere on the site.
A joke title gives way to a formal one the site states elsewhere (``pipeline.people.site_titles``).
Each person keeps a :class:`Cite` from ``text``: the line naming them (plus the next line
when it is the title), or the sentence stating their formal title. JSON-LD and humans.txt
people keep one too, which may not resolve (see ``ingest.link_people``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from ci_service.pipeline import page_kinds
from ci_service.pipeline.evidence import Cite, sentence_at
from ci_service.pipeline.people.authors import post_authors
from ci_service.pipeline.people.layout import (
    html_blocks,
    html_lines,
    people_in_blocks,
    people_text_blocks,
)
from ci_service.pipeline.people.records import people_in_records
from ci_service.pipeline.people.site_titles import improve_people
from ci_service.pipeline.people.text import (
    HONORIFICS,
    NOT_NAME_WORDS,
    PARTICLES,
    ROLE_ACRONYMS,
    ROLE_WORDS,
    TITLE_WORDS,
    card_title,
    clean_name,
    clean_title,
    formal_parts,
    is_formal,
    split_person,
)
from ci_service.pipeline.site import SitePage, SiteSnapshot

__all__ = [
    "HONORIFICS",
    "NOT_NAME_WORDS",
    "PARTICLES",
    "ROLE_ACRONYMS",
    "ROLE_WORDS",
    "TITLE_WORDS",
    "PersonDraft",
    "card_title",
    "clean_name",
    "clean_title",
    "extract_people",
    "fetch_humans_txt",
    "html_lines",
    "parse_humans_txt",
    "people_pages",
    "snapshot_people",
    "split_person",
]

MAX_PEOPLE = 200
PAGE_WORDS = frozenset(
    "about team teams leadership leaders management company people founders founder board "
    "directors executives staff who governance clinicians doctors dentists therapists "
    "physicians practitioners hygienists".split()
)
_NOT_PEOPLE_SEGMENTS = frozenset(
    "news press blog blogs insights newsroom updates articles tag tags category categories "
    "author authors page releases release feed archive archives".split()
)
# URL words of pages that never name the company's people (news, legal, utility pages).
_NOT_PEOPLE_WORDS = frozenset(
    "news newsroom press releases blog blogs privacy terms tos legal cookie cookies imprint "
    "gdpr disclaimer search login signin signup cart checkout".split()
)
_LEGAL_WORDS = _NOT_PEOPLE_WORDS - {"news", "newsroom", "press", "releases", "blog", "blogs"}
# Page kinds that never hold the company's people; kinds whose URL/title must say so.
_NEVER_KINDS = page_kinds.NO_FACTS | {page_kinds.POST, page_kinds.NEWS_LIST, page_kinds.CUSTOMER}
_NAMED_ONLY_KINDS = frozenset({page_kinds.PRODUCT, page_kinds.PRICING})
_PEOPLE_KINDS = frozenset({page_kinds.TEAM, page_kinds.ABOUT})
_BIO_FOUNDER = re.compile(
    r"\b(?:co-?\s?)?founders?\b|\bco-?\s?founded\b"
    # Serbian/Croatian, German, French, Spanish
    r"|\b(?:su)?osniva\w*|\bosnova(?:o|la|li)\b|\b(?:mit)?gr\u00fcnder\w*|\b(?:co)?fondat\w+|"
    r"\b(?:co)?fundador\w*",
    re.IGNORECASE,
)
# After a name: "co-founded", "founder", or "founded <Something>" (not "was founded in").
_FOUNDED_AFTER = r"(?:[Cc]o-?\s?)?[Ff]ounders?\b|[Cc]o-?\s?[Ff]ounded\b|[Ff]ounded\s+[A-Z]"
_NOT_DATA_KEYS = frozenset(
    "author creator editor reviewedBy contributor publisher accountablePerson copyrightHolder "
    "sponsor funder review comment".split()
)


@dataclass
class PersonDraft:
    """A person of the company: ``title`` as the site writes it, ``source`` is "page",
    "json-ld" or "humans.txt" (only a page's people need a cite that resolves)."""

    name: str
    title: str | None
    cite: Cite
    founder: bool = False
    source: str = "page"


# -- one page ------------------------------------------------------------------------------


def _find_quote(text: str, name: str, title: str | None) -> str | None:
    """The verbatim part of ``text`` naming the person: their line (plus the next line when
    it is their title), or the sentence with their name in a longer line."""
    lines = [" ".join(line.split()) for line in text.splitlines()]
    lines = [line for line in lines if line]
    best, best_score = None, 0
    for number, line in enumerate(lines):
        where = line.casefold().find(name.casefold())
        if where < 0:
            continue
        following = lines[number + 1].casefold() if number + 1 < len(lines) else ""
        if title and title.casefold() in line.casefold() and len(line) <= 200:
            quote, score = line, 3
        elif title and line.casefold() == name.casefold() and following == title.casefold():
            quote, score = f"{line} {lines[number + 1]}", 3
        else:
            quote, score = sentence_at(line, where, where + len(name)), 1
        if score > best_score:
            best, best_score = quote, score
    return best


def _cite(page: SitePage, name: str, title: str | None) -> Cite:
    quote = _find_quote(page.text or "", name, title)
    return Cite(page.url, quote or (f"{name}, {title}" if title else name))


def _record_cite(page: SitePage, name: str, title: str | None) -> Cite:
    """A team card's quote: its name and title as the page's text writes them, else the
    line or sentence naming the person."""
    text = " ".join((page.text or "").split())
    for quote in ([f"{name} {title}", f"{name}, {title}"] if title else []) + [name]:
        if quote in text and (quote != name or len(text) < 400):
            return Cite(page.url, quote)
    return _cite(page, name, title)


def _founder_in_text(text: str, name: str) -> bool:
    pattern = re.compile(
        rf"[Ff]ounded\b[^.\n]{{0,80}}\bby\b[^.\n]{{0,80}}{re.escape(name)}"
        rf"|{re.escape(name)}\b[^.\n]{{0,60}}\b(?:{_FOUNDED_AFTER})"
    )
    return bool(pattern.search(" ".join((text or "").split())))


def _json_ld_people(blocks: Any, exclude: Iterable[str]) -> list[tuple[str, str | None, bool]]:
    found: list[tuple[str, str | None, bool]] = []

    def walk(value: Any, key: str = "") -> None:
        if isinstance(value, list):
            for inner in value:
                walk(inner, key)
        elif isinstance(value, dict):
            kinds = value.get("@type")
            kinds = kinds if isinstance(kinds, list) else [kinds]
            founder = key in ("founder", "founders")
            if "Person" in kinds and (name := clean_name(str(value.get("name") or ""), exclude)):
                role = value.get("jobTitle")
                role = role[0] if isinstance(role, list) and role else role
                role = role.get("name") if isinstance(role, dict) else role
                title = " ".join(str(role).split())[:200] if role else None
                if title or founder:
                    found.append((name, title or "Founder", founder))
            for inner_key, inner in value.items():
                if inner_key not in _NOT_DATA_KEYS and isinstance(inner, dict | list):
                    walk(inner, inner_key)

    walk(blocks)
    return found


def _nav_texts(page: SitePage) -> set[str]:
    return {str(link[1]) for link in getattr(page, "nav_links", None) or [] if len(link) > 1}


def extract_people(page: SitePage, exclude: Iterable[str] = ()) -> list[PersonDraft]:
    """The people a page names (cards, one-line people, JSON-LD), first mention wins; none
    on a page of a kind that never names the company's people.

    ``exclude``: texts that are not names on this site (navigation items, product names)."""
    if _never_people(page):
        return []
    exclude = {" ".join(str(e).split()).casefold() for e in [*exclude, *_nav_texts(page)]}
    people: dict[str, PersonDraft] = {}
    text = page.text or ""
    html = getattr(page, "html", "") or ""
    sources = [html_blocks(html)] if html else []
    if sources and not _about_the_team(page):
        # Any short line as a card's title only where the page is about the team.
        sources = [[block._replace(team=False) for block in sources[0]]]
    sources.append(people_text_blocks(text))
    for blocks in sources:
        for name, title, bio in people_in_blocks(blocks, exclude):
            key = name.casefold()
            if key in people:
                continue
            founder = bool(_BIO_FOUNDER.search(f"{title} {bio}")) or _founder_in_text(text, name)
            people[key] = PersonDraft(name, title, _cite(page, name, title), founder)
    for name, title in people_in_records(html, page.url, exclude, _about_the_team(page)):
        if name.casefold() not in people:
            founder = bool(_BIO_FOUNDER.search(title or "")) or _founder_in_text(text, name)
            people[name.casefold()] = PersonDraft(
                name, title, _record_cite(page, name, title), founder
            )
    for name, title, founder in _json_ld_people(page.json_ld, exclude):
        if name.casefold() not in people:
            founder = founder or bool(_BIO_FOUNDER.search(title or ""))
            cite = _cite(page, name, title)
            people[name.casefold()] = PersonDraft(name, title, cite, founder, "json-ld")
    return list(people.values())[:MAX_PEOPLE]


# -- which pages, humans.txt, the whole snapshot ----------------------------------------------


def _segments(page: SitePage) -> list[str]:
    return [s for s in urlsplit(page.url).path.lower().split("/") if s]


def _url_words(page: SitePage) -> set[str]:
    return set(re.split(r"[^a-z]+", " ".join(_segments(page)))) - {""}


def _never_people(page: SitePage) -> bool:
    """Posts, lists, legal, utility and archive pages, customer stories (by kind or URL)."""
    kind = getattr(page, "kind", "") or ""
    if kind in _NEVER_KINDS or urlsplit(page.url).path.lower().endswith("/humans.txt"):
        return True
    if kind in _NAMED_ONLY_KINDS and not _is_people_page(page):
        return True
    segments = set(_segments(page))
    # News and blog posts (interviews, guest authors), press releases, tag listings.
    return bool(segments & _NOT_PEOPLE_SEGMENTS or _url_words(page) & _NOT_PEOPLE_WORDS)


def _is_people_page(page: SitePage) -> bool:
    if (getattr(page, "kind", "") or "") in _PEOPLE_KINDS:
        return True
    words = _url_words(page)
    title_words = set(re.split(r"[^a-z]+", (page.title or "").lower()))
    return bool((words | title_words) & PAGE_WORDS)


def _about_the_team(page: SitePage) -> bool:
    """A team or about page (by kind; by URL or title while the kind is unknown)."""
    kind = getattr(page, "kind", "") or ""
    if kind in _PEOPLE_KINDS:
        return True
    return kind in ("", page_kinds.OTHER) and _is_people_page(page)


def _pages_with_people(
    snapshot: SiteSnapshot, exclude: Iterable[str] = ()
) -> list[tuple[SitePage, list[PersonDraft]]]:
    named, others = [], []
    for page in snapshot.pages:
        if _never_people(page):
            continue
        people = extract_people(page, exclude)
        if _is_people_page(page):
            named.append((page, people))
        elif sum(person.source == "page" for person in people) >= 2:
            others.append((page, people))
    return named + others


def people_pages(snapshot: SiteSnapshot) -> list[SitePage]:
    """Pages to read people from: about/team/leadership/company/people pages (by URL path
    or title), then any other page with at least two person cards."""
    return [page for page, _ in _pages_with_people(snapshot)]


_HUMANS_NAME_KEYS = frozenset(("name", "names", "full name"))
_HUMANS_TITLE_KEYS = frozenset(("title", "role", "position", "job title", "jobtitle", "job"))


def _humans_value(value: str) -> str:
    value = re.sub(r"\([^)]*\)|<[^>]*>|\S+@\S+|https?://\S+", " ", value)
    return " ".join(value.split()).strip(" .,;")


def parse_humans_txt(text: str, url: str) -> list[PersonDraft]:
    """People of a humans.txt (humanstxt.org): "Title: Name" lines ("CEO: Jane Doe",
    "Founder & CTO: John Roe") and "Name: ..." followed by a "Title:"/"Role:" line."""
    people: dict[str, PersonDraft] = {}
    pending: tuple[str, str] | None = None  # (name, its line) awaiting a Title line
    for raw in (text or "").splitlines():
        line = " ".join(raw.split())
        key, sep, value = line.partition(":")
        key = key.strip(" /*\t").strip()
        if not sep or not key:
            continue
        value = _humans_value(value)
        if key.lower() in _HUMANS_NAME_KEYS:
            name = clean_name(value)
            pending = (name, line) if name else None
            if name and name.casefold() not in people:
                people[name.casefold()] = PersonDraft(
                    name, None, Cite(url, line), False, "humans.txt"
                )
        elif key.lower() in _HUMANS_TITLE_KEYS and pending:
            name, name_line = pending
            title = clean_title(value) or (value[:200] or None)
            founder = bool(_BIO_FOUNDER.search(value))
            people[name.casefold()] = PersonDraft(
                name, title, Cite(url, f"{name_line} {line}"), founder, "humans.txt"
            )
            pending = None
        elif (title := clean_title(key)) and (name := clean_name(value)):
            founder = bool(_BIO_FOUNDER.search(title))
            draft = PersonDraft(name, title, Cite(url, line), founder, "humans.txt")
            people.setdefault(name.casefold(), draft)
    return list(people.values())[:MAX_PEOPLE]


def fetch_humans_txt(fetcher: Any, site_url: str) -> tuple[str, str] | None:
    """``(url, text)`` of the site's ``/humans.txt`` through the guarded ``fetcher``, or
    None when it is absent: an error status, an HTML answer (sites that serve their home
    page for any path), a fetch error or a file without any "Key: value" line."""
    from ci_service.intel.errors import FetchError

    parts = urlsplit(site_url)
    url = urljoin(f"{parts.scheme}://{parts.netloc}/", "/humans.txt")
    try:
        result = fetcher.get(url, accept="text/plain,*/*;q=0.5", max_bytes=256 * 1024)
    except FetchError:
        return None
    if not result.ok or "html" in result.content_type or "xml" in result.content_type:
        return None
    text = result.text
    if re.match(r"\s*<(?:!doctype|html|head|body|\?xml)", text, re.IGNORECASE):
        return None
    if not re.search(r"^[^:\n]{1,40}:\s*\S", text, re.MULTILINE):
        return None
    return result.url, text


def _merge(people: dict[str, PersonDraft], draft: PersonDraft) -> None:
    key = draft.name.casefold()
    known = people.get(key)
    if known is None:
        people[key] = draft
        return
    known.founder = known.founder or draft.founder
    better = is_formal(draft.title) and not is_formal(known.title)
    kept = all(p.casefold() in (draft.title or "").casefold() for p in formal_parts(known.title))
    if (
        (not known.title and draft.title)
        or (known.source != "page" and draft.source == "page")
        or (better and kept and draft.source == "page")
    ):
        known.title, known.cite, known.source = draft.title or known.title, draft.cite, draft.source


def snapshot_people(snapshot: SiteSnapshot) -> list[PersonDraft]:
    """Everyone the snapshot names: people pages, then humans.txt (``snapshot.humans_txt``
    as ``(url, text)``, or a crawled ``/humans.txt`` page), merged by name."""
    exclude: set[str] = set()
    for page in snapshot.pages:
        exclude |= _nav_texts(page)
        for block in page.json_ld or []:
            kinds = block.get("@type") if isinstance(block, dict) else None
            kinds = kinds if isinstance(kinds, list) else [kinds]
            if {"Product", "SoftwareApplication", "Service"} & set(kinds) and block.get("name"):
                exclude.add(str(block["name"]))
    people: dict[str, PersonDraft] = {}
    for _page, drafts in _pages_with_people(snapshot, exclude):
        for draft in drafts:
            _merge(people, draft)
    humans = [getattr(snapshot, "humans_txt", None)] + [
        (page.url, page.text)
        for page in snapshot.pages
        if urlsplit(page.url).path.lower().endswith("/humans.txt")
    ]
    for found in humans:
        if found:
            for draft in parse_humans_txt(found[1], found[0]):
                _merge(people, draft)
    for name, title, cite in post_authors(snapshot):
        _merge(people, PersonDraft(name, title, cite, bool(_BIO_FOUNDER.search(title))))
    improve_people(people.values(), _mention_sources(snapshot))
    return list(people.values())[:MAX_PEOPLE]


def _mention_sources(snapshot: SiteSnapshot) -> list[tuple[str, str]]:
    """(url, text) of the pages that may state someone's formal title: people pages first,
    then the others (posts too), never legal, utility or archive pages."""
    first, rest = [], []
    for page in snapshot.pages:
        kind = getattr(page, "kind", "") or ""
        if kind in page_kinds.NO_FACTS or _url_words(page) & _LEGAL_WORDS:
            continue
        (first if _is_people_page(page) else rest).append((page.url, page.text or ""))
    return first + rest
