"""A generated competitor website of exactly N HTML pages, served on loopback.

Pages: home (links to every page, announces the feed), about (JSON-LD Organization,
leadership), pricing, contact, product pages under ``/products/`` (JSON-LD
SoftwareApplication, a features list, "why" benefits), news articles under ``/news/``
listed in ``/news/feed.xml``, and blog posts for the rest; ``robots.txt`` and
``sitemap.xml`` list them. Served by ``http.server.ThreadingHTTPServer`` in a thread;
every request path is recorded so the benchmark can replay exactly what the crawl fetched.
"""

from __future__ import annotations

import random
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from bench.seed import WORDS

FEATURES = [
    "Ticket routing",
    "Workflow automation",
    "Single sign-on",
    "Audit logs",
    "Custom dashboards",
    "Real-time analytics",
    "API access",
    "Data encryption",
    "Role-based access control",
    "Webhooks",
    "SLA management",
    "Mobile app",
]


def _page(title: str, body: str, head: str = "") -> str:
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"{head}</head><body><main>{body}</main><footer>© Globex Software</footer></body></html>"
    )


def _paragraphs(rng: random.Random, n: int) -> str:
    out = []
    for _ in range(n):
        sentences = [f"Globex {' '.join(rng.sample(WORDS, 10))}." for _ in range(rng.randint(3, 5))]
        out.append(f"<p>{' '.join(sentences)}</p>")
    return "".join(out)


