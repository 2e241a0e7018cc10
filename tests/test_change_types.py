"""Issue 29: every kind of competitor change a collect can see is one event, with its values,
the page it was read on (``data.url``), the line that states it (``data.quote``) and a link
that opens the page at that line (``data.quoteUrl``); a change of dates or of the site's
menu only is no event. Each test changes the local fixture site between two collects."""

from __future__ import annotations

from datetime import timedelta
from email.utils import format_datetime

from ci_service.timeutil import utcnow
from tests.pipeline_fixtures.support import CHATDESK, add_competitor, run_jobs
from tests.resource_helpers import ok
from tests.test_events import edit, listed, of_type, recollect

pytest_plugins = ["tests.pipeline_fixtures.plugin", "tests.jobs_fixtures"]

PRICING_TABLE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Pricing – Globex Software</title></head>
<body><main><h1>Pricing</h1>
<table>
  <thead><tr><th>Plan</th><th>Price</th><th>Includes</th></tr></thead>
  <tbody>
    <tr><td>Starter</td><td>$19/month</td><td>Ticket routing and email support</td></tr>
    <tr><td>Pro</td><td>$49/month</td><td>Workflow automation and reports</td></tr>
  </tbody>
</table>
</main></body></html>"""
BUSINESS_ROW = "<tr><td>Business</td><td>$99/month</td><td>Audit logs and single sign-on</td></tr>"
STARTER_ROW = "<tr><td>Starter</td><td>$19/month</td><td>Ticket routing and email support</td></tr>"
# The menu as a plain <div>, not a <nav>: the extractor keeps its links as text lines.
MENU = """<div class="top">
    <a href="/">Home</a>
    <a href="/products/">Products</a>
    <a href="/pricing">Pricing</a>
    <a href="/about">About</a>
    <a href="/contact">Contact</a>
    <a href="/news/">News</a>
  </div>"""
MENU_PAGES = ("index.html", "about.html", "contact.html")


def collected(api, site) -> str:
    """A competitor for ``site``, collected once (the baseline); its id."""
    competitor_id, _ = add_competitor(api, site.url("/"))
    run_jobs()
    assert listed(api) == []  # the first collect has no baseline: nothing is an event
    return competitor_id


def where(event: dict, page: str, quote_start: str) -> None:
    """The event says where it was read: ``page``'s URL, a quote starting with
    ``quote_start`` and a link that opens the page at that quote."""
    data = event["data"]
    assert data["url"] == page
    assert data["quote"].startswith(quote_start), data["quote"]
    assert data["quoteUrl"].startswith(page + "#:~:text="), data["quoteUrl"]


def test_a_price_change_in_a_plan_table(api, site):
    (site.root / "pricing.html").write_text(PRICING_TABLE)
    competitor_id = collected(api, site)
    edit(site.root / "pricing.html", "$49/month", "$59/month")
    recollect(api, competitor_id)
    [event] = of_type(api, "competitor.price_changed")
    data = event["data"]
    assert (data["change"], data["plan"]) == ("price_changed", "Pro")
    assert (data["old"]["price"], data["new"]["price"]) == (49.0, 59.0)
    assert data["quote"] == "Pro | $59/month | Workflow automation and reports"
    where(event, site.url("/pricing"), "Pro | $59/month")


def test_a_plan_added_then_one_removed(api, site):
    (site.root / "pricing.html").write_text(PRICING_TABLE)
    competitor_id = collected(api, site)
    edit(site.root / "pricing.html", "</tbody>", BUSINESS_ROW + "</tbody>")
    recollect(api, competitor_id)
    [added] = of_type(api, "competitor.price_changed")
    assert (added["data"]["change"], added["data"]["plan"]) == ("plan_added", "Business")
    assert added["data"]["old"] is None and added["data"]["new"]["price"] == 99.0
    where(added, site.url("/pricing"), "Business | $99/month")

    edit(site.root / "pricing.html", STARTER_ROW, "")
    recollect(api, competitor_id)
    removed = [e for e in of_type(api, "competitor.price_changed") if e["id"] != added["id"]]
    [removed] = removed
    assert (removed["data"]["change"], removed["data"]["plan"]) == ("plan_removed", "Starter")
    assert removed["data"]["new"] is None and removed["data"]["old"]["price"] == 19.0
    where(removed, site.url("/pricing"), "Starter | $19/month")  # the old plan's line


def test_a_product_added(api, site):
    competitor_id = collected(api, site)
    (site.root / "products" / "chatdesk.html").write_text(CHATDESK)
    edit(
        site.root / "products" / "index.html",
        "</ul>",
        '<li><a href="/products/chatdesk">ChatDesk</a> – live chat for support teams</li></ul>',
    )
    recollect(api, competitor_id)
    [event] = of_type(api, "competitor.product_added")
    assert event["data"]["name"] == "ChatDesk" and event["data"]["offeringId"]
    assert "ChatDesk" in event["data"]["quote"]
    assert event["data"]["url"].startswith(site.url("/products"))
    where(event, event["data"]["url"], event["data"]["quote"])
    assert of_type(api, "competitor.product_removed") == []


def _drop_insightboard(root) -> None:
    edit(root / "index.html", '<a href="/products/insightboard">InsightBoard</a>', "")
    edit(root / "index.html", ", and InsightBoard, our analytics platform", "")
    edit(
        root / "products" / "index.html",
        '<li><a href="/products/insightboard">InsightBoard</a> – analytics for support '
        "leaders</li>",
        "",
    )
    (root / "products" / "insightboard.html").unlink()  # its page is gone too (404)


def test_a_product_removed_is_retired_and_one_listed_again_is_back(api, site):
    competitor_id = collected(api, site)
    offerings = ok(api.get("/api/offerings"))["offerings"]
    [board] = [o for o in offerings if o["name"] == "InsightBoard"]
    board_page = (site.root / "products" / "insightboard.html").read_text()

    _drop_insightboard(site.root)
    site.routes["/products/"] = lambda h: h.send(500, b"oops")  # the listing fails to load
    recollect(api, competitor_id)
    assert of_type(api, "competitor.product_removed") == []  # a failed fetch is no removal

    del site.routes["/products/"]
    recollect(api, competitor_id)
    [event] = of_type(api, "competitor.product_removed")
    assert event["data"]["offeringId"] == board["id"]
    assert event["data"]["name"] == "InsightBoard" and event["evidenceIds"]
    assert "InsightBoard" in event["data"]["quote"]  # the line that listed it
    where(event, event["data"]["url"], event["data"]["quote"])
    assert event["data"]["url"] in (site.url("/"), site.url("/products/"))
    offering = ok(api.get(f"/api/offerings/{board['id']}"))["offering"]
    assert offering["isActive"] is False and offering["features"]  # kept, marked
    competitor = ok(api.get(f"/api/competitors/{competitor_id}"))["competitor"]
    assert "InsightBoard" not in [p["name"] for p in competitor["products"]]

    edit(
        site.root / "products" / "index.html",
        "</ul>",
        '<li><a href="/products/insightboard">InsightBoard</a> – analytics for support '
        "leaders</li></ul>",
    )
    (site.root / "products" / "insightboard.html").write_text(board_page)
    recollect(api, competitor_id)
    [back] = of_type(api, "competitor.product_added")  # listed again: the same offering
    assert back["data"]["offeringId"] == board["id"]
    assert len(of_type(api, "competitor.product_removed")) == 1
    assert ok(api.get(f"/api/offerings/{board['id']}"))["offering"]["isActive"] is True


def test_a_person_joining_then_one_leaving(api, site):
    competitor_id = collected(api, site)
    about = site.root / "about.html"
    edit(about, "<p>Ken Adams, CTO</p>", "<p>Ken Adams, CTO</p>\n<p>Jane Doe, Head of Sales</p>")
    recollect(api, competitor_id)
    [joined] = of_type(api, "competitor.person_added")
    assert (joined["data"]["name"], joined["data"]["title"]) == ("Jane Doe", "Head of Sales")
    where(joined, site.url("/about"), "Jane Doe, Head of Sales")
    assert of_type(api, "competitor.person_removed") == []

    edit(about, "<p>Ken Adams, CTO</p>", "")
    recollect(api, competitor_id)
    [left] = of_type(api, "competitor.person_removed")
    assert (left["data"]["name"], left["data"]["title"]) == ("Ken Adams", "CTO")
    where(left, site.url("/about"), "Ken Adams, CTO")  # the line that named him
    assert left["evidenceIds"] and left["competitorId"] == competitor_id
    people = ok(api.get("/api/knowledge-graph")).get("elements", {}).get("nodes", [])
    names = [n["data"]["name"] for n in people if n["data"]["label"] == "PERSON"]
    assert not any("Ken Adams" in n for n in names) and any("Jane Doe" in n for n in names)


def test_a_news_item_and_no_old_news(api, site):
    competitor_id = collected(api, site)
    fresh = format_datetime(utcnow() - timedelta(days=1), usegmt=True)
    old = format_datetime(utcnow() - timedelta(days=400), usegmt=True)
    items = "".join(
        f"""<item><title>{title}</title><link>{{base}}/news/{slug}</link>
        <guid>{{base}}/news/{slug}</guid><pubDate>{day}</pubDate>
        <description>{title}.</description></item>"""
        for title, slug, day in (
            ("Globex opens a Berlin office", "berlin", fresh),
            ("Globex ships FlowDesk 1", "flowdesk-1", old),
        )
    )
    edit(site.root / "news" / "feed.xml", "<item>", items + "<item>")
    recollect(api, competitor_id)
    [event] = of_type(api, "competitor.news")  # the old one is backfill, not news
    assert event["title"] == "Globex: Globex opens a Berlin office"
    assert event["data"]["publishedAt"] and event["data"]["intelId"]
    where(event, site.url("/news/berlin"), "Globex opens a Berlin office")


def test_a_text_change_is_page_changed_and_a_date_only_change_is_nothing(api, site):
    contact = site.root / "contact.html"
    edit(contact, "</main>", "<p>Page updated March 1, 2026 at 9:30 am. 1,234 teams.</p></main>")
    competitor_id = collected(api, site)
    edit(contact, "March 1, 2026 at 9:30 am. 1,234", "2026-03-05 14:05. 1,301")
    recollect(api, competitor_id)
    assert listed(api) == []  # only a date and a counter changed

    edit(contact, "call\n       our support team any time", "call our sales team on weekdays")
    recollect(api, competitor_id)
    [event] = listed(api)
    assert event["type"] == "competitor.page_changed"
    data = event["data"]
    assert any("sales team on weekdays" in p for p in data["added"])
    assert any("support team any time" in p for p in data["removed"])
    assert data["quote"] == data["added"][0]
    where(event, site.url("/contact"), data["quote"])


def test_a_menu_only_change_is_nothing(api, site):
    for name in MENU_PAGES:
        page = site.root / name
        text = page.read_text()
        if "<nav>" in text:
            start, end = text.index("<nav>"), text.index("</nav>") + len("</nav>")
            text = text[:start] + MENU + text[end:]
        else:
            text = text.replace("<body>", "<body>\n  " + MENU, 1)
        page.write_text(text)
    competitor_id = collected(api, site)
    for name in MENU_PAGES:  # one entry added, one dropped, on every page with the menu
        edit(
            site.root / name,
            '<a href="/about">About</a>',
            '<a href="/about">About</a>\n    <a href="/careers">Careers</a>',
        )
        edit(site.root / name, '<a href="/news/">News</a>', "")
    recollect(api, competitor_id)
    items = ok(api.get(f"/api/intel?competitorId={competitor_id}"))["intelItems"]
    assert len([i for i in items if i["url"] == site.url("/")]) == 2  # the text did change
    assert listed(api) == []
