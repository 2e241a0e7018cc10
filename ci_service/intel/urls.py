"""The crawler's form of a URL, in a module of its own: the alert rules compare URLs in
this form, and importing the crawler for it (httpx, lxml, the extractor) made every
process's start-up wait for them (issue 31)."""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit, urlunsplit

DEFAULT_PORTS = {"http": 80, "https": 443}


def normalize_url(url: str, base: str | None = None) -> str | None:
    """Absolute http(s) URL with lower-case scheme/host, no default port, userinfo or fragment.

    None for anything that is not an http(s) URL with a host.
    """
    try:
        parts = urlsplit(urljoin(base, url.strip()) if base else url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if scheme not in DEFAULT_PORTS or not host:
        return None
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and port != DEFAULT_PORTS[scheme]:
        netloc += f":{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def path_segments(url: str) -> list[str]:
    """The lower-cased segments of a URL's path, without a final index.html."""
    return [s for s in urlsplit(url).path.lower().split("/") if s and s != "index.html"]
