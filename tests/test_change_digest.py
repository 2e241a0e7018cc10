"""A day of changes, as a salesperson receives it (issue 29, "Done when"): a local site is
changed between refreshes (a price twice, a person, a sentence, and dates only, several
times), with a battlecard rewritten by every refresh; the digest of that day lists each
change once, with its lines, and no repeated battlecard updates or date-only page changes."""

from __future__ import annotations

from collections import Counter

from ci_service.services.alerts.messages import render
from ci_service.store.alerts import Delivery
from ci_service.store.db import connection
from tests.pipeline_fixtures.support import add_competitor, run_jobs
from tests.resource_helpers import make_product, ok
from tests.test_events import edit, listed, recollect

pytest_plugins = ["tests.pipeline_fixtures.plugin", "tests.jobs_fixtures"]

DATED = "<p>Prices checked on March 1, 2026 at 9:30 am by 1,234 teams.</p></main>"


def _redate(site, day: str) -> None:
    """Only the date line of the pricing and contact pages changes."""
    for name in ("pricing.html", "contact.html"):
        page = site.root / name
        text = page.read_text()
        start = text.index("Prices checked on ")
        end = text.index(" by ", start)
        page.write_text(text[:start] + f"Prices checked on {day}" + text[end:])


def test_a_day_of_changes_is_one_digest_with_each_change_once(api, site):
    product = make_product(
        api,
        name="Acme Desk",
        features=[{"name": "Workflow automation", "description": "Rules that route tickets"}],
    )
    for name in ("pricing.html", "contact.html"):
        edit(site.root / name, "</main>", DATED)
    competitor_id, _ = add_competitor(api, site.url("/"))
    ok(api.patch(f"/api/competitors/{competitor_id}", json={"relevantProductIds": [product["id"]]}))
    run_jobs()  # the first collect: the baseline, and the battlecard's first content
    assert ok(api.get(f"/api/battlecards?competitorId={competitor_id}"))["battlecards"]
    subscription = ok(
        api.post(
            "/api/subscriptions",
            json={
                "name": "Daily",
                "channel": "webhook",
                "target": "https://hooks.acme.example/ci",
                "digest": "daily",
            },
        )
    )["subscription"]

    # Morning: the Pro price goes up. Noon: dates only. Afternoon: a person joins and the
    # contact page says something new. Evening: dates only, then the price goes up again.
    edit(site.root / "pricing.html", "$49 per agent", "$59 per agent")
    recollect(api, competitor_id)
    _redate(site, "March 2, 2026 at 10:00 am")
    recollect(api, competitor_id)
    edit(
        site.root / "about.html",
        "<p>Ken Adams, CTO</p>",
        "<p>Ken Adams, CTO</p><p>Jane Doe, COO</p>",
    )
    edit(
        site.root / "contact.html",
        "call\n       our support team any time",
        "call our sales team on weekdays",
    )
    recollect(api, competitor_id)
    _redate(site, "2026-03-03 18:05")
    recollect(api, competitor_id)
    edit(site.root / "pricing.html", "$59 per agent", "$69 per agent")
    recollect(api, competitor_id)

    kinds = Counter(e["type"] for e in listed(api))
    assert kinds["competitor.price_changed"] == 2 and kinds["competitor.person_added"] == 1
    changed_pages = {e["data"]["url"] for e in listed(api, "?type=competitor.page_changed")}
    assert changed_pages == {site.url("/pricing"), site.url("/contact"), site.url("/about")}
    # two price changes, one contact change: dates alone changed no page
    assert kinds["competitor.page_changed"] == 4

    answer = ok(api.post(f"/api/subscriptions/{subscription['id']}/digest"))
    with connection():
        payload = Delivery.get_by_id(answer["delivery"]["id"]).payload
    digest = payload["data"]["digest"]
    listed_events = [e for group in digest["competitors"] for e in group["events"]]
    cards = Counter(
        e["data"]["battlecardId"] for e in listed_events if e["type"] == "battlecard.updated"
    )
    assert all(count == 1 for count in cards.values())
    pages = Counter(
        e["data"]["url"] for e in listed_events if e["type"] == "competitor.page_changed"
    )
    assert pages == {site.url("/pricing"): 1, site.url("/contact"): 1, site.url("/about"): 1}
    ours = f"http://localhost/competitors/{competitor_id}"  # the app's address: absolute
    assert all(e["link"].startswith("http://localhost/") for e in listed_events)

    title, markdown, _ = render(payload, html=False)
    assert title.startswith("Digest ") and title.endswith(": 7 changes")
    assert "$59 per agent/month → $69 per agent/month" in markdown
    assert "$49 per agent/month → $59 per agent/month" in markdown
    assert "sales team on weekdays" in markdown and "support team any time" in markdown
    assert "Jane Doe" in markdown and "passage(s)" not in markdown
    assert ours in markdown
    assert site.url("/contact") in markdown  # their page, beside ours
    _, html, _ = render(payload, html=True)
    assert "sales team on weekdays" in html and ours in html
