"""News without feeds: press/news/blog list pages and article pages become dated entries,
merged with feed entries, stored as NEWS items and MARKET_EVENT nodes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from ci_service.pipeline.news.dates import parse_date
from ci_service.pipeline.news.extract import (
    article_entry,
    is_article_url,
    list_entries,
    news_entries,
)
from ci_service.pipeline.site import NewsEntry, SitePage, SiteSnapshot
from ci_service.services.collection.ingest import Target, ingest_snapshot, link_news
from ci_service.store.db import connection
from ci_service.store.graph import GraphNode
from ci_service.store.intel import IntelItem
from tests.intel_helpers import competitor

BASE = "https://acme.example"


def page(path, html, title="Page", text="", description="", json_ld=None):
    made = SitePage(BASE + path, title, description, text or title, [], json_ld or [], [])
    made.html = html  # the crawler's decoded HTML (SitePage.html)
    return made


def day(entry):
    return entry.published.date().isoformat() if entry.published else None


PRESS = """<html><body>
<header><nav><a href="/press/">Press</a><a href="/about">About us, our story and team</a>
  <time datetime="2020-01-01">Jan 1, 2020</time></nav></header>
<main><h1>Press releases</h1>
<ul class="releases">
  <li><time datetime="2024-03-05T09:00:00Z">March 5, 2024</time>
    <h3><a href="/press/acme-raises-series-b">Acme raises $20M Series B</a></h3>
    <p>The round was led by Example Ventures and will fund growth in Europe.</p>
    <a href="/press/acme-raises-series-b">Read more</a></li>
  <li><time datetime="2023-11-20">November 20, 2023</time>
    <h3><a href="/press/acme-opens-berlin-office">Acme opens a Berlin office</a></h3>
    <p>Acme's second European office opens with <a href="https://berlin.example/">thirty
      engineers in Kreuzberg</a> and a sales team for the DACH market.</p></li>
  <li><h3><a href="/press/undated">Acme named a leader</a></h3><p>No date here at all.</p></li>
</ul>
<p><a href="/press/tag/funding">funding</a> <a href="/press/page/2/">Older releases</a></p>
</main><footer><a href="/press/footer-link">Footer news 12 May 2022</a></footer></body></html>"""


def test_press_list_page_entries_with_dates_titles_and_excerpts():
    entries = list_entries(page("/press/", PRESS, "Press – Acme"))
    assert [(e.title, e.url, day(e)) for e in entries] == [
        ("Acme raises $20M Series B", BASE + "/press/acme-raises-series-b", "2024-03-05"),
        ("Acme opens a Berlin office", BASE + "/press/acme-opens-berlin-office", "2023-11-20"),
    ]
    assert entries[0].summary.startswith("The round was led by Example Ventures")
    assert "thirty engineers" in entries[1].summary  # the excerpt's own link is no entry
    assert entries[0].published == datetime(2024, 3, 5, 9, tzinfo=UTC)


BLOG_CARDS = """<html><body><div class="container">
  <h1>Welcome to the Acme blog</h1>
  <a href="/categories/build/"><h3>Dev</h3></a>
  <a href="/guides/internal-tools"><div><h2>What are internal tools?</h2>
    <button>Read about internal tools</button></div></a>
  <div class="container"><a href="/blog/open-source-form-builder/"><div class="item">
    <div><h5>The 5 best open source form builders</h5></div>
    <div><p>Feb 19, 2021</p><p>Joe Johnston</p></div></div></a></div>
  <div class="container"><a href="/blog/public-beta/"><div class="item">
    <div><h5>Acme is in Public Beta!</h5></div>
    <div><p>Oct 20, 2020</p><p>Mike Shanks</p></div></div></a></div>
