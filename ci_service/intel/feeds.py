"""RSS and Atom feeds, read with feedparser (imported lazily).

Re-exported by :mod:`ci_service.intel.extract`.
"""

from __future__ import annotations

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


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split())


def _html_to_text(fragment: str) -> str:
    if "<" not in fragment:
        return _one_line(fragment)
    import lxml.html

    try:
        return _one_line(
            lxml.html.fragment_fromstring(fragment, create_parent="div").text_content()
        )
    except Exception:  # not parseable as HTML: strip tags crudely
        return _one_line(re.sub(r"<[^>]*>", " ", fragment))


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
    source = _one_line(parsed.feed.get("title"))
    entries = []
    for entry in parsed.entries[:max_entries]:
        link = urljoin(url, entry.get("link") or "")
        entries.append(
            FeedEntry(
                title=_html_to_text(entry.get("title") or ""),
                url=link if entry.get("link") else "",
                published=_when(entry),
                summary=_html_to_text(entry.get("summary") or ""),
                source=source,
                guid=entry.get("id") or entry.get("link") or "",
            )
        )
    return entries


__all__ = ["MAX_FEED_ENTRIES", "FeedEntry", "parse_feed"]
