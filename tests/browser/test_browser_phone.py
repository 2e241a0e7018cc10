"""On a 375 px phone: no page scrolls sideways (wide tables scroll inside their box)."""

from __future__ import annotations

PAGES = ["/", "/jobs", "/deals", "/matrix", "/matrix/solutions", "/graph", "/search?q=ac"]
PAGES += ["/settings", "/settings/products", "/settings/users", "/settings/keys"]


def test_no_page_scrolls_sideways_on_a_phone(browser, live, shot):
    from tests.browser.conftest import TIMEOUT_MS, Tab

    phone = browser.new_context(viewport={"width": 375, "height": 800}, is_mobile=True)
    phone.set_default_timeout(TIMEOUT_MS)
    try:
        tab = Tab(phone.new_page(), live)
        tab.sign_in(live.owner)
        paths = list(PAGES)
        competitors = live.api("GET", "/api/competitors").json()["competitors"]
        paths += [f"/competitors/{c['id']}" for c in competitors[:2]]
        cards = live.api("GET", "/api/battlecards").json()["battlecards"]
        paths += [f"/battlecards/{c['id']}" for c in cards[:1]]
        for path in paths:
            response = tab.go(path)
            assert response.status == 200, (path, response.status)
            width = tab.page.evaluate("document.documentElement.scrollWidth")
            assert width <= 376, (path, width)
        shot(tab, "phone-last-page")
        assert tab.errors == [], tab.errors
    finally:
        phone.close()
