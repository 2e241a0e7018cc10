"""The fetcher and its SSRF guard, against local servers only."""

from __future__ import annotations

import gzip
import os
import socket
import threading
import time

import pytest

from ci_service.intel import (
    DEFAULT_USER_AGENT,
    BlockedUrl,
    FetchPolicy,
    FetchTimeout,
    HttpError,
    NetworkError,
    RobotsDisallowed,
    TooLarge,
    TooManyRedirects,
)
from ci_service.intel.fetch import Fetcher
from ci_service.intel.netguard import address_problem, check_url
from ci_service.settings import load_settings
from tests.intel_support import FixtureServer, Handler

PUBLIC_IP = "93.184.216.34"  # a global address; tests dial it to the local server


def policy(**overrides) -> FetchPolicy:
    values = dict(
        allow_private=True,
        per_host_delay=0,
        deadline=5,
        retries=2,
        backoff=0.01,
        respect_robots=False,
    )
    return FetchPolicy(**{**values, **overrides})


class Recorder:
    """A fake clock and sleep: sleeping advances the clock and is recorded, not waited."""

    def __init__(self):
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 3))
        self.now += seconds


@pytest.fixture
def server():
    with FixtureServer() as srv:
        yield srv


@pytest.fixture
def fetcher():
    with Fetcher(policy()) as f:
        yield f


def ok(body: bytes = b"<p>ok</p>"):
    return lambda h: h.send(200, body)


def redirect(location: str, status: int = 302):
    return lambda h: h.send(status, b"", headers={"Location": location})


class FakeDns:
    """Resolver and dialer for the guard: fake names resolve to chosen IPs, and the
    public IP is dialled to the local server, so "public" sites can be tested offline."""

    def __init__(self, port: int, names: dict[str, list[str]]):
        self.port = port
        self.names = names
        self.lookups: list[str] = []
        self.dialled: list[tuple[str, int]] = []

    def resolve(self, host: str, port: int) -> list[str]:
        self.lookups.append(host)
        if host not in self.names:
            raise socket.gaierror(f"unknown host {host}")
        answer = self.names[host]
        return answer() if callable(answer) else answer

    def dial(self, ip: str, port: int) -> tuple[str, int]:
        self.dialled.append((ip, port))
        return ("127.0.0.1", self.port) if ip == PUBLIC_IP else (ip, port)


# -- the guard's decisions ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ip", "words", "overridable"),
    [
        ("127.0.0.1", "is loopback", True),
        ("127.8.9.10", "is loopback", True),
        ("10.1.2.3", "is private", True),
        ("172.16.0.1", "is private", True),
        ("192.168.1.1", "is private", True),
        ("100.64.0.1", "not globally routable", True),
        ("169.254.169.254", "is link-local", False),
        ("0.0.0.0", "is unspecified", False),
        ("224.0.0.1", "is multicast", False),
        ("::1", "is loopback", True),
        ("::", "is unspecified", False),
        ("fe80::1", "is link-local", False),
        ("fc00::1", "is private", True),
        ("::ffff:127.0.0.1", "embeds 127.0.0.1 (loopback)", True),
        ("::ffff:169.254.169.254", "embeds 169.254.169.254 (link-local)", False),
        ("2002:7f00:1::", "embeds 127.0.0.1 (loopback)", True),
        ("64:ff9b::a00:1", "embeds 10.0.0.1 (private)", True),
    ],
)
def test_guard_refuses_non_public_addresses(ip, words, overridable):
    problem = address_problem(ip)
    assert problem is not None and words in problem.reason
    assert problem.overridable is overridable
    allowed = address_problem(ip, allow_private=True)
    assert (allowed is None) is overridable  # link-local etc. stay refused even when allowed


@pytest.mark.parametrize("ip", [PUBLIC_IP, "8.8.8.8", "2606:4700:4700::1111"])
def test_guard_allows_public_addresses(ip):
    assert address_problem(ip) is None


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("ftp://example.com/file", "scheme 'ftp'"),
        ("file:///etc/passwd", "scheme 'file'"),
        ("javascript:alert(1)", "scheme 'javascript'"),
        ("http://user:secret@example.com/", "credentials"),
        ("http:///no-host", "no host"),
        ("http://127.0.0.1/", "address 127.0.0.1 is loopback"),
        ("http://[::1]:8080/", "address ::1 is loopback"),
    ],
)
def test_check_url_refuses(url, words):
    with pytest.raises(BlockedUrl) as caught:
        check_url(url)
    assert words in str(caught.value)


