"""Same-site crawling of the fixture competitor site, served on 127.0.0.1."""

from __future__ import annotations

import gzip

import pytest

from ci_service.intel import BlockedUrl, FetchPolicy
from ci_service.intel.crawl import (
    crawl_site,
    looks_like_feed_url,
    normalize_url,
    site_key,
)
from ci_service.intel.fetch import Fetcher
from ci_service.intel.jsonld import organization_facts
from ci_service.intel.sitemaps import parse_sitemap
from tests.intel_support import SITE, FixtureServer, make_pdf

RSS = b"""<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>
<item><title>One</title><link>https://x.test/1</link></item></channel></rss>"""


def policy(**overrides) -> FetchPolicy:
    values = dict(allow_private=True, per_host_delay=0, deadline=5, retries=1, backoff=0.01)
    return FetchPolicy(**{**values, **overrides})


def page(*links: str) -> bytes:
    anchors = "".join(f'<a href="{link}">{link}</a> ' for link in links)
    return f"<html><body><p>Page text.</p>{anchors}</body></html>".encode()


@pytest.fixture
def site():
    with FixtureServer(root=SITE) as server:
        server.routes["/docs/whitepaper.pdf"] = lambda h: h.send(
            200, make_pdf([["Whitepaper"]]), "application/pdf"
        )
        yield server


@pytest.fixture
def bare():
    with FixtureServer() as server:
        yield server


@pytest.fixture
def fetcher():
    with Fetcher(policy()) as f:
        yield f


def test_crawl_of_the_fixture_site(site, fetcher):
    calls = []
    result = crawl_site(fetcher, site.url("/"), progress=lambda *a: calls.append(a))
    urls = [p.url for p in result.pages]
    assert urls[0] == site.url("/")
    assert set(urls) == {
        site.url(path)
        for path in [
            "/",
            "/products/widget-a",
            "/products/widget-b",
            "/products/widget-c",
            "/pricing",
            "/about",
            "/news/",
            "/hidden-launch",  # only listed in the sitemap
        ]
    }
    assert len(urls) == len(set(urls))
    assert calls == [(n, 50, url) for n, url in enumerate(urls, start=1)]
    # robots.txt disallows /private/: listed as skipped and never requested.
    assert result.skipped == [(site.url("/private/secret"), "disallowed by robots.txt")]
    assert site.hits("/private/secret") == 0
    assert site.hits("/robots.txt") == 1
    assert result.sitemaps == [site.url("/sitemap.xml")]
    assert result.feeds == [site.url("/news/rss.xml")]
    assert result.documents == [site.url("/docs/whitepaper.pdf"), site.url("/docs/brochure.docx")]
    assert result.errors == [] and result.cancelled is False
    # Assets, documents and other sites are not fetched by the crawl.
    fetched = set(site.paths())
    assert not fetched & {"/img/logo.png", "/static/site.css", "/docs/whitepaper.pdf"}
    about = next(p for p in result.pages if p.url.endswith("/about"))
    assert organization_facts(about.page.json_ld)[0]["foundingDate"] == "1999-04-01"
    assert about.depth == 1 and about.result.status == 200


def test_page_cap(site, fetcher):
    calls = []
    result = crawl_site(fetcher, site.url("/"), max_pages=3, progress=lambda *a: calls.append(a))
    assert len(result.pages) == 3
    assert calls[-1][:2] == (3, 3)


def test_cancellation_stops_between_pages(site, fetcher):
    done = []
    result = crawl_site(
        fetcher,
        site.url("/"),
        progress=lambda n, cap, url: done.append(url),
        should_cancel=lambda: len(done) >= 2,
    )
    assert result.cancelled is True and len(result.pages) == 2


def test_max_depth(site, fetcher):
    result = crawl_site(fetcher, site.url("/"), max_depth=0, use_sitemaps=False)
    assert [p.url for p in result.pages] == [site.url("/")]


def test_start_url_refused_by_the_guard_fails_the_crawl(site):
    with Fetcher(policy(allow_private=False)) as fetcher, pytest.raises(BlockedUrl) as caught:
        crawl_site(fetcher, site.url("/"))
    assert "CI_SERVICE_ALLOW_PRIVATE_URLS=1" in str(caught.value)
    assert site.requests == []