</div></body></html>"""


def test_blog_cards_where_the_link_wraps_the_card():
    entries = list_entries(page("/blog/", BLOG_CARDS, "Blog | Acme"))
    assert [(e.title, day(e)) for e in entries] == [
        ("The 5 best open source form builders", "2021-02-19"),
        ("Acme is in Public Beta!", "2020-10-20"),
    ]


MEDIA = """<body><h1>In the media</h1><div class="coverage">
  <article><h4><a href="https://news.example.com/2024/acme-profile">How Acme won over
    the factory floor</a></h4><span>News Example · 2 February 2024</span></article>
  <article><h4><a href="https://tech.example.org/acme">Acme's CEO on open source</a></h4>
    <span>Tech Example, 2023-09-14</span></article></div></body>"""


def test_in_the_media_page_lists_other_sites_articles():
    entries = list_entries(page("/company/in-the-media", MEDIA, "In the media"))
    assert [(e.url, day(e)) for e in entries] == [
        ("https://news.example.com/2024/acme-profile", "2024-02-02"),
        ("https://tech.example.org/acme", "2023-09-14"),
    ]
    assert entries[0].title == "How Acme won over the factory floor"


def test_pages_that_are_not_news_lists_give_no_entries():
    dated_links = """<body><h1>Widget Pro</h1><ul>
      <li><a href="/docs/install">Install guide</a> updated March 5, 2024</li>
      <li><a href="/docs/api">API reference</a> updated March 6, 2024</li></ul></body>"""
    assert list_entries(page("/products/widget-pro", dated_links, "Widget Pro")) == []
    undated = """<body><h1>News</h1><ul><li><a href="/news/launch">We launched</a></li></ul>"""
    assert list_entries(page("/news/", undated, "News")) == []
    article = PRESS.replace("Press releases", "Acme raises $20M Series B")
    assert list_entries(page("/press/acme-raises-series-b", article, "Press")) == []


@pytest.mark.parametrize(
    ("path", "article"),
    [
        ("/news/acme-launches-v3", True),
        ("/insights/2018/07/27/update-0.25/", True),
        ("/en/press-releases/acme-q3", True),
        ("/blog/", False),
        ("/blog/page/2/", False),
        ("/news/tag/funding", False),
        ("/news/2024/", False),
        ("/pricing", False),
    ],
)
def test_article_urls(path, article):
    assert is_article_url(BASE + path) is article


def test_article_pages_and_their_dates():
    meta = """<html><head><meta property="article:published_time"
      content="2024-05-02T10:00:00+02:00"></head><body><h1>Acme launches v3</h1></body></html>"""
    entry = article_entry(page("/news/acme-v3", meta, "Acme launches v3 | Acme", "Text", "V3!"))
    assert (entry.title, entry.url, day(entry), entry.summary) == (
        "Acme launches v3",
        BASE + "/news/acme-v3",
        "2024-05-02",
        "V3!",
    )
    json_ld = [{"@type": "BlogPosting", "headline": "Why v3", "datePublished": "2024-06-01"}]
    entry = article_entry(page("/blog/why-v3", "<body><h1>Why</h1></body>", json_ld=json_ld))
    assert (entry.title, day(entry)) == ("Why v3", "2024-06-01")
    timed = """<body><aside><time datetime="2019-01-01">old post</time></aside>
      <article><h1>Security update</h1><time datetime="2024-07-09">9 July</time></article>"""
    assert day(article_entry(page("/updates/security", timed))) == "2024-07-09"
    written = """<body><div class="hero"><p>ACME INSIGHTS</p><h1>Update 0.25</h1>
      <p>July 27, 2018</p></div><div><p>Body text from 2016.</p></div></body>"""
    assert day(article_entry(page("/insights/update-025", written))) == "2018-07-27"
    by_url = article_entry(page("/insights/2018/07/12/ota/", "<body><h1>OTA</h1></body>"))
    assert day(by_url) == "2018-07-12"
    undated = article_entry(page("/blog/thoughts", "<body><h1>Thoughts</h1></body>"))
    assert undated.title == "Thoughts" and undated.published is None
    # JSON-LD alone does not make an article: templates mark every page a BlogPosting.
    assert article_entry(page("/product", "<body><h1>Product</h1></body>", json_ld=json_ld)) is None


def test_implausible_dates_are_dropped():
    assert parse_date("0001-01-01T00:00:00Z") is None
    assert parse_date("1970-01-01") is None
    assert parse_date(datetime.now(UTC) + timedelta(days=30)) is None
    assert parse_date("not a date") is None
    assert parse_date("27th July 2018") == datetime(2018, 7, 27, tzinfo=UTC)


def feed_entry(title, url, published=None):
    return NewsEntry(title, url, published, "From the feed.", "Acme news", url)


def test_feed_entry_wins_and_gains_the_date_of_the_list_entry():
    zero = datetime(1, 1, 1, tzinfo=UTC)  # a Hugo feed's zero date
    snapshot = SiteSnapshot(
        BASE + "/",
        pages=[page("/press/", PRESS, "Press")],
        news=[
            feed_entry(
                "Series B closed!", "https://www.acme.example/press/acme-raises-series-b/", zero
            ),
            feed_entry("Acme opens a Berlin office", BASE + "/feed-item/berlin"),
            feed_entry(
                "Only in the feed", BASE + "/press/feed-only", datetime(2022, 1, 1, tzinfo=UTC)
            ),
        ],
    )
    entries = news_entries(snapshot)
    assert [(e.title, e.url, day(e), e.source) for e in entries] == [
        (  # same canonical URL: the feed entry, with the list's date
            "Series B closed!",
            "https://www.acme.example/press/acme-raises-series-b/",
            "2024-03-05",
            "Acme news",
        ),
        ("Acme opens a Berlin office", BASE + "/feed-item/berlin", "2023-11-20", "Acme news"),
        ("Only in the feed", BASE + "/press/feed-only", "2022-01-01", "Acme news"),
    ]
    assert news_entries(SiteSnapshot(BASE + "/", news=entries)) == entries  # stable


def test_profile_keeps_its_news_imports():
    from ci_service.pipeline.profile import extract as profile

    feed = profile.news_feed(SiteSnapshot(BASE + "/", pages=[page("/press/", PRESS, "Press")]), [])
    assert [item["date"] for item in feed] == ["2024-03-05", "2023-11-20"]
    assert profile.news_entries is news_entries


ARTICLE = """<html><head><meta property="article:published_time" content="2024-03-05">
</head><body><h1>Acme raises $20M Series B</h1><p>The round was led by Example Ventures.</p>
</body></html>"""


def crawl():
    press = page("/press/", PRESS, "Press", text="Press releases\nAcme raises $20M Series B")
    article = page(
        "/press/acme-raises-series-b",
        ARTICLE,
        "Acme raises $20M Series B | Acme",
        text="Acme raises $20M Series B\nThe round was led by Example Ventures.",
    )
    feed = feed_entry("Acme wins an award", BASE + "/press/award", datetime(2024, 1, 9, tzinfo=UTC))
    return SiteSnapshot(BASE + "/", pages=[press, article], news=[feed])


def test_ingest_stores_news_items_and_dated_market_events_once(make_workspace):
    ws = make_workspace()
    rival = competitor(ws.id, "Acme", BASE)
    target = Target(ws.id, "competitor", rival.id)
    with connection():
        first = ingest_snapshot(target, crawl())
    assert first["graph"]["events"] == 3
    with connection():
        items = {
            i.url: i
            for i in IntelItem.select().where(
                IntelItem.workspace == ws.id, IntelItem.type == "EVIDENCE"
            )
        }
        events = {
            n.name: n.properties
            for n in GraphNode.select().where(
                GraphNode.workspace == ws.id, GraphNode.label == "MARKET_EVENT"
            )
        }
    series_b = BASE + "/press/acme-raises-series-b"
    assert {url: i.source_type for url, i in items.items()} == {
        BASE + "/press/": "WEB_PAGE",
        series_b: "NEWS",  # the crawled article is stored once, as the news item
        BASE + "/press/acme-opens-berlin-office": "NEWS",
        BASE + "/press/award": "NEWS",
    }
    assert "The round was led by Example Ventures." in items[series_b].content
    assert items[series_b].published_at.date().isoformat() == "2024-03-05"
    assert set(events) == {
        "2024-03-05: Acme raises $20M Series B",
        "2024-01-09: Acme wins an award",
        "2023-11-20: Acme opens a Berlin office",
    }
    raised = events["2024-03-05: Acme raises $20M Series B"]
    assert raised["date"] == "2024-03-05" and raised["url"] == series_b
    assert raised["evidenceIds"] == [items[series_b].id]

    with connection():
        first_nodes = GraphNode.select().where(GraphNode.workspace == ws.id).count()
        again = ingest_snapshot(target, crawl())
        nodes = GraphNode.select().where(GraphNode.workspace == ws.id).count()
        stored = IntelItem.select().where(IntelItem.workspace == ws.id).count()
    assert again["evidence"] == {"new": 0, "changed": 0, "unchanged": 4}
    assert stored == 4 and nodes == first_nodes  # nothing duplicated

    # The daily news job links without record stats: the stored evidence is looked up.
    with connection():
        assert link_news(target, crawl()) == 3
        node = GraphNode.get(GraphNode.workspace == ws.id, GraphNode.name.startswith("2024-03"))
    assert node.properties["evidenceIds"] == [items[series_b].id]


def test_only_dated_news_pages_are_news_even_from_a_whole_site_feed():
    """A site-wide feed lists every page: the privacy page, pricing, a date archive. Only
    the dated posts (by their page's kind, else by title) are news, newest first."""
    when = datetime(2024, 3, 5, tzinfo=UTC)

    def kinded(path, kind, title):
        made = page(path, "<html><body><h1>x</h1></body></html>", title=title)
        made.kind = kind
        return made

    pages = [
        kinded("/", "home", "Example"),
        kinded("/privacy/", "legal", "Privacy Policy"),
        kinded("/plans/", "pricing", "Plans"),
        kinded("/journal/launch/", "post", "We launched"),
    ]
    feed = [
        NewsEntry("Privacy Policy", BASE + "/privacy/", when, "", "feed", ""),
        NewsEntry("Plans", BASE + "/plans/", when, "", "feed", ""),
        NewsEntry("We launched", BASE + "/journal/launch/", when, "", "feed", ""),
        NewsEntry("9 November 2020", BASE + "/2020/11/09/", when, "", "feed", ""),
        NewsEntry("Terms of Service", BASE + "/tos/", when, "", "feed", ""),
        NewsEntry("Older news", BASE + "/journal/older/", when - timedelta(days=30), "", "", ""),
        NewsEntry("Undated thought", BASE + "/journal/undated/", None, "", "feed", ""),
    ]
    snapshot = SiteSnapshot(BASE + "/", pages=pages, news=feed)
    assert [e.title for e in news_entries(snapshot)] == ["We launched", "Older news"]


def test_an_article_whose_h1_is_the_site_logo_takes_its_title_from_the_page_title():
    made = page(
        "/journal/we-moved",
        "<html><body><header><h1>Acme</h1></header><article><p>Posted March 5, 2024</p>"
        "<p>We moved to a bigger office.</p></article></body></html>",
        title="We moved | Acme",
        text="Posted March 5, 2024\nWe moved to a bigger office.",
    )
    made.kind = "post"
    entry = article_entry(made)
    assert entry.title == "We moved" and day(entry) == "2024-03-05"


def test_comments_job_posts_and_copies_of_pages_from_feeds_are_not_news():
    when = datetime(2024, 3, 5, tzinfo=UTC)
    home = page("/", "<html><body><h1>x</h1></body></html>", title="Acme")
    home.kind = "home"
    feed = [
        NewsEntry("By: A reader", BASE + "/journal/launch/#comment-12", when, "", "feed", ""),
        NewsEntry("Comment on We launched", BASE + "/journal/launch/", when, "", "feed", ""),
        NewsEntry("Senior Backend Engineer", BASE + "/careers/backend/", when, "", "feed", ""),
        NewsEntry("Acme | Tools for teams", BASE + "/b/", when, "", "feed", ""),
        NewsEntry("We launched", BASE + "/journal/launch/", when, "", "feed", ""),
    ]
    snapshot = SiteSnapshot(
        BASE + "/", pages=[home], news=feed, skipped=[(BASE + "/b/", f"duplicate of {BASE}/")]
    )
    assert [e.title for e in news_entries(snapshot)] == ["We launched"]


@pytest.mark.parametrize(
    ("text", "lang", "expected"),
    [
        ("5.4.2016", "", (2016, 4, 5)),  # dots: day first, whatever the language
        ("05.04.2016", "en", (2016, 4, 5)),
        ("5-4-2016", "de", (2016, 4, 5)),
        ("5/4/2016", "en", (2016, 5, 4)),  # slashes on an English page: month first
        ("5/4/2016", "fr", (2016, 4, 5)),
        ("13/4/2016", "en", (2016, 4, 13)),  # a number over 12 is the day
        ("4/13/2016", "de", (2016, 4, 13)),
        ("31.02.2016", "de", None),
    ],
)
def test_dates_in_numbers_alone_are_read_as_their_writer_meant(text, lang, expected):
    from ci_service.pipeline.news.dates import find_date

    def day(when):
        return None if when is None else (when.year, when.month, when.day)

    assert day(parse_date(text, lang)) == expected
    assert day(find_date(f"Published {text} by the team", lang)) == expected
