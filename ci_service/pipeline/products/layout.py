"""The structure of a page's HTML that products and features are read from.

:func:`menus` finds the site's menus: an element whose own text is "Product(s)",
"Platform(s)", "Solution(s)" or "Feature(s)" (a nav item, a dropdown button, a footer
column heading) and the links of the nearest enclosing ``li``/``details``/column that holds
other links; a menu never spans a whole ``ul``, ``nav``, ``header`` or ``footer`` (that is
the navigation bar, not one of its menus). A label without such links is a single link
("Product" -> /product), the company's one product page.

:func:`blocks` renders the page content as ordered blocks (headings, texts, list items,
standalone links), skipping scripts, ``nav``, ``footer``, the site header (a ``header``
holding a ``nav``), ``aside``, forms, blockquotes, ``time`` and elements whose class or id
says cookie, consent, testimonial, quote, review, newsletter, breadcrumb, modal or popup,
or (as a word or word part) comment, byline, author, meta, share, related or footer; never
the body or an element holding the h1. A table's header cell heads its column's links.
:func:`cards` groups them: a heading and what follows it up to the next heading, with the
closest higher-level heading before it as its ``group``.

Parsing never raises: unreadable markup gives no menus and no blocks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

from ci_service.intel.boilerplate import is_chrome_element, is_site_frame, marks, page_body
from ci_service.intel.page_links import label_text
from ci_service.pipeline.html_text import parse_html

# The labels of menus that list what the company offers, in several languages.
MENU_LABEL = re.compile(
    r"^(?:our\s+)?(products?|platforms?|solutions?|features?|services?|treatments?|"
    r"leistungen|dienstleistungen|angebot|produkte|lösungen|behandlungen|prestations|produits|"
    r"servicios|productos|soluciones|servizi|prodotti|soluzioni|diensten|producten|"
    r"oplossingen|behandelingen|tjänster|produkter|lösningar|tjenester|løsninger|serviços|"
    r"produtos|soluções)$",
    re.IGNORECASE,
)
_LABEL_TAGS = frozenset("a button span summary strong b p label h2 h3 h4 h5 h6 div".split())
_CONTAINER_STOP = frozenset("ul ol nav header footer body html main".split())
_MENU_CLASS = re.compile(r"dropdown|menu|mega|submenu|flyout|column|col\b", re.IGNORECASE)
MAX_MENU_LINKS = 30
# Besides chrome (intel.boilerplate): code, forms, quotations (testimonials are not features),
# dates; and the parts of a post or shop page around its content: comments, bylines, post
# meta, share buttons, related items, page-builder footers (by class/id word or word part,
# e.g. "comment-respond", "entry-meta", "builder-location-footer").
_SKIP_TAGS = frozenset("script style svg form select blockquote q iframe time".split())
_SKIP_CLASS = re.compile(r"testimonial|quote|review|newsletter|banner-top", re.IGNORECASE)
_SKIP_WORDS = frozenset(
    """comment comments respond reply byline author meta postmeta entry-meta post-meta
    share sharing sharedaddy social related upsells cross-sells tags tagcloud footer""".split()
)
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_TEXT_TAGS = frozenset("p dd dt td th figcaption address pre".split())
_ITEM_TAGS = frozenset(("li",))
_BLOCK_TAGS = frozenset(
    """address article aside dd div dl dt figcaption figure footer form h1 h2 h3 h4 h5 h6
    header hr li main ol p pre section table tbody td th thead tr ul nav""".split()
)
_SKIP_SCHEMES = ("javascript:", "mailto:", "tel:", "data:", "sms:", "#")


@dataclass
class Menu:
    label: str  # "Products", "Platform", ...
    url: str  # the label's own link ("" when it is a button)
    items: list[tuple[str, str]] = field(default_factory=list)  # (url, text)


@dataclass
class Block:
    kind: str  # heading, text, item, link
    text: str
    level: int = 0  # headings: 1-6
    links: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Card:
    heading: str
    level: int
    group: str  # the closest higher-level heading before this one
    texts: list[str] = field(default_factory=list)
    items: list[str] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split())


def _href(el: Any, base: str) -> str:
    href = (el.get("href") or "").strip()
    if not href or href.lower().startswith(_SKIP_SCHEMES):
        return ""
    try:
        url = urldefrag(urljoin(base, href))[0]
    except ValueError:  # a malformed URL (bad IPv6 literal, ...) is no link
        return ""
    return url if url.startswith(("http://", "https://")) else ""


def _links_in(el: Any, base: str) -> list[tuple[str, str]]:
    out = []
    anchors = [el] if el.tag == "a" else []
    for anchor in anchors + list(el.iter("a")):
        url = _href(anchor, base)
        if url:
            out.append((url, label_text(anchor)))
    return list(dict.fromkeys(out))


# -- menus -----------------------------------------------------------------------------------


def _menu_container(label_el: Any) -> Any:
    """The nearest ancestor (at most four levels up) that is a menu: an ``li``, ``details``
    or dropdown/column element holding links besides the label's."""
    node = label_el
    for _ in range(4):
        node = node.getparent()
        if node is None or not isinstance(node.tag, str) or node.tag in _CONTAINER_STOP:
            return None
        own = set(label_el.iter("a"))
        others = [a for a in node.iter("a") if a not in own and a.get("href")]
        if others:
            return node if len(others) <= MAX_MENU_LINKS else None
        if node.tag in ("li", "details"):
            return None  # a plain nav item: its li holds only the label
    return None


