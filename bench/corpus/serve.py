"""Serve a corpus site's local copy on loopback the way its public host served it.

Every spelling of the site's own origin in a text file (``https://www.acme.com``,
``http://acme.com``, ``//acme.com``, JSON-escaped ``https:\\/\\/acme.com``) becomes the local
address, so absolute links, canonical URLs, sitemaps and feeds lead back here. A folder
answers with its ``index.html`` (a folder URL without its slash is redirected to it), a path
without extension finds ``path.html``, and a file saved with its query string in its name
(``index.html?p=12``) answers that query. Anything else is a 404.
"""

from __future__ import annotations

import contextlib
import http.server
import re
import threading
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.corpus.manifest import Site, copy_of
from bench.corpus.split import normal_host

TEXT = (".html", ".htm", ".xml", ".txt", ".rss", ".atom", ".json", ".php", ".asp")


def origin_pattern(site: Site) -> re.Pattern[bytes]:
    """Any scheme (or none), ``www.`` or not, of the site's host and its listed spellings."""
    names = {normal_host(site.host)} | {normal_host(h) for h in site.hosts}
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(
        rb"(?:https?:)?(?:\\?/){2}(?:www\.)?(?:" + alternatives.encode() + rb")(?::\d+)?"
        rb"(?![\w-]|\.[A-Za-z])",
        re.IGNORECASE,
    )


def content_type(path: Path, body: bytes) -> str:
    name = path.name.lower()
    head = body[:512].lstrip().lower()
    if name.endswith((".html", ".htm", ".php", ".asp")) or b"<html" in head or b"<!doctype" in head:
        if b"<rss" in head or b"<feed" in head:
            return "application/rss+xml"
        return "text/html; charset=utf-8"
    if name.endswith((".xml", ".rss", ".atom")) or head.startswith(b"<?xml"):
        if b"<rss" in head or b"<feed" in head or "feed" in name or "rss" in name:
            return "application/rss+xml"
        return "application/xml"
    if name.endswith(".pdf"):
        return "application/pdf"
    if name.endswith(".json"):
        return "application/json"
    return "text/plain; charset=utf-8"


class CorpusHandler(http.server.BaseHTTPRequestHandler):
    root: Path
    pattern: re.Pattern[bytes]

    def log_message(self, *args):  # the benchmark's output is its table
        pass

    def do_HEAD(self):  # noqa: N802 (http.server's naming)
        self._answer(head=True)

    def do_GET(self):  # noqa: N802
        self._answer(head=False)

    def _answer(self, head: bool) -> None:
        split = urllib.parse.urlsplit(self.path)
        relative = urllib.parse.unquote(split.path).lstrip("/")
        found = self._find(relative, split.query)
        if found == "redirect":
            self.send_response(301)
            self.send_header(
                "Location", split.path + "/" + ("?" + split.query if split.query else "")
            )
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if found is None:
            body = b"<html><body><h1>Not found</h1></body></html>"
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
        else:
            body = found.read_bytes()
            if found.name.lower().endswith(TEXT) or "." not in found.name:
                base = f"http://{self.headers.get('Host') or self.server.server_address[0]}"
                body = self.pattern.sub(base.encode(), body)
            self.send_response(200)
            self.send_header("Content-Type", content_type(found, body))
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _find(self, relative: str, query: str) -> Path | str | None:
        root = self.root
        path = (root / relative).resolve()
        if root not in path.parents and path != root:
            return None
        if query:
            saved = path.with_name(path.name + "?" + query)
            if saved.is_file():
                return saved
        if path.is_dir():
            if relative and not relative.endswith("/"):
                return "redirect"
            for index in ("index.html", "index.htm"):
                if (path / index).is_file():
                    return path / index
            return None
        if path.is_file():
            return path
        for suffix in (".html", ".htm"):
            candidate = path.with_name(path.name + suffix)
            if candidate.is_file():
                return candidate
        return None


@contextlib.contextmanager
def serve_site(site: Site, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """The site's local copy on ``host`` (a free port unless given); yields its base URL."""
    root = copy_of(site).resolve()
    if not root.is_dir():
        raise FileNotFoundError(
            f"{site.site}: no local copy at {root}; run python -m bench.corpus build"
        )
    handler = type("SiteHandler", (CorpusHandler,), {"root": root, "pattern": origin_pattern(site)})
    with serve_http(handler, host, port) as url:
        yield url


@contextlib.contextmanager
def serve_http(handler: Any, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """An HTTP server for ``handler`` on a thread of its own; yields its base URL."""
    server = http.server.ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
