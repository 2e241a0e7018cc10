"""Events (issue 14, first slice): each change writes its event in its own transaction, and
GET /api/events and the list_events tool list them with their filters."""

from __future__ import annotations

from datetime import timedelta

import pytest

from ci_service.errors import ValidationFailed
from ci_service.services.alerts import changes as change_events
from ci_service.services.alerts import events
from ci_service.services.workspace import deals
from ci_service.services.workspace.jobs import start_competitor_refresh
from ci_service.services.workspace.offerings import create_offering
from ci_service.store.db import connection, transaction
from ci_service.store.events import Event
from ci_service.store.resources import Deal
from ci_service.timeutil import iso, utcnow
from tests.analysis_support import seed_rival
from tests.intel_support import FixtureServer, serve_500s
from tests.pipeline_fixtures.support import add_competitor, change_site, job, run_jobs
from tests.resource_helpers import error, make_competitor, make_product, ok, tool

pytest_plugins = ["tests.pipeline_fixtures.plugin", "tests.jobs_fixtures"]


def listed(api, query: str = "") -> list[dict]:
    return ok(api.get(f"/api/events{query}"))["events"]


def of_type(api, event_type: str) -> list[dict]:
    return listed(api, f"?type={event_type}")


def recollect(api, competitor_id: str) -> None:
    with connection():
        again = start_competitor_refresh(api.workspace_id, competitor_id)
    run_jobs()
    assert job(api, again.id)["status"] == "completed"


def edit(path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new))


# -- collects ------------------------------------------------------------------------------


def test_a_changed_price_is_one_event_with_old_and_new_and_a_rerun_adds_none(api, site):
    competitor_id, _ = add_competitor(api, site.url("/"))
    run_jobs()
    assert listed(api) == []  # the first collect has no baseline: nothing is an event

    edit(site.root / "pricing.html", "$49 per agent", "$59 per agent")
    recollect(api, competitor_id)
    [event] = of_type(api, "competitor.price_changed")
    assert event["title"] == "Globex: Pro plan $49 → $59 per agent/month"
    assert "from $49 per agent/month to $59 per agent/month" in event["summary"]
    assert event["importance"] == "high" and event["competitorId"] == competitor_id
    assert event["link"].startswith("http") and event["link"].endswith(
        f"/competitors/{competitor_id}"
    )
    data = event["data"]
    assert (data["change"], data["plan"]) == ("price_changed", "Pro")
    assert (data["old"]["price"], data["new"]["price"]) == (49.0, 59.0)
    assert data["new"]["currency"] == "USD" and data["new"]["period"] == "month"
    offering = ok(api.get(f"/api/offerings/{data['offeringId']}"))["offering"]
    assert offering["pricingChanges"][0]["evidenceIds"] == event["evidenceIds"] != []
    # the pricing page itself changed in a way that matters (a price)
    [page] = of_type(api, "competitor.page_changed")
    assert page["importance"] == "low" and page["data"]["url"] == site.url("/pricing")
    assert any("$59 per agent" in p for p in page["data"]["added"])
    assert any("$49 per agent" in p for p in page["data"]["removed"])

    before = listed(api)
    recollect(api, competitor_id)  # nothing changed on the site
    assert listed(api) == before


def test_a_date_only_change_is_no_page_event_and_a_text_change_is_one(api, site):
    contact = site.root / "contact.html"
    edit(contact, "</main>", "<p>Page updated March 1, 2026 at 9:30 am. 1,234 teams.</p></main>")
    competitor_id, _ = add_competitor(api, site.url("/"))
    run_jobs()
    recollect(api, competitor_id)  # the baseline is set: later changes may be events

    edit(contact, "March 1, 2026 at 9:30 am. 1,234", "2026-03-05 14:05. 1,301")
    recollect(api, competitor_id)
    items = ok(api.get(f"/api/intel?competitorId={competitor_id}"))["intelItems"]
    assert len([i for i in items if i["url"] == site.url("/contact")]) == 2  # it did change
    assert of_type(api, "competitor.page_changed") == []

    edit(contact, "call\n       our support team any time", "call our sales team on weekdays")
    recollect(api, competitor_id)
    [event] = of_type(api, "competitor.page_changed")
    newest = next(i for i in items if i["url"] == site.url("/contact"))
    data = event["data"]
    assert data["url"] == site.url("/contact") and data["previousItemId"] == newest["id"]
    assert any("sales team on weekdays" in p for p in data["added"])
    assert any("support team any time" in p for p in data["removed"])
    assert event["evidenceIds"] == [data["intelId"], newest["id"]]
    assert all(len(p) <= 300 for p in data["added"] + data["removed"])