def _column_links(label_el: Any, container: Any, base: str) -> list[tuple[str, str]] | None:
    """A label in a table's header cell heads its column: the links of the cells below it
    (a footer laid out as a table of "Product | Company | Latest" columns). None when the
    label is not in a table cell."""
    cell = next((a for a in label_el.iterancestors("td", "th")), None)
    row = cell.getparent() if cell is not None else None
    if row is None or row.tag != "tr" or container.tag not in ("table", "tbody", "thead"):
        return None
    column = [c for c in row if isinstance(c.tag, str)].index(cell)
    out: list[tuple[str, str]] = []
    for other in container.iter("tr"):
        cells = [c for c in other if isinstance(c.tag, str) and c.tag in ("td", "th")]
        if other is not row and column < len(cells):
            out.extend(_links_in(cells[column], base))
    return out


def menus(html: str, base: str) -> list[Menu]:
    """The Product/Platform/Solutions/Features menus of the page (see module docstring)."""
    doc = parse_html(html)
    if doc is None:
        return []
    found: list[Menu] = []
    seen: set[int] = set()
    try:
        for el in doc.iter(*_LABEL_TAGS):
            text = label_text(el)
            if len(text) > 30 or not MENU_LABEL.match(text):
                continue
            if el.tag == "div" and len(el):  # a wrapper, not the label itself
                continue
            # A label inside a link ("<a><b>Features</b><span>Learn more</span></a>") is
            # that link's: its menu is around the link.
            outer = next(el.iterancestors("a"), None)
            container = _menu_container(outer if outer is not None else el)
            if el.tag == "a":
                label_link = el
            else:
                label_link = outer if outer is not None else next(el.iter("a"), None)
            own_url = _href(label_link, base) if label_link is not None else ""
            if container is None:
                if own_url:
                    found.append(Menu(text, own_url, []))
                continue
            if id(container) in seen:
                continue
            seen.add(id(container))
            links = _column_links(el, container, base)
            items = [
                (url, name)
                for url, name in (_links_in(container, base) if links is None else links)
                if name and not MENU_LABEL.match(name)
            ]
            found.append(Menu(text, own_url, items))
    except (ValueError, RecursionError):  # hostile markup: keep what was read
        pass
    return found


# -- content blocks --------------------------------------------------------------------------


def _skip_marked(el: Any) -> bool:
    """A testimonial, review, comment, byline ... element by its class or id; never the
    body or a wrapper of the content (one that holds the h1)."""
    mark = marks(el)
    tokens = {t for token in mark.lower().split() for t in (token, *re.split(r"[-_]", token))}
    if not (_SKIP_CLASS.search(mark) or tokens & _SKIP_WORDS):
        return False
    return el.tag not in ("body", "html", "main", "article") and el.find(".//h1") is None


def _skipped(el: Any, body_size: int) -> bool:
    if not isinstance(el.tag, str) or el.tag in _SKIP_TAGS or is_chrome_element(el):
        return True
    if el.tag == "header" and el.find(".//nav") is not None:
        return is_site_frame(el, body_size)  # the site header (logo and navigation)
    return _skip_marked(el)


def _has_blocks(el: Any) -> bool:
    return any(isinstance(c.tag, str) and c.tag in _BLOCK_TAGS for c in el.iterdescendants())


