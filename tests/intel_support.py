"""Helpers for the intel tests: a local threaded HTTP server and a tiny PDF writer.

No internet is reachable, so every fetch goes to a :class:`FixtureServer` on 127.0.0.1 and a
free port. Routes are plain functions of the request handler; files under a root folder
are served too, with ``{base}`` in text files replaced by the server's base URL.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

FIXTURES = Path(__file__).parent / "intel_fixtures"
SITE = FIXTURES / "site"

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".xml": "application/xml",
    ".txt": "text/plain; charset=utf-8",
    ".pdf": "application/pdf",
    ".png": "image/png",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}

Route = Callable[["Handler"], None]


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    at: float


class Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        owner = self.server.owner
        owner.record(self)
        path = self.path.split("?", 1)[0]
        route = owner.routes.get(self.path) or owner.routes.get(path)
        if route is not None:
            route(self)
        else:
            owner.serve_file(self, path)

    def send(
        self,
        status: int,
        body: bytes = b"",
        content_type: str = "text/html; charset=utf-8",
        headers: dict[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass  # keep test output clean


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: FixtureServer


class FixtureServer:
    """A threaded HTTP server on ``host`` (a loopback address, 127.0.0.1 unless given) and
    a free port. Use as a context manager."""

    def __init__(self, root: Path | None = None, host: str = "127.0.0.1"):
        self.root = root
        self.routes: dict[str, Route] = {}
        self.requests: list[Seen] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._server = _Server((host, 0), Handler)
        self._server.owner = self
        self.port = self._server.server_address[1]
        self.base = f"http://{host}:{self.port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def __enter__(self) -> FixtureServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def url(self, path: str) -> str:
        return self.base + path

    def record(self, handler: Handler) -> None:
        with self._lock:
            self.requests.append(Seen(handler.path, dict(handler.headers), time.monotonic()))

    def hits(self, path: str) -> int:
        with self._lock:
            return sum(1 for seen in self.requests if seen.path == path)

    def paths(self) -> list[str]:
        with self._lock:
            return [seen.path for seen in self.requests]

    def serve_file(self, handler: Handler, path: str) -> None:
        if self.root is None or ".." in path:
            handler.send(404, b"not found", "text/plain")
            return
        relative = path.lstrip("/")
        candidates = [relative, f"{relative}.html", f"{relative.rstrip('/')}/index.html"]
        for candidate in candidates:
            file = self.root / candidate if candidate else self.root / "index.html"
            if file.is_file():
                body = file.read_bytes()
                kind = CONTENT_TYPES.get(file.suffix, "application/octet-stream")
                if kind.startswith(("text/", "application/xml")):
                    body = body.replace(b"{base}", self.base.encode())
                handler.send(200, body, kind)
                return
        handler.send(404, b"<h1>Not found</h1>")


def serve_500s(server: FixtureServer) -> None:
    """Make ``server`` a site where no page can be fetched: its home and sitemap answer 500
    (robots.txt 404: crawling is allowed)."""
    server.routes["/robots.txt"] = lambda h: h.send(404, b"", "text/plain")
    server.routes["/"] = lambda h: h.send(500, b"<h1>oops</h1>")
    server.routes["/sitemap.xml"] = lambda h: h.send(500, b"oops", "text/plain")


def _pdf_string(text: str) -> str:
    return "(" + text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


def make_pdf(pages: list[list[str]], title: str = "") -> bytes:
    """A small valid PDF (Helvetica text, one list of lines per page) with a correct xref."""
    count = len(pages)
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(count))
    font = 3 + 2 * count
    info = font + 1
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {count} >>",
    ]
    for index, lines in enumerate(pages):
        content = "BT /F1 12 Tf 72 720 Td 16 TL " + " ".join(
            f"{_pdf_string(line)} Tj T*" for line in lines
        )
        content += " ET"
        objects.append(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Contents {4 + 2 * index} 0 R /Resources << /Font << /F1 {font} 0 R >> >> >>"
        )
        objects.append(f"<< /Length {len(content)} >>\nstream\n{content}\nendstream")
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    objects.append(f"<< /Title {_pdf_string(title)} >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info {info} 0 R >>\n"
        f"startxref\n{xref}\n%%EOF\n"
    ).encode()
    return bytes(out)