def test_products_news_and_people_are_events_after_the_first_collect_only(api, site):
    competitor_id, _ = add_competitor(api, site.url("/"))
    run_jobs()
    for kind in ("product_added", "news", "person_added"):
        assert of_type(api, f"competitor.{kind}") == []

    change_site(site.root)  # a new product, person, news item (and price)
    recollect(api, competitor_id)

    [product] = of_type(api, "competitor.product_added")
    assert product["title"] == "Globex: new product ChatDesk"
    assert product["data"]["name"] == "ChatDesk" and product["evidenceIds"]
    [news] = of_type(api, "competitor.news")
    assert news["title"] == "Globex: Globex opens a Berlin office"
    assert news["data"]["url"] == site.url("/news/berlin")
    assert news["evidenceIds"] == [news["data"]["intelId"]] and news["data"]["publishedAt"]
    item = ok(api.get(f"/api/intel/{news['data']['intelId']}"))["intelItem"]
    assert item["sourceType"] == "NEWS"
    [person] = of_type(api, "competitor.person_added")
    assert person["data"]["name"] == "Jane Doe"
    assert person["data"]["title"] == "Chief Revenue Officer"
    assert person["evidenceIds"] and person["competitorId"] == competitor_id


def test_old_news_the_crawl_only_now_reaches_is_not_an_event(api, site):
    competitor_id, _ = add_competitor(api, site.url("/"))
    run_jobs()
    edit(
        site.root / "news" / "feed.xml",
        "<item>",
        """<item><title>Globex ships FlowDesk 1</title>
      <link>{base}/news/flowdesk-1</link><guid>{base}/news/flowdesk-1</guid>
      <pubDate>Mon, 05 Jan 2015 09:00:00 GMT</pubDate>
      <description>The first FlowDesk.</description></item>
    <item>""",
    )
    recollect(api, competitor_id)
    assert of_type(api, "competitor.news") == []


def test_a_failed_collect_is_a_job_failed_event(api, crawl_env):
    with FixtureServer() as server:
        serve_500s(server)
        competitor_id, job_id = add_competitor(api, server.url("/"))
        run_jobs()
    failed = job(api, job_id)
    [event] = listed(api)
    assert event["type"] == "job.failed" and event["competitorId"] == competitor_id
    assert event["data"] == {"jobId": job_id, "jobType": "collect", "error": failed["error"]}
    assert event["link"].startswith("http") and event["link"].endswith(f"/jobs/{job_id}")
    assert "HTTP 500" in event["summary"]


# -- workspace records -----------------------------------------------------------------------


def test_recording_a_deal_is_an_event(api):
    rival = make_competitor(api, name="Rival")["competitor"]
    deal = ok(
        api.post(
            "/api/deals",
            json={
                "prospectCompanyName": "Acme Corp",
                "outcome": "LOST",
                "competitorId": rival["id"],
            },
        )
    )["deal"]
    [event] = listed(api)
    assert event["type"] == "deal.recorded" and event["competitorId"] == rival["id"]
    assert event["title"] == "Deal lost to Rival: Acme Corp"
    assert event["data"] == {"dealId": deal["id"], "outcome": "LOST", "prospect": "Acme Corp"}
    assert event["link"].startswith("http") and event["link"].endswith("/deals")


def test_deleting_a_competitor_offering_is_product_removed(api):
    rival = make_competitor(api, name="Rival")["competitor"]
    own = make_product(api, name="Ours")
    with connection():
        theirs = create_offering(
            api.workspace_id,
            {"name": "Rival Desk", "description": "d", "audience": ""},
            competitor_id=rival["id"],
            view="product",
        )
    ok(api.delete(f"/api/products/{own['id']}"))
    assert listed(api) == []  # our own products are not a competitor's
    ok(api.delete(f"/api/offerings/{theirs.id}"))
    [event] = listed(api)
    assert event["type"] == "competitor.product_removed"
    assert event["data"] == {"offeringId": theirs.id, "name": "Rival Desk"}
    assert event["title"] == "Rival: product Rival Desk removed"