def blocks(html: str, base: str) -> list[Block]:
    """The page's content as ordered blocks (see the module docstring)."""
    doc = parse_html(html)
    if doc is None:
        return []
    out: list[Block] = []

    def emit(kind: str, el: Any, text: str, level: int = 0) -> None:
        text = _one_line(text)
        if text:
            out.append(Block(kind, text, level, _links_in(el, base) if el is not None else []))

    def walk(el: Any) -> None:
        if _skipped(el, body_size):
            return
        tag = el.tag
        if tag in _HEADINGS:
            emit("heading", el, el.text_content(), _HEADINGS[tag])
            return
        if not _has_blocks(el):
            if tag in _ITEM_TAGS:
                emit("item", el, el.text_content())
            elif tag == "a":
                emit("link", el, el.text_content())
            elif tag in _TEXT_TAGS or tag in _BLOCK_TAGS:
                emit("text", el, el.text_content())
            else:
                emit("text", el, el.text_content())
            return
        emit("text", None, el.text or "")
        for child in el:
            if isinstance(child.tag, str):
                walk(child)
            emit("text", None, child.tail or "")

    body, body_size = page_body(doc)
    try:
        walk(body)
    except RecursionError:  # absurdly deep markup: keep what was read
        pass
    return out


def cards(items: list[Block]) -> list[Card]:
    """Each heading with the texts, list items and links after it, up to the next heading."""
    found: list[Card] = []
    stack: list[tuple[int, str]] = []  # open headings (level, text)
    current: Card | None = None
    for block in items:
        if block.kind == "heading" and current is not None and _styled_text(current, block):
            # A site that sets every line in heading tags: a sentence right after a short
            # heading of its level is that heading's text.
            current.texts.append(block.text)
            current.links.extend(link for link in block.links if link not in current.links)
            continue
        if block.kind == "heading":
            while stack and stack[-1][0] >= block.level:
                stack.pop()
            group = stack[-1][1] if stack else ""
            current = Card(block.text, block.level, group, links=list(block.links))
            found.append(current)
            stack.append((block.level, block.text))
        elif current is not None:
            if block.kind == "item":
                current.items.append(block.text)
            elif block.kind == "text":
                current.texts.append(block.text)
            current.links.extend(link for link in block.links if link not in current.links)
    return found


def _styled_text(current: Card, block: Block) -> bool:
    """A heading block that is a sentence (it ends like one, or runs to eight words) right
    after a short heading of the same level with nothing under it yet."""
    if current.texts or current.items or current.level != block.level:
        return False
    name = current.heading
    if len(name.split()) > 6 or name.endswith((".", "!", "?", ":", ",")):
        return False
    text = block.text
    return text.endswith((".", "!", "?")) or len(text.split()) >= 8


def same_page(a: str, b: str) -> bool:
    """Whether two URLs name one page (trailing slash, ``index.html``, ``x.html`` for
    ``x/``, query aside)."""

    def key(url: str) -> tuple[str, str]:
        parts = urlsplit(url)
        path = re.sub(r"(?:/index)?\.html?$", "", parts.path or "/").rstrip("/")
        return parts.netloc.lower().removeprefix("www."), path

    return key(a) == key(b)


# -- features --------------------------------------------------------------------------------

FEATURE_HEADING = re.compile(
    r"feature|capabilit|highlight|what you get|what's included|includes|key benefits|"
    r"funkcij|mogu\u0107nost|karakteristik|funktion|fonctionnalit|caracter\u00edstica",
    re.IGNORECASE,
)
BENEFIT_HEADING = re.compile(
    r"\bwhy\b|benefit|advantage|za\u0161to|prednost|warum|vorteil|pourquoi|avantage|"
    r"por qu\u00e9|ventaja",
    re.IGNORECASE,
)
# Card grids under these group headings list audiences, partners or questions, not features.
NOT_FEATURE_GROUP = re.compile(
    r"industr|businesses|customers|clients|partner|who (?:uses|is)|use cases|trusted|loved by|"
    r"testimonial|faq|frequently asked|questions|news|blog|latest|articles|team|people|"
    r"pricing|plans|\bwhy\b|benefit|as seen|featured (?:in|on)|in the press|what .{0,20}say|"
    r"comments?\b|leave a|related|awards",
    re.IGNORECASE,
)
CTA = re.compile(
    r"^(?:(?:learn more|read more|find out more|more about|get started|start (?:now|free|for free|"
    r"your|a free)|book a (?:demo|call)|request a (?:demo|quote)|schedule a demo|get a demo|"
    r"contact (?:us|sales)|talk to (?:us|sales|an expert)|try (?:it |us )?(?:now|free|for free)|"
    r"download now|subscribe|watch (?:the )?(?:demo|video)|join (?:us|now)|view all|"
    r"see (?:all|more|how)|buy now|shop now|let's|lets|review pricing|view (?:products|pricing)"
    r")\b|(?:sign ?(?:up|in)|log ?in|register|download|join|try)\W*$)",
    re.IGNORECASE,
)
BOILERPLATE = re.compile(
    r"cookie|privacy policy|terms of (?:service|use)|all rights reserved|copyright|©|"
    r"newsletter|\bfaqs?\b|frequently asked|→|-->|»",
    re.IGNORECASE,
)
PRICE = re.compile(
    r"[$€£¥]\s?\d|\d\s?(?:usd|eur|gbp)\b|\bper (?:user|seat|month|year)\b|"
    r"/\s?(?:mo|month|yr|year)\b",
    re.IGNORECASE,
)
DATE = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2},? \d{4}\b|"
    r"\b\d{4}-\d{2}-\d{2}\b",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"^[\"“”„'‘’«·•|]")
