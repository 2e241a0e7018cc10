"""UTC time helpers: one format for every timestamp the service emits."""

from __future__ import annotations

import logging
import re
from datetime import UTC, date, datetime, timedelta

log = logging.getLogger("ci_service")

# Dates read from the web outside this window are taken as unknown: feeds write the zero
# date (year 1) or year 9999 for "none", and no company news predates the web.
EARLIEST_WEB_DATE = datetime(1990, 1, 1, tzinfo=UTC)
FUTURE_SLACK = timedelta(days=2)
_STORED = re.compile(r"^(\d{1,4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?Z?$")
_logged: set[str] = set()


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso(value: datetime | None) -> str | None:
    """UTC ISO 8601 with millisecond precision and a ``Z`` suffix, or None."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_datetime(text: str) -> datetime:
    """Parse an ISO 8601 date-time; naive values are taken as UTC. Raises ValueError."""
    if not isinstance(text, str) or "T" not in text.upper():
        raise ValueError("expected an ISO 8601 date-time such as 2027-01-31T12:00:00Z")
    value = datetime.fromisoformat(text.strip().replace("z", "Z").replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def parse_date(text: str) -> date:
    """Parse an ISO date (YYYY-MM-DD only). Raises ValueError."""
    if not isinstance(text, str) or len(text) != 10:
        raise ValueError("expected an ISO date such as 2026-03-31")
    return date.fromisoformat(text)


def plausible_web_date(value: datetime | None) -> datetime | None:
    """``value`` as aware UTC when it lies between 1990 and two days from now, else None
    (logged once per kind of value, never stored)."""
    if value is None:
        return None
    when = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    if EARLIEST_WEB_DATE <= when <= datetime.now(UTC) + FUTURE_SLACK:
        return when
    log_once("date", f"dropped an implausible date from the web: {when.isoformat()}")
    return None


def stored_text(value: datetime) -> str:
    """The stored form of a datetime: fixed-width ISO 8601 UTC with microseconds and ``Z``
    (``0001-01-01T00:00:00.000000Z`` for year 1, where ``strftime("%Y")`` writes "1")."""
    if value.tzinfo is not UTC:  # utcnow()'s values are; every row write stores a few
        value = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return value.isoformat(timespec="microseconds")[:-6] + "Z"


def read_stored(text: str) -> datetime | None:
    """A stored datetime back; rows written by older versions in a non-padded form
    ("1-01-01T00:00:00.000000Z") are read too; anything unreadable is None (logged once),
    so one bad row never fails a whole listing."""
    try:
        return datetime.fromisoformat(text)
    except (TypeError, ValueError):
        pass
    match = _STORED.match(text.strip()) if isinstance(text, str) else None
    if match:
        year, month, day, hour, minute, second, fraction = match.groups()
        try:
            return datetime(
                int(year),
                int(month),
                int(day),
                int(hour),
                int(minute),
                int(second),
                int((fraction or "0").ljust(6, "0")),
                tzinfo=UTC,
            )
        except ValueError:
            pass
    log_once("stored", f"unreadable stored datetime {text!r} read as null")
    return None


def log_once(kind: str, message: str) -> None:
    """Log a data problem once per process and kind, so a bad feed does not flood logs."""
    if kind not in _logged:
        _logged.add(kind)
        log.warning("%s (further ones are not logged)", message)