def test_loopback_refused_directly(server):
    with Fetcher(policy(allow_private=False)) as fetcher, pytest.raises(BlockedUrl) as caught:
        fetcher.get(server.url("/"))
    message = str(caught.value)
    assert message == (
        f"refusing to fetch {server.url('/')}: address 127.0.0.1 is loopback; "
        "set CI_SERVICE_ALLOW_PRIVATE_URLS=1 to allow"
    )
    assert server.requests == []


@pytest.mark.parametrize("host", ["localhost", "2130706433", "0x7f.0.0.1", "127.1"])
def test_names_and_odd_ip_spellings_are_vetted_after_resolution(server, host):
    url = f"http://{host}:{server.port}/"
    with Fetcher(policy(allow_private=False)) as fetcher, pytest.raises(BlockedUrl) as caught:
        fetcher.get(url)
    assert str(caught.value).startswith(f"refusing to fetch {url}: ")
    assert "127.0.0.1, which is loopback" in str(caught.value)
    assert server.requests == []


def test_public_name_is_fetched_with_the_guard_on(server):
    server.routes["/ok"] = ok()
    dns = FakeDns(server.port, {"public.example": [PUBLIC_IP]})
    with Fetcher(policy(allow_private=False), resolver=dns.resolve, dial=dns.dial) as fetcher:
        result = fetcher.get(f"http://public.example:{server.port}/ok")
    assert result.status == 200 and result.content == b"<p>ok</p>"
    assert dns.dialled == [(PUBLIC_IP, server.port)]


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("http://127.0.0.1:{port}/secret", "address 127.0.0.1 is loopback"),
        ("http://internal.example:{port}/secret", "internal.example resolves to 10.0.0.7"),
        ("http://mixed.example:{port}/secret", "mixed.example resolves to 192.168.0.2"),
        ("http://[::ffff:127.0.0.1]:{port}/secret", "embeds 127.0.0.1 (loopback)"),
        ("http://169.254.169.254/latest/meta-data/", "is link-local"),
        ("file:///etc/passwd", "scheme 'file'"),
    ],
)
def test_redirect_to_a_refused_target_is_blocked(server, target, words):
    target = target.format(port=server.port)
    server.routes["/go"] = redirect(target)
    server.routes["/secret"] = ok(b"secret")
    names = {
        "public.example": [PUBLIC_IP],
        "internal.example": ["10.0.0.7"],
        "mixed.example": [PUBLIC_IP, "192.168.0.2"],  # ANY bad address refuses the host
    }
    dns = FakeDns(server.port, names)
    with Fetcher(policy(allow_private=False), resolver=dns.resolve, dial=dns.dial) as fetcher:
        with pytest.raises(BlockedUrl) as caught:
            fetcher.get(f"http://public.example:{server.port}/go")
    assert words in str(caught.value)
    assert caught.value.url == target
    assert server.hits("/go") == 1 and server.hits("/secret") == 0


def test_dns_rebinding_cannot_swap_the_checked_address(server):
    """Each connection resolves once and connects to the address it vetted."""
    server.routes["/ok"] = ok()
    answers = iter([[PUBLIC_IP], ["127.0.0.1"]])
    dns = FakeDns(server.port, {"rebind.example": lambda: next(answers)})
    with Fetcher(policy(allow_private=False), resolver=dns.resolve, dial=dns.dial) as fetcher:
        assert fetcher.get(f"http://rebind.example:{server.port}/ok").status == 200
        # The fixture server closes every connection, so the next GET reconnects.
        with pytest.raises(BlockedUrl, match="rebind.example resolves to 127.0.0.1"):
            fetcher.get(f"http://rebind.example:{server.port}/ok")
    assert dns.lookups == ["rebind.example", "rebind.example"]
    assert dns.dialled == [(PUBLIC_IP, server.port)]
    assert server.hits("/ok") == 1


