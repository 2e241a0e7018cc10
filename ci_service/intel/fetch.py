"""The one HTTP client every intel job uses.

:class:`Fetcher` wraps a single ``httpx.Client`` on a :class:`GuardedTransport` and adds what
crawling politely and safely needs: manual redirects (the SSRF guard sees every hop), a
body size cap, a total wall-clock deadline, retries with back-off, a per-host delay and
robots.txt. It is safe to share between job threads.

robots.txt follows RFC 9309: 2xx is parsed; 4xx means "no rules" (allow all); 5xx, network
errors and timeouts mean "unreachable" (disallow all, until the cache entry expires);
redirects are followed like any fetch. Only the first 500 KiB are parsed. ``Crawl-delay``
raises the per-host delay, capped by ``FetchPolicy.max_crawl_delay``. Matching is the
standard library's (prefix rules, first match; no ``*``/``$`` wildcards).
"""

from __future__ import annotations

import threading
import time
import urllib.robotparser
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urljoin

import httpx

from ci_service.intel.errors import (
    BlockedUrl,
    FetchError,
    FetchTimeout,
    HttpError,
    NetworkError,
    RobotsDisallowed,
    TooLarge,
    TooManyRedirects,
)
from ci_service.intel.netguard import Dialer, GuardedTransport, Resolver, check_url, deadline_scope
from ci_service.intel.policy import FetchPolicy
from ci_service.intel.retry_after import retry_after_seconds

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
ROBOTS_MAX_BYTES = 500 * 1024
MAX_HOST_SLOTS = 4096  # hosts whose next polite moment is remembered before pruning
DEFAULT_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
_RETRYABLE_ERRORS = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.ReadTimeout,
    httpx.ReadError,
    httpx.RemoteProtocolError,  # e.g. the server dropped the connection mid-response
)


@dataclass
class FetchResult:
    """A completed GET (any status). ``url`` is the final URL after redirects."""

    url: str
    status: int
    headers: httpx.Headers
    content: bytes
    elapsed: float
    requested_url: str
    redirects: list[str] = field(default_factory=list)
    attempts: int = 1

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def content_type(self) -> str:
        """The media type, lower-cased, without parameters ("" if the server sent none)."""
        return self.headers.get("content-type", "").split(";", 1)[0].strip().lower()

    @property
    def charset(self) -> str | None:
        for param in self.headers.get("content-type", "").split(";")[1:]:
            name, _, value = param.partition("=")
            if name.strip().lower() == "charset" and value.strip():
                return value.strip().strip("\"'")
        return None

    @property
    def text(self) -> str:
        """The body decoded with the declared charset, else UTF-8 (bad bytes replaced)."""
        try:
            return self.content.decode(self.charset or "utf-8", errors="replace")
        except LookupError:
            return self.content.decode("utf-8", errors="replace")

    def raise_for_status(self) -> FetchResult:
        if self.status >= 400:
            tries = f" after {self.attempts} attempts" if self.attempts > 1 else ""
            raise HttpError(
                f"GET {self.url} returned HTTP {self.status}{tries}", self.url, self.status
            )
        return self


@dataclass
class RobotsRules:
    """A host's robots.txt. ``state`` is "ok", "missing" (allow all) or "unreachable"."""

    origin: str
    state: str
    parser: urllib.robotparser.RobotFileParser
    sitemaps: list[str]
    fetched_at: float

    def allows(self, url: str, user_agent: str) -> bool:
        return self.parser.can_fetch(user_agent, url)

    def crawl_delay(self, user_agent: str) -> float | None:
        delay = self.parser.crawl_delay(user_agent)
        return float(delay) if delay is not None else None


def _origin(url: httpx.URL) -> str:
    return f"{url.scheme}://{url.netloc.decode('ascii')}"