def test_errors_off_site_redirects_and_other_content_are_recorded(bare, fetcher):
    bare.routes["/"] = lambda h: h.send(200, page("/broken", "/out", "/data", "/fine"))
    bare.routes["/broken"] = lambda h: h.send(500, b"down")
    bare.routes["/out"] = lambda h: h.send(
        302, b"", headers={"Location": f"http://localhost:{bare.port}/x"}
    )
    bare.routes["/data"] = lambda h: h.send(200, b"{}", "application/json")
    bare.routes["/fine"] = lambda h: h.send(200, page())
    result = crawl_site(fetcher, bare.url("/"))
    assert [p.url for p in result.pages] == [bare.url("/"), bare.url("/fine")]
    assert result.errors == [(bare.url("/broken"), "HTTP 500")]
    assert result.skipped == [
        (bare.url("/out"), f"redirected off-site to http://localhost:{bare.port}/x"),
        (bare.url("/data"), "content type application/json"),
    ]
    assert bare.hits("/x") == 0


def test_a_meta_refresh_is_followed_as_a_redirect(bare, fetcher):
    def refresh(target: str, seconds: int = 0) -> bytes:
        return (
            f'<html><head><title>{target}</title><meta http-equiv="refresh" '
            f'content="{seconds}; url={target}"></head></html>'
        ).encode()

    # A home page that sends its reader to the language's home, whose links lead on; an
    # alias page among them sends to the page it stands for.
    bare.routes["/"] = lambda h: h.send(200, refresh("/en/"))
    bare.routes["/en/"] = lambda h: h.send(200, page("/en/about/", "/old-about/", "/wait/"))
    bare.routes["/en/about/"] = lambda h: h.send(200, page())
    bare.routes["/old-about/"] = lambda h: h.send(200, refresh(bare.url("/en/team/")))
    bare.routes["/en/team/"] = lambda h: h.send(200, page())
    bare.routes["/wait/"] = lambda h: h.send(200, refresh("/en/later/", seconds=30))
    result = crawl_site(fetcher, bare.url("/"))
    urls = [p.url for p in result.pages]
    assert urls[0] == bare.url("/en/")
    assert set(urls) == {bare.url(u) for u in ("/en/", "/en/about/", "/en/team/", "/wait/")}
    assert (bare.url("/old-about/"), f"redirected to {bare.url('/en/team/')}") in result.skipped
    assert bare.hits("/en/later/") == 0  # a refresh after 30 s is a page to read, not a redirect


def test_sitemap_index_and_gzip_without_robots(bare, fetcher):
    child = f"""<?xml version="1.0"?>
    <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <url><loc>{bare.base}/a</loc></url><url><loc>{bare.base}/b</loc></url>
      <url><loc>{bare.base}/guide.pdf</loc></url>
    </urlset>""".encode()
    index = f"""<?xml version="1.0"?>
    <sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <sitemap><loc>{bare.base}/pages.xml.gz</loc></sitemap>
    </sitemapindex>""".encode()
    bare.routes["/"] = lambda h: h.send(200, page())
    bare.routes["/sitemap.xml"] = lambda h: h.send(200, index, "application/xml")
    bare.routes["/pages.xml.gz"] = lambda h: h.send(200, gzip.compress(child), "application/gzip")
    bare.routes["/a"] = bare.routes["/b"] = lambda h: h.send(200, page())
    result = crawl_site(fetcher, bare.url("/"))
    assert [p.url for p in result.pages] == [bare.url("/"), bare.url("/a"), bare.url("/b")]
    assert result.sitemaps == [bare.url("/sitemap.xml"), bare.url("/pages.xml.gz")]
    assert result.documents == [bare.url("/guide.pdf")]