def test_allow_private_flag_comes_from_settings_and_env():
    assert FetchPolicy.from_env({}).allow_private is False
    assert FetchPolicy.from_env({"CI_SERVICE_ALLOW_PRIVATE_URLS": "1"}).allow_private is True
    settings = load_settings(environ={}, allow_private_urls=True)
    built = FetchPolicy.from_settings(settings, deadline=5)
    assert built.allow_private is True and built.deadline == 5
    with pytest.raises(TypeError, match="unknown fetch policy fields"):
        FetchPolicy.from_settings(settings, nonsense=1)


# -- basics, redirects ----------------------------------------------------------------------


def test_get_returns_body_headers_and_sends_user_agent(server, fetcher):
    server.routes["/page"] = lambda h: h.send(200, "héllo".encode(), "text/html; charset=utf-8")
    result = fetcher.get(server.url("/page"))
    assert (result.status, result.ok, result.content_type, result.charset) == (
        200,
        True,
        "text/html",
        "utf-8",
    )
    assert result.text == "héllo" and result.attempts == 1 and result.elapsed > 0
    assert server.requests[0].headers["User-Agent"] == DEFAULT_USER_AGENT
    assert DEFAULT_USER_AGENT.startswith("ci-service/")


def test_redirects_are_followed_and_recorded(server, fetcher):
    server.routes["/a"] = redirect("/b", 301)
    server.routes["/b"] = redirect(server.url("/c"), 307)
    server.routes["/c"] = ok(b"final")
    result = fetcher.get(server.url("/a"))
    assert result.url == server.url("/c") and result.content == b"final"
    assert result.redirects == [server.url("/a"), server.url("/b")]
    assert result.requested_url == server.url("/a")


def test_redirect_limit(server):
    for n in range(10):
        server.routes[f"/loop/{n}"] = redirect(f"/loop/{n + 1}")
    with Fetcher(policy(max_redirects=3)) as fetcher, pytest.raises(TooManyRedirects):
        fetcher.get(server.url("/loop/0"))
    assert server.paths() == ["/loop/0", "/loop/1", "/loop/2", "/loop/3"]


# -- size and time limits -------------------------------------------------------------------


def test_declared_body_over_max_bytes(server):
    server.routes["/big"] = ok(b"x" * 2000)
    with Fetcher(policy(max_bytes=1000)) as fetcher:
        with pytest.raises(TooLarge, match="2000 bytes, over the 1000-byte limit"):
            fetcher.get(server.url("/big"))
        assert len(fetcher.get(server.url("/big"), max_bytes=2000).content) == 2000


