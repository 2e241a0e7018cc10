"""Sending one message: a signed webhook POST or an Apprise notification (chat, e-mail).

Every send returns an :class:`Outcome`; nothing here touches the database. The rules:

- **Webhooks** (Standard Webhooks): ``POST`` of the JSON body with ``webhook-id`` (the
  delivery's message id, the same on every retry), ``webhook-timestamp`` (seconds, the time
  of this attempt) and ``webhook-signature`` (``v1,<base64>`` made by
  ``standardwebhooks.Webhook(secret).sign``; during a secret rotation a second, space
  separated signature with the previous secret). Redirects are not followed.
- **SSRF guard**: webhooks go through the intel layer's :class:`GuardedTransport`, which
  vets every address at connect time (loopback and private refused unless
  ``CI_SERVICE_ALERTS_ALLOW_PRIVATE_URLS=1``, an allowance separate from the crawler's
  ``CI_SERVICE_ALLOW_PRIVATE_URLS``; link-local, multicast, unspecified always). Apprise
  does its own HTTP/SMTP, so for Apprise targets the check is a *pre-resolution* check: the
  host names the plugin will contact (its ``host`` and, for e-mail, ``smtp_host``) are
  resolved and every address vetted with the same rules before Apprise is called. A name
  that does not resolve is not a host (Slack and Discord URLs carry tokens there; those
  plugins post to their fixed public service host). :func:`target_problem` runs the same
  checks when a subscription is saved (issue 25), with a bounded lookup.
- **Limits**: a wall-clock timeout per send (``delivery_timeout_seconds``), and at most
  ``delivery_max_answer_bytes`` of the receiver's answer are read.
- **Classification**: 2xx delivered; timeouts, connection errors, 408, 429 and 5xx are
  retried (``Retry-After`` in seconds or as an HTTP date is passed on); 410 means the
  endpoint is gone; any other answer (3xx, 4xx) fails without retry. An Apprise send that
  reports failure is retried (Apprise does not say why).
- Errors never name the target or a secret: they say what happened ("HTTP 503", "timed out
  after 10s", "the address 127.0.0.1 is loopback") and nothing else. Apprise's own log is
  kept out of the service log for the same reason (its messages name hosts and addresses).
"""

from __future__ import annotations

import logging
import re
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ci_service import __version__
from ci_service.intel.errors import BlockedUrl
from ci_service.intel.retry_after import retry_after_seconds

if TYPE_CHECKING:
    import httpx

# httpx and the SSRF guard (which builds on it) are imported where a webhook is checked or
# sent, not with this module: the web app imports it for its rules, and httpx took about
# 55 ms of every start (issue 31).

USER_AGENT = f"ci-service/{__version__} (webhooks)"
RETRY_STATUSES = frozenset({408, 429})
# Alert targets have their own allowance: letting the crawler reach an intranet site must not
# also let anyone with EDITOR point a webhook at the metadata service or the database.
ALLOW_PRIVATE_HINT = "set CI_SERVICE_ALERTS_ALLOW_PRIVATE_URLS=1 to allow"
# How long saving a subscription waits for its target's host to resolve.
SAVE_LOOKUP_SECONDS = 2.0
_RESOLVES = re.compile(r"^\S+ resolves to (\S+), which (.+)$")

# Apprise logs target hosts, addresses and sometimes URL parts: never into the service log.
_apprise_log = logging.getLogger("apprise")
_apprise_log.addHandler(logging.NullHandler())
_apprise_log.propagate = False
# httpx logs every request's URL at INFO; a webhook URL may hold a token, so its records are
# dropped while this thread sends a webhook (the intel fetcher's stay as they are).
_sending = threading.local()


