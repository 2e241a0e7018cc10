"""In a real browser (issue 28): search results grouped by kind with highlighted words, and
a knowledge graph that names its competitors on the first view and filters by kind.

The tests use a workspace of their own (made with the CLI), so the other browser tests'
records never crowd the drawing or the results."""

from __future__ import annotations

import secrets

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.test_browser_pages import site_page
from tests.intel_support import FixtureServer

TAG = secrets.token_hex(3)
WORKSPACE = f"sg-{TAG}"
EMAIL = f"owner-{TAG}@example.com"
FIRST = f"Pilotfish {TAG}"
SECOND = f"Remora {TAG}"

SITE = {
    "/": site_page(
        "Pilotfish Desk",
        "<p>Pilotfish builds a help desk for support teams. SSO is included in every plan."
        "</p><p><a href='/features'>Features</a> <a href='/blog'>Blog</a></p>",
    ),
    "/features": site_page(
        "Features", "<p>Single sign-on with SAML, audit logs and a ticket inbox.</p>"
    ),
    "/blog": site_page(
        "Blog", "<p>Our new report processor exports a million tickets in minutes.</p>"
    ),
}


def serve(pages: dict[str, bytes]) -> FixtureServer:
    server = FixtureServer()
    for path, body in pages.items():
        server.routes[path] = lambda h, body=body: h.send(200, body)
    return server


@pytest.fixture(scope="module")
def world(live):
    """A workspace with two collected competitors, our product and a won deal."""
    own = live.own_workspace(WORKSPACE, EMAIL)

    def api(method: str, path: str, **kwargs) -> httpx.Response:
        answer = own.api(method, path, **kwargs)
        assert answer.status_code == 200, answer.text
        return answer

    other = {"/": site_page("Remora CRM", "<p>Remora is a CRM for small sales teams.</p>")}
    with serve(SITE) as first, serve(other) as second:
        jobs, ids = [], {}
        for name, server in ((FIRST, first), (SECOND, second)):
            body = api(
                "POST", "/api/competitors", json={"name": name, "websiteUrl": server.url("/")}
            ).json()
            jobs.append(body["jobId"])
            ids[name] = body["competitor"]["id"]
        for job_id in jobs:
            job = own.wait_for_job(job_id)
            assert job["status"] == "completed", job
    product = {"name": f"Our Desk {TAG}", "description": "Our help desk", "audience": "support"}
    api("POST", "/api/products", json=product)
    api(
        "POST",
        "/api/deals",
        json={
            "prospectCompanyName": f"Prospect {TAG}",
            "outcome": "LOST",
            "competitorId": ids[FIRST],
            "arguments": ["cheaper seats"],
        },
    )
    return ids


@pytest.fixture
def owner(tab, world):
    tab.sign_in(EMAIL)
    return tab


def test_search_groups_results_and_marks_the_words(owner, world, shot, axe):
    page = owner.page
    owner.go("/settings")
    box = page.locator("header input[name=q]")
    box.fill("SSO")
    with page.expect_navigation():
        box.press("Enter")
    groups = page.locator("section.search-group h2")
    expect(groups.first).to_contain_text("Intel")
    expect(groups.last).to_contain_text("Partial word matches")
    first_group = page.locator("section.search-group").first
    expect(first_group.locator("mark").first).to_be_visible()
    marks = [m.lower() for m in first_group.locator("mark").all_inner_texts()]
    assert "sso" in marks and "single sign-on" in marks, marks
    # the part-of-a-word match is last, and its <mark> sits inside "processor"
    partial = page.locator("section.search-group.partial")
    expect(partial.locator(".hit-snippet")).to_contain_text("processor")
    expect(partial.locator("mark")).to_have_text("sso")
    # every result names its competitor, with a link
    link = first_group.locator(".hit-meta a").first
    expect(link).to_have_text(FIRST)
    expect(link).to_have_attribute("href", f"/competitors/{world[FIRST]}")
    shot(owner, "search")
    assert axe(owner) == []
    owner.go("/search?q=a")
    expect(page.get_by_role("alert")).to_contain_text("at least 2 characters")
    assert owner.errors == []


def test_graph_names_competitors_at_first_view_and_filters_by_kind(owner, world, shot, axe):
    page = owner.page
    owner.go("/graph")
    expect(page.locator("#graph-view")).to_be_visible()
    labels = page.locator("#graph-labels")
    for name in (FIRST, SECOND):  # no zooming: the competitors are named at once
        expect(labels.locator("text.strong", has_text=name)).to_be_visible()
    expect(labels.locator("text.kind-title", has_text="Competitors (2)")).to_be_visible()
    expect(labels.locator("text.kind-title", has_text="Deals (1)")).to_be_visible()
    expect(labels.locator("text.node-name").nth(4)).to_be_attached()  # more than the competitors
    shot(owner, "graph-grouped")
    assert axe(owner) == []
    # the legend is the filter: unchecking Competitors hides them and their names
    competitors = page.get_by_role("checkbox", name="Competitors")
    competitors.focus()
    page.keyboard.press("Space")
    expect(competitors).not_to_be_checked()
    expect(labels.locator("text", has_text=FIRST)).to_have_count(0)
    expect(labels.locator("text.kind-title", has_text="Competitors")).to_have_count(0)
    expect(labels.locator("text.kind-title", has_text="Deals (1)")).to_be_visible()
    competitors.check()
    expect(labels.locator("text.strong", has_text=FIRST)).to_be_visible()
    # by links: the server's force layout, still named
    page.get_by_label("By links").check()
    expect(labels.locator("text.kind-title")).to_have_count(0)
    expect(labels.locator("text.strong", has_text=FIRST)).to_be_visible()
    assert owner.errors == []
