"""Exceptions of the intel layer.

Every fetch failure is a :class:`FetchError` whose message names the URL and says what went
wrong in words a job can show as its step error. Extraction failures are
:class:`ExtractionError`. None of these is an HTTP API error: the job runner decides how a
failed step is reported.
"""

from __future__ import annotations

ALLOW_PRIVATE_HINT = "set CI_SERVICE_ALLOW_PRIVATE_URLS=1 to allow"


class FetchError(Exception):
    """A fetch failed. ``url`` is the URL being fetched when it failed (may be a redirect hop)."""

    def __init__(self, message: str, url: str | None = None):
        super().__init__(message)
        self.message = message
        self.url = url


class BlockedUrl(FetchError):
    """The SSRF guard refused the URL: bad scheme, credentials, or a non-public address.

    ``reason`` is the bare reason ("address 127.0.0.1 is loopback"); ``overridable`` says
    whether ``CI_SERVICE_ALLOW_PRIVATE_URLS=1`` would let it through.
    """

    def __init__(self, reason: str, url: str | None = None, *, overridable: bool = False):
        self.reason = reason
        self.overridable = overridable
        target = url if url is not None else "this URL"
        message = f"refusing to fetch {target}: {reason}"
        if overridable:
            message += f"; {ALLOW_PRIVATE_HINT}"
        super().__init__(message, url)

    def for_url(self, url: str) -> BlockedUrl:
        """The same refusal, naming ``url`` (the guard at connect time only knows the host)."""
        return BlockedUrl(self.reason, url, overridable=self.overridable)


class TooLarge(FetchError):
    """The body is larger than ``FetchPolicy.max_bytes``."""


class FetchTimeout(FetchError):
    """The fetch ran past its total wall-clock deadline or an httpx timeout."""


class TooManyRedirects(FetchError):
    """More redirects than ``FetchPolicy.max_redirects``."""


class RobotsDisallowed(FetchError):
    """robots.txt does not allow our User-Agent to fetch the URL."""


class NetworkError(FetchError):
    """Connection or protocol failure that retries did not cure."""


class HttpError(FetchError):
    """Raised by ``FetchResult.raise_for_status`` for a final status of 400 or more."""

    def __init__(self, message: str, url: str | None = None, status: int = 0):
        super().__init__(message, url)
        self.status = status


class ExtractionError(Exception):
    """A document could not be read (broken PDF, not a DOCX, not a feed, ...)."""


__all__ = [
    "ALLOW_PRIVATE_HINT",
    "BlockedUrl",
    "ExtractionError",
    "FetchError",
    "FetchTimeout",
    "HttpError",
    "NetworkError",
    "RobotsDisallowed",
    "TooLarge",
    "TooManyRedirects",
]
