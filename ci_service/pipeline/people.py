"""People named on a site (leadership, team, founders, board), each with the line naming them.

Pages (:func:`people_pages`): URL path or title saying about, team, leadership, management,
company, people, founders, board, executives, staff or "who we are", then any other page
with two or more person cards; news/blog posts and tag/category listings never (interviews,
guest authors). ``humans.txt``: :func:`parse_humans_txt`, :func:`fetch_humans_txt`.

Layouts (:func:`extract_people`) are read from the page HTML rendered as lines (a block
element ends a line; nav, page header/footer, scripts, ``blockquote``/``q`` and elements
whose class or id says testimonial, quote, review or cookie are skipped) and from ``text``:
a card, i.e. a name line then a title line (``<h3>name</h3><p>title</p>``, ``<dt>``/``<dd>``,
"OUR MANAGEMENT TEAM" then "Ian Drew" / "Chairman" ...); one line "Name, Title", "Name -
Title" (– — | · :), "Name (Title)" or "Name Title" when the title opens with a job-title,
seniority or department word ("Alan Bennett VP Engineering"); JSON-LD ``Person`` with a
``jobTitle`` or under an organization's ``founder`` (not authors, editors or publishers).

A name is 2-4 capitalised words (accents, apostrophes, hyphens, initials, particles such as
"van"/"de"; ALL CAPS is title-cased; honorifics dropped) without a word of
:data:`NOT_NAME_WORDS` (navigation, heading, product, place, calendar words), a job-title
word or acronym, and not a navigation link's text or a JSON-LD product name. A title holds
a job-title word (:data:`ROLE_WORDS`, C-level acronyms), at most 10 words, no digits or
sentence punctuation; "of"/"at" and each comma/&/and part may only add department words, so
"CTO, Acme Corp", "CEO of Globex" and "CEO at Acme" (a customer) are refused, as is a line
after a quotation or starting with a dash (a testimonial's attribution).

``founder``: the title says founder/co-founder, or the bio lines after the card do, or a
sentence says "founded by <name>" / "<name> co-founded". Each person keeps a :class:`Cite`
from ``text``: the line naming them (plus the next line when it is the title). JSON-LD and
humans.txt people keep one too, which may not resolve (see ``ingest.link_people``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from ci_service.intel.boilerplate import is_chrome_element, is_site_frame, marks, page_body
from ci_service.pipeline.evidence import Cite, sentence_at
from ci_service.pipeline.site import SitePage, SiteSnapshot

MAX_PEOPLE = 200
PAGE_WORDS = frozenset(
    "about team teams leadership leaders management company people founders founder board "
    "directors executives staff who governance".split()
)
_NOT_PEOPLE_SEGMENTS = frozenset(
    "news press blog blogs insights newsroom updates articles tag tags category categories "
    "author authors page".split()
)
ROLE_ACRONYMS = frozenset(
    "CEO CTO COO CFO CGO CMO CPO CRO CIO CISO CSO CDO CCO CHRO CBO CAO CLO CXO EVP SVP VP AVP "
    "GM MD".split()
)
ROLE_WORDS = frozenset(
    """founder founders cofounder president chairman chairwoman chairperson chair director head
    officer partner counsel advisor adviser member engineer developer designer manager lead
    architect scientist researcher analyst consultant specialist evangelist advocate recruiter
    marketer writer editor strategist owner principal treasurer secretary executive coordinator
    administrator representative intern accountant controller associate programmer technologist
    fellow ambassador leader chief trustee investor""".split()
)
# Words a title may hold besides job-title words (also lower-case, "Head of product").
TITLE_WORDS = frozenset(
    """of for and the in to co non vice senior sr junior jr staff principal global regional
    international interim acting assistant deputy general managing founding executive chief
    independent engineering product products marketing sales operations ops finance financial
    growth design people customer customers success business development technology technical
    software hardware firmware embedded data security research strategy strategic partnerships
    alliances communications comms legal hr human resources talent brand content community
    support solutions platform infrastructure devops frontend front end backend back full stack
    fullstack mobile web cloud ai ml machine learning revenue commercial quality assurance qa
    test project program programme account accounts enterprise channel field digital creative
    art ux ui user experience information it systems network office administration compliance
    risk policy analytics insights demand generation performance social media events
    procurement supply chain open source devrel relations public affairs investor board
    directors team emea apac americas europe north south america uk us operating""".split()
)
_TITLE_OPENERS = ROLE_WORDS | TITLE_WORDS - frozenset("of for and the in to".split())
# Title words that are also surnames or first names ("Art Field") may be part of a name.
_TITLE_NOT_NAMES = TITLE_WORDS - frozenset(
    "art field brand north south america chain end back front open test risk office public "
    "program us uk".split()
)
HONORIFICS = frozenset("dr mr mrs ms miss prof professor sir dame".split())
PARTICLES = frozenset(
    "van von de der den da das do dos di del della du la le ter ten bin al el st".split()
)
# Capitalised words that are not part of a person's name: navigation, headings, products,
# places and calendar words ("Get Started", "Our Team", "Cloud Platform", "New York").
NOT_NAME_WORDS = frozenset(
    """a an the and or of for to in on at by with from as is are we you your our my us it this
    that these those who what why how where when all any more most new latest featured about
    team teams meet our leadership leaders management board directors advisors investors
    founders executive executives staff people company careers jobs hiring join contact home
    get started start sign log login signup demo trial free request book call watch read learn
    view see download install try buy shop pricing price plans plan product products solution
    solutions platform features feature integrations integration enterprise business cloud open
    source self hosted host blog news press media events webinar webinars resources resource
    docs documentation guide guides support help community forum faq privacy policy terms
    service services cookie cookies settings legal security status story stories mission vision
    values culture office offices location locations headquarters partners partner customers
    customer case study studies software hardware data analytics internal tools tool app apps
    web mobile low code no build deploy manage automate design engineering marketing sales
    operations finance subscribe newsletter follow twitter linkedin github server repo database
    client console dashboard portal api facebook youtube instagram email phone address
    copyright reserved rights inc ltd llc gmbh corp corporation limited group holdings labs
    systems technologies technology networks digital global international united states kingdom
    america europe asia africa north south east west london berlin cambridge boston seattle
    chicago york san francisco los angeles belfast dublin toronto singapore tokyo amsterdam
    munich zurich boulder atlanta miami california texas ireland england scotland wales germany
    france india china japan canada australia monday tuesday wednesday thursday friday saturday
    sunday january february march july september october november december today now next
    previous back top more less""".split()
)
_NAME_WORD = re.compile(r"^(?:[^\W\d_]\.?|[^\W\d_]+(?:['’-][^\W\d_]+)*\.?)$")
_WORD = re.compile(r"[^\W\d_]+")
_PART_SPLIT = re.compile(r"\s*(?:,|&|\+|/|\||\band\b)\s*", re.IGNORECASE)
_SEPARATOR = re.compile(r"\s*(?:,|\s-\s|[–—|·:])\s*")
_ATTRIBUTION = re.compile(r"^\s*[-–—―~]")
_QUOTED = re.compile(r"^[\"“”„'‘’«]|[\"“”'’»]$")
_BIO_FOUNDER = re.compile(r"\b(?:co-?\s?)?founders?\b|\bco-?\s?founded\b", re.IGNORECASE)
# After a name: "co-founded", "founder", or "founded <Something>" (not "was founded in").
_FOUNDED_AFTER = r"(?:[Cc]o-?\s?)?[Ff]ounders?\b|[Cc]o-?\s?[Ff]ounded\b|[Ff]ounded\s+[A-Z]"
# Besides chrome (intel.boilerplate): code and quotations (a testimonial's "Jane Doe, CEO of
# Initech" is a customer's person, not one of theirs).
_SKIP_TAGS = frozenset("script style noscript template svg nav blockquote q select".split())
_SKIP_CLASS = re.compile(r"testimonial|quote|review", re.IGNORECASE)
_BLOCK_TAGS = frozenset(
    """address article aside dd div dl dt figcaption figure footer form h1 h2 h3 h4 h5 h6
    header hr li main ol p pre section table tbody td th thead tr ul""".split()
)
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


# -- names and titles ------------------------------------------------------------------------


def _title_case(token: str) -> str:
    if token.lower() in PARTICLES:
        return token.lower()
    return re.sub(r"[^\W\d_]+", lambda m: m.group(0).capitalize(), token)


def clean_name(raw: str, exclude: Collection[str] = ()) -> str | None:
    """``raw`` as a person's name (ALL CAPS title-cased), or None when it is not one (or
    its case-folded form is in ``exclude``)."""
    tokens = " ".join(str(raw).split()).strip(" ,;:|·").split()
    while tokens and tokens[0].strip(".").lower() in HONORIFICS:
        tokens = tokens[1:]
    if any(t.strip(",.") in ROLE_ACRONYMS for t in tokens):
        return None  # "GEORGE GREY CEO" is a name and a title on one line
    letters = [c for c in "".join(tokens) if c.isalpha()]
    if len(letters) > 3 and not any(c.islower() for c in letters):
        tokens = [_title_case(t) for t in tokens]
    core = [t for t in tokens if t not in PARTICLES]
    if not 2 <= len(core) <= 4 or len(tokens) > 6 or tokens[0] in PARTICLES:
        return None
    for token in core:
        bare = token.strip(".").lower()
        if not _NAME_WORD.match(token) or not token[0].isupper():
            return None
        if len(token) > 1 and token.isupper() and not token.endswith("."):
            return None  # an acronym (CEO, UK) is not part of a name
        if bare in NOT_NAME_WORDS or bare in ROLE_WORDS or bare in _TITLE_NOT_NAMES:
            return None
    if len(core[-1].strip(".")) < 2:
        return None
    name = " ".join(tokens)
    return None if name.casefold() in exclude else name


def _is_role(word: str) -> bool:
    return word in ROLE_ACRONYMS or word.lower() in ROLE_WORDS


def clean_title(raw: str) -> str | None:
    """``raw`` as a job title, or None (see the module docstring for the rule)."""
    title = " ".join(str(raw).split()).strip(" ,;:|·-–—")
    if not title or len(title) > 80 or len(title.split()) > 10:
        return None
    if re.search(r"[!?;@\d]|[a-z]{3}\.\s|\bat\s+[A-Z]", title):
        return None
    words = _WORD.findall(title)
    if not words or not any(_is_role(w) for w in words):
        return None
    for token in title.split():
        word = next(iter(_WORD.findall(token)), "")
        if word and not word[0].isupper() and not _is_role(word) and word not in TITLE_WORDS:
            return None
    if words[0].lower() in ("of", "for", "and", "the", "in", "to"):
        return None
    for tail in re.findall(r"\b(?:of|at)\s+(.+)", title):
        if not all(w.lower() in TITLE_WORDS for w in _WORD.findall(tail)):
            return None  # "CEO of Globex": another organisation, not a department
    for part in _PART_SPLIT.split(title):
        part_words = _WORD.findall(part)
        if part_words and not any(_is_role(w) for w in part_words):
            if not all(w.lower() in TITLE_WORDS for w in part_words):
                return None  # "CTO, Acme Corp": a company, not a department
    return title.rstrip(".")


def split_person(line: str, exclude: Iterable[str] = ()) -> tuple[str, str] | None:
    """(name, title) of a one-line person: "Name, Title", "Name (Title)", "Name Title"."""
    line = " ".join(line.split())
    if len(line) > 120 or _ATTRIBUTION.match(line):
        return None
    if match := re.match(r"^(.+?)\s*\(([^()]+)\)$", line):
        name, title = clean_name(match.group(1), exclude), clean_title(match.group(2))
        if name and title:
            return name, title
    if match := _SEPARATOR.search(line):
        name = clean_name(line[: match.start()], exclude)
        title = clean_title(line[match.end() :])
        if name and title:
            return name, title
        return None
    tokens = line.split()
    for size in range(2, min(len(tokens) - 1, 6) + 1):
        first = tokens[size]
        if not (first in ROLE_ACRONYMS or first.lower() in _TITLE_OPENERS):
            continue
        name, title = (
            clean_name(" ".join(tokens[:size]), exclude),
            clean_title(" ".join(tokens[size:])),
        )
        if name and title:
            return name, title
    return None


# -- page layouts ----------------------------------------------------------------------------


def html_lines(html: str) -> list[str]:
    """The page's HTML as lines of visible text (see the module docstring for what is
    skipped); an empty line marks skipped content so a card never spans it."""
    import lxml.html

    try:
        doc = lxml.html.document_fromstring(html.encode("utf-8", "replace"))
    except Exception:  # empty or unparseable markup: nothing to read
        return []
    lines: list[str] = []
    current: list[str] = []

    def flush() -> None:
        text = " ".join("".join(current).split())
        current.clear()
        if text:
            lines.append(text)

    def skipped(el: Any) -> bool:
        if not isinstance(el.tag, str) or el.tag in _SKIP_TAGS:
            return True
        if el.tag in ("header", "footer"):
            return is_site_frame(el, body_size)
        return is_chrome_element(el) or bool(_SKIP_CLASS.search(marks(el)))

    def walk(el: Any) -> None:
        if skipped(el):
            flush()
            lines.append("")
            return
        block = el.tag in _BLOCK_TAGS or el.tag == "br"
        # Inline elements get a space around them: "<span>Jane Doe</span><span>CEO</span>".
        edge = flush if block else lambda: current.append(" ")
        edge()
        current.append(el.text or "")
        for child in el:
            walk(child)
            current.append(child.tail or "")
        edge()

    body, body_size = page_body(doc)
    try:
        walk(body)
    except RecursionError:  # absurdly deep markup: keep what was read
        pass
    flush()
    return lines


def _people_in_lines(lines: list[str], exclude: Iterable[str]) -> list[tuple[str, str, str]]:
    """(name, title, bio) for each card or one-line person in ``lines``."""
    found: list[tuple[str, str, str]] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        previous = lines[index - 1] if index else ""
        after_quote = bool(previous and _QUOTED.search(previous.strip()))
        step, person = 1, None
        if line and not after_quote:
            name = clean_name(line, exclude)
            following = lines[index + 1] if name and index + 1 < len(lines) else ""
            title = clean_title(following) if not split_person(following, exclude) else None
            if name and title:
                person, step = (name, title), 2
            else:
                person = split_person(line, exclude)
        if person:
            bio = []
            for later in lines[index + step : index + step + 3]:
                if not later or split_person(later, exclude) or clean_name(later, exclude):
                    break
                bio.append(later)
            found.append((*person, " ".join(bio)))
        index += step
    return found


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
    """The people a page names (cards, one-line people, JSON-LD), first mention wins.

    ``exclude``: texts that are not names on this site (navigation items, product names)."""
    exclude = {" ".join(str(e).split()).casefold() for e in [*exclude, *_nav_texts(page)]}
    people: dict[str, PersonDraft] = {}
    text = page.text or ""
    html = getattr(page, "html", "") or ""
    sources = [html_lines(html)] if html else []
    sources.append([" ".join(line.split()) for line in text.splitlines()])
    for lines in sources:
        for name, title, bio in _people_in_lines(lines, exclude):
            key = name.casefold()
            if key in people:
                continue
            founder = bool(_BIO_FOUNDER.search(f"{title} {bio}")) or _founder_in_text(text, name)
            people[key] = PersonDraft(name, title, _cite(page, name, title), founder)
    for name, title, founder in _json_ld_people(page.json_ld, exclude):
        if name.casefold() not in people:
            founder = founder or bool(_BIO_FOUNDER.search(title or ""))
            cite = _cite(page, name, title)
            people[name.casefold()] = PersonDraft(name, title, cite, founder, "json-ld")
    return list(people.values())[:MAX_PEOPLE]


# -- which pages, humans.txt, the whole snapshot ----------------------------------------------


def _segments(page: SitePage) -> list[str]:
    return [s for s in urlsplit(page.url).path.lower().split("/") if s]


def _is_people_page(page: SitePage) -> bool:
    segments = _segments(page)
    words = set(re.split(r"[^a-z]+", " ".join(segments)))
    title_words = set(re.split(r"[^a-z]+", (page.title or "").lower()))
    return bool((words | title_words) & PAGE_WORDS)


def _pages_with_people(
    snapshot: SiteSnapshot, exclude: Iterable[str] = ()
) -> list[tuple[SitePage, list[PersonDraft]]]:
    named, others = [], []
    for page in snapshot.pages:
        if urlsplit(page.url).path.lower().endswith("/humans.txt"):
            continue
        if set(_segments(page)) & _NOT_PEOPLE_SEGMENTS:
            continue  # news and blog posts (interviews, guest authors), tag listings
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
    if (not known.title and draft.title) or (known.source != "page" and draft.source == "page"):
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
    return list(people.values())[:MAX_PEOPLE]
