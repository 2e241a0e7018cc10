"""``Retry-After``, read the same way by the crawler and by webhook delivery; apart from
the fetcher so that delivery's rules do not import httpx with it (issue 31: start-up)."""

from __future__ import annotations

import time
from email.utils import parsedate_to_datetime


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """``Retry-After`` as seconds from now (delta-seconds or an HTTP date), None if absent
    or unreadable (also used by webhook delivery)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))
