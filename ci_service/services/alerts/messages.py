"""What is sent: the JSON payloads (webhooks) and the rendered messages (Apprise).

Payloads are built when a delivery is created and stored on it, so every retry sends the
same bytes. Apprise messages are rendered from Jinja templates in
``services/templates/alerts`` at send time: Markdown for chat, HTML for e-mail. Links are
absolute: the ``public_url`` setting plus the record's page path.

A message carries the change itself (:func:`change_view`), not only its summary: a page
change's lines (``+`` added, ``−`` removed, at most ``MAX_LINES`` each way, each cut to about
``MAX_LINE_CHARS``), a price change's old → new terms, the verbatim quote of other
competitor changes, and two links: the competitor's page (``data.quoteUrl``, else
``data.url``; http(s) only) and the record in ci-service.

Crawled text is escaped for CommonMark in chat messages (:func:`md`): no link, image,
emphasis, HTML or list made by a page's words, and no ``@everyone``/``@here`` ping. HTML is
autoescaped. Apprise makes an e-mail's text/plain part from the HTML and drops every
``href`` (``apprise.conversion.html.HTMLConverter``; it takes no separate plain-text
body), so the e-mail templates show each URL as its link's text.
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from ci_service.services.alerts.events import absolute_link, event_to_dict
from ci_service.store.events import Event
from ci_service.timeutil import iso

TEMPLATES = Path(__file__).resolve().parent / "templates" / "alerts"
TEST_TYPE = "subscription.test"
MAX_LINES = 5
MAX_LINE_CHARS = 200
MAX_LABEL_CHARS = 60


def absolute(link: str | None, public_url: str) -> str | None:
    """``public_url`` + a page path; an absolute http(s) link stays as it is."""
    return absolute_link(link, public_url)


def event_payload(event: Event, public_url: str) -> dict[str, Any]:
    """``{type, timestamp, data: {event, url}}`` for one event (see ``alerts.delivery``)."""
    return {
        "type": event.type,
        "timestamp": iso(event.created_at),
        "data": {
            "event": event_to_dict(event, public_url),
            "url": absolute(event.link, public_url),
        },
    }


def test_payload(subscription_id: str, now: datetime) -> dict[str, Any]:
    return {
        "type": TEST_TYPE,
        "timestamp": iso(now),
        "data": {
            "subscriptionId": subscription_id,
            "message": "A test message from ci-service: this subscription can be reached.",
        },
    }


@lru_cache(maxsize=1)
def _environment():
    from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(enabled_extensions=("html.j2",), default=False),
        undefined=StrictUndefined,
        trim_blocks=False,
        keep_trailing_newline=False,
    )
    env.filters["md"] = md
    env.filters["mdurl"] = md_url
    env.globals["change_view"] = change_view
    return env


# -- the change itself ---------------------------------------------------------------------

_SPACE = re.compile(r"\s+")
# What makes inline CommonMark: emphasis, code, links and images (no link without "["), raw
# HTML and autolinks ("<"), strikethrough. Parentheses alone make nothing: left as they are.
_MD_INLINE = re.compile(r"([\\`*_\[\]<>~])")
_MD_ENTITY = re.compile(r"&(?=#?[0-9A-Za-z]{1,32};)")
# What makes a block at the start of a line: a list, a heading, a setext underline.
_MD_BLOCK_START = re.compile(r"^(?:([-+=#])|(\d{1,9})([.)]))")
# Chat-wide pings (Discord, Slack, Mattermost, Teams): a page must not notify a channel.
_MENTION = re.compile(r"@(everyone|here|channel|all)\b", re.IGNORECASE)


def one_line(text: Any, limit: int = MAX_LINE_CHARS) -> str:
    """``text`` on one line (whitespace collapsed), cut at a word to about ``limit``."""
    line = _SPACE.sub(" ", str(text or "")).strip()
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    space = cut.rfind(" ")
    if space > limit * 0.7:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


def md(text: Any) -> str:
    """Crawled text as literal CommonMark on one line (see the module docstring)."""
    line = _SPACE.sub(" ", str(text or "")).strip()
    line = _MD_ENTITY.sub("&amp;", _MD_INLINE.sub(r"\\\1", line))
    start = _MD_BLOCK_START.match(line)
    if start:
        if start.group(1):
            line = "\\" + line
        else:
            digits = start.group(2)
            line = f"{digits}\\{line[len(digits) :]}"
    return _MENTION.sub("@\u200b\\1", line)


def safe_url(value: Any) -> str | None:
    """``value`` if it is an absolute http(s) URL without spaces or controls, else None
    (a crawled ``javascript:`` link must never become a link)."""
    if not isinstance(value, str):
        return None
    url = value.strip()
    if not url or any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    return url


def md_url(url: str) -> str:
    """A link destination that no character of ``url`` can end early: parentheses, angle
    brackets, quotes and backslashes percent-encoded (the link still opens the same page)."""
    return quote(url, safe="/:?#&=+%~-._,;@!$*[]")


def url_label(url: str) -> str:
    """A link's text, "globex.example/pricing": host and path, no scheme or fragment."""
    parts = urlsplit(url)
    label = parts.netloc.removeprefix("www.") + parts.path.rstrip("/")
    return one_line(label, MAX_LABEL_CHARS)


