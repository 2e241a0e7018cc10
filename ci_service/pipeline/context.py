"""How a pipeline job gets its settings and its :class:`~ci_service.intel.fetch.Fetcher`.

The job engine does not hand app settings to step handlers, so the pipeline reads the same
``CI_SERVICE_*`` environment the app factory reads (``load_settings()``):
``allow_private_urls`` (the SSRF override), ``crawl_max_pages``, ``crawl_delay_seconds``,
``fetch_deadline_seconds`` and ``fetch_max_bytes``.

``FETCHER_OPTIONS`` are extra keyword arguments for every ``Fetcher`` the pipeline builds
(``resolver``/``dial``): tests map a fake public host name to their local server with it,
so the SSRF guard can be exercised through a real job. Deployments leave it empty.
"""

from __future__ import annotations

import socket
from typing import Any
from urllib.parse import urlsplit

from ci_service.jobs.types import StepError
from ci_service.settings import Settings, load_settings

FETCHER_OPTIONS: dict[str, Any] = {}


def settings() -> Settings:
    return load_settings()


def make_fetcher(config: Settings | None = None):
    """A guarded Fetcher on the service's policy and crawl settings (close it after use)."""
    from ci_service.intel.fetch import Fetcher
    from ci_service.intel.policy import FetchPolicy

    config = config or settings()
    policy = FetchPolicy.from_settings(
        config,
        per_host_delay=max(0.0, float(config.crawl_delay_seconds)),
        deadline=max(0.1, float(config.fetch_deadline_seconds)),
        max_bytes=max(1, int(config.fetch_max_bytes)),
    )
    return Fetcher(policy, **FETCHER_OPTIONS)


def check_resolvable(url: str) -> None:
    """Fail the step at once, with a clear message, when the site's host does not resolve.

    Without this a typo in ``websiteUrl`` costs several retried robots.txt fetches and ends
    in a misleading "disallowed by robots.txt".
    """
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise StepError(f"{url} is not a valid URL ({exc})") from None
    if not host:
        raise StepError(f"{url} is not a valid URL (no host)")
    resolver = FETCHER_OPTIONS.get("resolver")
    try:
        if resolver is not None:
            addresses = resolver(host, port)
        else:
            addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise StepError(f"could not reach {url}: cannot resolve {host} ({exc})") from None
    if not addresses:
        raise StepError(f"could not reach {url}: cannot resolve {host}")