def test_feed_probing_is_optional(bare, fetcher):
    bare.routes["/"] = lambda h: h.send(200, page())
    bare.routes["/feed"] = lambda h: h.send(200, RSS, "application/rss+xml")
    assert crawl_site(fetcher, bare.url("/"), use_sitemaps=False).feeds == []
    probed = crawl_site(fetcher, bare.url("/"), use_sitemaps=False, probe_feeds=True)
    assert probed.feeds == [bare.url("/feed")]


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("HTTP://Example.COM", "http://example.com/"),
        ("https://example.com:443/a?b=1#frag", "https://example.com/a?b=1"),
        ("http://example.com:8080/a", "http://example.com:8080/a"),
        ("http://user:pw@example.com/", "http://example.com/"),
        ("mailto:a@b.c", None),
        ("ftp://example.com/", None),
        ("http://example.com:99999/", None),
        ("http:///path", None),
    ],
)
def test_normalize_url(url, expected):
    assert normalize_url(url) == expected


def test_normalize_url_resolves_against_a_base():
    assert normalize_url("../b#x", "https://example.com/a/c") == "https://example.com/b"


def test_www_and_scheme_are_the_same_site():
    assert site_key("https://www.acme.test/x") == site_key("http://acme.test/") == "acme.test"
    assert site_key("http://acme.test:8080/") == "acme.test:8080"
    assert site_key("https://shop.acme.test/") != site_key("https://acme.test/")


@pytest.mark.parametrize(
    ("url", "is_feed"),
    [
        ("https://a.test/feed", True),
        ("https://a.test/blog/feed/", True),
        ("https://a.test/rss.xml", True),
        ("https://a.test/news/atom.xml", True),
        ("https://a.test/feedback", False),
        ("https://a.test/sitemap.xml", False),
    ],
)
def test_looks_like_feed_url(url, is_feed):
    assert looks_like_feed_url(url) is is_feed


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"https://a.test/1\nhttps://a.test/2\n", (["https://a.test/1", "https://a.test/2"], [])),
        (b"<urlset><url><loc> https://a.test/x </loc></url></urlset>", (["https://a.test/x"], [])),
        (b"not xml <", ([], [])),
        (b"<urlset><url><loc>https://a.test/x</loc></url>", ([], [])),
        (b'<!DOCTYPE x [<!ENTITY a "aaaa">]><urlset><url><loc>&a;</loc></url></urlset>', ([], [])),
        (b"\x1f\x8b broken gzip", ([], [])),
        (
            b"\xef\xbb\xbf<urlset><url><loc>https://a.test/b</loc></url></urlset>",
            (["https://a.test/b"], []),
        ),
    ],
    ids=["text", "xml-no-namespace", "garbage", "unclosed", "dtd-refused", "bad-gzip", "bom"],
)
def test_parse_sitemap(data, expected):
    assert parse_sitemap(data) == expected


def test_crawl_order_puts_menu_entries_of_any_label_before_posts():
    from ci_service.intel.crawl_order import (
        RANK_KEY,
        RANK_LOW,
        RANK_MENU,
        RANK_NORMAL,
        RANK_POST,
        crawl_rank,
    )

    site = "https://example.test"
    assert crawl_rank(site + "/what-we-do", "What we do", menu=True) == RANK_MENU
    assert crawl_rank(site + "/what-we-do", "What we do") == RANK_NORMAL
    assert crawl_rank(site + "/pricing/", "Plans") == RANK_KEY
    assert crawl_rank(site + "/o-nama/", "O nama") == RANK_KEY
    assert crawl_rank(site + "/kontakt", "") == RANK_KEY
    assert crawl_rank(site + "/news/", "News") == RANK_KEY
    assert crawl_rank(site + "/news/we-raised-a-round", "We raised", menu=True) == RANK_POST
    assert crawl_rank(site + "/journal/2024/03/recap/", "Spring recap") == RANK_POST
    assert crawl_rank(site + "/blog/tag/tips/", "Tips", menu=True) == RANK_LOW


def test_links_know_whether_they_sit_in_the_menu():
    from ci_service.intel.extract import extract_html

    page = extract_html(
        "<html><body><header><ul class='main-menu'><li><a href='/crew'>Crew</a></li></ul>"
        "</header><div id='site-navigation'><a href='/offer'>Offer</a></div>"
        "<main><p>Read <a href='/story'>our story</a>.</p></main></body></html>",
        "https://example.test/",
    )
    menu = {link.url.rsplit("/", 1)[-1]: link.menu for link in page.links}
    assert menu == {"crew": True, "offer": True, "story": False}


