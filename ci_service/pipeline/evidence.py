"""Citations: every structured fact keeps the sentence it came from and the evidence item
that holds it.

A fact extractor reads a page's ``text`` (boilerplate already removed, so it is exactly the
stored evidence content) and returns a :class:`Cite` per fact: the page URL and the
*verbatim* sentence (or table row, list line) that states it. After the snapshot is
recorded, :class:`EvidenceMap` knows the evidence id of every source URL, and
:meth:`EvidenceMap.resolve` turns a Cite into the stored form::

    {"evidenceId": "...", "quote": "We are headquartered in Leeds, UK.",
     "url": "https://example.com/company/#:~:text=We%20are%20headquartered..."}

``url`` is the page URL with a text fragment (``#:~:text=start,end``, the WICG "URL
Fragment Text Directives" syntax browsers implement), so one click opens the page scrolled
to the sentence. A Cite whose source has no evidence item, or whose quote is not found in
the evidence content, resolves to None: a fact without checkable evidence is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote as percent_quote
from urllib.parse import urldefrag

MAX_QUOTE = 400
# A text directive's start/end must be percent-encoded, including the characters the
# directive syntax itself uses ("-", "," and "&").
_DIRECTIVE_SAFE = ""
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'“(\[]?[A-Z0-9£$€])")
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Cite:
    """A fact's source: the page (or document section, or news item) URL and the exact
    sentence there that states it."""

    url: str
    quote: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "quote", " ".join(self.quote.split())[:MAX_QUOTE])


def sentences(text: str) -> list[str]:
    """Lines of ``text`` split into sentences (verbatim: each is a substring of a line)."""
    out: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if line:
            out.extend(part.strip() for part in _SENTENCE_END.split(line) if part.strip())
    return out


def sentence_at(text: str, start: int, end: int | None = None) -> str:
    """The sentence of ``text`` that contains the character span ``[start, end)``.

    Sentences end at ., ! or ? followed by a space and a capital, or at a line break; the
    result is verbatim (whitespace runs collapsed by the caller's Cite)."""
    end = start if end is None else end
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    line = text[line_start:line_end]
    offset = 0
    for part in _SENTENCE_END.split(line):
        where = line.find(part, offset)
        if where <= start - line_start <= where + len(part):
            if where + len(part) >= end - line_start:
                return part.strip()
        offset = where + len(part)
    return line.strip()


def cite_match(url: str, text: str, match: re.Match[str]) -> Cite:
    """A Cite for a regex match over ``text``: the sentence holding the match."""
    return Cite(url, sentence_at(text, match.start(), match.end()))


def _normalized(text: str) -> str:
    return " ".join(text.split()).casefold()


def quote_in(text: str, quote: str) -> bool:
    """Whether ``quote`` occurs in ``text`` (whitespace and case insensitive)."""
    return bool(quote.strip()) and _normalized(quote) in _normalized(text)


def fragment_url(url: str, quote: str) -> str:
    """``url`` with a text fragment that selects ``quote`` (first and last words for a long
    quote, as ``#:~:text=start,end``)."""
    base = urldefrag(url)[0] if "#:~:" not in url else url.split("#:~:", 1)[0]
    words = _WORD.findall(quote)
    if not words:
        return base
    if len(words) <= 8:
        directive = _encode(" ".join(words))
    else:
        directive = f"{_encode(' '.join(words[:4]))},{_encode(' '.join(words[-4:]))}"
    return f"{base}#:~:text={directive}"


def _encode(part: str) -> str:
    # quote() always leaves "-" alone; the directive syntax reserves it (prefix-/-suffix).
    return percent_quote(part, safe=_DIRECTIVE_SAFE).replace("-", "%2D")


class EvidenceMap:
    """Source URL -> (evidence id, content) of the items a snapshot was recorded as."""

    def __init__(self) -> None:
        self._items: dict[str, tuple[str, str]] = {}

    def add(self, url: str, evidence_id: str, content: str) -> None:
        self._items[url] = (evidence_id, content)

    def __contains__(self, url: str) -> bool:
        return url in self._items

    def __len__(self) -> int:
        return len(self._items)

    def evidence_id(self, url: str) -> str | None:
        found = self._items.get(url)
        return found[0] if found else None

    def resolve(self, cite: Cite | None) -> dict[str, Any] | None:
        """The stored form of ``cite`` ({evidenceId, quote, url}), or None when its source
        was not recorded or the quote is not in the recorded content."""
        if cite is None or not cite.quote:
            return None
        found = self._items.get(cite.url)
        if found is None:
            return None
        evidence_id, content = found
        if not quote_in(content, cite.quote):
            return None
        url = fragment_url(cite.url, cite.quote)
        return {"evidenceId": evidence_id, "quote": cite.quote, "url": url}

    def resolve_all(self, cites: Iterable[Cite | None]) -> list[dict[str, Any]]:
        out, seen = [], set()
        for cite in cites:
            resolved = self.resolve(cite)
            if resolved and (resolved["evidenceId"], resolved["quote"]) not in seen:
                seen.add((resolved["evidenceId"], resolved["quote"]))
                out.append(resolved)
        return out

    @classmethod
    def for_owner(cls, workspace_id: str, **owner: Any) -> EvidenceMap:
        """The latest evidence item per source URL of an owner (``competitor_id=...`` or
        ``offering_id=...``), for steps that run without the snapshot's record stats."""
        from ci_service.store.intel import IntelItem

        query = IntelItem.select(IntelItem.id, IntelItem.url, IntelItem.content).where(
            IntelItem.workspace == workspace_id, IntelItem.type == "EVIDENCE"
        )
        if owner.get("competitor_id"):
            query = query.where(IntelItem.competitor == owner["competitor_id"])
        if owner.get("offering_id"):
            query = query.where(IntelItem.offering == owner["offering_id"])
        mapping = cls()
        for row in query.order_by(IntelItem.seq):
            mapping.add(row.url, row.id, row.content)  # later rows win: the latest version
        return mapping
