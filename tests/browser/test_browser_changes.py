"""In a real browser (issue 29): the Changes page lists what changed at competitors with
the unread count in the header; a filter narrows it; a page change opens as a diff, side by
side then inline; "Mark all as read" empties the count. Screenshots: ``changes``,
``changes-diff``, ``changes-diff-inline`` and ``changes-diff-phone``.

The events are written straight into the live server's database, as the services write
them (a workspace of its own, so the other browser tests' pages are unchanged)."""

from __future__ import annotations

import re
import secrets

import pytest
from playwright.sync_api import expect

from ci_service.services.alerts import events
from ci_service.services.intel import items as intel
from ci_service.store.competitors import Competitor
from ci_service.store.db import close_database, connection, open_database, transaction
from ci_service.store.identity import Workspace

TAG = secrets.token_hex(3)
WORKSPACE = f"changes-{TAG}"
EMAIL = f"owner-{TAG}@changes.example"
PRICING_URL = "https://globex.example/pricing"

OLD_PRICING = """Globex pricing
Simple plans for growing support teams.
Starter
$19 per agent / month, billed yearly. Up to 3 agents. Email support.
Pro
$49 per agent / month, billed yearly. Unlimited agents. SSO with SAML. Audit logs.
Enterprise
Talk to sales for volume pricing. Dedicated success manager.
Frequently asked questions
Can I change plans later? Yes, at any time.
Do you offer discounts for non-profits? Yes, 30% off every plan.
Is there a free trial? Yes, 14 days, no card needed.
Which payment methods do you take? Cards and bank transfer.
Where is my data stored? In the EU or the US, your choice."""
NEW_PRICING = (
    OLD_PRICING.replace("$49 per agent", "$59 per agent")
    .replace("Audit logs.", "Audit logs. AI reply suggestions.")
    .replace("Dedicated success manager.", "24/7 phone support.")
    .replace("Which payment methods do you take? Cards and bank transfer.\n", "")
)


def seed(database: str) -> dict[str, str]:
    open_database(database)
    try:
        with connection(), transaction():
            ws = Workspace.get(Workspace.name == WORKSPACE).id
            globex = Competitor.create(
                workspace=ws, name="Globex", website_url="https://globex.example", status="COMPLETE"
            )
            initech = Competitor.create(
                workspace=ws,
                name="Initech",
                website_url="https://initech.example",
                status="COMPLETE",
            )
            versions = [
                intel.record_evidence(
                    ws,
                    source_type="WEB_PAGE",
                    url=PRICING_URL,
                    title="Globex pricing",
                    content=content,
                    competitor_id=globex.id,
                ).item
                for content in (OLD_PRICING, NEW_PRICING)
            ]
            events.emit(
                ws,
                "competitor.person_added",
                "Globex: Dana Whitfield (VP Sales)",
                "Dana Whitfield (VP Sales) now appears on Globex's site.",
                competitor_id=globex.id,
                data={"name": "Dana Whitfield", "title": "VP Sales"},
            )
            events.emit(
                ws,
                "competitor.news",
                "Initech: Initech opens a Madrid office",
                "Initech published “Initech opens a Madrid office” on 2026-03-02.",
                competitor_id=initech.id,
                data={"url": "https://initech.example/news/madrid", "publishedAt": None},
            )
            events.emit(
                ws,
                "competitor.product_added",
                "Initech: new product Initech Insights",
                "Initech now offers Initech Insights: dashboards for support leads.",
                competitor_id=initech.id,
                data={"name": "Initech Insights", "url": "https://initech.example/insights"},
            )
            page = events.emit(
                ws,
                "competitor.page_changed",
                "Globex: “Globex pricing” changed",
                f"The page {PRICING_URL} now says “$59 per agent / month, billed yearly.” "
                "and 2 more lines; it no longer says “$49 per agent / month, billed "
                "yearly.” and 1 more line.",
                competitor_id=globex.id,
                evidence_ids=[versions[1].id, versions[0].id],
                link=f"/competitors/{globex.id}",
                data={
                    "intelId": versions[1].id,
                    "previousItemId": versions[0].id,
                    "url": PRICING_URL,
                    "added": ["$59 per agent / month, billed yearly.", "24/7 phone support."],
                    "removed": ["$49 per agent / month, billed yearly.", "Dedicated manager."],
                },
            )
            events.emit(
                ws,
                "competitor.price_changed",
                "Globex: Pro plan $49 → $59 per agent/month",
                "Globex changed the price of its Pro plan from $49 per agent/month to $59 "
                "per agent/month.",
                competitor_id=globex.id,
                evidence_ids=[versions[1].id],
                data={
                    "plan": "Pro",
                    "change": "price_changed",
                    "old": {"price": 49, "currency": "USD", "period": "month", "unit": "per agent"},
                    "new": {"price": 59, "currency": "USD", "period": "month", "unit": "per agent"},
                    "url": PRICING_URL,
                    "quote": "$59 per agent / month, billed yearly.",
                    "quoteUrl": PRICING_URL + "#:~:text=%2459%20per%20agent",
                },
            )
            return {"globex": globex.id, "initech": initech.id, "page": page.id}
    finally:
        close_database()  # the test process keeps nothing open on the live database