class Fetcher:
    """Guarded, polite, bounded GETs. Use as a context manager or call :meth:`close`.

    ``resolver`` and ``dial`` are passed to the SSRF guard (tests map fake public names to
    local servers); ``clock``/``sleep`` drive the politeness and retry waits;
    ``max_connections`` caps the open connections of all threads together (a request
    waits for a free one).
    """

    def __init__(
        self,
        policy: FetchPolicy | None = None,
        *,
        resolver: Resolver | None = None,
        dial: Dialer | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        verify: bool = True,
        max_connections: int = 100,
    ):
        self.policy = policy or FetchPolicy()
        self.transport = GuardedTransport(
            allow_private=self.policy.allow_private, resolver=resolver, dial=dial, verify=verify
        )
        self._client = httpx.Client(
            transport=self.transport,
            follow_redirects=False,
            trust_env=False,
            headers={"User-Agent": self.policy.user_agent, "Accept-Encoding": "gzip, deflate"},
            timeout=httpx.Timeout(
                self.policy.read_timeout,
                connect=self.policy.connect_timeout,
            ),
            # One kept connection per host a crawl is on, up to the cap: sites are crawled
            # one request at a time each, so more would only sit idle.
            limits=httpx.Limits(
                max_connections=max_connections, max_keepalive_connections=max_connections
            ),
        )
        self._clock = clock
        self._sleep = sleep
        # Per host: when its next request may start, and the hosts with one in flight.
        self._turns = threading.Condition()
        self._next_slot: dict[str, float] = {}
        self._in_flight: set[str] = set()
        self._robots_lock = threading.Lock()
        self._robots: dict[str, RobotsRules] = {}
        self._robots_fetching: dict[str, threading.Lock] = {}

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()

    # -- public API -------------------------------------------------------------------------

    def get(
        self,
        url: str,
        *,
        accept: str = DEFAULT_ACCEPT,
        max_bytes: int | None = None,
        check_robots: bool | None = None,
        follow: Callable[[str], bool] | None = None,
    ) -> FetchResult:
        """GET ``url`` within the policy's limits; returns the final response, any status.

        ``follow(next_url)`` may veto a redirect hop; the 3xx response is then returned
        (the crawler uses this to stay on one site).

        Raises :class:`BlockedUrl`, :class:`RobotsDisallowed`, :class:`TooLarge`,
        :class:`FetchTimeout`, :class:`TooManyRedirects` or :class:`NetworkError` (all
        :class:`FetchError`). A 4xx/5xx is returned, not raised: see ``raise_for_status``.
        """
        at = time.monotonic() + self.policy.deadline
        robots = self.policy.respect_robots if check_robots is None else check_robots
        limit = max_bytes or self.policy.max_bytes
        return self._fetch(url, at, accept, limit, robots, False, follow)

    def robots(self, url: str) -> RobotsRules:
        """The robots.txt rules for ``url``'s origin (fetched once per ``robots_ttl``)."""
        origin = _origin(check_url(url, allow_private=self.policy.allow_private))
        with self._robots_lock:
            cached = self._robots.get(origin)
            if cached and self._clock() - cached.fetched_at < self.policy.robots_ttl:
                return cached
            origin_lock = self._robots_fetching.setdefault(origin, threading.Lock())
        with origin_lock:  # one fetch per origin even when many threads ask at once
            with self._robots_lock:
                cached = self._robots.get(origin)
                if cached and self._clock() - cached.fetched_at < self.policy.robots_ttl:
                    return cached
            rules = self._load_robots(origin)
            with self._robots_lock:
                self._robots[origin] = rules
            return rules

    def allowed_by_robots(self, url: str) -> bool:
        return self.robots(url).allows(url, self.policy.user_agent)

    # -- internals --------------------------------------------------------------------------

    def _load_robots(self, origin: str) -> RobotsRules:
        parser = urllib.robotparser.RobotFileParser(f"{origin}/robots.txt")
        state = "ok"
        try:
            result = self._fetch(
                f"{origin}/robots.txt",
                time.monotonic() + self.policy.deadline,
                "text/plain,*/*;q=0.5",
                ROBOTS_MAX_BYTES,
                False,
                True,
            )
        except BlockedUrl:
            raise
        except FetchError:
            result = None
        if result is not None and result.ok:
            parser.parse(result.text.splitlines())
        elif result is not None and 400 <= result.status < 500:
            state, parser.allow_all = "missing", True
        else:
            state, parser.disallow_all = "unreachable", True
        parser.modified()
        sitemaps = list(parser.site_maps() or []) if state == "ok" else []
        return RobotsRules(origin, state, parser, sitemaps, self._clock())

    def _fetch(
        self,
        url: str,
        at: float,
        accept: str,
        max_bytes: int,
        check_robots: bool,
        truncate: bool,
        follow: Callable[[str], bool] | None = None,
    ) -> FetchResult:
        started = time.monotonic()
        current = check_url(url, allow_private=self.policy.allow_private)
        visited: list[str] = []
        attempts = 0
        while True:
            delay = self.policy.per_host_delay
            if check_robots:
                rules = self.robots(str(current))
                if not rules.allows(str(current), self.policy.user_agent):
                    raise RobotsDisallowed(
                        f"robots.txt of {rules.origin} disallows {current}", str(current)
                    )
                crawl_delay = rules.crawl_delay(self.policy.user_agent)
                if crawl_delay:
                    delay = max(delay, min(crawl_delay, self.policy.max_crawl_delay))
            status, headers, body, tries = self._request(
                current, at, accept, max_bytes, truncate, delay
            )
            attempts += tries
            location = headers.get("location")
            target = urljoin(str(current), location) if location else ""
            if status not in REDIRECT_STATUSES or not location or (follow and not follow(target)):
                return FetchResult(
                    url=str(current),
                    status=status,
                    headers=headers,
                    content=body,
                    elapsed=time.monotonic() - started,
                    requested_url=url,
                    redirects=visited,
                    attempts=attempts,
                )
            visited.append(str(current))
            if len(visited) > self.policy.max_redirects:
                raise TooManyRedirects(
                    f"GET {url}: more than {self.policy.max_redirects} redirects", str(current)
                )
            current = check_url(target, allow_private=self.policy.allow_private)

    def _request(
        self,
        url: httpx.URL,
        at: float,
        accept: str,
        max_bytes: int,
        truncate: bool,
        delay: float,
    ) -> tuple[int, httpx.Headers, bytes, int]:
        """One hop, with retries. Returns (status, headers, body, attempts)."""
        attempt = 0
        while True:
            attempt += 1
            self._wait_turn(url, delay, at)
            retry_wait: float | None = None
            try:
                try:
                    with deadline_scope(at):
                        status, headers, body = self._send(url, at, accept, max_bytes, truncate)
                finally:
                    self._turn_done(url, delay)
            except BlockedUrl as exc:
                raise exc.for_url(str(url)) from None
            except _RETRYABLE_ERRORS as exc:
                if attempt > self.policy.retries or time.monotonic() >= at:
                    raise self._transport_error(url, exc, at) from None
                retry_wait = self._backoff(attempt)
            except httpx.HTTPError as exc:
                raise self._transport_error(url, exc, at) from None
            else:
                if status not in self.policy.retry_statuses or attempt > self.policy.retries:
                    return status, headers, body, attempt
                retry_wait = self._backoff(attempt)
                asked = retry_after_seconds(headers.get("retry-after"))
                if asked is not None:
                    if asked > self.policy.max_retry_after:
                        return status, headers, body, attempt
                    retry_wait = max(retry_wait, asked)
                if time.monotonic() + retry_wait >= at:
                    return status, headers, body, attempt
            self._sleep(retry_wait)

    def _send(
        self, url: httpx.URL, at: float, accept: str, max_bytes: int, truncate: bool
    ) -> tuple[int, httpx.Headers, bytes]:
        with self._client.stream("GET", url, headers={"Accept": accept}) as response:
            if response.status_code in REDIRECT_STATUSES and "location" in response.headers:
                return response.status_code, response.headers, b""
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > max_bytes and not truncate:
                raise TooLarge(
                    f"GET {url}: body is {declared} bytes, over the {max_bytes}-byte limit",
                    str(url),
                )
            body = bytearray()
            # iter_bytes decodes gzip/deflate, so the cap applies to the decoded size.
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > max_bytes:
                    if truncate:
                        del body[max_bytes:]
                        break
                    raise TooLarge(f"GET {url}: body exceeds the {max_bytes}-byte limit", str(url))
                if time.monotonic() >= at:
                    raise httpx.ReadTimeout("fetch deadline exceeded")
            return response.status_code, response.headers, bytes(body)

    def _turn_done(self, url: httpx.URL, delay: float) -> None:
        """The request to ``url``'s host ended: the next may start ``delay`` from now."""
        if delay <= 0:
            return
        host = url.netloc.decode("ascii").lower()
        with self._turns:
            self._in_flight.discard(host)
            self._next_slot[host] = self._clock() + delay
            self._turns.notify_all()

    def _transport_error(self, url: httpx.URL, exc: Exception, at: float) -> FetchError:
        if time.monotonic() >= at:
            return FetchTimeout(
                f"GET {url}: gave up after the {self.policy.deadline:g}s deadline", str(url)
            )
        if isinstance(exc, httpx.TimeoutException):
            return FetchTimeout(f"GET {url}: timed out ({exc})", str(url))
        return NetworkError(f"GET {url}: {type(exc).__name__}: {exc}", str(url))

    def _backoff(self, attempt: int) -> float:
        return min(self.policy.backoff * 2 ** (attempt - 1), self.policy.max_backoff)

    def _wait_turn(self, url: httpx.URL, delay: float, at: float) -> None:
        """One request at a time to a host, across threads, each starting at least
        ``delay`` seconds after the one before it ended (``_turn_done``): however long a
        request took to leave a busy process or to be answered, the host never sees two
        closer together than the delay."""
        if delay <= 0:
            return
        host = url.netloc.decode("ascii").lower()
        with self._turns:
            while True:
                while host in self._in_flight:  # another thread's request to this host
                    left = at - time.monotonic()
                    if left <= 0:
                        raise self._turn_timeout(url)
                    self._turns.wait(left)
                now = self._clock()
                wait = self._next_slot.get(host, now) - now
                if wait <= 0:
                    self._in_flight.add(host)
                    if len(self._next_slot) > MAX_HOST_SLOTS:  # long-lived: forget the past
                        self._next_slot = {h: t for h, t in self._next_slot.items() if t > now}
                    return
                if time.monotonic() + wait >= at:
                    raise self._turn_timeout(url)
                self._turns.release()
                try:
                    self._sleep(wait)
                finally:
                    self._turns.acquire()

    def _turn_timeout(self, url: httpx.URL) -> FetchTimeout:
        return FetchTimeout(
            f"GET {url}: the per-host delay would pass the {self.policy.deadline:g}s deadline",
            str(url),
        )


__all__ = ["DEFAULT_ACCEPT", "FetchResult", "Fetcher", "RobotsRules"]