def _lines(value: Any) -> tuple[list[str], int]:
    items = [one_line(v) for v in value if str(v or "").strip()] if isinstance(value, list) else []
    return items[:MAX_LINES], max(len(items) - MAX_LINES, 0)


def _terms(plan: Any) -> str | None:
    if not isinstance(plan, dict):
        return None
    from ci_service.services.battlecards.facts import price_terms

    try:
        return price_terms(plan)
    except (TypeError, ValueError):  # an odd stored value: show it rather than fail
        return one_line(plan.get("price"), 40) or None


def change_view(event: dict[str, Any], link: str | None = None) -> dict[str, Any]:
    """What a message shows of ``event`` (a dict as ``events.event_to_dict`` makes it):
    ``added``/``removed`` lines with ``moreAdded``/``moreRemoved`` counts, ``price``
    {plan, old, new} (None for a side that is not listed), ``quote``, ``source`` (their
    page), ``sourceLabel`` and ``link`` (ours, absolute: ``link``, else the event's)."""
    data = event.get("data") if isinstance(event.get("data"), dict) else {}
    added, more_added = _lines(data.get("added"))
    removed, more_removed = _lines(data.get("removed"))
    price = None
    if event.get("type") == "competitor.price_changed":
        price = {
            "plan": one_line(data.get("plan") or "Plan", MAX_LABEL_CHARS),
            "old": _terms(data.get("old")),
            "new": _terms(data.get("new")),
        }
    quote_text = one_line(data.get("quote")) if data.get("quote") else None
    source = safe_url(data.get("quoteUrl")) or safe_url(data.get("url"))
    return {
        "added": added,
        "removed": removed,
        "moreAdded": more_added,
        "moreRemoved": more_removed,
        "price": price,
        "quote": None if added or removed else quote_text,
        "source": source,
        "sourceLabel": url_label(source) if source else None,
        "link": safe_url(link) or safe_url(event.get("link")),
    }


def _competitor_name(competitor_id: str | None) -> str | None:
    if not competitor_id:
        return None
    from ci_service.store.competitors import Competitor

    row = Competitor.select(Competitor.name).where(Competitor.id == competitor_id).first()
    return row.name if row is not None else None


def _minute(stamp: Any) -> str:
    """ "2026-11-24 09:30 UTC" of an ISO time ("" when there is none)."""
    text = str(stamp or "")
    return f"{text[:10]} {text[11:16]} UTC" if len(text) >= 16 else text


def digest_title(digest: dict[str, Any]) -> str:
    count = int(digest.get("eventCount", 0))
    changes = f"{count} change{'s' if count != 1 else ''}"
    kind, _, label = str(digest.get("key", "")).partition(":")
    if kind == "now":  # on demand: the time span it covers, not its key
        start, end = _minute(digest.get("start")), _minute(digest.get("end"))
        return f"Digest {start} to {end}: {changes}"
    period = "Weekly" if digest.get("period") == "weekly" else "Daily"
    return f"{period} digest {label}: {changes}"


def render(payload: dict[str, Any], *, html: bool) -> tuple[str, str, str]:
    """(title, body, body format) of the Apprise message for a stored payload."""
    env = _environment()
    suffix = "html.j2" if html else "md.j2"
    body_format = "html" if html else "markdown"
    kind = str(payload.get("type", ""))
    data = payload.get("data") or {}
    if kind.startswith("digest."):
        digest = data.get("digest") or {}
        title = digest_title(digest)
        body = env.get_template(f"digest.{suffix}").render(title=title, digest=digest)
    elif kind == TEST_TYPE:
        title = "ci-service test message"
        body = env.get_template(f"test.{suffix}").render(title=title, message=data.get("message"))
    else:
        event = data.get("event") or {}
        name = _competitor_name(event.get("competitorId"))
        title = f"[{name}] {event.get('title', '')}" if name else str(event.get("title", ""))
        body = env.get_template(f"event.{suffix}").render(
            event=event, view=change_view(event, data.get("url")), competitor_name=name
        )
    return title[:250], body.strip(), body_format


__all__ = [
    "TEST_TYPE",
    "absolute",
    "change_view",
    "digest_title",
    "event_payload",
    "md",
    "render",
    "safe_url",
    "test_payload",
]