def build_site(pages: int, seed: int = 5) -> dict[str, tuple[bytes, str]]:
    """``{path: (body, content type)}`` with ``pages`` HTML pages ({base} left unfilled)."""
    if pages < 6:
        raise ValueError("a site needs at least 6 pages")
    rng = random.Random(seed)
    n_products = max(1, pages // 10)
    n_news = max(1, pages // 10)
    n_blog = pages - 4 - n_products - n_news
    site: dict[str, str] = {}
    links = ['<a href="/about">About</a>', '<a href="/pricing">Pricing</a>',
             '<a href="/contact">Contact</a>']  # fmt: skip
    for k in range(n_products):
        name = f"Flow{k:03d}"
        feats = rng.sample(FEATURES, 5)
        items = "".join(f"<li>{f}: {' '.join(rng.sample(WORDS, 6))}</li>" for f in feats)
        ld = (
            '<script type="application/ld+json">{"@context": "https://schema.org", '
            f'"@type": "SoftwareApplication", "name": "{name}", '
            '"applicationCategory": "Customer Support", '
            f'"description": "{name} is the help desk that routes every ticket.", '
            '"offers": {"@type": "Offer", "name": "Pro", "price": "49", '
            '"priceCurrency": "USD"}}</script>'
        )
        body = (
            f"<h1>{name}</h1><p>{name} is the help desk that routes every ticket to the "
            f"right agent.</p><h2>Features</h2><ul>{items}</ul><h2>Why {name}</h2>"
            f"<ul><li>Resolve tickets 40% faster</li></ul>{_paragraphs(rng, 2)}"
        )
        site[f"/products/{name.lower()}"] = _page(f"{name} – Help desk software", body, ld)
        links.append(f'<a href="/products/{name.lower()}">{name}</a>')
    feed_items = []
    for k in range(n_news):
        title = f"Globex announces release {k}"
        site[f"/news/release-{k}"] = _page(title, f"<h1>{title}</h1>{_paragraphs(rng, 3)}")
        links.append(f'<a href="/news/release-{k}">{title}</a>')
        day = 1 + k % 28
        feed_items.append(
            f"<item><title>{title}</title><link>{{base}}/news/release-{k}</link>"
            f"<guid>{{base}}/news/release-{k}</guid>"
            f"<pubDate>Tue, {day:02d} Mar 2026 09:00:00 GMT</pubDate>"
            f"<description>Release {k} brings workflow automation.</description></item>"
        )
    for k in range(n_blog):
        title = f"Blog post {k}: {' '.join(rng.sample(WORDS, 3))}"
        site[f"/blog/post-{k}"] = _page(title, f"<h1>{title}</h1>{_paragraphs(rng, 4)}")
        links.append(f'<a href="/blog/post-{k}">{title}</a>')
    site["/about"] = _page(
        "About us – Globex Software",
        "<h1>About Globex Software</h1><p>Globex Software was founded in Austin in 2011. "
        "Today 250 employees build help desk software. Last year we reported annual revenue "
        "of $40 million.</p><h2>Leadership</h2><p>Maria Lopez, Chief Executive Officer</p>"
        "<p>Ken Adams, CTO</p>",
        '<script type="application/ld+json">{"@context": "https://schema.org", '
        '"@type": "Organization", "name": "Globex Software Inc.", "foundingDate": '
        '"2011-03-15"}</script>',
    )
    site["/pricing"] = _page(
        "Pricing – Globex Software",
        "<h1>Pricing</h1><h2>Starter</h2><p>$19 per agent per month.</p><h2>Pro</h2>"
        "<p>$49 per agent per month, workflow automation.</p><h2>Enterprise</h2>"
        "<p>Contact sales for single sign-on and audit logs.</p>",
    )
    site["/contact"] = _page(
        "Contact – Globex Software",
        "<h1>Contact</h1><p>Globex Software is headquartered in Austin, Texas.</p>",
    )
    site["/"] = _page(
        "Globex Software – Help desk and analytics software",
        "<h1>Help desk and analytics software</h1><nav>" + " ".join(links) + "</nav>",
        '<link rel="alternate" type="application/rss+xml" title="Globex news" '
        'href="/news/feed.xml">',
    )
    assert len(site) == pages, (len(site), pages)
    out = {path: (html.encode(), "text/html; charset=utf-8") for path, html in site.items()}
    out["/news/feed.xml"] = (
        (
            '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel>'
            "<title>Globex news</title><link>{base}/news/</link>"
            "<description>News from Globex</description>" + "".join(feed_items) + "</channel></rss>"
        ).encode(),
        "application/rss+xml",
    )
    robots = b"User-agent: *\nDisallow:\n\nSitemap: {base}/sitemap.xml\n"
    out["/robots.txt"] = (robots, "text/plain")
    urls = "".join(f"<url><loc>{{base}}{path}</loc></url>" for path in site)
    out["/sitemap.xml"] = (
        (
            '<?xml version="1.0" encoding="UTF-8"?>'
            f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
        ).encode(),
        "application/xml",
    )
    return out


def send_file(handler: BaseHTTPRequestHandler, files: dict[str, tuple[bytes, str]]) -> None:
    """Answer ``handler``'s GET from ``files`` (``{path: (body, content type)}``), 404 when
    the path (without its query) is not there."""
    found = files.get(handler.path.split("?")[0])
    body, kind = found if found else (b"not found", "text/plain")
    handler.send_response(200 if found else 404)
    handler.send_header("Content-Type", kind)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


class SiteServer:
    """``with SiteServer(build_site(20)) as site: site.base`` (records request paths)."""

    def __init__(self, files: dict[str, tuple[bytes, str]]):
        self.paths: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body leave in two writes; with Nagle's algorithm on, the body of
            # every response on a kept connection waited for the client's delayed ACK
            # (40 ms on Linux), which the crawl paid per page and the replay on fresh
            # connections did not. Web servers set TCP_NODELAY on kept connections.
            disable_nagle_algorithm = True

            def do_GET(self):  # noqa: N802 (http.server's naming)
                owner.paths.append(self.path)
                send_file(self, owner.files)

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self._server.server_address[1]}"
        self.files = {
            path: (body.replace(b"{base}", self.base.encode()), kind)
            for path, (body, kind) in files.items()
        }
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> SiteServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()
