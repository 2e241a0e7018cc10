"""UTC time helpers: one format for every timestamp the service emits."""

from __future__ import annotations

from datetime import UTC, date, datetime


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
