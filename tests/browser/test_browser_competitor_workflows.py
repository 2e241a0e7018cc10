"""In a real browser: editing a competitor (its relevant products then the matrix with our
column), the warning when a website is already tracked, and deleting a competitor."""

from __future__ import annotations

import re
import secrets

import pytest
from playwright.sync_api import expect

from tests.intel_support import FixtureServer

PAGE = b"""<!doctype html><html><head><meta charset="utf-8"><title>Quillmark</title></head>
<body><main><h1>Quillmark</h1><p>Quillmark makes invoicing software for small studios:
quotes, invoices and reminders. Plans start at $12 per user / month.</p></main></body></html>"""


@pytest.fixture(scope="module")
def site():
    """One tiny site: its home page; any other path is a 404, which a collect ends fast on
    (the tests that need no crawl point their competitors there)."""
    server = FixtureServer()
    server.routes["/"] = lambda h: h.send(200, PAGE)
    with server:
        yield server


def our_product(live, name: str) -> dict:
    body = {"name": name, "description": "Our invoicing app", "audience": "studios"}
    answer = live.api("POST", "/api/products", json=body)
    assert answer.status_code == 200, answer.text
    return answer.json()["product"]


def competitor_names(live) -> list[str]:
    return [c["name"] for c in live.api("GET", "/api/competitors").json()["competitors"]]


def no_horizontal_scroll(tab) -> bool:
    return tab.page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_edit_name_and_relevant_products_then_the_matrix_has_both_columns(
    signed_in, live, site, shot, axe
):
    tag = secrets.token_hex(3)
    product = our_product(live, f"Ledgerly {tag}")
    competitor, _job = live.add_competitor(f"Quillmark {tag}", site.url("/"))
    page = signed_in.page
    signed_in.go(f"/competitors/{competitor['id']}")
    with page.expect_navigation():
        page.get_by_role("link", name="Edit", exact=True).click()
    expect(page).to_have_url(re.compile(re.escape(f"/competitors/{competitor['id']}/edit") + "$"))
    renamed = f"Quillmark Studio {tag}"
    page.get_by_label("Name", exact=True).fill(renamed)
    page.get_by_label(product["name"]).check()
    assert axe(signed_in) == []
    shot(signed_in, "competitor-edit")
    with page.expect_navigation():
        page.get_by_role("button", name="Save").click()
    expect(page.locator("h1")).to_contain_text(renamed)
    saved = live.api("GET", f"/api/competitors/{competitor['id']}").json()["competitor"]
    assert saved["relevantProductIds"] == [product["id"]]

    # The matrix, choosing our product: our column and the competitor's.
    signed_in.go("/matrix")
    page.get_by_label("Our product").select_option(label=product["name"])
    with page.expect_navigation():
        page.get_by_role("button", name="Apply filters").click()
    expect(page).to_have_url(re.compile(f"productId={product['id']}"))
    header = page.locator("table.matrix thead")
    expect(header.locator("th.ours")).to_be_visible()
    expect(header.get_by_role("columnheader", name=renamed)).to_be_visible()
    expect(page.get_by_text("No competitor matches these filters")).to_have_count(0)
    assert signed_in.errors == [] and signed_in.dialogs == []


def test_adding_a_tracked_website_warns_and_links_to_it(signed_in, live, site, shot, axe):
    tag = secrets.token_hex(3)
    first, _job = live.add_competitor(
        f"Tracked {tag}", f"http://localhost:{site.port}/tracked-{tag}", wait=False
    )
    page = signed_in.page
    signed_in.go("/")
    page.get_by_label("Name", exact=True).fill(f"Tracked again {tag}")
    # The same site written another way: scheme, www., host case, trailing slash.
    page.get_by_label("Website URL").fill(f"https://WWW.LocalHost:{site.port}/tracked-{tag}/")
    with page.expect_navigation():
        page.get_by_role("button", name="Add and analyze").click()
    warning = page.locator("#add-duplicate")
    expect(warning).to_contain_text("This website is already tracked")
    expect(page.get_by_label("Name", exact=True)).to_have_value(f"Tracked again {tag}")
    expect(page.get_by_label("Add anyway")).not_to_be_checked()
    shot(signed_in, "duplicate-warning")
    assert axe(signed_in) == []  # the warning state: a page the accessibility walk never sees
    page.set_viewport_size({"width": 375, "height": 800})
    assert no_horizontal_scroll(signed_in)
    page.set_viewport_size({"width": 1280, "height": 900})
    assert f"Tracked again {tag}" not in competitor_names(live)
    with page.expect_navigation():
        warning.get_by_role("link", name=f"Tracked {tag}").click()
    expect(page).to_have_url(re.compile(re.escape(f"/competitors/{first['id']}") + "$"))
    expect(page.locator("h1")).to_contain_text(f"Tracked {tag}")
    assert signed_in.errors == [] and signed_in.dialogs == []


def test_add_anyway_adds_the_second_competitor(signed_in, live, site):
    tag = secrets.token_hex(3)
    url = f"http://localhost:{site.port}/twice-{tag}"
    live.add_competitor(f"Twice {tag}", url, wait=False)
    page = signed_in.page
    signed_in.go("/")
    page.get_by_label("Name", exact=True).fill(f"Twice again {tag}")
    page.get_by_label("Website URL").fill(url + "/")
    with page.expect_navigation():
        page.get_by_role("button", name="Add and analyze").click()
    page.get_by_label("Add anyway").check()
    with page.expect_navigation():
        page.get_by_role("button", name="Add and analyze").click()
    expect(page).to_have_url(re.compile(r"/competitors/[^/]+$"))
    expect(page.locator("h1")).to_contain_text(f"Twice again {tag}")
    assert f"Twice again {tag}" in competitor_names(live)


def test_delete_a_competitor_from_its_page(signed_in, live, site, shot, axe):
    tag = secrets.token_hex(3)
    name = f"Doomed {tag}"
    competitor, _job = live.add_competitor(
        name, f"http://localhost:{site.port}/doomed-{tag}", wait=False
    )
    page = signed_in.page
    signed_in.go("/")
    expect(page.locator("table.competitors")).to_contain_text(name)
    signed_in.go(f"/competitors/{competitor['id']}")
    with page.expect_navigation():
        page.get_by_role("link", name="Delete", exact=True).click()
    expect(page.locator("h1")).to_have_text(f"Delete {name}?")
    expect(page.locator("[data-summary=removed]")).to_contain_text("intel items")
    expect(page.locator("[data-summary=kept]")).to_contain_text("deals")
    shot(signed_in, "competitor-delete")
    assert axe(signed_in) == []
    with page.expect_navigation():
        page.get_by_role("button", name=f"Delete {name}").click()
    expect(page).to_have_url(live.url + "/?deleted=1")
    expect(page.get_by_role("status").filter(has_text="The competitor was deleted")).to_be_visible()
    expect(page.locator("table.competitors")).not_to_contain_text(name)
    assert live.api("GET", f"/api/competitors/{competitor['id']}").status_code == 404
    assert signed_in.errors == [] and signed_in.dialogs == []