def test_a_post_announcing_something_comes_before_the_rest_of_the_blog():
    from ci_service.intel.crawl_order import RANK_NORMAL, RANK_POST, crawl_rank

    site = "https://example.test/blog/"
    assert crawl_rank(site + "new-tool", "we unveiled our poll tool to the world") == RANK_NORMAL
    assert crawl_rank(site + "seed", "Example raises a seed round") == RANK_NORMAL
    assert crawl_rank(site + "ten-tips", "Ten tips for better quizzes") == RANK_POST


def test_a_nested_copy_of_a_site_is_not_crawled():
    from ci_service.intel.crawl_order import is_mirror_copy

    assert is_mirror_copy("https://example.test/example.com/team/")
    assert is_mirror_copy("https://example.test/www.example.co.uk/about/index.html")
    assert not is_mirror_copy("https://example.test/team/")
    assert not is_mirror_copy("https://example.test/contact-us.html")
    assert not is_mirror_copy("https://example.test/node.js/")  # a one-folder page name


def test_a_dead_sitemap_named_by_robots_falls_back_to_the_usual_paths(bare, fetcher):
    """robots.txt names a sitemap that answers 404: the site's pages are still found
    through the usual sitemap paths, not only through its menu."""
    urlset = f"""<?xml version="1.0"?>
    <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <url><loc>{bare.base}/deep/security</loc></url>
    </urlset>""".encode()
    robots = f"User-agent: *\nAllow: /\nSitemap: {bare.base}/gone-sitemap.xml\n".encode()
    bare.routes["/robots.txt"] = lambda h: h.send(200, robots, "text/plain")
    bare.routes["/"] = lambda h: h.send(200, page())
    bare.routes["/wp-sitemap.xml"] = lambda h: h.send(200, urlset, "application/xml")
    bare.routes["/deep/security"] = lambda h: h.send(200, page())
    result = crawl_site(fetcher, bare.url("/"))
    assert [p.url for p in result.pages] == [bare.url("/"), bare.url("/deep/security")]
    assert result.sitemaps == [bare.url("/wp-sitemap.xml")]
    assert bare.hits("/gone-sitemap.xml") == 1


def test_one_folder_of_pages_cannot_use_up_the_page_budget(bare, fetcher):
    """Two dozen connector pages linked before the security page: the folder gets its
    budget, then the rest of the site comes first, and the cap still fills up."""
    from ci_service.intel.crawl_order import FAMILY_BUDGET

    connectors = [f"/integrations/tool-{i}" for i in range(24)]
    bare.routes["/"] = lambda h: h.send(200, page(*connectors, "/security", "/customers"))
    for path in [*connectors, "/security", "/customers"]:
        bare.routes[path] = lambda h, p=path: h.send(200, page() + p.encode())
    result = crawl_site(fetcher, bare.url("/"), max_pages=12, use_sitemaps=False)
    urls = [p.url.removeprefix(bare.base) for p in result.pages]
    assert len(urls) == 12
    assert "/security" in urls and "/customers" in urls
    assert sum(u.startswith("/integrations/") for u in urls) == 12 - 3
    first = urls.index("/security")
    assert sum(u.startswith("/integrations/") for u in urls[:first]) <= FAMILY_BUDGET


def test_an_unlinked_about_page_is_tried_at_its_usual_addresses(bare, fetcher):
    """The start page links no page about the company: the usual addresses are tried
    among the key pages; those that answer 404 are no error of the site's."""
    bare.routes["/"] = lambda h: h.send(200, page("/pricing"))
    bare.routes["/pricing"] = lambda h: h.send(200, page() + b"plans")
    bare.routes["/company/"] = lambda h: h.send(200, page() + b"our team")
    result = crawl_site(fetcher, bare.url("/"), use_sitemaps=True)
    urls = [p.url.removeprefix(bare.base) for p in result.pages]
    assert urls == ["/", "/pricing", "/company/"]
    assert result.errors == [] and result.skipped == []
    assert bare.hits("/about/") == bare.hits("/team/") == 1
    # A start page that links its about page gets no guesses.
    bare.routes["/"] = lambda h: h.send(200, page("/who-we-are"))
    bare.routes["/who-we-are"] = lambda h: h.send(200, page() + b"who")
    crawl_site(fetcher, bare.url("/"))
    assert bare.hits("/about/") == 1
