"""A pricing page's markup as lines (``pricing_html``): the text of each block element
without its nested blocks, inline spans joined with spaces, with its element, classes,
whether it is a heading, bold, listed, inside a link or button, or inside a quotation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ci_service.intel.boilerplate import strip_chrome
from ci_service.intel.feeds import decode_entities
from ci_service.pipeline.pricing.markup_words import (
    GLYPH,
    PLUMBING_CLASS,
    QUOTED_CLASS,
    QUOTED_TAGS,
)
from ci_service.pipeline.pricing.money import is_quoted

BLOCKS = frozenset(
    "p div li ul ol dl dt dd table thead tbody tfoot tr td th h1 h2 h3 h4 h5 h6 section "
    "article main header blockquote pre form fieldset figure figcaption details summary "
    "address center".split()
)
HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
BOLD = frozenset("strong b".split())
# Besides chrome (intel.boilerplate.strip_chrome): code, forms' selects, frames, and struck-out
# prices ("<del>$12</del> $9").
DROP = ("script style svg select iframe del s strike").split()
MAX_LINES = 5000


@dataclass
class Line:
    text: str
    el: Any  # the block element whose own text this is
    heading: bool
    classes: str  # class and id of the block and of the inline elements in the line
    action: bool  # all its text is inside links or buttons
    listed: bool  # a list item, or a line starting with a check mark or bullet
    quoted: bool = False  # inside a testimonial or quotation
    bold: bool = False  # all its text is bold (<strong>, <b>)


def _quoted(el: Any, text: str) -> bool:
    if is_quoted(text):
        return True
    for node in (el, *el.iterancestors()):
        if node.tag in QUOTED_TAGS or QUOTED_CLASS.search(_attrs(node).replace("_", "-")):
            return True
    return False


def _attrs(el: Any) -> str:
    return f"{el.get('class') or ''} {el.get('id') or ''}".strip()


def norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def tree(html: str, skipped: set[str] | None = None) -> Any:
    import lxml.html

    try:
        parser = lxml.html.HTMLParser(encoding="utf-8")  # the markup is decoded text already
        doc = lxml.html.document_fromstring(html.encode("utf-8", "replace"), parser=parser)
    except Exception:  # empty or unparseable markup: no cards
        return None
    body = doc.find("body")
    root = body if body is not None else doc
    root = strip_chrome(root, DROP)
    doomed = [
        el
        for el in root.iterdescendants()
        if isinstance(el.tag, str) and PLUMBING_CLASS.search(_attrs(el).replace("_", "-"))
    ]
    for el in doomed:
        if el.getparent() is not None and el.find(".//h1") is None:
            if skipped is not None:
                skipped.update(norm(line.text) for line in page_lines(el))
            el.drop_tree()
    return root


def page_lines(root: Any) -> list[Line]:
    out: list[Line] = []

    def walk(el: Any, in_action: bool) -> None:
        parts: list[tuple[str, bool, str, bool]] = []

        def flush() -> None:
            # Decoded like the page text (intel.extract), so lines and quotes agree.
            text = decode_entities(" ".join(" ".join(t for t, _a, _c, _b in parts).split()))
            if text and len(out) < MAX_LINES:
                action = all(a for t, a, _c, _b in parts if t.strip())
                classes = " ".join([_attrs(el)] + [c for _t, _a, c, _b in parts if c])
                listed = el.tag in ("li", "dd") or bool(GLYPH.match(text))
                heading = el.tag in HEADINGS or el.tag == "header"
                bold = all(b for t, _a, _c, b in parts if t.strip())
                line = Line(text, el, heading, classes, action, listed, _quoted(el, text), bold)
                out.append(line)
            parts.clear()

        if el.text:
            parts.append((el.text, in_action, "", False))
        for child in el:
            if isinstance(child.tag, str):
                action = in_action or child.tag in ("a", "button")
                if child.tag == "br":
                    flush()
                elif child.tag in BLOCKS or any(
                    isinstance(d.tag, str) and d.tag in BLOCKS for d in child.iterdescendants()
                ):
                    flush()
                    walk(child, action)
                else:
                    bold = child.tag in BOLD
                    parts.append((child.text_content(), action, _attrs(child), bold))
            if child.tail:
                parts.append((child.tail, in_action, "", False))
        flush()

    walk(root, False)
    return out