@pytest.fixture(scope="module")
def world(live):
    live.own_workspace(WORKSPACE, EMAIL)
    return seed(live.database)


def test_changes_feed_filter_diff_and_mark_all_read(tab, world, shot, axe):
    page = tab.page
    tab.sign_in(EMAIL, next_path="/changes")
    expect(page).to_have_url(re.compile(r"/changes$"))
    nav = page.get_by_role("navigation", name="Main").get_by_role(
        "link", name=re.compile("Changes")
    )
    expect(nav).to_contain_text("5")
    items = page.locator(".ch-feed > li")
    expect(items).to_have_count(5)
    expect(items.first).to_contain_text("Pro plan $49 → $59")
    expect(items.first.locator(".ch-source")).to_have_attribute(
        "href", PRICING_URL + "#:~:text=%2459%20per%20agent"
    )
    assert axe(tab) == []
    shot(tab, "changes")

    # filter by competitor: only Globex's changes
    page.get_by_label("Competitor", exact=True).select_option(label="Globex")
    with page.expect_navigation():
        page.get_by_role("button", name="Filter").click()
    expect(page).to_have_url(re.compile(f"competitorId={world['globex']}"))
    expect(items).to_have_count(3)
    expect(page.locator(".ch-feed")).not_to_contain_text("Initech")

    # open the page change: side by side, the changed words marked, read from now on
    with page.expect_navigation():
        page.get_by_role("link", name=re.compile("View the diff")).click()
    side = page.locator("table.diff-side")
    expect(side).to_be_visible()
    expect(side.locator("tr.changed del").first).to_have_text("49")
    expect(side.locator("tr.changed ins").first).to_have_text("59")
    expect(side.locator("tr.gap").first).to_contain_text("unchanged line")
    expect(nav).to_contain_text("4")
    assert axe(tab) == []
    shot(tab, "changes-diff")

    # switch to inline: − removed then + added in one column
    with page.expect_navigation():
        page.get_by_role("link", name="Inline").click()
    expect(page).to_have_url(re.compile(r"\?view=inline$"))
    inline = page.locator("table.diff-inline")
    expect(inline).to_be_visible()
    expect(inline.locator("tr.removed").first).to_contain_text("$49 per agent")
    expect(inline.locator("tr.added").first).to_contain_text("$59 per agent")
    expect(page.get_by_role("link", name="Inline")).to_have_attribute("aria-current", "page")
    assert axe(tab) == []
    shot(tab, "changes-diff-inline")

    # back to the feed, mark everything read: the count leaves the header
    tab.go("/changes")
    expect(page.locator(".ch-feed > li.unread")).to_have_count(4)
    with page.expect_navigation():
        page.get_by_role("button", name="Mark all as read").click()
    expect(page.get_by_role("status")).to_have_text("4 changes marked as read.")
    expect(page.locator(".ch-feed > li.unread")).to_have_count(0)
    expect(nav).to_have_text("Changes")

    # on a phone the side-by-side diff fits the screen: no sideways scrolling
    page.set_viewport_size({"width": 375, "height": 800})
    tab.go(f"/changes/{world['page']}")
    expect(page.locator("table.diff-side")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    shot(tab, "changes-diff-phone")
    page.set_viewport_size({"width": 1280, "height": 900})

    # mute the pricing page's changes for every subscription, see it under Settings →
    # Alerts, then unmute it there
    with page.expect_navigation():
        page.get_by_role("button", name="Mute this page").click()
    tab.go("/settings/alerts")
    muted = page.locator("#mutes")
    expect(muted).to_contain_text(PRICING_URL)
    expect(muted).to_contain_text("every subscription")
    shot(tab, "alerts-muted")
    with page.expect_navigation():
        muted.get_by_role("button", name=re.compile("Unmute")).first.click()
    expect(page.locator("#mutes")).to_contain_text("Nothing is muted")
    assert tab.errors == [] and tab.console_errors == []