def test_regenerating_a_card_into_new_content_is_battlecard_updated(make_api, runner):
    api = make_api(plan="PRO")
    product, rival, _ = seed_rival(api)
    path = f"/api/battlecards/{rival['id']}/generate"
    first = ok(api.post(path, json={"productId": product["id"], "mode": "ATTACK"}))
    runner.run_until_idle()
    assert of_type(api, "battlecard.updated") == []  # a card's first content is no update
    ok(api.post(path, json={"productId": product["id"], "mode": "ATTACK"}))
    runner.run_until_idle()
    assert of_type(api, "battlecard.updated") == []  # the same content again
    ok(api.post(path, json={"productId": product["id"], "mode": "DEFENSE"}))
    runner.run_until_idle()
    [event] = of_type(api, "battlecard.updated")
    card_id = first["battlecard"]["id"]
    assert event["data"] == {"battlecardId": card_id, "productId": product["id"], "mode": "DEFENSE"}
    assert event["link"].startswith("http") and event["link"].endswith(f"/battlecards/{card_id}")
    assert event["competitorId"] == rival["id"]


def test_a_cancelled_job_is_not_job_failed(make_api, runner):
    api = make_api(plan="PRO")
    product, rival, _ = seed_rival(api)
    path = f"/api/battlecards/{rival['id']}/generate"
    started = ok(api.post(path, json={"productId": product["id"], "mode": "ATTACK"}))
    ok(api.post(f"/api/jobs/{started['jobId']}/cancel"))
    assert ok(api.get(f"/api/jobs/{started['jobId']}"))["job"]["status"] == "failed"
    assert of_type(api, "job.failed") == []


# -- atomicity --------------------------------------------------------------------------------


def test_an_event_rolls_back_with_its_change(api):
    rival = make_competitor(api, name="Rival")["competitor"]
    body = {"prospectCompanyName": "Acme Corp", "outcome": "LOST", "competitorId": rival["id"]}
    with connection():
        with pytest.raises(RuntimeError), transaction():
            deals.create_deal(api.workspace_id, body)
            assert Event.select().count() == 1  # written, not yet committed
            raise RuntimeError("the change fails after its event")
        assert Event.select().count() == 0 and Deal.select().count() == 0


def test_a_failing_price_event_undoes_the_price_change(api, site, monkeypatch):
    competitor_id, _ = add_competitor(api, site.url("/"))
    run_jobs()
    edit(site.root / "pricing.html", "$49 per agent", "$59 per agent")
    real = change_events.price_changed

    def fail_after_emit(*args, **kwargs):
        real(*args, **kwargs)
        raise ValidationFailed("boom after the event")

    monkeypatch.setattr(change_events, "price_changed", fail_after_emit)
    with connection():
        again = start_competitor_refresh(api.workspace_id, competitor_id)
    run_jobs()
    assert job(api, again.id)["status"] == "failed"
    assert of_type(api, "competitor.price_changed") == []
    offerings = ok(api.get("/api/offerings"))["offerings"]
    assert all(not o["pricingChanges"] for o in offerings)  # the change went with it
    assert any(p["price"] == 49.0 for o in offerings for p in o["pricing"])
    # the page change was its own transaction, committed before the pricing step failed
    assert sorted(e["type"] for e in listed(api)) == ["competitor.page_changed", "job.failed"]


# -- listing ----------------------------------------------------------------------------------


@pytest.fixture
def seeded(api, make_api):
    first = make_competitor(api, name="First")["competitor"]["id"]
    second = make_competitor(api, name="Second")["competitor"]["id"]
    other = make_api()
    foreign = make_competitor(other, name="Foreign")["competitor"]["id"]
    with connection():
        ws = api.workspace_id
        rows = [
            (events.emit(ws, "competitor.news", "old news", competitor_id=first), 240),
            (events.emit(ws, "competitor.price_changed", "price", competitor_id=first), 3),
            (events.emit(ws, "competitor.page_changed", "page", competitor_id=second), 2),
            (events.emit(ws, "deal.recorded", "deal"), 1),
        ]
        for row, hours in rows:  # distinct times, so the order is certain
            when = utcnow() - timedelta(hours=hours)
            Event.update(created_at=when).where(Event.id == row.id).execute()
        events.emit(other.workspace_id, "deal.recorded", "elsewhere", competitor_id=foreign)
    return {"first": first, "second": second, "foreign": foreign}


