"""In a real browser: the competitor page goes live (issue 28). Opened while its analysis
runs, the status badge turns COMPLETE and the products and news the analysis found appear
without a reload; the tabs are links a keyboard reaches; a phone does not scroll sideways."""

from __future__ import annotations

import re
import secrets
import threading

import pytest
from playwright.sync_api import expect

from tests.intel_support import FixtureServer
from tests.pipeline_fixtures.support import copy_site

ANALYSIS_MS = 90_000


@pytest.fixture
def gated_site(tmp_path):
    """The project's fixture site (products, pricing, news) whose home page waits for
    ``gate`` to be set: the collect cannot finish before the test has opened the page."""
    gate = threading.Event()
    server = FixtureServer(copy_site(tmp_path / "site"))

    def home(handler):
        gate.wait(60)
        server.serve_file(handler, "/")

    server.routes["/"] = home
    with server:
        try:
            yield server, gate
        finally:
            gate.set()  # a failed test must not leave the live server's worker stuck


def test_the_status_and_the_results_appear_without_a_reload(signed_in, live, gated_site, axe):
    site, gate = gated_site
    name = f"Livewire {secrets.token_hex(2)}"
    competitor, _job = live.add_competitor(name, site.url("/"), wait=False)
    page = signed_in.page
    signed_in.go(f"/competitors/{competitor['id']}")
    badge = page.locator("h1 .badge")
    expect(badge).to_have_text(re.compile("^(PENDING|PROCESSING)$"))
    expect(badge).to_have_attribute("data-live-pending")
    summary = page.locator("#summary")
    expect(summary).to_contain_text("No products found yet.")
    # Marks a reload would wipe out, and every navigation of the tab.
    page.evaluate("window.notReloaded = true")
    navigations: list[str] = []
    page.on("framenavigated", lambda frame: navigations.append(frame.url))

    gate.set()  # the collect goes on; live.js follows the job and then the page
    expect(badge).to_have_text("COMPLETE", timeout=ANALYSIS_MS)
    expect(badge).not_to_have_attribute("data-live-pending")
    expect(summary.locator(".cp-offers")).to_contain_text("FlowDesk")
    expect(page.locator("#latest-news .cp-news li").first).to_be_visible()
    expect(summary.locator(".cp-facts")).to_contain_text("Austin")
    expect(page.locator("[data-live-status]")).to_have_text("Updated")
    assert page.evaluate("window.notReloaded === true")
    assert navigations == []
    expect(page.locator("main")).not_to_contain_text("reload", ignore_case=True)

    # The news shown is newest first by the dates the posts state.
    dates = page.locator("#latest-news .cp-news time").evaluate_all(
        "nodes => nodes.map(n => n.getAttribute('datetime'))"
    )
    assert dates and dates == sorted(dates, reverse=True)

    # The tabs are links: reached with the keyboard, the current one marked.
    news_tab = page.locator("nav.cp-tabs").get_by_role("link", name=re.compile("^News"))
    news_tab.focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    expect(page).to_have_url(
        re.compile(re.escape(f"/competitors/{competitor['id']}?tab=news") + "$")
    )
    current = page.locator("nav.cp-tabs a[aria-current='page']")
    expect(current).to_have_count(1)
    expect(current).to_contain_text("News")
    expect(page.locator("#news .cp-news li").first).to_be_visible()

    # Every tab, with what the analysis found, passes axe-core (no serious or critical).
    for key in ("", "products", "intel", "people", "news", "deals", "battlecards", "jobs"):
        signed_in.go(f"/competitors/{competitor['id']}" + (f"?tab={key}" if key else ""))
        assert axe(signed_in) == [], key
    assert signed_in.errors == [] and signed_in.dialogs == []


def test_every_tab_fits_a_phone(browser, live, shot):
    from tests.browser.conftest import TIMEOUT_MS, Tab

    name = f"Phonewise {secrets.token_hex(2)}"
    competitor, _job = live.add_competitor(name, "https://phonewise.example/", wait=False)
    phone = browser.new_context(viewport={"width": 375, "height": 800}, is_mobile=True)
    phone.set_default_timeout(TIMEOUT_MS)
    try:
        tab = Tab(phone.new_page(), live)
        tab.sign_in(live.owner)
        for key in ("", "products", "intel", "people", "news", "deals", "battlecards", "jobs"):
            query = f"?tab={key}" if key else ""
            response = tab.go(f"/competitors/{competitor['id']}{query}")
            assert response.status == 200, key
            width = tab.page.evaluate("document.documentElement.scrollWidth")
            assert width <= 376, (key, width)
        shot(tab, "phone-competitor-jobs")
        assert tab.errors == [], tab.errors
    finally:
        phone.close()
