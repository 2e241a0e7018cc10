"""Real web data the pipeline must survive and see through: odd dates (year 1, year 9999,
no timezone, garbage), encodings, feeds served as HTML, huge navigation menus, cookie
banners, footers repeated on every page, duplicated pages and URLs, and 404s linked
everywhere. Nothing fails, nothing unreadable is stored, and boilerplate never becomes
evidence text."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ci_service.intel import boilerplate
from ci_service.intel.crawl import canonical_url, crawl_rank
from ci_service.intel.extract import extract_html
from ci_service.intel.feeds import parse_feed
from ci_service.store.db import connection
from ci_service.store.intel import IntelItem
from ci_service.timeutil import read_stored, stored_text
from tests.intel_support import FixtureServer
from tests.pipeline_fixtures.support import add_competitor, job, run_jobs

pytest_plugins = ["tests.jobs_fixtures", "tests.pipeline_fixtures.plugin"]

FOOTER = "<footer><p>© 2021 Rival Ltd. All rights reserved.</p></footer>"
NAV = "<nav>" + "".join(f'<a href="/section-{n}/">Section {n}</a>' for n in range(400)) + "</nav>"
COOKIE_BANNER = (
    '<div class="notice"><p>We use cookies to improve your experience.</p>'
    "<p>Accept all cookies</p></div>"
)


def rss(*items: tuple[str, str, str]) -> bytes:
    body = "".join(
        f"<item><title>{title}</title><link>{link}</link><pubDate>{date}</pubDate></item>"
        for title, link, date in items
    )
    return (
        f'<?xml version="1.0"?><rss version="2.0"><channel><title>News</title>{body}'
        "</channel></rss>"
    ).encode()


# -- dates ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "date",
    [
        "Mon, 01 Jan 0001 00:00:00 +0000",
        "0001-01-01T00:00:00Z",
        "Fri, 31 Dec 9999 23:59:59 +0000",
        "not a date at all",
        "",
        "Thu, 32 Jan 2020 25:61:00 +0000",
    ],
)
def test_feed_dates_that_mean_nothing_are_unknown(date):
    entries = parse_feed(rss(("Launch day", "https://rival.example/launch", date)), "https://x/")
    assert [e.title for e in entries] == ["Launch day"]
    assert entries[0].published is None


def test_feed_date_without_timezone_is_utc():
    entries = parse_feed(
        rss(("Launch", "https://rival.example/l", "Tue, 10 Jun 2020 04:00:00")), "https://x/"
    )
    assert entries[0].published == datetime(2020, 6, 10, 4, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "when",
    [datetime(1, 1, 1, tzinfo=UTC), datetime(9999, 12, 31, 23, 59, tzinfo=UTC)],
    ids=["year-1", "year-9999"],
)
def test_stored_datetimes_are_fixed_width_and_read_back_for_any_year(when):
    text = stored_text(when)
    assert len(text) == len("2020-01-01T00:00:00.000000Z")
    assert read_stored(text) == when


def test_older_and_garbage_stored_datetimes():
    # What an older version wrote for year 1, and garbage: read, or null; never an error.
    assert read_stored("1-01-01T00:00:00.000000Z") == datetime(1, 1, 1, tzinfo=UTC)
    assert read_stored("garbage") is None


def test_a_badly_stored_date_never_breaks_the_intel_list(api, crawl_env, tmp_path):
    with FixtureServer() as server:
        server.routes["/robots.txt"] = lambda h: h.send(404, b"", "text/plain")
        server.routes["/"] = lambda h: h.send(200, b"<h1>Rival</h1><p>" + b"Words. " * 50)
        competitor_id, job_id = add_competitor(api, server.url("/"))
        run_jobs()
    assert job(api, job_id)["status"] == "completed"
    with connection():
        row = IntelItem.select().where(IntelItem.competitor == competitor_id).first()
        # The form the issue reported: a year-1 date written without zero padding.
        IntelItem.update(published_at="1-01-01T00:00:00.000000Z").where(
            IntelItem.id == row.id
        ).execute()
    listed = api.get(f"/api/intel?competitorId={competitor_id}")
    assert listed.status_code == 200
    one = api.get(f"/api/intel/{row.id}")
    assert one.status_code == 200 and one.json["intelItem"]["publishedAt"].startswith("0001-")


# -- boilerplate ---------------------------------------------------------------------------


def test_navigation_line_cookie_banner_and_calls_to_action_are_not_text():
    html = (
        "<html><body><div class='top'>"
        '<a href="/">Home</a> <a href="/pricing">Pricing</a> <a href="/resources">Resources</a> '
        '<a href="/blog">Blog</a> <button>Toggle navigation</button></div>'
        f"{COOKIE_BANNER}<main><h1>Rival Cloud</h1>"
        "<p>Rival Cloud routes every ticket to the right agent within seconds.</p>"
        "<p><a href='/signup'>Get started for free →</a></p></main></body></html>"
    )
    page = extract_html(html, "https://rival.example/")
    assert "routes every ticket" in page.text
    for junk in ("Toggle navigation", "Resources", "cookies", "Get started"):
        assert junk not in page.text, junk


def test_a_huge_menu_in_nav_never_reaches_the_text():
    html = f"<html><body>{NAV}<h1>Product</h1><p>{'Real words here. ' * 30}</p></body></html>"
    page = extract_html(html, "https://rival.example/product/")
    assert "Section 1" not in page.text and "Real words here." in page.text
    assert len(page.links) == 400  # links are still known, for the crawl


def test_pricing_cards_that_trafilatura_drops_are_kept():
    cards = "".join(
        f"<div class='card'><h5>{name}</h5><p>For teams that want {name.lower()}</p>"
        f"<h5>{price} <span>per user / month</span></h5><p>✓ Feature {name}</p></div>"
        for name, price in (("Free", "$0"), ("Team", "$6"), ("Business", "$12"))
    )
    html = (
        "<html><body><main><h1>Pricing</h1><p>"
        + "Our pricing works for businesses of all sizes and shapes. " * 6
        + f"</p>{cards}</main></body></html>"
    )
    page = extract_html(html, "https://rival.example/pricing/")
    for fact in ("$6 per user / month", "$12 per user / month", "Team", "Business"):
        assert fact in page.text, fact


def test_lines_repeated_on_most_pages_are_removed_site_wide():
    def page(n: int, body: str):
        return extract_html(
            f"<html><body><main><h1>Page {n}</h1><p>{body}</p>"
            "<p>Subscribe to our newsletter for monthly product news and tips.</p>"
            "<h3>Company</h3><p>About us</p><p>Careers</p></main></body></html>",
            f"https://rival.example/p{n}/",
        )

    pages = [
        page(n, f"Unique statement number {n} about the product's audit trail.") for n in range(6)
    ]
    removed = boilerplate.drop_repeated_lines(pages)
    assert removed == 6 * 3
    for n, p in enumerate(pages):
        assert f"Unique statement number {n}" in p.text
        assert "newsletter" not in p.text and "Careers" not in p.text
        assert "Company" not in p.text  # a heading left without text goes too


def test_small_sites_keep_their_repeated_lines():
    pages = [
        extract_html(f"<html><body><h1>P{n}</h1><p>Shared line of text.</p></body></html>", "u")
        for n in range(3)
    ]
    assert boilerplate.drop_repeated_lines(pages) == 0
    assert all("Shared line of text." in p.text for p in pages)


def test_a_line_naming_three_products_in_prose_is_not_navigation():
    links = ["Alpha", "Beta", "Gamma"]
    line = "Our platform connects Alpha, Beta and Gamma so that your whole team sees one view."
    assert not boilerplate.is_navigation_line(line, links)
    assert boilerplate.is_navigation_line("Alpha Beta Gamma Contact", [*links, "Contact"])


# -- canonical URLs and duplicates ---------------------------------------------------------


@pytest.mark.parametrize(
    "url, expected",
    [
        ("https://r.example/about/", "https://r.example/about"),
        ("https://r.example/about/index.html", "https://r.example/about"),
        ("https://r.example/?utm_source=x&utm_medium=y", "https://r.example/"),
        ("https://r.example/p?b=2&a=1&gclid=zzz", "https://r.example/p?a=1&b=2"),
        ("https://r.example/", "https://r.example/"),
    ],
)
def test_canonical_url(url, expected):
    assert canonical_url(url) == expected


def test_crawl_order_puts_company_pages_first_and_archives_last():
    assert crawl_rank("https://r.example/about/") < crawl_rank("https://r.example/blog/a-post/")
    assert crawl_rank("https://r.example/x/", "Pricing") < crawl_rank("https://r.example/x/")
    assert crawl_rank("https://r.example/tags/go/") > crawl_rank("https://r.example/blog/post/")
    assert crawl_rank("https://r.example/?page=2") > crawl_rank("https://r.example/blog/post/")


def _site_with_traps(server: FixtureServer) -> None:
    base = server.base
    body = "<p>" + "Rival builds workflow software for support teams. " * 8 + "</p>"
    links = (
        '<a href="/about">About</a> <a href="/about/index.html">About us</a> '
        '<a href="/about/?utm_source=nav">About (tracked)</a> <a href="/copy/">Copy</a> '
        '<a href="/missing-1/">Gone 1</a> <a href="/missing-2/">Gone 2</a> '
        '<a href="/news/index.xml">News feed</a> <a href="/company/">Company</a>'
    )
    home = f"<html><body>{NAV}<p>{links}</p>{COOKIE_BANNER}<h1>Rival</h1>{body}{FOOTER}"
    about = (
        f'<html><head><link rel="canonical" href="{base}/about/"></head><body>{NAV}'
        "<h1>About Rival</h1><p>Rival was founded in 2015 and is headquartered in Austin, "
        f"Texas.</p>{FOOTER}</body></html>"
    )
    latin = "<p>Caf\xe9 cr\xe8me, na\xefve r\xe9sum\xe9.</p>"
    server.routes["/robots.txt"] = lambda h: h.send(404, b"", "text/plain")
    server.routes["/"] = lambda h: h.send(200, home.encode())
    for path in ("/about", "/about/", "/about/index.html"):
        server.routes[path] = lambda h: h.send(200, about.encode())
    # The same page under another URL (an A/B copy): one source, not two.
    server.routes["/copy/"] = lambda h: h.send(200, home.encode())
    server.routes["/company/"] = lambda h: h.send(
        200,
        f'<html><head><meta charset="iso-8859-1"></head><body><h1>Menu</h1>{latin}'.encode(
            "latin-1"
        ),
        "text/html",
    )
    # A feed URL that answers with an HTML page: skipped, not fatal.
    server.routes["/news/index.xml"] = lambda h: h.send(200, b"<html><body>oops</body></html>")
    server.routes["/index.xml"] = lambda h: h.send(
        200,
        rss(
            ("Rival ships v2", f"{base}/news/v2/", "Mon, 01 Jan 0001 00:00:00 +0000"),
            ("Rival wins award", f"{base}/news/award/", "Tue, 10 Mar 2020 09:00:00 GMT"),
        ),
        "application/rss+xml",
    )


def test_a_collect_over_a_hostile_site_completes_with_one_source_per_page(api, crawl_env):
    with FixtureServer() as server:
        _site_with_traps(server)
        competitor_id, job_id = add_competitor(api, server.url("/"))
        run_jobs()
        finished = job(api, job_id)
    assert finished["status"] == "completed", finished
    items = api.get(f"/api/intel?competitorId={competitor_id}").json["intelItems"]
    urls = [item["url"] for item in items]
    about = [u for u in urls if "/about" in (u or "")]
    assert about == [server.url("/about/")]  # three URLs, one canonical source
    assert not any("/copy/" in (u or "") for u in urls)
    dated = {item["title"]: item["publishedAt"] for item in items if item["sourceType"] == "NEWS"}
    # Year 1 is no date, and news without a date is not news (issue 26): not stored at all.
    assert "Rival ships v2" not in dated
    assert dated["Rival wins award"].startswith("2020-03-10")
    # 400 broken menu links: the crawl stops at its fetch cap instead of trying them all,
    # after the key pages (about, company), which it visits first.
    assert server.paths().count("/robots.txt") <= 1
    assert sum(1 for p in server.paths() if p.startswith("/section-")) < 400
    latin = next(item for item in items if (item["url"] or "").endswith("/company/"))
    assert "Café crème, naïve résumé." in latin["content"]
    for item in items:
        content = item["content"]
        assert "Section 12" not in content and "cookies" not in content
        assert "All rights reserved" not in content


def test_a_wrapper_named_like_chrome_that_holds_the_content_is_kept():
    body = "<p>" + "Rival ships audit trails for every workflow change. " * 10 + "</p>"
    html = (
        "<html><body><div class='u-header--left-aligned-nav'><nav><a href='/a'>A</a></nav>"
        f"<div class='navbar'><h1>Rival Pricing</h1>{body}</div></div>"
        "<div class='cookie-banner'><p>Some banner words that are not content.</p></div>"
        "</body></html>"
    )
    page = extract_html(html, "https://rival.example/")
    assert "Rival ships audit trails" in page.text and "Rival Pricing" in page.text
    assert "banner words" not in page.text
