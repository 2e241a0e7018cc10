"""Offerings read from the lists of a page named for what the company offers.

A practice, an agency or a workshop often lists its services as plain bullet points on one
page ("Leistungen", "Services", "Behandelingen") rather than as cards. On a page below the
home page whose address or title names its offerings (``grids.names_offerings``), each
item of a list in the page's content (not its menus, header, footer or sidebars) is an
offering, named by the item up to its first bracket, comma, colon or dash, when that name
is a name (one to six words, not a price, a date or a call to action). A list needs three
or more items, two thirds of them short (ten words or fewer): a list of long lines is
prose.
A list under a heading or an intro line about benefits, steps, questions, prices,
customers or partners (``grids.NOT_OFFERINGS``), or under a question ("Warum zu uns?"), is
never one, nor is a list of links to
other sites (a menu or a directory), nor the items that are themselves sub-headings
("Prevention:").
"""

from __future__ import annotations

import re
from typing import Any

from ci_service.intel.boilerplate import is_chrome_element, is_site_frame, page_body
from ci_service.pipeline.html_text import element_text, parse_html
from ci_service.pipeline.products.names import name_ok

MIN_ITEMS = 3
SHORT_ITEM = 10  # words: a longer item is a sentence about the service, not its name
_NAME_END = re.compile(r"\s*(?:[(,:;]|\s[–—-]\s)")
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def _in_chrome(el: Any, body_size: int) -> bool:
    return any(
        is_chrome_element(a) or is_site_frame(a, body_size) for a in (el, *el.iterancestors())
    )


def _intro(lst: Any) -> str:
    """The heading or the line just before the list ("Our treatments:")."""
    node = lst.getprevious()
    for _ in range(3):
        if node is None:
            break
        text = element_text(node)
        if text:
            return text
        node = node.getprevious()
    parent = lst.getparent()
    heading = (
        next((h for h in parent.iterchildren(*_HEADINGS)), None) if parent is not None else None
    )
    return element_text(heading) if heading is not None else ""


def _name(item: str) -> str:
    return _NAME_END.split(item, maxsplit=1)[0].strip(" .•·-")


def service_list_items(html: str, not_offerings: re.Pattern[str]) -> list[tuple[str, str]]:
    """(name, item) of every offering the page's lists give (see the module docstring)."""
    doc = parse_html(html)
    if doc is None:
        return []
    body, size = page_body(doc)
    out: list[tuple[str, str]] = []
    for lst in body.iter("ul", "ol"):
        if _in_chrome(lst, size) or any(a.tag in ("ul", "ol", "li") for a in lst.iterancestors()):
            continue
        items = [element_text(li) for li in lst.iterchildren("li")]
        items = [i for i in items if i]
        short = [i for i in items if len(i.split()) <= SHORT_ITEM]
        if len(items) < MIN_ITEMS or len(short) * 3 < len(items) * 2:
            continue
        intro = _intro(lst)
        if not_offerings.search(intro) or intro.rstrip().endswith("?"):
            continue  # "Why us?", "Warum zu uns?": reasons, not services
        outbound = [a for a in lst.iter("a") if (a.get("href") or "").startswith(("http", "//"))]
        if len(outbound) * 2 >= len(items):
            continue  # links to other sites: a directory or a menu
        for item in items:
            name = _name(item)
            if name and not item.endswith(":") and name_ok(name):
                out.append((name, item))
    return out
