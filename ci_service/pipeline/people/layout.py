"""Person cards of a page's layout: the page as lines, and the name/title pairs in them.

:func:`html_blocks` renders the HTML as lines of visible text (a block element ends a
line; nav, page header/footer, scripts, ``blockquote``/``q`` and elements whose class or id
says testimonial, quote, review or cookie are skipped), each with the *place* it sits in:
the tag and class path of its element. Cards repeat their places, so a name line whose
place recurs on the page, followed each time by a line in one recurring place, is a card
whose second line is the title (:func:`card_title`), whatever it says ("Keeper of the
Vault", "Ops"); except in investor, customer, partner or author blocks (by class, id or
section heading), where only a strict job title counts.

:func:`people_in_blocks` reads a card (a name line then a title line: ``<h3>name</h3>
<p>title</p>``, ``<dt>``/``<dd>``, table cells), a one-line person ("Name, Title", "Name -
Title" (– — | · :), "Name (Title)", "Name Title" when the title opens with a job-title,
seniority or department word, "Jane DoeChief Executive Officer" with no space), or a name
line whose bio paragraph states the title ("Jane is our Chief Technology Officer.").
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any, NamedTuple

from ci_service.intel.boilerplate import is_chrome_element, is_site_frame, marks, page_body
from ci_service.pipeline.people.site_titles import title_mentions
from ci_service.pipeline.people.text import card_title, clean_name, clean_title, split_person

_QUOTED = re.compile(r"^[\"“”„'‘’«]|[\"“”'’»]$")
# Besides chrome (intel.boilerplate): code and quotations (a testimonial's "Jane Doe, CEO of
# Initech" is a customer's person, not one of theirs).
_SKIP_TAGS = frozenset("script style noscript template svg nav blockquote q select".split())
_SKIP_CLASS = re.compile(r"testimonial|quote|review", re.IGNORECASE)
# Blocks whose people belong to someone else (by class or id, or by section heading): only
# a strict job title makes them people.
_NOT_TEAM = re.compile(
    r"investor|backer|customer|client|sponsor|partner|author|byline|comment|press|news",
    re.IGNORECASE,
)
_NOT_TEAM_HEADING = re.compile(
    r"\b(?:investors?|backers?|backed|customers?|clients?|sponsors?|partners|press|news|"
    r"testimonials?|advisors? to)\b",
    re.IGNORECASE,
)
_HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
_BLOCK_TAGS = frozenset(
    """address article aside dd div dl dt figcaption figure footer form h1 h2 h3 h4 h5 h6
    header hr li main ol p pre section table tbody td th thead tr ul""".split()
)


class Block(NamedTuple):
    """A line of the page: its text, its place (tag/class path; None for plain text) and
    whether a card there may carry a non-standard title."""

    text: str
    place: tuple[tuple[str, str], ...] | None = None
    team: bool = False


def _place(el: Any, root: Any) -> tuple[tuple[str, str], ...]:
    path = []
    while el is not None and el is not root:
        path.append((str(el.tag), " ".join(sorted(str(el.get("class", "")).split()))))
        el = el.getparent()
    return tuple(reversed(path))


def _not_team(el: Any, root: Any) -> bool:
    while el is not None and el is not root:
        if _NOT_TEAM.search(marks(el)):
            return True
        el = el.getparent()
    return False


def html_blocks(html: str) -> list[Block]:
    """The page's HTML as :class:`Block` lines (see the module docstring); an empty line
    marks skipped content so a card never spans it."""
    import lxml.html

    try:
        parser = lxml.html.HTMLParser(encoding="utf-8")
        doc = lxml.html.document_fromstring(html.encode("utf-8", "replace"), parser=parser)
    except Exception:  # empty or unparseable markup: nothing to read
        return []
    blocks: list[Block] = []
    current: list[str] = []
    heading = [""]  # the latest section heading that is not a person's name

    def flush(owner: Any) -> None:
        text = " ".join("".join(current).split())
        current.clear()
        if not text:
            return
        team = not _NOT_TEAM_HEADING.search(heading[0]) and not _not_team(owner, body)
        blocks.append(Block(text, _place(owner, body), team))
        if owner.tag in _HEADINGS and not clean_name(text) and not clean_title(text):
            heading[0] = text  # a section's heading, not a card's name or title

    def skipped(el: Any) -> bool:
        if not isinstance(el.tag, str) or el.tag in _SKIP_TAGS:
            return True
        if el.tag in ("header", "footer"):
            return is_site_frame(el, body_size)
        return is_chrome_element(el) or bool(_SKIP_CLASS.search(marks(el)))

    def walk(el: Any, parent: Any) -> None:
        if skipped(el):
            flush(parent)
            blocks.append(Block(""))
            return
        block = el.tag in _BLOCK_TAGS or el.tag == "br"
        owner = el if block and el.tag != "br" else parent
        # Inline elements get a space around them: "<span>Jane Doe</span><span>CEO</span>".
        if block:
            flush(parent)
        current.append(" " if not block else "")
        current.append(el.text or "")
        for child in el:
            walk(child, owner)
            current.append(child.tail or "")
        if block:
            flush(owner)
        current.append(" " if not block else "")

    body, body_size = page_body(doc)
    try:
        walk(body, body)
    except RecursionError:  # absurdly deep markup: keep what was read
        pass
    flush(body)
    return blocks


def html_lines(html: str) -> list[str]:
    """The page's HTML as lines of visible text (:func:`html_blocks` without places)."""
    return [block.text for block in html_blocks(html)]