# A byline, a form field or a post's meta line: "By Jane Doe", "Name (required)",
# "Posted in News", "Leave a comment", "Tags: ...".
_META_LINE = re.compile(
    r"^(?:posted (?:by|in|on)|written by|filed under)\b|^(?:tags?|categor(?:y|ies))\s*:|"
    r"(?-i:^By\s+[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*){0,2}$)|"
    r"\((?:required|optional)\)|^(?:leave a (?:comment|reply)|reply|\d+ comments?)\b",
    re.IGNORECASE,
)
# Site chrome and shop plumbing that menus, footers and shop pages name: never a product or
# feature name on its own.
CHROME_NAMES = frozenset(
    p.strip()
    for p in """reviews, review, related products, related, services, resources, phone,
    telephone, email, e-mail, location, locations, address, website, comment, comments,
    name, message, let's connect, lets connect, get in touch, contact, contact us, glossary,
    getting started, get started, support, help, cart, checkout, basket, payment, payments,
    payment options, shipping, my account, account, wishlist, description,
    additional information, downloads, documentation, docs, faq, faqs, overview, tour, demo,
    videos, login, log in, sign in, sign up, search, home, menu, more, specs, tech specs,
    specifications, technical specifications, applications, gallery, photos, manuals,
    setup, setting up, how it works, where to buy, buy now, shop""".split(",")
)
_NUMBERING = re.compile(r"^\s*(?:\d{1,2}[.)]|0\d|[ivx]{1,4}\.)\s+", re.IGNORECASE)
_SPLIT = re.compile(r"\s*(?::|\s[–—-]\s)\s*")
MIN_GRID = 3


def junk(text: str) -> bool:
    """Boilerplate, a call to action, a price, a date or a quotation: never a feature or
    product name."""
    text = text.strip()
    return bool(
        not text
        or CTA.match(text)
        or BOILERPLATE.search(text)
        or PRICE.search(text)
        or DATE.search(text)
        or _QUOTED.match(text)
        or _META_LINE.search(text)
    )


def chrome_name(name: str) -> bool:
    """Site chrome or shop plumbing as a whole name ("Reviews", "Let's connect", "Cart")."""
    key = " ".join(re.sub(r"[^\w\s'&-]", " ", name.replace("’", "'")).split()).casefold()
    return key in CHROME_NAMES


def strip_numbering(heading: str) -> str:
    return _NUMBERING.sub("", heading).strip()


def feature_name_ok(name: str) -> bool:
    words = name.split()
    return (
        1 <= len(words) <= 8
        and len(name) <= 80
        and not name.endswith("?")
        and not junk(name)
        and not chrome_name(name)
    )


def split_line(line: str) -> tuple[str, str] | None:
    """ "Name: detail" / "Name – detail" / "Name" from a list line; None for junk."""
    line = line.strip(" •·-*\t▪◦")
    if not line or len(line) > 300 or junk(line):
        return None
    parts = _SPLIT.split(line, maxsplit=1)
    name, description = (parts[0], parts[1]) if len(parts) == 2 and parts[0] else (line, "")
    if len(name) > 80:  # a sentence, not a feature name
        name, description = name[:80].rsplit(" ", 1)[0], line
    name = name.strip(" .:")
    return (name, description.strip()) if name and not junk(name) else None
