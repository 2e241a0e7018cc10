"""SSRF guard: only public addresses are fetched, checked on every connection.

The check lives inside an httpcore network backend, so it runs when a TCP connection is
opened: the host is resolved once, every resolved address is vetted, and the socket is
connected to a vetted address, never to a second lookup. A DNS answer that changes between
check and use (rebinding) therefore cannot slip through, and each redirect hop, being a
new connection to a new origin, is checked the same way. :func:`check_url` adds the static
checks (scheme, credentials, literal IPs) before a request is sent. :func:`host_problem` is
the same address check for a connection this module does not open (Apprise's) or that does
not exist yet (an alert target being saved): literals in every spelling, a bounded lookup.

Policy (DECISIONS.md): loopback, private (RFC 1918, ULA), carrier-grade NAT, reserved and
other non-global addresses are refused unless ``CI_SERVICE_ALLOW_PRIVATE_URLS=1``.
Unspecified (0.0.0.0, ::), multicast and link-local addresses (169.254.0.0/16, home of
cloud metadata services) are refused always. IPv6 forms that embed an IPv4 address
(IPv4-mapped, 6to4, Teredo, NAT64) are judged by the embedded address too. Any port is
allowed: competitor sites on :8080 exist, and the address check is what matters.

The backend also enforces the per-fetch wall-clock deadline set by :func:`deadline_scope`:
every connect, TLS handshake, read and write gets at most the time left, so a server that
drips a byte at a time or stalls cannot outlive the deadline.
"""

from __future__ import annotations

import contextlib
import contextvars
import ipaddress
import re
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import httpcore
import httpx

from ci_service.intel.errors import BlockedUrl

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], list[str]]
"""``(host, port) -> [ip, ...]``; the default uses ``socket.getaddrinfo``."""
Dialer = Callable[[str, int], tuple[str, int]]
"""Tests only: maps a vetted ``(ip, port)`` to the socket address actually connected."""

ALLOWED_SCHEMES = ("http", "https")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
# The IPv4 spellings inet_aton (and so getaddrinfo) accepts besides dotted decimal: one to four
# parts, each decimal, octal (leading 0) or hex (0x): 2130706433, 0x7f.1, 0177.0.0.1, 127.1.
_LEGACY_IPV4 = re.compile(r"^(?:0x[0-9a-f]+|[0-9]+)(?:\.(?:0x[0-9a-f]+|[0-9]+)){0,3}$", re.I)


def system_resolver(host: str, port: int) -> list[str]:
    """All addresses ``host`` resolves to, in the resolver's order, without duplicates."""
    addresses: list[str] = []
    for *_, sockaddr in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
        ip = str(sockaddr[0])
        if ip not in addresses:
            addresses.append(ip)
    return addresses


def parse_ip(host: str) -> IPAddress | None:
    """``host`` as an address when it is an IP literal in any form a resolver would take for
    one, else None (a name).

    Besides the standard forms (``10.0.0.1``, ``::1``, ``[::ffff:127.0.0.1]``, a zone after
    ``%``) this reads the legacy IPv4 spellings the C library resolves without DNS
    (``2130706433``, ``0x7f.1``, ``0177.0.0.1``, ``127.1``) and one trailing dot, so a
    check made before sending sees the address the connection would reach.
    """
    text = host.strip().strip("[]").split("%", 1)[0]
    if text.endswith(".") and not text.endswith(".."):
        text = text[:-1]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    if not _LEGACY_IPV4.match(text):
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(text))
    except OSError:  # a part out of range (4294967296, 1.2.3.256): a name, not an address
        return None


def resolve_within(host: str, timeout: float | None, resolver: Resolver | None = None) -> list[str]:
    """The addresses ``host`` resolves to, or [] when it does not resolve (within ``timeout``
    seconds; None: as long as the system resolver takes). getaddrinfo has no timeout of its
    own, so a bounded lookup runs in a short-lived thread, left to finish alone if late."""
    found: list[str] = []
    done = threading.Event()
    lookup = resolver or system_resolver

    def run() -> None:
        try:
            found.extend(lookup(host, 0))
        except (OSError, UnicodeError, ValueError):
            pass
        finally:
            done.set()

    if timeout is None:
        run()
        return found
    threading.Thread(target=run, name="ci-resolve", daemon=True).start()
    return list(found) if done.wait(max(timeout, 0.0)) else []