def _card_slots(blocks: list[Block], exclude: Iterable[str]) -> set[int]:
    """Indexes of the lines in the title place of repeated person cards."""
    names: dict[tuple[Any, ...], list[int]] = defaultdict(list)
    per_place = Counter(block.place for block in blocks if block.text)
    for index, block in enumerate(blocks[:-1]):
        if block.place and block.text and clean_name(block.text, exclude):
            names[block.place].append(index)
    slots: set[int] = set()
    for place, indexes in names.items():
        following = Counter(blocks[i + 1].place for i in indexes if blocks[i + 1].text)
        if len(indexes) < 2 or not following:
            continue
        title_place, count = following.most_common(1)[0]
        if count < 2 or (title_place == place and 3 * len(indexes) < per_place[place]):
            continue  # not repeated, or names among many lines of one kind (paragraphs)
        for index in indexes:
            title = blocks[index + 1]
            if title.place != title_place or not (blocks[index].team and title.team):
                continue
            if title_place == place and clean_name(title.text, exclude):
                continue  # the next card's name
            slots.add(index + 1)
    return slots


def _title_in_bio(bio: str, name: str) -> str | None:
    """The title a bio paragraph states for its person: "Jane is our CTO."."""
    if not bio:
        return None
    for who in (name, name.split()[0]):
        for title, _quote in title_mentions(bio, who, bio_only=True):
            return title
    return None


def people_in_blocks(blocks: list[Block], exclude: Iterable[str]) -> list[tuple[str, str, str]]:
    """(name, title, bio) for each card or one-line person in ``blocks``."""
    exclude = set(exclude)
    slots = _card_slots(blocks, exclude)
    found: list[tuple[str, str, str]] = []
    index = 0
    while index < len(blocks):
        line = blocks[index].text
        previous = blocks[index - 1].text if index else ""
        after_quote = bool(previous and _QUOTED.search(previous.strip()))
        step, person = 1, None
        if line and not after_quote:
            name = clean_name(line, exclude)
            following = blocks[index + 1].text if name and index + 1 < len(blocks) else ""
            title = clean_title(following) if not split_person(following, exclude) else None
            if name and not title and index + 1 in slots:
                title = card_title(following)
            if name and title:
                person, step = (name, title), 2
            elif name and (title := _title_in_bio(following, name)):
                person = (name, title)
            else:
                person = split_person(line, exclude)
        if person:
            bio = []
            for later in blocks[index + step : index + step + 3]:
                text = later.text
                if not text or split_person(text, exclude) or clean_name(text, exclude):
                    break
                bio.append(text)
            found.append((*person, " ".join(bio)))
        index += step
    return found


def people_text_blocks(text: str) -> list[Block]:
    """A page's stored text as :class:`Block` lines (no places)."""
    return [Block(" ".join(line.split())) for line in text.splitlines()]