def titles(rows):
    return [row["title"] for row in rows]


def test_listing_filters_pages_and_stays_in_its_workspace(api, seeded):
    assert titles(listed(api)) == ["deal", "page", "price", "old news"]  # newest first
    assert titles(listed(api, "?type=competitor.news")) == ["old news"]
    assert titles(listed(api, f"?competitorId={seeded['first']}")) == ["price", "old news"]
    error(api.get(f"/api/events?competitorId={seeded['foreign']}"), 404, "NOT_FOUND")
    error(api.get("/api/events?competitorId=nope"), 404, "NOT_FOUND")
    since = iso(utcnow() - timedelta(days=1))
    assert titles(listed(api, f"?since={since.replace('+', '%2B')}")) == ["deal", "page", "price"]
    error(api.get("/api/events?since=yesterday"), 400, "VALIDATION_ERROR")
    assert titles(listed(api, "?importance=high")) == ["price"]
    assert titles(listed(api, "?importance=normal")) == ["deal", "price", "old news"]
    assert titles(listed(api, "?importance=low")) == ["deal", "page", "price", "old news"]
    assert titles(listed(api, "?limit=2")) == ["deal", "page"]
    assert titles(listed(api, "?limit=2&offset=2")) == ["price", "old news"]
    error(api.get("/api/events?type=competitor.exploded"), 400, "VALIDATION_ERROR")
    error(api.get("/api/events?importance=urgent"), 400, "VALIDATION_ERROR")


def test_the_list_events_tool(api, seeded):
    rows = tool(api, "list_events", {"competitorId": seeded["first"], "importance": "high"})
    assert titles(rows["events"]) == ["price"]
    assert rows["events"][0] == listed(api, "?importance=high")[0]
    rows = tool(api, "list_events", {"type": "deal.recorded", "limit": 1})
    assert titles(rows["events"]) == ["deal"]


def test_a_changed_price_reaches_a_subscribed_webhook_once(api, app, site, monkeypatch):
    """The issue's end to end: a collect that finds a changed price gives one signed
    competitor.price_changed delivery to a subscribed webhook; an unchanged re-collect
    delivers nothing more. The receiver is on loopback, so alert targets may be private:
    in the app (saving) and in the environment (the delivery job)."""
    import json

    from tests.test_delivery import Receiver

    settings = app.config["CI_SETTINGS"]
    app.config["CI_SETTINGS"] = settings.with_overrides(alerts_allow_private_urls=True)
    monkeypatch.setenv("CI_SERVICE_ALERTS_ALLOW_PRIVATE_URLS", "1")

    competitor_id, _ = add_competitor(api, site.url("/"))
    run_jobs()
    with Receiver() as receiver:
        created = ok(
            api.post(
                "/api/subscriptions",
                json={
                    "name": "Price watch",
                    "scope": "workspace",
                    "channel": "webhook",
                    "target": receiver.url + "/hooks/ci",
                    "eventTypes": ["competitor.price_changed"],
                },
            )
        )
        receiver.secret = created["secret"]
        edit(site.root / "pricing.html", "$49 per agent", "$59 per agent")
        recollect(api, competitor_id)
        run_jobs()  # the deliver-notifications job queued with the event
        [request] = receiver.requests
        assert request["verified"] is True and request["path"] == "/hooks/ci"
        payload = json.loads(request["body"])
        assert payload["type"] == "competitor.price_changed"
        event = payload["data"]["event"]
        assert (event["data"]["old"]["price"], event["data"]["new"]["price"]) == (49.0, 59.0)
        recollect(api, competitor_id)
        run_jobs()
        assert len(receiver.requests) == 1  # nothing changed: nothing sent
    deliveries = ok(api.get(f"/api/subscriptions/{created['subscription']['id']}/deliveries"))
    [delivery] = deliveries["deliveries"]
    assert delivery["status"] == "delivered" and delivery["messageId"] == request["id"]