def host_problem(
    host: str,
    *,
    allow_private: bool = False,
    timeout: float | None = None,
    resolver: Resolver | None = None,
) -> BlockedUrl | None:
    """Why a connection to ``host`` would be refused (a :class:`BlockedUrl`), or None.

    For a check ahead of the connection (an alert target when it is saved, an Apprise host
    before Apprise connects): an IP literal in any form is judged as is; a name is resolved
    (for at most ``timeout`` seconds when given) and refused if ANY address is. A name that
    does not resolve (in time) is not refused: whatever connects later checks again.
    """
    literal = parse_ip(host)
    if literal is not None:
        return address_problem(literal, allow_private=allow_private)
    addresses = resolve_within(host, timeout, resolver)
    try:
        vet_addresses(host, addresses, allow_private=allow_private)
    except BlockedUrl as blocked:
        return blocked
    return None


def _classify(address: IPAddress) -> tuple[str, bool] | None:
    """(kind, overridable) for a non-public address, None for a public one."""
    if address.is_unspecified:
        return "unspecified", False
    if address.is_multicast:
        return "multicast", False
    if address.is_link_local:
        return "link-local", False
    if address.is_loopback:
        return "loopback", True
    if address.is_private:
        return "private", True
    if address.is_reserved:
        return "reserved", True
    if not address.is_global:
        return "not globally routable", True
    return None


def _embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    embedded = [address.ipv4_mapped, address.sixtofour]
    if address.teredo:
        embedded.extend(address.teredo)
    if address in _NAT64:
        embedded.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return [ip for ip in embedded if ip is not None]


def _problem(address: IPAddress, allow_private: bool) -> tuple[str, bool] | None:
    """(what is wrong, overridable) for a refused address, None for an allowed one.

    "what is wrong" reads after the address: "is loopback", "embeds 10.0.0.1 (private)".
    """
    candidates: list[IPAddress] = []
    if isinstance(address, ipaddress.IPv6Address):
        candidates.extend(_embedded_ipv4(address))
    candidates.append(address)
    for candidate in candidates:
        found = _classify(candidate)
        if found is None or (found[1] and allow_private):
            continue
        kind, overridable = found
        if candidate is address:
            return f"is {kind}", overridable
        return f"embeds {candidate} ({kind})", overridable
    return None


def address_problem(ip: str | IPAddress, *, allow_private: bool = False) -> BlockedUrl | None:
    """Why ``ip`` must not be fetched (a :class:`BlockedUrl` to raise), or None if it may."""
    address = ipaddress.ip_address(ip) if isinstance(ip, str) else ip
    found = _problem(address, allow_private)
    if found is None:
        return None
    what, overridable = found
    return BlockedUrl(f"address {address} {what}", overridable=overridable)


def vet_addresses(host: str, addresses: Iterable[str], *, allow_private: bool = False) -> None:
    """Raise :class:`BlockedUrl` if ANY address ``host`` resolved to is refused."""
    for ip in addresses:
        address = ipaddress.ip_address(ip.split("%", 1)[0])
        found = _problem(address, allow_private)
        if found is not None:
            what, overridable = found
            if ip == host:
                reason = f"address {address} {what}"
            else:
                reason = f"{host} resolves to {address}, which {what}"
            raise BlockedUrl(reason, overridable=overridable)


def check_url(url: str | httpx.URL, *, allow_private: bool = False) -> httpx.URL:
    """Static checks before any request: http(s) only, no credentials, a host, literal IPs vetted.

    Returns the parsed URL. Host names are vetted later, at connect time.
    """
    text = str(url)
    try:
        parsed = httpx.URL(text)
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        raise BlockedUrl(f"not a valid URL ({exc})", text) from None
    if parsed.scheme not in ALLOWED_SCHEMES:
        raise BlockedUrl(f"scheme {parsed.scheme or '(none)'!r} is not http or https", text)
    if parsed.userinfo:
        raise BlockedUrl("credentials in URLs are not allowed", text)
    host = parsed.host
    if not host:
        raise BlockedUrl("the URL has no host", text)
    try:
        literal = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return parsed  # a name, or an odd IPv4 spelling: vetted after resolution
    problem = address_problem(literal, allow_private=allow_private)
    if problem is not None:
        raise problem.for_url(text)
    return parsed