class _QuietWhileSending(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(_sending, "active", False)


for _name in ("httpx", "httpcore"):
    logging.getLogger(_name).addFilter(_QuietWhileSending())


@dataclass(frozen=True)
class Outcome:
    """What one send did. ``retry``: try again later; ``gone``: the endpoint answered 410."""

    ok: bool
    status: int | None = None
    error: str | None = None
    retry: bool = False
    retry_after: float | None = None
    gone: bool = False


def classify(status: int, retry_after: str | None = None) -> Outcome:
    """The outcome of an HTTP answer with ``status``."""
    if 200 <= status < 300:
        return Outcome(True, status)
    if status == 410:
        return Outcome(False, status, "HTTP 410 Gone: the endpoint no longer exists", gone=True)
    if status in RETRY_STATUSES or status >= 500:
        wait = retry_after_seconds(retry_after)
        return Outcome(False, status, f"HTTP {status}", retry=True, retry_after=wait)
    if 300 <= status < 400:
        return Outcome(False, status, f"HTTP {status}: webhooks do not follow redirects")
    return Outcome(False, status, f"HTTP {status}: the receiver refused the message")


def blocked_message(exc: BlockedUrl) -> str:
    """A BlockedUrl's reason without the URL or host name (those may hold secrets)."""
    reason = exc.reason
    match = _RESOLVES.match(reason)
    if match:
        reason = f"the target's host resolves to {match.group(1)}, which {match.group(2)}"
    elif reason.startswith("address "):
        reason = "the target's " + reason
    text = f"refused by the SSRF guard: {reason}"
    return f"{text}; {ALLOW_PRIVATE_HINT}" if exc.overridable else text


def signature_header(secrets: list[str], message_id: str, timestamp: int, body: str) -> str:
    """``webhook-signature``: one ``v1,...`` per secret (current first), space separated."""
    from datetime import UTC, datetime

    from standardwebhooks import Webhook

    moment = datetime.fromtimestamp(timestamp, UTC)
    return " ".join(Webhook(secret).sign(message_id, moment, body) for secret in secrets)


class WebhookSender:
    """One guarded httpx client for a batch of webhook sends (close it, or use ``with``)."""

    def __init__(self, *, allow_private: bool, timeout: float, max_bytes: int):
        self.allow_private = allow_private
        self.timeout = max(float(timeout), 0.1)
        self.max_bytes = max(int(max_bytes), 1)
        self._client: httpx.Client | None = None

    def __enter__(self) -> WebhookSender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    @property
    def client(self) -> httpx.Client:
        if self._client is None:
            import httpx

            from ci_service.intel.netguard import GuardedTransport

            self._client = httpx.Client(
                transport=GuardedTransport(allow_private=self.allow_private),
                follow_redirects=False,
                trust_env=False,
                timeout=httpx.Timeout(self.timeout),
            )
        return self._client

    def send(self, url: str, secrets: list[str], message_id: str, body: str) -> Outcome:
        """POST ``body`` signed with ``secrets`` to ``url``; never raises."""
        import httpx

        from ci_service.intel.netguard import check_url, deadline_scope

        try:
            check_url(url, allow_private=self.allow_private)
        except BlockedUrl as exc:
            return Outcome(False, error=blocked_message(exc))
        timestamp = int(time.time())  # the attempt's real time: receivers check freshness
        headers = {
            "webhook-id": message_id,
            "webhook-timestamp": str(timestamp),
            "webhook-signature": signature_header(secrets, message_id, timestamp, body),
            "content-type": "application/json",
            "user-agent": USER_AGENT,
        }
        _sending.active = True
        try:
            with deadline_scope(time.monotonic() + self.timeout):
                with self.client.stream(
                    "POST", url, content=body.encode("utf-8"), headers=headers
                ) as response:
                    read = 0
                    for chunk in response.iter_raw():
                        read += len(chunk)
                        if read >= self.max_bytes:
                            break  # the status is all that matters; a huge answer is cut
                    return classify(response.status_code, response.headers.get("retry-after"))
        except BlockedUrl as exc:
            return Outcome(False, error=blocked_message(exc))
        except httpx.TimeoutException:
            return Outcome(False, error=f"timed out after {self.timeout:g}s", retry=True)
        except httpx.ConnectError:
            return Outcome(False, error="could not connect to the receiver", retry=True)
        except httpx.HTTPError as exc:
            return Outcome(False, error=f"network error ({type(exc).__name__})", retry=True)
        finally:
            _sending.active = False


def _hosts(plugin) -> list[str]:
    hosts: list[str] = []
    for name in ("host", "smtp_host"):
        value = getattr(plugin, name, None)
        if isinstance(value, str) and value.strip():
            host = value.strip().strip("[]")
            if host not in hosts:
                hosts.append(host)
    return hosts


def apprise_problem(plugin, *, allow_private: bool, timeout: float | None = None) -> str | None:
    """Why the Apprise ``plugin``'s hosts must not be contacted, or None (pre-resolution).

    A host that does not resolve is a token, not a host (the plugin's service host is fixed).
    ``timeout`` bounds each lookup (None, when sending: as long as the resolver takes, so a
    slow answer is still vetted before Apprise resolves the name itself).
    """
    from ci_service.intel.netguard import host_problem

    for host in _hosts(plugin):
        problem = host_problem(host, allow_private=allow_private, timeout=timeout)
        if problem is not None:
            return blocked_message(problem)
    return None


def target_problem(
    channel: str, url: str, *, allow_private: bool, timeout: float = SAVE_LOOKUP_SECONDS
) -> str | None:
    """Why alerts must not be sent to ``url`` (checked when a subscription is saved), or None.

    The send-time rules ahead of time: an IP literal in any spelling, or a name that
    resolves (within ``timeout``) to a refused address. A name that does not resolve now
    passes; the send checks it again. ``url`` is already known to be well formed.
    """
    from ci_service.intel.netguard import check_url, host_problem

    if channel == "webhook":
        try:
            host = check_url(url, allow_private=allow_private).host
        except BlockedUrl as exc:
            return blocked_message(exc)
        problem = host_problem(host, allow_private=allow_private, timeout=timeout)
        return blocked_message(problem) if problem is not None else None
    plugin = _apprise_plugin(url)
    if plugin is None:
        return "not a valid Apprise URL"
    return apprise_problem(plugin, allow_private=allow_private, timeout=timeout)


def _apprise_plugin(url: str):
    import apprise

    try:
        return apprise.Apprise.instantiate(url)
    except Exception:  # a malformed URL must not raise out of a check
        return None


def send_apprise(
    url: str, title: str, body: str, body_format: str, *, allow_private: bool, timeout: float
) -> Outcome:
    """Notify one Apprise URL; never raises."""
    import apprise

    plugin = _apprise_plugin(url)
    if plugin is None:
        return Outcome(False, error="not a valid Apprise URL")
    problem = apprise_problem(plugin, allow_private=allow_private)
    if problem is not None:
        return Outcome(False, error=problem)
    timeout = max(float(timeout), 0.1)
    plugin.socket_connect_timeout = timeout
    plugin.socket_read_timeout = timeout
    notifier = apprise.Apprise()
    notifier.add(plugin)
    service = getattr(plugin, "service_name", None) or "Apprise"
    try:
        sent = notifier.notify(title=title, body=body, body_format=body_format)
    except Exception as exc:
        error = f"{service}: error while sending ({type(exc).__name__})"
        return Outcome(False, error=error, retry=True)
    if sent:
        return Outcome(True)
    return Outcome(False, error=f"{service}: the notification was not accepted", retry=True)


def is_email(url: str) -> bool:
    """Apprise e-mail URLs get HTML bodies (Apprise adds the plain-text alternative)."""
    return url.split("://", 1)[0].lower() in {"mailto", "mailtos"}


__all__ = [
    "ALLOW_PRIVATE_HINT",
    "Outcome",
    "WebhookSender",
    "apprise_problem",
    "blocked_message",
    "classify",
    "is_email",
    "retry_after_seconds",
    "send_apprise",
    "signature_header",
    "target_problem",
]
