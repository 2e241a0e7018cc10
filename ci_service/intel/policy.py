"""The limits every fetch obeys, as one frozen dataclass."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from ci_service import __version__

MIB = 1024 * 1024

# Neutral on purpose: names the software and its purpose, no URL or contact to leak.
DEFAULT_USER_AGENT = f"ci-service/{__version__} (self-hosted competitive intelligence crawler)"

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


@dataclass(frozen=True)
class FetchPolicy:
    """Limits and manners of a :class:`~ci_service.intel.fetch.Fetcher`.

    Times are seconds. ``deadline`` bounds one ``Fetcher.get`` end to end: every retry,
    redirect hop, politeness wait and body read, so a server that drips one byte at a time
    cannot hold a worker. ``connect_timeout``/``read_timeout`` bound single socket operations.
    """

    allow_private: bool = False
    user_agent: str = DEFAULT_USER_AGENT
    connect_timeout: float = 10.0
    read_timeout: float = 20.0
    deadline: float = 60.0
    max_bytes: int = 10 * MIB
    max_redirects: int = 5
    per_host_delay: float = 1.0
    retries: int = 2
    backoff: float = 0.5
    max_backoff: float = 8.0
    max_retry_after: float = 30.0
    retry_statuses: frozenset[int] = RETRY_STATUSES
    respect_robots: bool = True
    robots_ttl: float = 3600.0
    max_crawl_delay: float = 10.0

    def __post_init__(self) -> None:
        for name in ("connect_timeout", "read_timeout", "deadline"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")
        if self.max_bytes <= 0:
            raise ValueError("max_bytes must be positive")
        for name in ("max_redirects", "retries", "per_host_delay", "backoff"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")

    def with_overrides(self, **overrides: Any) -> FetchPolicy:
        return replace(self, **overrides)

    @classmethod
    def from_settings(cls, settings: Any, **overrides: Any) -> FetchPolicy:
        """Policy for the service: ``allow_private`` comes from ``settings.allow_private_urls``."""
        known = {f.name for f in fields(cls)}
        unknown = set(overrides) - known
        if unknown:
            raise TypeError(f"unknown fetch policy fields: {sorted(unknown)}")
        values = {"allow_private": bool(settings.allow_private_urls), **overrides}
        return cls(**values)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> FetchPolicy:
        """Policy from ``CI_SERVICE_*`` environment variables (``..._ALLOW_PRIVATE_URLS``)."""
        from ci_service.settings import load_settings

        env = None if environ is None else dict(environ)
        return cls.from_settings(load_settings(environ=env), **overrides)


__all__ = ["DEFAULT_USER_AGENT", "MIB", "RETRY_STATUSES", "FetchPolicy"]
