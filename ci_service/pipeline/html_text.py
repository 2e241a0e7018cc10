"""Reading a page's markup: :func:`parse_html` (the markup as an lxml document) and
:func:`element_text` (an element's text on one line).

Separate from ``pipeline.site`` so the modules that read markup (``page_kinds``, ``news``,
``article_dates``, the product extractors) need not import the site reader, which itself
imports ``page_kinds`` to classify the pages it reads: every import runs one way (no cycle).
``pipeline.site`` re-exports both names.
"""

from __future__ import annotations

import threading
from typing import Any

_LOCAL = threading.local()


def _parser() -> Any:
    """This thread's parser (an lxml parser is not to be shared between threads)."""
    parser = getattr(_LOCAL, "parser", None)
    if parser is None:
        import lxml.html

        parser = _LOCAL.parser = lxml.html.HTMLParser(encoding="utf-8")
    return parser


def parse_html(html: str) -> Any:
    """A page's markup as an lxml document, or None for empty or unparseable markup (then
    there is nothing more to read than its text). A fresh tree each call: extractors prune
    theirs."""
    import lxml.html

    if not html or not html.strip():
        return None
    try:
        # The text is decoded already: the bytes are UTF-8 whatever the page's own charset
        # declaration says (without saying so, lxml reads undeclared bytes as Latin-1).
        return lxml.html.document_fromstring(html.encode("utf-8", "replace"), parser=_parser())
    except Exception:  # lxml raises several types for markup it cannot read
        return None


def element_text(element: Any) -> str:
    """An element's text on one line, its parts apart ("Feb 19, 2021" "Joe" as two, where
    ``text_content`` would run "title<br>June 2, 2023" together as "titleJune")."""
    return " ".join(" ".join(element.itertext()).split())
