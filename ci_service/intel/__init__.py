"""Fetching and extraction layer of the intel pipeline (issue 5).

Nothing here touches the web app or the database. The pieces:

- :mod:`.policy`: :class:`FetchPolicy`, the limits every fetch obeys, built from settings.
- :mod:`.netguard`: the SSRF guard, checked on every connection (each redirect hop too).
- :mod:`.fetch`: :class:`Fetcher`, the one HTTP client all jobs use.
- :mod:`.crawl`: same-site crawl with robots, sitemaps and feed discovery.
- :mod:`.extract`: HTML, JSON-LD, PDF, DOCX and RSS/Atom extraction (heavy imports are lazy).

Importing this package stays cheap: it pulls in no third-party module at all.
"""

from __future__ import annotations

from ci_service.intel.errors import (
    BlockedUrl,
    ExtractionError,
    FetchError,
    FetchTimeout,
    HttpError,
    NetworkError,
    RobotsDisallowed,
    TooLarge,
    TooManyRedirects,
)
from ci_service.intel.policy import DEFAULT_USER_AGENT, FetchPolicy

__all__ = [
    "DEFAULT_USER_AGENT",
    "BlockedUrl",
    "ExtractionError",
    "FetchError",
    "FetchPolicy",
    "FetchTimeout",
    "HttpError",
    "NetworkError",
    "RobotsDisallowed",
    "TooLarge",
    "TooManyRedirects",
]
