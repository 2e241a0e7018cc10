"""In a real browser: adding a competitor and watching its analysis finish, and search."""

from __future__ import annotations

import re
import secrets

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import reload_until
from tests.intel_support import FixtureServer


def site_page(title: str, body: str) -> bytes:
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>{title}</title></head>
<body><nav><a href="/">Home</a> <a href="/pricing">Pricing</a> <a href="/about">About</a></nav>
<main><h1>{title}</h1>{body}</main></body></html>""".encode()


PAGES = {
    "/": site_page(
        "Northwind CRM",
        "<p>Northwind builds a CRM for small sales teams: pipeline, forecasting and email "
        "sync in one place. Teams set it up in a day.</p>",
    ),
    "/pricing": site_page(
        "Pricing",
        "<h2>Starter</h2><p>$19 per user / month.</p><h2>Business</h2><p>$49 per user / "
        "month. Forecasting and SSO.</p>",
    ),
    "/about": site_page(
        "About Northwind",
        "<p>Northwind was founded in 2018 and is headquartered in Lisbon. It employs 45 "
        "people.</p>",
    ),
}


@pytest.fixture(scope="module")
def northwind():
    server = FixtureServer()
    for path, body in PAGES.items():
        server.routes[path] = lambda h, body=body: h.send(200, body)
    with server:
        yield server


def test_add_a_competitor_and_watch_its_job_finish(signed_in, northwind, shot):
    page = signed_in.page
    name = f"Northwind {secrets.token_hex(2)}"
    signed_in.go("/")
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_label("Website URL").fill(northwind.url("/"))
    with page.expect_navigation():
        page.get_by_role("button", name="Add and analyze").click()
    expect(page).to_have_url(re.compile("/competitors/"))
    expect(page.locator("h1")).to_contain_text(name)

    def finished() -> bool:
        heading = page.locator("h1").inner_text()
        assert "ERROR" not in heading, page.locator("main").inner_text()
        return "COMPLETE" in heading

    reload_until(page, finished, "the analysis to finish", timeout=60)
    expect(page.locator("main")).to_contain_text("Lisbon")  # the profile read from the site
    shot(signed_in, "competitor-northwind")
    signed_in.go("/")
    expect(page.locator("table.competitors")).to_contain_text(name)
    shot(signed_in, "home")
    assert signed_in.errors == [] and signed_in.dialogs == []


def test_search_from_the_header(signed_in, live, northwind, shot):
    name = f"Searchable {secrets.token_hex(3)}"
    live.add_competitor(name, northwind.url("/"), wait=False)
    page = signed_in.page
    signed_in.go("/settings")
    box = page.locator("header input[name=q]")
    box.fill(name)
    with page.expect_navigation():
        box.press("Enter")
    expect(page).to_have_url(re.compile("^" + re.escape(signed_in.live.url + "/search?q=")))
    shot(signed_in, "search")
    with page.expect_navigation():
        page.locator("main").get_by_role("link", name=name).first.click()
    expect(page).to_have_url(re.compile("/competitors/"))
    expect(page.locator("h1")).to_contain_text(name)


def test_the_graph_draws_and_a_click_shows_neighbours(signed_in, live, northwind, shot):
    name = f"Graphwind {secrets.token_hex(3)}"
    live.add_competitor(name, northwind.url("/"))  # collected: pages and topics around it
    page = signed_in.page
    signed_in.go("/graph")
    view = page.locator("#graph-view")
    view.wait_for(state="visible")  # our script loaded the layout and drew it
    page.get_by_label("Find a node").fill(name)
    page.locator("#graph-find").get_by_role("button", name="Go").click()
    panel = page.locator("#graph-panel")
    expect(panel.locator("h2")).to_have_text(name)
    expect(panel.get_by_text("Neighbours (")).to_have_count(1)
    page.keyboard.press("Escape")  # unselect, then click the node (centred on the canvas)
    expect(panel.locator("h2")).to_have_count(0)
    page.locator("#graph-canvas").click()
    expect(panel.locator("h2")).to_have_text(name)
    expect(panel.locator("ul.neighbours li").first).to_be_attached()  # one neighbour or more
    shot(signed_in, "graph-northwind")
    assert signed_in.errors == []
