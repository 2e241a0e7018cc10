"""The competitor page (issue 28): a summary first (what they sell, key facts with their
sources, a price table, people, the latest real news newest first with the dates the pages
state), the rest behind tabs given by ``?tab=``, the long lists paged by the service, and the
marks live.js follows (a pending status badge, the live regions)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import lxml.html
import pytest

from ci_service.services.intel import items as intel
from ci_service.services.workspace import overview
from ci_service.store.competitors import Competitor
from ci_service.store.db import connection, transaction
from ci_service.store.resources import Offering
from tests.test_web_overview import add_competitor, seed_competitor

NEWS_COUNT = 45  # three pages of 20, 20 and 5


def doc(response, status: int = 200):
    assert response.status_code == status, response.get_data(as_text=True)[:500]
    return lxml.html.fromstring(response.get_data(as_text=True))


SIMPLE = re.compile(r"([a-z0-9]*)((?:[.#][\w-]+|\[[\w=-]+\])*)")
PART = re.compile(r"([.#])([\w-]+)|\[([\w-]+)(?:=([\w-]+))?\]")


def css(node, selector: str) -> list:
    """The elements under ``node`` a simple CSS selector names (descendant chains of
    ``tag``, ``.class``, ``#id``, ``[attr]`` and ``[attr=value]``): lxml's own needs the
    cssselect package."""
    path = "."
    for step in selector.split():
        tag, rest = SIMPLE.fullmatch(step).groups()
        tests = []
        for mark, name, attr, value in PART.findall(rest):
            if mark == ".":
                tests.append(f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')")
            elif mark == "#":
                tests.append(f"@id='{name}'")
            elif value:
                tests.append(f"@{attr}='{value}'")
            else:
                tests.append(f"@{attr}")
        path += f"//{tag or '*'}" + "".join(f"[{t}]" for t in tests)
    return node.xpath(path)


def texts(nodes) -> list[str]:
    return [" ".join(n.text_content().split()) for n in nodes]


def add_news(web, cid: str, count: int = NEWS_COUNT) -> list[str]:
    """``count`` posts stored oldest-stated-date last (as a collect stores a site's news:
    the newest post first), one a day back from 2021-06-30; their titles newest first."""
    start = datetime(2021, 6, 30, tzinfo=UTC)
    titles = []
    with connection():
        for n in range(count):
            title = f"Post number {n:02d}"
            intel.record_evidence(
                web.workspace_id,
                source_type="NEWS",
                url=f"https://globex.example/blog/{n}",
                title=title,
                content=f"{title} text",
                competitor_id=cid,
                published_at=start - timedelta(days=n),
                page_kind="post",
            )
            titles.append(title)
    return titles


def set_status(cid: str, status: str) -> None:
    with connection(), transaction():
        Competitor.update(status=status).where(Competitor.id == cid).execute()


# -- the summary ---------------------------------------------------------------------------


def test_summary_shows_what_they_sell_facts_with_sources_prices_people_and_news(web):
    seeded = seed_competitor(web)
    cid = seeded["id"]
    with connection(), transaction():
        Offering.create(
            workspace=web.workspace_id,
            competitor=cid,
            name="Globex Chat",
            description="Live chat for websites. " + "Much more text here. " * 20,
            pricing=[{"name": "Free", "price": 0.0, "currency": "USD", "period": "month"}],
        )
    add_news(web, cid, 7)
    page = doc(web.get(f"/competitors/{cid}"))
    summary = page.get_element_by_id("summary")
    # What they sell: each offering's name with its description on one short line.
    offers = texts(css(summary, ".cp-offers li"))
    assert offers[0] == "Globex Desk Ticketing"
    assert offers[1].startswith("Globex Chat Live chat for websites.") and len(offers[1]) < 150
    # Key facts with the quote behind them on demand, the evidence one click away.
    facts = css(summary, ".cp-facts")[0]
    assert "Founded" in facts.text_content() and "Lisbon" in facts.text_content()
    (source,) = css(facts, "details.cp-src")
    assert "Founded in 2015 in Lisbon." in source.text_content()
    assert source.xpath(f".//a[@href='/intel/{seeded['first']}']")
    # Every plan of every offering in one table, with the offering it belongs to.
    rows = texts(css(summary, ".cp-prices tbody tr"))
    assert rows == ["Pro Globex Desk $59 per user/month", "Free Globex Chat $0/month"]
    assert texts(css(summary, ".cp-people li")) == ["Maria Lopes (CEO)"]
    # Latest news: five, newest first by the date the post states, that date shown.
    news = css(summary, ".cp-news li")
    assert [css(n, "a")[0].text_content() for n in news] == [
        f"Post number {n:02d}" for n in range(5)
    ]
    assert css(news[0], "time")[0].get("datetime").startswith("2021-06-30")
    assert texts(news)[0].startswith("2021-06-30 ")
    # 7 posts and the seeded news item without a stated date: a link to all of them.
    more = summary.xpath(".//a[contains(., 'All 8 news items')]")
    assert more and more[0].get("href") == f"/competitors/{cid}?tab=news"
    # Actions stay compact; the old "reload the page" note is gone.
    body = web.get(f"/competitors/{cid}").get_data(as_text=True)
    assert "Refresh" in body and "Add one of our products in Settings" in body
    assert "reload the page" not in body


def test_tabs_are_links_with_the_current_one_marked(web):
    cid = add_competitor(web)
    for tab in overview.TABS:
        query = "" if tab == "summary" else f"?tab={tab}"
        page = doc(web.get(f"/competitors/{cid}{query}"))
        (nav,) = css(page, "nav.cp-tabs")
        assert nav.get("aria-label")
        links = css(nav, "a")
        assert len(links) == len(overview.TABS)
        current = [a for a in links if a.get("aria-current") == "page"]
        assert len(current) == 1 and current[0].get("href") == f"/competitors/{cid}{query}"
        # The summary alone carries the at-a-glance section.
        assert bool(css(page, "#summary")) == (tab == "summary")


@pytest.mark.parametrize(
    ("endpoint", "label"), [("edit_competitor", "Edit"), ("delete_competitor", "Delete")]
)
def test_edit_and_delete_links_when_those_pages_exist(web, app, endpoint, label):
    cid = add_competitor(web)
    page = doc(web.get(f"/competitors/{cid}"))
    links = page.xpath(f"//div[@class='cp-actions']//a[normalize-space()='{label}']")
    if f"pages.{endpoint}" in app.view_functions:
        assert links
        with app.test_request_context():
            from flask import url_for

            assert links[0].get("href") == url_for(f"pages.{endpoint}", competitor_id=cid)
    else:
        assert not links


# -- news and the intel timeline, paged ------------------------------------------------------


def test_news_tab_pages_newest_first_with_previous_and_next(web):
    cid = add_competitor(web)
    titles = add_news(web, cid)
    seen = []
    for number, size in ((1, 20), (2, 20), (3, 5)):
        page = doc(web.get(f"/competitors/{cid}?tab=news&page={number}"))
        items = css(page, "#news .cp-news li")
        assert len(items) == size
        seen += [css(i, "a")[0].text_content() for i in items]
        (pager,) = css(page, "nav.cp-pager")
        assert f"Page {number} of 3" in pager.text_content()
        prev, nxt = css(pager, "a[rel=prev]"), css(pager, "a[rel=next]")
        assert bool(prev) == (number > 1) and bool(nxt) == (number < 3)
        if prev:
            assert prev[0].get("href") == f"/competitors/{cid}?tab=news&page={number - 1}"
        if nxt:
            assert nxt[0].get("href") == f"/competitors/{cid}?tab=news&page={number + 1}"
    assert seen == titles  # newest first across the pages, each once
    # Each dated with the date the post states, never the time it was collected.
    first = css(doc(web.get(f"/competitors/{cid}?tab=news")), "#news .cp-news li")[0]
    assert css(first, "time")[0].text_content() == "2021-06-30"
    assert "collected" not in first.text_content()


def test_news_service_orders_by_the_stated_date_and_undated_last(web):
    cid = add_competitor(web)
    add_news(web, cid, 3)
    with connection():
        intel.record_evidence(
            web.workspace_id,
            source_type="NEWS",
            url="https://globex.example/news/undated",
            title="Undated item",
            content="no date",
            competitor_id=cid,
        )
        intel.record_evidence(
            web.workspace_id,
            source_type="WEB_PAGE",
            url="https://globex.example/pricing",
            title="A page, not news",
            content="Pro $10",
            competitor_id=cid,
        )
        result = overview.competitor_news(web.workspace_id, cid, page=1, per_page=2)
        assert [i["title"] for i in result["items"]] == ["Post number 00", "Post number 01"]
        assert (result["page"], result["pages"], result["total"]) == (1, 2, 4)
        last = overview.competitor_news(web.workspace_id, cid, page=2, per_page=2)
        assert [i["title"] for i in last["items"]] == ["Post number 02", "Undated item"]


def test_intel_timeline_pages_and_marks_collected_dates(web):
    cid = add_competitor(web)
    add_news(web, cid, 25)
    with connection():
        intel.record_evidence(
            web.workspace_id,
            source_type="WEB_PAGE",
            url="https://globex.example/pricing",
            title="Pricing page",
            content="Pro $10 per month",
            competitor_id=cid,
        )
    page = doc(web.get(f"/competitors/{cid}?tab=intel"))
    items = css(page, "#timeline li.timeline-item")
    assert len(items) == 20
    # The page that states no date was collected today: the newest, marked "collected".
    assert "Pricing page" in items[0].text_content()
    (collected,) = css(items[0], ".cp-collected")
    assert collected.text_content().startswith("collected ")
    assert "Post number 00" in items[1].text_content()
    assert not css(items[1], ".cp-collected")
    assert "Page 1 of 2" in css(page, "nav.cp-pager")[0].text_content()
    second = doc(web.get(f"/competitors/{cid}?tab=intel&page=2"))
    assert len(css(second, "#timeline li.timeline-item")) == 6
    assert "Post number 24" in css(second, "#timeline li.timeline-item")[-1].text_content()


@pytest.mark.parametrize(
    "query, message",
    [
        ("?tab=news&page=3", "there are 2 page(s); 3 is past the last"),
        ("?tab=news&page=0", "must be a whole number from 1"),
        ("?tab=intel&page=abc", "must be a whole number from 1"),
        ("?tab=intel&page=-1", "must be a whole number from 1"),
        ("?tab=secrets", "must be one of summary, products"),
    ],
)
def test_bad_page_and_tab_values_are_a_clear_400_page(web, query, message):
    cid = add_competitor(web)
    add_news(web, cid, 21)
    answer = web.get(f"/competitors/{cid}{query}")
    assert answer.status_code == 400
    body = answer.get_data(as_text=True)
    assert message in body and "Back to the home page" in body


def test_an_empty_list_has_one_page(web):
    cid = add_competitor(web)
    page = doc(web.get(f"/competitors/{cid}?tab=news&page=1"))
    assert "No news yet." in page.text_content() and not css(page, "nav.cp-pager")
    assert web.get(f"/competitors/{cid}?tab=news&page=2").status_code == 400


# -- isolation ------------------------------------------------------------------------------


def test_another_workspaces_competitor_is_the_404_page_on_every_tab(web, make_web):
    seeded = seed_competitor(web)
    other = make_web()
    queries = [f"?tab={tab}" for tab in overview.TABS]
    queries += ["?tab=news&page=2", "?tab=intel&page=99", "?tab=bogus", "?page=x"]
    for query in queries:
        answer = other.get(f"/competitors/{seeded['id']}{query}")
        assert answer.status_code == 404, query
        body = answer.get_data(as_text=True)
        assert "not in your workspace" in body and "Globex" not in body, query


# -- live marks -----------------------------------------------------------------------------


def test_pending_badge_and_live_regions_for_live_js(web):
    cid = add_competitor(web)
    page = doc(web.get(f"/competitors/{cid}"))
    (badge,) = css(page, "h1 .badge")
    assert badge.text_content() == "PENDING" and badge.get("data-live-pending") is not None
    names = [r.get("data-live-region") for r in css(page, "[data-live-region]")]
    assert len(names) == len(set(names)) and {"status", "tab", "jobs"} <= set(names)
    assert page.xpath("//script[contains(@src, '/static/live.js')]")
    # The collect job runs: its progress widget sits in the jobs region.
    assert css(page, "[data-live-region=jobs] [data-progress-url]")


@pytest.mark.parametrize(
    ("status", "pending"), [("PROCESSING", True), ("COMPLETE", False), ("ERROR", False)]
)
def test_the_badge_shows_the_status_and_whether_live_js_waits(web, status, pending):
    cid = add_competitor(web)
    set_status(cid, status)
    badge = css(doc(web.get(f"/competitors/{cid}")), "h1 .badge")[0]
    assert badge.text_content() == status
    assert (badge.get("data-live-pending") is not None) == pending
