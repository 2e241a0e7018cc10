"""The excerpt a search result shows: ``width`` characters of the text, whitespace runs
made single spaces, starting a third of the width before the first case-insensitive
match of the needle, with an ellipsis on each side that was cut.

Every result of ``/api/search`` carries one or two (issue 31: making them from whole
texts was a fifth of a search's CPU). ``excerpt`` is defined by ``_whole_text``, which
flattens the whole text; ``_around_match`` gives the same string from the neighbourhood
of the match alone, when it can tell that it does (ASCII text and needle, single spaces
between the needle's words, enough text on each side), and None otherwise.
"""

from __future__ import annotations

import functools
import re

ELLIPSIS = "…"


def excerpt(text: str | None, needle: str, width: int = 120) -> str:
    text = text or ""
    if text.isascii() and needle.isascii():
        found = _around_match(text, needle, width)
        if found is not None:
            return found
    return _whole_text(text, needle, width)


def _whole_text(text: str, needle: str, width: int) -> str:
    flat = " ".join(text.split())
    at = flat.casefold().find(needle.casefold())
    if at < 0:
        return flat[:width]
    start = max(0, at - width // 3)
    piece = flat[start : start + width]
    return (ELLIPSIS if start else "") + piece + (ELLIPSIS if start + width < len(flat) else "")


def _around_match(text: str, needle: str, width: int) -> str | None:
    """``_whole_text``'s answer from ``width`` characters each side of the match, or None.

    With ASCII text and needle, ``casefold`` is ``lower`` and keeps every index. The first
    match in the flat text starts where the first match in the text does (``_first_match``)
    and at a character that is not whitespace. The flat text before the match is the
    flattened text before it (plus one space when a word ends there), and after it the
    flattened rest: a window of either, flattened, is a part of that, exact where it
    reaches the end of the text or holds enough characters."""
    raw_at = _first_match(text, needle)
    if raw_at is None:
        return None
    before_chars = width // 3
    # The flat text up to the match (a suffix of it, if the window starts late).
    window_start = max(0, raw_at - width)
    prefix = text[window_start:raw_at]
    before = " ".join(prefix.split())
    if before and prefix[-1].isspace():
        before += " "  # the word before, then one space, then the match's word
    if window_start > 0 and len(before) <= before_chars:
        return None  # whitespace runs: not enough of it in the window
    cut = window_start > 0 or len(before) > before_chars  # the excerpt starts after 0
    head = before[-before_chars:] if cut else before
    shown = width - len(head)
    # The flat text from the match on (a prefix of it, if the window stops short).
    window_end = raw_at + width + 1  # one more than shown at most: is there more?
    after = " ".join(text[raw_at:window_end].split())
    more = len(after) > shown
    if not more and window_end < len(text):
        return None
    return (ELLIPSIS if cut else "") + head + after[:shown] + (ELLIPSIS if more else "")


def _first_match(text: str, needle: str) -> int | None:
    """Where the first match of ``needle`` in the flat text begins in ``text`` (ASCII
    both); None when there is none, or when ``needle`` has whitespace other than single
    spaces between its words (both left to ``_whole_text``). A word matches where it is;
    words with single spaces between them match in the flat text exactly where they stand
    in the text with any whitespace between them."""
    words = needle.split()
    if " ".join(words) != needle:
        return None
    if len(words) == 1:
        at = text.lower().find(needle.lower())
        return at if at >= 0 else None
    found = _phrase(needle.lower()).search(text.lower())
    return found.start() if found else None


@functools.lru_cache(maxsize=256)
def _phrase(needle: str) -> re.Pattern:
    return re.compile(r"\s+".join(re.escape(word) for word in needle.split()))
