"""The README's screenshots, from a run over a real website copy (issue 28).

One site of ``../shared/realsites`` (the project's own fixture site when that folder is not
there) is served on loopback the way ``bench/quality.py`` serves it and collected by the live
app; one of our products is added and a battlecard generated through REST, in a workspace of its
own (the screenshots show this run's records only, not other tests'). At a laptop's
1366x900 the competitor page's summary ends within the first screen and shows the newest news
first. Screenshots ``competitor`` (the first screen), ``battlecard``, ``matrix`` (with our
product's column) and ``graph`` land in ``$CI_SERVICE_SCREENSHOTS`` when it is set."""

from __future__ import annotations

import html
import re
import secrets

import httpx
import pytest
from playwright.sync_api import expect

from bench import quality
from tests.waiting import wait_for

WORKSPACE = "readme-shots"
EMAIL = "owner@readme-shots.example"
SITE = "budibase"  # pricing, people, funding and a dated blog: every part of the summary
COLLECT_TIMEOUT = 300
VIEWPORT = {"width": 1366, "height": 900}
OUR_PRODUCT = {
    "name": "Acme Apps",
    "description": "A low-code platform to build internal tools and approval workflows.",
    "audience": "IT teams",
    "valueProps": ["Single sign-on and audit logs on every plan"],
    "features": [
        {"name": "Single sign-on", "description": "SAML and OIDC sign-in"},
        {"name": "Audit logs", "description": "Every change recorded"},
        {"name": "Workflow automation", "description": "Approvals without code"},
        {"name": "Self-hosting", "description": "Run it on your own servers"},
    ],
}


@pytest.fixture(scope="module")
def site_url():
    """The real-site copy on loopback, else the project's fixture site."""
    folder = quality.REALSITES / SITE
    server = quality.serve_realsite(folder) if folder.is_dir() else None
    if server is None:
        server = quality.serve_folder(quality.FIXTURE_SITES["fixture"])
    with server as url:
        yield url


def site_name(url: str) -> str:
    """The company name the site's home page gives in its title ("Name - tagline"), as a
    person adding it would type it; a made-up name when the title says nothing."""
    found = re.search(r"<title[^>]*>([^<]+)", httpx.get(url, timeout=10).text, re.IGNORECASE)
    first = re.split(r"\s[-|–:·]\s|\s\|", html.unescape(found.group(1)))[0] if found else ""
    return first.strip()[:40] or f"Rival {secrets.token_hex(2)}"


@pytest.fixture(scope="module")
def own(live):
    """This test's own workspace: the screenshots show its records only."""
    return live.own_workspace(WORKSPACE, EMAIL)


def ok(response) -> dict:
    assert response.status_code == 200, response.text
    return response.json()


def wait_for_card(own, card_id: str) -> dict:
    return wait_for(
        lambda: ok(own.api("GET", f"/api/battlecards/{card_id}"))["battlecard"],
        COLLECT_TIMEOUT,
        0.5,
        f"battlecard {card_id} to be generated",
        until=lambda card: card["status"] != "GENERATING",
    )


def test_competitor_page_over_a_real_site_and_the_readme_shots(
    browser, own, site_url, screenshot_dir, shot
):
    from tests.browser.conftest import TIMEOUT_MS, Tab

    product = ok(own.api("POST", "/api/products", json=OUR_PRODUCT))["product"]
    name = site_name(site_url)
    created = ok(
        own.api(
            "POST",
            "/api/competitors",
            json={"name": name, "websiteUrl": site_url, "relevantProductIds": [product["id"]]},
        )
    )
    competitor = created["competitor"]
    job = own.wait_for_job(created["jobId"], timeout=COLLECT_TIMEOUT)
    assert job["status"] == "completed", job
    generated = ok(
        own.api(
            "POST",
            f"/api/battlecards/{competitor['id']}/generate",
            json={"productId": product["id"], "mode": "ATTACK"},
        )
    )
    card = wait_for_card(own, generated["battlecard"]["id"])
    assert card["status"] != "FAILED", card

    laptop = browser.new_context(viewport=VIEWPORT)
    laptop.set_default_timeout(TIMEOUT_MS)
    try:
        tab = Tab(laptop.new_page(), own)
        tab.sign_in(EMAIL)
        page = tab.page
        tab.go(f"/competitors/{competitor['id']}")
        expect(page.locator("h1 .badge")).to_have_text("COMPLETE")
        summary = page.locator("#summary")
        expect(summary.locator(".cp-offers li").first).to_be_visible()
        box = summary.bounding_box()
        assert box is not None and box["y"] + box["height"] <= VIEWPORT["height"], box
        tall = page.evaluate("document.documentElement.scrollHeight")
        print(f"competitor page: summary ends at {box['y'] + box['height']:.0f} px, {tall} px tall")
        # The latest news: real posts, newest first by the dates they state.
        news = page.locator("#latest-news .cp-news li")
        expect(news.nth(1)).to_be_attached()  # two posts or more
        dates = news.locator("time").evaluate_all(
            "nodes => nodes.map(n => n.getAttribute('datetime'))"
        )
        assert dates == sorted(dates, reverse=True), dates
        page.screenshot(path=str(screenshot_dir / "competitor.png"))  # the first screen

        tab.go(f"/battlecards/{card['id']}")
        expect(page.locator("h1")).to_contain_text(name)
        shot(tab, "battlecard")

        tab.go(f"/matrix?productId={product['id']}")
        matrix = page.locator("main")
        expect(matrix).to_contain_text(name)
        expect(matrix).to_contain_text(product["name"])
        shot(tab, "matrix")

        tab.go("/graph")
        page.locator("#graph-view").wait_for(state="visible")
        shot(tab, "graph")
        assert tab.errors == [], tab.errors
    finally:
        laptop.close()
