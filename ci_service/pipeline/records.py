"""Records that repeat on a page: the cards of a grid, the rows of a list, the tiles of a
team, the logos of customers, the entries of a news list.

A page says "these things are alike" with its own markup: siblings built the same way. A
**record set** is three or more sibling elements with the same tag and the same class words
(numbers and state words such as ``active`` aside), each holding a little text or an image
with alternative text. It is found in any layout (columns, rows, a ``<ul>``, ``<div>``
cards, table rows) without reading a word, so it works in any language. Each set keeps the
heading that names it: the nearest heading before its container in document order, and
whether it is **nested** in a record of another set (a card's own list).

Each record has a **name** (its first heading, else its first strong or linked text inside
it, else its first line; for a record of only an image, the image's alternative text), the
rest of its **lines**, its first **link** and its **images**' alternative texts. Chrome
(menus, footers, sidebars, cookie banners, dialogs: ``intel.boilerplate.is_chrome_element``)
and non-text (scripts, styles, inline SVG, templates) never make a record, and neither do
sets of links that are a menu in disguise (every record a bare link of one or two words
inside the site's header or footer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

from ci_service.intel.boilerplate import is_chrome_element, is_site_frame, page_body
from ci_service.pipeline.html_text import element_text, parse_html

MIN_RECORDS = 3
MAX_RECORD_CHARS = 600  # a record is a card, not a section of prose
NON_TEXT = ("script", "style", "svg", "noscript", "template", "iframe", "canvas", "select")
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_STATE_WORDS = re.compile(
    r"^(?:active|current|selected|first|last|odd|even|visible|hidden|show|open|is-.*|js-.*|"
    r"aos.*|wow|animated|fade.*|delay.*|col-.*|w-\d.*|.*\d.*)$"
)
_NAME_TAGS = ("strong", "b", "a", "dt", "th", "figcaption", "cite")
_QUOTATION = re.compile(r"^\s*[\"“”„«»‘’‚‹›「『]")


@dataclass
class Record:
    name: str
    lines: list[str] = field(default_factory=list)
    link: str = ""
    images: list[str] = field(default_factory=list)
    quoted: bool = False  # holds a quotation: a testimonial or review, not a card about it

    @property
    def text(self) -> str:
        return " ".join([self.name, *self.lines]).strip()


@dataclass
class RecordSet:
    heading: str
    records: list[Record]
    tag: str  # the records' tag: "li", "div", "tr", "article" ...
    # Inside a record of another set: a part of each card (its rating labels, its list of
    # services), not a list of its own.
    nested: bool = False


def _signature(el: Any) -> tuple[str, tuple[str, ...]]:
    words = (el.get("class") or "").split()
    return el.tag, tuple(sorted(w for w in words if not _STATE_WORDS.match(w.lower())))


def block_lines(el: Any) -> list[str]:
    """The element's text as its blocks write it: a line per block-level part."""
    out: list[str] = []
    current: list[str] = []

    def flush() -> None:
        line = " ".join(" ".join(current).split())
        if line:
            out.append(line)
        current.clear()

    def walk(node: Any) -> None:
        if not isinstance(node.tag, str):
            if node.tail:
                current.append(node.tail)
            return
        block = node.tag not in ("a", "span", "strong", "b", "em", "i", "small", "sup", "sub")
        if block:
            flush()
        if node.text:
            current.append(node.text)
        for child in node:
            walk(child)
        if block:
            flush()
        if node.tail:
            current.append(node.tail)

    if el.text:
        current.append(el.text)
    for child in el:
        walk(child)
    flush()
    return out


def _record(el: Any, base: str) -> Record | None:
    if el.tag == "tr" and not el.findall("td"):
        return None  # a table's header row names its columns, it is no record
    lines = block_lines(el)
    images = [" ".join((img.get("alt") or "").split()) for img in el.iter("img")]
    images = [alt for alt in images if alt]
    if not lines and not images:
        return None
    if sum(len(line) for line in lines) > MAX_RECORD_CHARS:
        return None
    name = ""
    for tags in (HEADINGS, _NAME_TAGS):
        # A record that is itself a link (a card in an <a>) is named by what it holds.
        found = next((n for n in el.iter(*tags) if n is not el and element_text(n)), None)
        if found is not None:
            name = element_text(found)
            break
    if not name:
        name = lines[0] if lines else images[0]
    rest = [line for line in lines if line != name]
    anchor = el if el.tag == "a" else next(el.iter("a"), None)
    link = urljoin(base, anchor.get("href") or "") if anchor is not None else ""
    return Record(name, rest, link, images, _quotes(el, lines))


def _quotes(el: Any, lines: list[str]) -> bool:
    """The record quotes somebody: a ``<blockquote>``/``<q>``, or a sentence of several
    words in quotation marks (any language's marks)."""
    if el.tag in ("blockquote", "q") or next(el.iter("blockquote", "q"), None) is not None:
        return True
    return any(_QUOTATION.match(line) and len(line.split()) >= 5 for line in lines)


def _heading_before(el: Any, headings: list[Any], order: dict[Any, int]) -> str:
    """The last heading that starts before ``el`` and is not inside it."""
    position = order[el]
    best = ""
    for heading in headings:
        if order[heading] >= position:
            break
        if el not in heading.iterancestors():
            best = element_text(heading)
    return best


def record_sets(html: str, base: str = "") -> list[RecordSet]:
    """The page's record sets, in document order (see the module's docstring)."""
    doc = parse_html(html)
    if doc is None:
        return []
    root, size = page_body(doc)
    for el in list(root.iter(*NON_TEXT)):
        if el.getparent() is not None:
            el.drop_tree()
    order = {el: i for i, el in enumerate(root.iter())}
    headings = [el for el in root.iter(*HEADINGS) if element_text(el)]
    sets: list[tuple[RecordSet, Any, list[Any]]] = []
    for parent in root.iter():
        if not isinstance(parent.tag, str) or _in_chrome(parent, size):
            continue
        # A heading between siblings starts another set: "Features" cards, then under
        # "Who uses it" audience cards built the same way, are two sets.
        groups: dict[tuple[int, str, tuple[str, ...]], list[Any]] = {}
        part = 0
        for child in parent:
            if not isinstance(child.tag, str):
                continue
            if child.tag in HEADINGS:
                part += 1
            else:
                groups.setdefault((part, *_signature(child)), []).append(child)
        for (_part, tag, _classes), members in groups.items():
            if len(members) < MIN_RECORDS or tag in ("br", "hr", "p", "img", "option"):
                continue
            records = [r for r in (_record(m, base) for m in members) if r is not None]
            if len(records) < MIN_RECORDS:
                continue
            found = RecordSet(_heading_before(members[0], headings, order), records, tag)
            sets.append((found, parent, members))
    members_of = {id(m) for _found, _parent, members in sets for m in members}
    for found, parent, _members in sets:
        found.nested = any(id(node) in members_of for node in (parent, *parent.iterancestors()))
    return [found for found, _parent, _members in sets]


def _in_chrome(el: Any, body_size: int) -> bool:
    for node in (el, *el.iterancestors()):
        if is_chrome_element(node) or is_site_frame(node, body_size):
            return True
    return False
