"""RSS and Atom feeds, read with feedparser (imported lazily), and the entity decoding that
feed and page text share.

Re-exported by :mod:`ci_service.intel.extract`.

Titles and summaries are plain text as a reader sees them: feedparser hands them over as
HTML ("We&rsquo;ve", "<p>R&amp;D</p>"), so the markup is removed, its entities decoded,
and then :func:`decode_entities` runs once more over the text, because feed generators
and CMS exports often escape twice ("I&amp;rsquo;m" in the XML is "I&rsquo;m" after the
HTML layer). Nothing stored keeps a raw ``&rsquo;``.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urljoin

from ci_service.intel.errors import ExtractionError
from ci_service.timeutil import plausible_web_date

MAX_FEED_ENTRIES = 500


@dataclass
class FeedEntry:
    """One feed item. ``published`` is UTC (None if undated); ``summary`` is plain text."""

    title: str
    url: str
    published: datetime | None
    summary: str
    source: str
    guid: str


# A character reference with its ";" ("&rsquo;", "&#8217;", "&#x2019;"): without the ";"
# "AT&T" or "Q&As" would be read as entities.
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def _character(match: re.Match[str]) -> str:
    char = html.unescape(match.group(0))
    return " " if char.isspace() else char  # "&nbsp;" in a sentence is its space


def decode_entities(text: str) -> str:
    """``text`` with its HTML character references decoded, once: "I&rsquo;m" is "I’m",
    "R&amp;amp;D" is "R&amp;D" (one layer per call, so text that shows an entity on
    purpose loses only the layer its page added). Unknown names stay as written."""
    if not text or "&" not in text:
        return text or ""
    return _ENTITY.sub(_character, text)


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split())


def _html_to_text(fragment: str) -> str:
    """The text of an HTML fragment: markup removed, entities decoded by the HTML parser,
    then once more for the text a generator escaped twice (see the module docstring)."""
    if not fragment.strip():
        return ""
    import lxml.html

    try:
        text = lxml.html.fragment_fromstring(fragment, create_parent="div").text_content()
    except Exception:  # not parseable as HTML: strip tags crudely, decode the entities
        text = decode_entities(re.sub(r"<[^>]*>", " ", fragment))
    return _one_line(decode_entities(text))


def _entry_text(entry: Any, key: str) -> str:
    """An entry's title or summary as plain text: HTML unless the feed says plain text."""
    value = entry.get(key) or ""
    detail = entry.get(f"{key}_detail") or {}
    if detail.get("type") == "text/plain":
        return _one_line(decode_entities(value))
    return _html_to_text(value)


def _when(entry: Any) -> datetime | None:
    for key in ("published_parsed", "updated_parsed", "created_parsed"):
        # dict.get, not entry.get: feedparser maps a missing "updated_parsed" to
        # "published_parsed" with a DeprecationWarning; the raw keys are what the feed said.
        value = dict.get(entry, key)
        if value:
            try:
                when = datetime(*value[:6], tzinfo=UTC)
            except (TypeError, ValueError):
                continue
            # Year 1 or 9999 is how some feed generators say "no date": unknown, not stored.
            return plausible_web_date(when)
    for key in ("published", "updated", "created"):
        # feedparser gives up on dates without a timezone; naive ones are taken as UTC.
        if when := _raw_date(dict.get(entry, key)):
            return plausible_web_date(when)
    return None


def _raw_date(text: Any) -> datetime | None:
    from email.utils import parsedate_to_datetime

    if not isinstance(text, str) or not text.strip():
        return None
    for parse in (parsedate_to_datetime, datetime.fromisoformat):
        try:
            when = parse(text.strip().replace("Z", "+00:00"))
        except (TypeError, ValueError, IndexError, OverflowError):
            continue
        return when.replace(tzinfo=UTC) if when.tzinfo is None else when
    return None


def parse_feed(data: bytes, url: str, *, max_entries: int = MAX_FEED_ENTRIES) -> list[FeedEntry]:
    """Entries of an RSS or Atom feed, newest first as the feed lists them.

    ``url`` is the feed's own URL, the base for relative links. Raises ExtractionError when
    the bytes are not a feed. Only bytes are accepted: feedparser fetches URLs given as str.
    """
    if not isinstance(data, bytes | bytearray):
        raise TypeError("parse_feed takes the feed's bytes")
    try:
        import feedparser

        parsed = feedparser.parse(bytes(data), response_headers={"content-location": url})
    except Exception as exc:
        raise ExtractionError(f"unreadable feed: {type(exc).__name__}: {exc}") from exc
    if not parsed.get("version") and not parsed.entries:
        problem = parsed.get("bozo_exception")
        raise ExtractionError(f"not an RSS or Atom feed{f': {problem}' if problem else ''}")
    source = _one_line(decode_entities(parsed.feed.get("title") or ""))
    entries = []
    for entry in parsed.entries[:max_entries]:
        link = urljoin(url, entry.get("link") or "")
        entries.append(
            FeedEntry(
                title=_entry_text(entry, "title"),
                url=link if entry.get("link") else "",
                published=_when(entry),
                summary=_entry_text(entry, "summary"),
                source=source,
                guid=entry.get("id") or entry.get("link") or "",
            )
        )
    return entries


__all__ = ["MAX_FEED_ENTRIES", "FeedEntry", "decode_entities", "parse_feed"]
