"""What is sent: the JSON payloads (webhooks) and the rendered messages (Apprise).

Payloads are built when a delivery is created and stored on it, so every retry sends the
same bytes. Apprise messages are rendered from Jinja templates in
``services/templates/alerts`` at send time: Markdown for chat, HTML for e-mail (Apprise
adds the plain-text alternative part). Links are absolute: the ``public_url`` setting plus
the record's page path.
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from ci_service.services.events import event_to_dict
from ci_service.store.events import Event
from ci_service.timeutil import iso

TEMPLATES = Path(__file__).resolve().parent / "templates" / "alerts"
TEST_TYPE = "subscription.test"


def absolute(link: str | None, public_url: str) -> str | None:
    """``public_url`` + a page path; an absolute http(s) link stays as it is."""
    if not link:
        return None
    if link.startswith(("http://", "https://")):
        return link
    return public_url.rstrip("/") + "/" + link.lstrip("/")


def event_payload(event: Event, public_url: str) -> dict[str, Any]:
    """``{type, timestamp, data: {event, url}}`` for one event (see ``services.delivery``)."""
    return {
        "type": event.type,
        "timestamp": iso(event.created_at),
        "data": {"event": event_to_dict(event), "url": absolute(event.link, public_url)},
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

    return Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(enabled_extensions=("html.j2",), default=False),
        undefined=StrictUndefined,
        trim_blocks=False,
        keep_trailing_newline=False,
    )


def _competitor_name(competitor_id: str | None) -> str | None:
    if not competitor_id:
        return None
    from ci_service.store.competitors import Competitor

    row = Competitor.select(Competitor.name).where(Competitor.id == competitor_id).first()
    return row.name if row is not None else None


def digest_title(digest: dict[str, Any]) -> str:
    period = "Weekly" if digest.get("period") == "weekly" else "Daily"
    label = str(digest.get("key", "")).split(":", 1)[-1]
    count = int(digest.get("eventCount", 0))
    return f"{period} digest {label}: {count} change{'s' if count != 1 else ''}"


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
            event=event, url=data.get("url"), competitor_name=name
        )
    return title[:250], body.strip(), body_format


__all__ = ["TEST_TYPE", "absolute", "digest_title", "event_payload", "render", "test_payload"]
