"""Boilerplate is not evidence: the text a site repeats around its content.

trafilatura already keeps a page's main content, but real sites leak chrome into it (a
"Toggle navigation Home Pricing Resources ..." line, a cookie banner, a footer blurb). Two
passes remove what is left, so no quote, feature, claim or evidence excerpt is built from it:

Per page (:func:`drop_page_boilerplate`, run by ``extract_html``), a line is dropped when it is
- site chrome on its own: "Toggle navigation", "Skip to content", "Menu", "Back to top" ...,
  or a call to action alone on its line ("Get started for free →", "Book a demo");
- a cookie or consent banner line ("We use cookies ...", "Accept all cookies");
- a navigation line: it holds three or more of the page's link texts and little else (at
  most a quarter of its words, or two words, are not link text).

Per site (:func:`drop_repeated_lines`, run once a crawl is done), a line that appears on at
least half of the site's pages (and on three or more, on sites of four pages or more) is
dropped from every page: menus, footers, newsletter boxes and "about us" blurbs that the
page-level rules let through. A section heading is kept unless its section is left empty.

Both passes only remove whole lines, so what is left is verbatim page text and a quote
found in it is found in the page.

In the markup (:func:`strip_chrome`, :func:`is_chrome_element`, used by extraction and by
the extractors that read a page's structure), chrome is ``<nav>``, ``<footer>``,
``<aside>``, dialogs, elements whose role is navigation, contentinfo, search, dialog or
menu, hidden ones, and elements with a class or id token such as nav, navbar, menu,
footer, cookie, consent, breadcrumb, sidebar, modal or popup (:data:`CHROME_WORDS`); none
that holds the h1 or half the page's text. The site's ``<header>``/``<footer>``
(:func:`is_site_frame`) is chrome unless broken markup left the page inside it (it holds the
h1 or most of the text).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

MIN_NAV_LINKS = 3
MIN_PAGES_FOR_REPEATS = 4
REPEATED_SHARE = 0.5
MAX_LINK_TEXT_WORDS = 8

_CHROME = re.compile(
    r"^(?:toggle navigation|skip to (?:main )?content|skip navigation|(?:open |close )?menu|"
    r"main menu|navigation|close|back to top|scroll to top|go to top|search|search for|"
    r"[×✕☰]|show more|load more)$",
    re.IGNORECASE,
)
# Calls to action on their own line: buttons, not statements ("Contact sales" is kept: on a
# pricing page it is what a plan costs).
_CALL_TO_ACTION = re.compile(
    r"^(?:get started|start(?: your)? free trial|start for free|try(?: it)?(?: for)? free|"
    r"sign ?up|log ?in|sign ?in|book a demo|request a demo|schedule a demo|get a demo|"
    r"learn more|read more|see more|find out more|discover more|watch(?: the)? video|"
    r"download(?: now)?|subscribe|join now|explore)(?: for free| now| today| here)?$",
    re.IGNORECASE,
)
_COOKIES = re.compile(
    r"\b(?:we use cookies|(?:this|our) (?:web ?site|site) uses cookies|use of cookies|"
    r"cookie (?:policy|settings|preferences|consent)|accept (?:all )?cookies|"
    r"(?:allow|reject|decline) (?:all )?cookies|by (?:continuing|clicking|using)[^.]{0,80}"
    r"(?:cookies|agree))",
    re.IGNORECASE,
)
_WORD = re.compile(r"\w+(?:['’.-]\w+)*")
CHROME_TAGS = frozenset("nav footer aside dialog noscript template".split())
CHROME_ROLES = frozenset("navigation contentinfo search dialog menu menubar".split())
# Class or id words (whole tokens, "_" read as "-") sites name their chrome with. Tokens,
# not substrings: "u-header--left-aligned-nav" may wrap the whole page.
CHROME_WORDS = frozenset(
    "nav navbar navigation menu menubar main-nav site-nav footer site-footer cookie cookies "
    "cookie-banner cookie-consent cookiealert consent gdpr breadcrumb breadcrumbs sidebar "
    "modal popup offcanvas skip-link".split()
)


def marks(el: Any) -> str:
    """An element's class and id, the words sites name their chrome with."""
    return f"{el.get('class', '')} {el.get('id', '')}"


def is_chrome_element(el: Any) -> bool:
    """Navigation, footer, sidebar, dialog, banner or hidden element (see the module doc)."""
    if not isinstance(el.tag, str):
        return False
    if el.tag in CHROME_TAGS or el.get("role") in CHROME_ROLES:
        return True
    if el.get("aria-hidden") == "true":
        return True
    return any(token in CHROME_WORDS for token in marks(el).replace("_", "-").lower().split())


def strip_chrome(root: Any, extra_tags: Iterable[str] = ()) -> Any:
    """Remove chrome elements (and ``extra_tags``) from ``root`` in place; returns it.
    The text after a removed element (its tail) belongs to its parent and stays."""
    extra = frozenset(extra_tags)
    size = len(root.text_content())
    doomed = [
        el
        for el in root.iter()
        if isinstance(el.tag, str) and (el.tag in extra or is_chrome_element(el))
    ]
    for el in doomed:
        if el.getparent() is None:
            continue
        # Broken markup or a misleading class can wrap the content itself: an element
        # holding the h1 or half the text is kept.
        if el.tag not in extra and (
            el.find(".//h1") is not None or len(el.text_content()) > size / 2
        ):
            continue
        el.drop_tree()
    return root


