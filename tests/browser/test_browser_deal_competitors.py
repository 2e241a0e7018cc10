"""In a real browser: a WON deal recorded through the deals page form against a competitor
(the "Competitors in this deal" checkboxes, beyond the contract) shows in the win rate per
competitor, and the page stays accessible, keyboard-usable and phone-wide."""

from __future__ import annotations

import secrets

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import TIMEOUT_MS, Tab
from tests.intel_support import FixtureServer


@pytest.fixture(scope="module")
def site():
    """A site with no page: the competitors' collect jobs end fast (no crawl is needed)."""
    server = FixtureServer()
    with server:
        yield server


def test_a_won_deal_against_a_competitor_counts_in_its_win_rate(signed_in, live, site, axe, shot):
    tag = secrets.token_hex(3)
    beaten, _ = live.add_competitor(f"Harrowfield {tag}", site.url(f"/h-{tag}"), wait=False)
    also, _ = live.add_competitor(f"Brindlecove {tag}", site.url(f"/b-{tag}"), wait=False)
    page = signed_in.page
    signed_in.go("/deals")
    form = page.locator("form.deal-form")
    form.get_by_label("Won", exact=True).check()
    form.get_by_label("Prospect company").fill(f"Prospect {tag}")
    form.get_by_role("checkbox", name=beaten["name"]).check()
    # keyboard: Tab order reaches the checkboxes and Space ticks them
    second = form.get_by_role("checkbox", name=also["name"])
    second.focus()
    page.keyboard.press("Space")
    expect(second).to_be_checked()
    shot(signed_in, "deal-competitors-form")
    with page.expect_navigation():
        form.get_by_role("button", name="Record deal").click()
    expect(page.get_by_role("status")).to_contain_text("The deal was recorded.")

    row = page.locator(f"table.rates tr[data-competitor='{beaten['id']}']")
    expect(row).to_contain_text(beaten["name"])
    expect(row.locator("td").nth(1)).to_have_text("1")  # won against them
    expect(row.locator("td").nth(2)).to_have_text("0")
    expect(row.locator("td.rate")).to_have_text("100%")
    expect(page.locator(f"table.rates tr[data-competitor='{also['id']}'] td.rate")).to_have_text(
        "100%"
    )
    listed = page.locator("table.deals tr", has_text=f"Prospect {tag}")
    expect(listed.locator("td.in-deal")).to_contain_text(beaten["name"])
    expect(listed.locator("td.in-deal")).to_contain_text(also["name"])

    deals = live.api("GET", "/api/deals").json()["deals"]
    (deal,) = [d for d in deals if d["prospectCompanyName"] == f"Prospect {tag}"]
    assert deal["outcome"] == "WON" and deal["competitorId"] is None
    assert deal["competitorIds"] == [beaten["id"], also["id"]]
    assert axe(signed_in) == []
    shot(signed_in, "deal-competitors-win-rate")


def test_the_deals_form_fits_a_phone(browser, live, site):
    tag = secrets.token_hex(3)
    live.add_competitor(f"Longwindedcompetitorname {tag}", site.url(f"/l-{tag}"), wait=False)
    made = browser.new_context(viewport={"width": 375, "height": 800}, is_mobile=True)
    made.set_default_timeout(TIMEOUT_MS)
    try:
        phone = Tab(made.new_page(), live)
        phone.sign_in(live.owner)
        phone.go("/deals")
        expect(phone.page.get_by_role("group", name="Competitors in this deal")).to_be_visible()
        assert phone.page.evaluate("document.documentElement.scrollWidth") <= 376
    finally:
        made.close()