# -- per-fetch deadline ---------------------------------------------------------------------

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "ci_intel_deadline", default=None
)


@contextlib.contextmanager
def deadline_scope(at: float) -> Iterator[None]:
    """Socket operations in this thread/context end by ``at`` (a ``time.monotonic`` value)."""
    token = _deadline.set(at)
    try:
        yield
    finally:
        _deadline.reset(token)


def _clamp(timeout: float | None, error: type[Exception]) -> float | None:
    at = _deadline.get()
    if at is None:
        return timeout
    remaining = at - time.monotonic()
    if remaining <= 0:
        raise error("fetch deadline exceeded")
    return remaining if timeout is None else min(timeout, remaining)


class _DeadlineStream(httpcore.NetworkStream):
    """Wraps a stream so each operation gets at most the time left before the deadline."""

    def __init__(self, stream: httpcore.NetworkStream):
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _clamp(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _clamp(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self,
        ssl_context: Any,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        # server_hostname is the URL's host, so SNI and certificate checks use the name even
        # though the socket was opened to a vetted IP.
        timeout = _clamp(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._stream.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class GuardedBackend(httpcore.NetworkBackend):
    """httpcore backend: resolve, vet every address, connect to a vetted one."""

    def __init__(
        self,
        *,
        allow_private: bool = False,
        resolver: Resolver | None = None,
        dial: Dialer | None = None,
    ):
        self.allow_private = allow_private
        self._resolver = resolver or system_resolver
        self._dial = dial
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        timeout = _clamp(timeout, httpcore.ConnectTimeout)
        try:
            addresses = self._resolver(host, port)
        except OSError as exc:
            raise httpcore.ConnectError(f"cannot resolve {host}: {exc}") from exc
        if not addresses:
            raise httpcore.ConnectError(f"cannot resolve {host}: no addresses")
        vet_addresses(host, addresses, allow_private=self.allow_private)
        failure: Exception | None = None
        for ip in addresses:
            target_ip, target_port = self._dial(ip, port) if self._dial else (ip, port)
            try:
                stream = self._inner.connect_tcp(
                    target_ip,
                    target_port,
                    timeout=_clamp(timeout, httpcore.ConnectTimeout),
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
                continue
            return _DeadlineStream(stream)
        assert failure is not None
        raise failure

    def connect_unix_socket(self, path: str, *args: Any, **kwargs: Any) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("unix sockets are not fetched")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class GuardedTransport(httpx.HTTPTransport):
    """An httpx transport whose every connection goes through :class:`GuardedBackend`.

    No proxies (``trust_env`` off): a proxy would make the vetted address the proxy's.
    """

    def __init__(
        self,
        *,
        allow_private: bool = False,
        resolver: Resolver | None = None,
        dial: Dialer | None = None,
        verify: bool = True,
        limits: httpx.Limits | None = None,
    ):
        limits = limits or httpx.Limits(max_connections=20, max_keepalive_connections=10)
        ssl_context = httpx.create_ssl_context(verify=verify, trust_env=False)  # load CAs once
        super().__init__(verify=ssl_context, trust_env=False, limits=limits)
        self.backend = GuardedBackend(allow_private=allow_private, resolver=resolver, dial=dial)
        # httpx has no public knob for the network backend, so swap in a pool that uses ours
        # (the httpcore API is public; HTTPTransport._pool is the one private name touched,
        # and tests/test_intel_fetch.py fails loudly if that ever changes).
        self._pool.close()
        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl_context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=self.backend,
        )


__all__ = [
    "ALLOWED_SCHEMES",
    "Dialer",
    "GuardedBackend",
    "GuardedTransport",
    "Resolver",
    "address_problem",
    "check_url",
    "deadline_scope",
    "host_problem",
    "parse_ip",
    "resolve_within",
    "system_resolver",
    "vet_addresses",
]