def page_body(doc: Any) -> tuple[Any, int]:
    """A parsed page's ``<body>`` (the document when it has none) and the length of its
    text: what :func:`is_site_frame` weighs a header or footer against."""
    body = doc.find("body")
    root = body if body is not None else doc
    return root, len(root.text_content())


def is_site_frame(el: Any, body_size: int) -> bool:
    """The site's own ``<header>`` or ``<footer>`` (not an article's): chrome, unless broken
    markup left the page's content inside it (it holds the h1 or half the body's text)."""
    if el.tag not in ("header", "footer") or any(a.tag == "article" for a in el.iterancestors()):
        return False
    return el.find(".//h1") is None and len(el.text_content()) < body_size / 2


def _norm(text: str) -> str:
    return " ".join(_WORD.findall(text.casefold()))


def is_chrome_line(line: str) -> bool:
    """Site chrome or a cookie banner line."""
    norm = _norm(line)
    if not norm:
        return False
    if _CHROME.match(norm) or _CALL_TO_ACTION.match(norm):
        return True
    return bool(_COOKIES.search(line)) and len(norm.split()) <= 80


def is_navigation_line(line: str, link_texts: Iterable[str]) -> bool:
    """A line made of three or more link texts of the page and little else."""
    return _is_navigation(line, _link_texts(link_texts))


def _is_navigation(line: str, link_texts: set[str]) -> bool:
    padded = f" {_norm(line)} "
    words = len(padded.split())
    if words < MIN_NAV_LINKS:
        return False
    found = 0
    # Longest first, so "Pricing plans" is taken before "Pricing".
    for text in sorted(set(link_texts), key=len, reverse=True):
        if f" {text} " in padded:
            padded = padded.replace(f" {text} ", " | ", 1)
            found += 1
    if found < MIN_NAV_LINKS:
        return False
    rest = len([w for w in padded.split() if w != "|"])
    return rest <= max(2, words // 4)


def _link_texts(link_texts: Iterable[str]) -> set[str]:
    out = set()
    for text in link_texts:
        norm = _norm(text)
        if norm and len(norm.split()) <= MAX_LINK_TEXT_WORDS:
            out.add(norm)
    return out


def _keep_lines(text: str, drop: Any) -> str:
    return "\n".join(line for line in text.splitlines() if line.strip() and not drop(line))


def drop_page_boilerplate(sections: Sequence[Any], link_texts: Iterable[str]) -> list[Any]:
    """``sections`` (objects with ``heading``, ``level``, ``text``) without chrome, cookie
    and navigation lines; a section left with neither text nor a real heading is dropped."""
    texts = _link_texts(link_texts)

    def drop(line: str) -> bool:
        return is_chrome_line(line) or _is_navigation(line, texts)

    out = []
    for section in sections:
        section.text = _keep_lines(section.text, drop)
        if section.level and section.heading and drop(section.heading):
            if not section.text:
                continue
            section.heading = ""
        if section.text or (section.level and section.heading):
            out.append(section)
    return out


def section_text(sections: Iterable[Any]) -> str:
    """A page's text from its sections: each heading (of level 1+) above its text."""
    return "\n\n".join(
        "\n".join(part for part in (s.heading if s.level else "", s.text) if part) for s in sections
    ).strip()


def repeated_lines(pages: Sequence[Any]) -> set[str]:
    """Normalised lines that appear on at least half of ``pages`` (objects with
    ``sections``); empty for sites of fewer than ``MIN_PAGES_FOR_REPEATS`` pages."""
    if len(pages) < MIN_PAGES_FOR_REPEATS:
        return set()
    counts: Counter[str] = Counter()
    for page in pages:
        lines = {
            _norm(line)
            for section in page.sections
            for line in section.text.splitlines()
            if line.strip()
        }
        counts.update(line for line in lines if line)
    threshold = max(3, math.ceil(REPEATED_SHARE * len(pages)))
    return {line for line, count in counts.items() if count >= threshold}


def drop_repeated_lines(pages: Sequence[Any]) -> int:
    """Remove :func:`repeated_lines` from every page's sections and text (pages with
    ``sections`` and ``text``); returns how many lines were removed."""
    repeated = repeated_lines(pages)
    if not repeated:
        return 0
    removed = 0
    for page in pages:
        kept = []
        for section in page.sections:
            lines = [line for line in section.text.splitlines() if line.strip()]
            left = [line for line in lines if _norm(line) not in repeated]
            removed += len(lines) - len(left)
            section.text = "\n".join(left)
            if section.text or (section.level and section.heading and not lines):
                kept.append(section)
        page.sections = kept
        page.text = section_text(kept)
    return removed


__all__ = [
    "CHROME_WORDS",
    "drop_page_boilerplate",
    "drop_repeated_lines",
    "is_chrome_element",
    "is_chrome_line",
    "is_site_frame",
    "page_body",
    "is_navigation_line",
    "repeated_lines",
    "section_text",
    "strip_chrome",
]
