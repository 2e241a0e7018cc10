"""On a 375 px phone: no page scrolls sideways (wide tables scroll inside their box), no word
breaks in the middle, the header is one compact row whose Menu button opens the links (and
without JavaScript the links are simply shown)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

PAGES = ["/", "/jobs", "/deals", "/matrix", "/matrix/solutions", "/graph", "/search?q=ac"]
PAGES += ["/settings", "/settings/products", "/settings/users", "/settings/keys"]
PAGES += ["/settings/alerts", "/account/password", "/workspaces"]

# Words (between spaces, hyphens, slashes, dots) that fit a phone line must sit on one line:
# a word whose Range has boxes on two lines was broken in the middle ("TIE R_3"). Text that
# is not drawn is skipped: Chromium lays a closed <details>' body out at no width.
BROKEN_WORDS = """() => {
  const broken = [];
  const walker = document.createTreeWalker(document.querySelector("main"), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    // Text not drawn (a closed <details>' body, a screen-reader-only span) has no lines.
    const parent = node.parentElement;
    if (!parent.checkVisibility() || parent.closest(".visually-hidden")) continue;
    for (const match of node.data.matchAll(/[A-Za-z0-9_]{3,18}/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const tops = new Set([...range.getClientRects()].filter(r => r.width > 0)
        .map(r => Math.round(r.bottom)));
      if (tops.size > 1) broken.push(match[0] + " in <" + node.parentElement.tagName + "." +
        node.parentElement.className + ">");
    }
  }
  return broken.slice(0, 10);
}"""


@pytest.fixture
def phone(browser, live):
    from tests.browser.conftest import TIMEOUT_MS, Tab

    made = browser.new_context(viewport={"width": 375, "height": 800}, is_mobile=True)
    made.set_default_timeout(TIMEOUT_MS)
    tab = Tab(made.new_page(), live)
    tab.sign_in(live.owner)
    yield tab
    made.close()


def test_no_page_scrolls_sideways_or_breaks_a_word_on_a_phone(phone, live, shot):
    paths = list(PAGES)
    competitors = live.api("GET", "/api/competitors").json()["competitors"]
    paths += [f"/competitors/{c['id']}" for c in competitors[:2]]
    cards = live.api("GET", "/api/battlecards").json()["battlecards"]
    paths += [f"/battlecards/{c['id']}" for c in cards[:1]]
    problems = []
    for path in paths:
        response = phone.go(path)
        assert response.status == 200, (path, response.status)
        width = phone.page.evaluate("document.documentElement.scrollWidth")
        if width > 376:
            problems.append(f"{path}: {width} px wide")
        broken = phone.page.evaluate(BROKEN_WORDS)
        if broken:
            problems.append(f"{path}: words broken mid-word: {broken}")
        header = phone.page.locator("header.top").bounding_box()
        if header["height"] > 100:
            problems.append(f"{path}: header {header['height']} px tall")
    shot(phone, "phone-last-page")
    assert problems == [], "\n".join(problems)
    assert phone.errors == [], phone.errors


def test_the_phone_menu_opens_and_closes_by_keyboard(phone, shot):
    page = phone.page
    phone.go("/")
    menu = page.get_by_role("button", name="Menu")
    deals = page.locator("header").get_by_role("link", name="Deals")
    expect(menu).to_be_visible()
    expect(menu).to_have_attribute("aria-expanded", "false")
    expect(deals).to_be_hidden()
    assert page.locator("header.top").bounding_box()["height"] <= 64
    menu.focus()
    page.keyboard.press("Enter")
    expect(menu).to_have_attribute("aria-expanded", "true")
    expect(deals).to_be_visible()
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    shot(phone, "phone-menu-open")
    page.keyboard.press("Tab")  # into the menu; Escape closes it and returns to the button
    page.keyboard.press("Escape")
    expect(menu).to_have_attribute("aria-expanded", "false")
    expect(deals).to_be_hidden()
    expect(menu).to_be_focused()
    with page.expect_navigation():
        page.get_by_label("Search competitors, battlecards and intel").press("Enter")
    expect(page).to_have_url(re.compile("/search"))


def test_without_javascript_the_links_are_shown(browser, live):
    from tests.browser.conftest import TIMEOUT_MS, Tab

    made = browser.new_context(
        viewport={"width": 375, "height": 800}, is_mobile=True, java_script_enabled=False
    )
    made.set_default_timeout(TIMEOUT_MS)
    try:
        tab = Tab(made.new_page(), live)
        tab.sign_in(live.owner)
        tab.go("/deals")
        header = tab.page.locator("header.top")
        expect(header.get_by_role("button", name="Menu")).to_be_hidden()
        expect(header.get_by_role("link", name="Deals")).to_be_visible()
        expect(header.get_by_role("button", name="Sign out")).to_be_visible()
        assert tab.page.evaluate("document.documentElement.scrollWidth") <= 376
    finally:
        made.close()
