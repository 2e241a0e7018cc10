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

import atexit
import socket
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ci_service.jobs.types import StepError
from ci_service.settings import Settings, load_settings

FETCHER_OPTIONS: dict[str, Any] = {}


def settings() -> Settings:
    return load_settings()


def _policy(config: Settings):
    from ci_service.intel.policy import FetchPolicy

    return FetchPolicy.from_settings(
        config,
        per_host_delay=max(0.0, float(config.crawl_delay_seconds)),
        deadline=max(0.1, float(config.fetch_deadline_seconds)),
        max_bytes=max(1, int(config.fetch_max_bytes)),
    )


def make_fetcher(config: Settings | None = None):
    """A guarded Fetcher of its own on the service's policy and crawl settings (close it
    after use). Jobs use :func:`shared_fetcher`."""
    from ci_service.intel.fetch import Fetcher

    return Fetcher(_policy(config or settings()), **FETCHER_OPTIONS)


@dataclass
class _Shared:
    fetcher: Any
    users: int = 0
    retired: bool = False

    def retire(self) -> bool:
        """No new user gets it; its last user closes it. True when it has no user now (to
        be closed by the caller, outside ``_SHARED_LOCK``)."""
        self.retired = True
        return self.users == 0


_SHARED: OrderedDict[tuple, _Shared] = OrderedDict()
_SHARED_LOCK = threading.Lock()
_SHARED_KEPT = 4  # policies in use at once: one in a deployment, a few in a test run


@contextmanager
def shared_fetcher(config: Settings | None = None) -> Iterator[Any]:
    """The process's Fetcher for this policy, shared by every job: one per-host politeness
    schedule and one robots.txt cache however many crawls run at once (two jobs crawling
    one host still take turns), and one connection pool capped at ``crawl_concurrency``
    connections. A fetcher of a policy no longer in use (settings changed) is closed when
    its last user is done with it."""
    from ci_service.intel.fetch import Fetcher

    config = config or settings()
    policy = _policy(config)
    connections = max(1, int(config.crawl_concurrency))
    key = (policy, connections, tuple(sorted((k, id(v)) for k, v in FETCHER_OPTIONS.items())))
    idle: list[_Shared] = []
    with _SHARED_LOCK:
        entry = _SHARED.get(key)
        if entry is None:
            entry = _Shared(Fetcher(policy, max_connections=connections, **FETCHER_OPTIONS))
            _SHARED[key] = entry
            while len(_SHARED) > _SHARED_KEPT:
                _key, old = _SHARED.popitem(last=False)
                if old.retire():
                    idle.append(old)
        _SHARED.move_to_end(key)
        entry.users += 1
    for old in idle:
        old.fetcher.close()
    try:
        yield entry.fetcher
    finally:
        with _SHARED_LOCK:
            entry.users -= 1
            done = entry.retired and entry.users == 0
        if done:
            entry.fetcher.close()


def close_shared_fetchers() -> None:
    """Close the connections of every shared fetcher no job is using, and forget them all
    (a fetcher still in use is closed by its last user). Run at exit: a crawl's kept-alive
    connections otherwise outlive the process's last job, to be collected with the
    interpreter, each reported as an unclosed socket."""
    with _SHARED_LOCK:
        idle = [entry for entry in _SHARED.values() if entry.retire()]
        _SHARED.clear()
    for entry in idle:
        entry.fetcher.close()


atexit.register(close_shared_fetchers)


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