def _undeclared(handler: Handler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html")
    handler.end_headers()  # no Content-Length: the body runs until the connection closes
    for _ in range(50):
        handler.wfile.write(b"y" * 1000)


def test_streamed_body_over_max_bytes(server):
    server.routes["/stream"] = _undeclared
    with Fetcher(policy(max_bytes=10_000)) as fetcher:
        with pytest.raises(TooLarge, match="exceeds the 10000-byte limit"):
            fetcher.get(server.url("/stream"))


def test_compressed_body_is_limited_by_its_decoded_size(server):
    bomb = gzip.compress(b"\0" * 1_000_000)
    server.routes["/bomb"] = lambda h: h.send(200, bomb, headers={"Content-Encoding": "gzip"})
    with Fetcher(policy(max_bytes=100_000)) as fetcher, pytest.raises(TooLarge):
        fetcher.get(server.url("/bomb"))


def _drip(handler: Handler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html")
    handler.send_header("Content-Length", "10000")
    handler.end_headers()
    try:
        for _ in range(10000):
            handler.wfile.write(b"z")
            handler.wfile.flush()
            if handler.server.owner.stopping.wait(0.2):
                return
    except OSError:
        return  # the client hung up, as it should


def _stall(handler: Handler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Length", "100")
    handler.end_headers()
    handler.wfile.flush()
    handler.server.owner.stopping.wait(20)


@pytest.mark.parametrize("route", [_drip, _stall], ids=["slow-drip", "stall"])
def test_total_deadline_stops_slow_servers(server, route):
    server.routes["/slow"] = route
    with Fetcher(policy(deadline=1.0, read_timeout=30)) as fetcher:
        started = time.monotonic()
        with pytest.raises(FetchTimeout, match="deadline"):
            fetcher.get(server.url("/slow"))
        assert time.monotonic() - started < 3


# -- retries --------------------------------------------------------------------------------


def test_500s_are_retried_then_fail_cleanly(server):
    server.routes["/down"] = lambda h: h.send(500, b"oops")
    clock = Recorder()
    with Fetcher(policy(retries=2, backoff=0.5), clock=clock.clock, sleep=clock.sleep) as fetcher:
        result = fetcher.get(server.url("/down"))
    assert (result.status, result.attempts, server.hits("/down")) == (500, 3, 3)
    assert clock.sleeps == [0.5, 1.0]  # exponential back-off
    with pytest.raises(HttpError, match="returned HTTP 500 after 3 attempts") as caught:
        result.raise_for_status()
    assert caught.value.status == 500


def test_503_then_success(server):
    statuses = iter([503, 502, 200])
    server.routes["/flaky"] = lambda h: h.send(next(statuses), b"body")
    clock = Recorder()
    with Fetcher(policy(retries=3), clock=clock.clock, sleep=clock.sleep) as fetcher:
        result = fetcher.get(server.url("/flaky"))
    assert result.ok and result.attempts == 3


def test_429_retry_after_is_honoured(server):
    statuses = iter([429, 200])
    server.routes["/busy"] = lambda h: h.send(next(statuses), b"", headers={"Retry-After": "2"})
    clock = Recorder()
    with Fetcher(policy(backoff=0.01), clock=clock.clock, sleep=clock.sleep) as fetcher:
        assert fetcher.get(server.url("/busy")).ok
    assert clock.sleeps == [2.0]


def test_retry_after_beyond_the_cap_is_not_waited_for(server):
    server.routes["/busy"] = lambda h: h.send(429, b"", headers={"Retry-After": "3600"})
    clock = Recorder()
    with Fetcher(policy(), clock=clock.clock, sleep=clock.sleep) as fetcher:
        result = fetcher.get(server.url("/busy"))
    assert (result.status, result.attempts, clock.sleeps) == (429, 1, [])


def test_other_4xx_are_not_retried(server, fetcher):
    result = fetcher.get(server.url("/missing"))
    assert (result.status, result.attempts, server.hits("/missing")) == (404, 1, 1)


def test_connection_refused_is_retried_then_a_network_error():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    clock = Recorder()
    with Fetcher(policy(retries=1), clock=clock.clock, sleep=clock.sleep) as fetcher:
        with pytest.raises(NetworkError, match="ConnectError"):
            fetcher.get(f"http://127.0.0.1:{port}/")
    assert len(clock.sleeps) == 1


# -- politeness -----------------------------------------------------------------------------


def test_per_host_delay_spaces_requests_to_one_host(server):
    server.routes["/p"] = ok()
    clock = Recorder()
    with Fetcher(policy(per_host_delay=2.0), clock=clock.clock, sleep=clock.sleep) as fetcher:
        for _ in range(3):
            fetcher.get(server.url("/p"))
        assert clock.sleeps == [2.0, 2.0]
        fetcher.get(f"http://localhost:{server.port}/p")  # another host: no wait
        assert clock.sleeps == [2.0, 2.0]


def test_per_host_delay_counts_from_the_end_of_a_slow_request(server):
    """A response that takes 0.5 s: the next request still waits the whole delay after it
    ended, so the host never sees two requests closer than the delay, however long the
    first took to leave or to answer."""
    clock = Recorder()

    def slow(handler):
        clock.now += 0.5  # the request took half a second
        handler.send(200, b"<p>ok</p>")

    server.routes["/slow"] = slow
    with Fetcher(policy(per_host_delay=2.0), clock=clock.clock, sleep=clock.sleep) as fetcher:
        fetcher.get(server.url("/slow"))
        fetcher.get(server.url("/slow"))
    assert clock.sleeps == [2.0]  # not 1.5: the delay runs from the end of the first


def test_per_host_delay_holds_across_threads(server):
    server.routes["/p"] = ok()
    with Fetcher(policy(per_host_delay=0.15)) as fetcher:
        threads = [threading.Thread(target=fetcher.get, args=(server.url("/p"),)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=10)
    times = sorted(seen.at for seen in server.requests)
    assert len(times) == 4
    assert all(b - a >= 0.15 for a, b in zip(times, times[1:], strict=False))


# -- robots.txt -----------------------------------------------------------------------------


def robots(text: str, status: int = 200):
    return lambda h: h.send(status, text.encode(), "text/plain")


def test_robots_disallow_is_honoured_and_cached(server):
    server.routes["/robots.txt"] = robots("User-agent: *\nDisallow: /private\n")
    server.routes["/public"] = ok()
    with Fetcher(policy(respect_robots=True)) as fetcher:
        assert fetcher.get(server.url("/public")).ok
        with pytest.raises(RobotsDisallowed, match="disallows"):
            fetcher.get(server.url("/private/page"))
        assert fetcher.get(server.url("/public")).ok
        assert fetcher.robots(server.url("/")).state == "ok"
    assert server.hits("/robots.txt") == 1
    assert server.hits("/private/page") == 0


def test_robots_rules_for_our_user_agent(server):
    server.routes["/robots.txt"] = robots(
        "User-agent: ci-service\nDisallow: /\n\nUser-agent: *\nAllow: /\n"
    )
    with Fetcher(policy(respect_robots=True)) as fetcher:
        assert not fetcher.allowed_by_robots(server.url("/anything"))
        # check_robots=False is for the pipeline's own needs (e.g. re-reading a feed URL).
        assert fetcher.get(server.url("/anything"), check_robots=False).status == 404


@pytest.mark.parametrize(
    ("status", "state", "allowed"),
    [(404, "missing", True), (403, "missing", True), (500, "unreachable", False)],
)
def test_robots_status_conventions(server, status, state, allowed):
    server.routes["/robots.txt"] = robots("User-agent: *\nDisallow: /\n", status)
    clock = Recorder()
    with Fetcher(policy(respect_robots=True), clock=clock.clock, sleep=clock.sleep) as fetcher:
        rules = fetcher.robots(server.url("/"))
        assert (rules.state, fetcher.allowed_by_robots(server.url("/x"))) == (state, allowed)


def test_robots_network_failure_means_disallow():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    clock = Recorder()
    with Fetcher(policy(respect_robots=True), clock=clock.clock, sleep=clock.sleep) as fetcher:
        assert fetcher.robots(f"http://127.0.0.1:{port}/").state == "unreachable"


def test_crawl_delay_raises_the_per_host_delay(server):
    server.routes["/robots.txt"] = robots("User-agent: *\nCrawl-delay: 3\n")
    server.routes["/p"] = ok()
    clock = Recorder()
    with Fetcher(
        policy(respect_robots=True, per_host_delay=0.5, max_crawl_delay=10),
        clock=clock.clock,
        sleep=clock.sleep,
    ) as fetcher:
        fetcher.get(server.url("/p"))
        fetcher.get(server.url("/p"))
    # robots.txt itself waits the plain delay; pages then wait the crawl delay.
    assert clock.sleeps == [0.5, 3.0]


def test_robots_is_fetched_once_when_threads_race(server):
    server.routes["/robots.txt"] = robots("User-agent: *\nAllow: /\n")
    server.routes["/p"] = ok()
    with Fetcher(policy(respect_robots=True)) as fetcher:
        threads = [threading.Thread(target=fetcher.get, args=(server.url("/p"),)) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=10)
    assert (server.hits("/robots.txt"), server.hits("/p")) == (1, 8)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_fetchers_do_not_leak_file_descriptors(server):
    server.routes["/p"] = ok()

    def cycle():
        with Fetcher(policy()) as fetcher:
            fetcher.get(server.url("/p"))

    cycle()
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(25):
        cycle()
    assert len(os.listdir("/proc/self/fd")) <= before + 3
