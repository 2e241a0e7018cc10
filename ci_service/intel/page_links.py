"""The links of a page's markup: where it links (``<a>``, image maps, pagination, and
cards or buttons scripted to navigate), with each link's text and whether it sits in the
site's menu, and the feeds it names."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urldefrag, urljoin

FEED_TYPES = frozenset({"application/rss+xml", "application/atom+xml", "application/feed+json"})
_SKIP_SCHEMES = ("javascript:", "mailto:", "tel:", "data:", "sms:", "ftp:")


@dataclass
class Link:
    url: str
    text: str
    # In the page's menu (a nav, header or menu element): the site's own list of its main
    # pages, whatever their labels say.
    menu: bool = False


_MENU_MARKS = re.compile(r"(?:^|[\s_-])(?:nav|navbar|navigation|menu|menubar|header)(?:$|[\s_-])")


def _in_menu(anchor: Any) -> bool:
    for el in anchor.iterancestors():
        if el.tag in ("nav", "header") or el.get("role") in ("navigation", "menubar"):
            return True
        if _MENU_MARKS.search(f"{el.get('class', '')} {el.get('id', '')}".lower()):
            return True
    return False


# Where else a page links (cards and buttons scripted to navigate, image maps, pagination):
# the target URL in an attribute, or in a script's "location = '...'" / "open('...')".
_LINK_ATTRIBUTES = ("data-href", "data-url", "data-link", "data-target-url", "formaction")
_SCRIPTED_URL = re.compile(
    r"(?:location(?:\.href)?\s*=|location\.(?:assign|replace)\s*\(|open\s*\()\s*"
    r"[\"']([^\"']+)[\"']"
)


def _link_targets(doc: Any) -> Iterator[tuple[Any, str]]:
    """(element, raw URL) of every link on the page, ``<a>`` first."""
    for tag in ("a", "area"):
        for el in doc.iter(tag):
            yield el, el.get("href") or ""
    for el in doc.iter():
        if not isinstance(el.tag, str):
            continue
        for name in _LINK_ATTRIBUTES:
            if el.get(name):
                yield el, el.get(name)
        if script := el.get("onclick"):
            if found := _SCRIPTED_URL.search(script):
                yield el, found.group(1)
    for el in doc.iter("link"):
        if {"next", "prev"} & set((el.get("rel") or "").lower().split()):
            yield el, el.get("href") or ""


# Two parts of a label in separate elements with nothing between them ("<b>News</b><span>Our
# updates</span>"): a style sets them apart on screen, so a lower-case letter or digit meeting
# a capital across the element boundary is two words.
_GLUED = re.compile(r"[a-z0-9)]$")


def label_text(element: Any) -> str:
    """A link's or label's text on one line, its parts apart where elements run a word into
    a capital ("NewsOur updates" -> "News Our updates")."""
    out = ""
    for piece in element.itertext():
        if out and piece[:1].isupper() and _GLUED.search(out):
            out += " "
        out += piece
    return " ".join(out.split())


def page_links(doc: Any, base: str) -> tuple[list[Link], list[str]]:
    links: dict[str, Link] = {}
    for element, raw in _link_targets(doc):
        href = raw.strip()
        if not href or href.startswith("#") or href.lower().startswith(_SKIP_SCHEMES):
            continue
        url = urldefrag(urljoin(base, href))[0]
        if url.startswith(("http://", "https://")) and url not in links:
            text = label_text(element) if element.tag != "link" else ""
            links[url] = Link(url, text, _in_menu(element))
    feeds: list[str] = []
    for link in doc.iter("link"):
        rel = (link.get("rel") or "").lower().split()
        kind = (link.get("type") or "").split(";")[0].strip().lower()
        href = (link.get("href") or "").strip()
        if "alternate" in rel and kind in FEED_TYPES and href:
            url = urldefrag(urljoin(base, href))[0]
            if url not in feeds:
                feeds.append(url)
    return list(links.values()), feeds
