"""The issue's walk-through, in the browser only: a new person signs in with an invite, adds
a product and a competitor, watches the analysis, opens the battlecard with its evidence,
prints it, and sees the matrix and the graph."""

from __future__ import annotations

import io
import re
import secrets

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import reload_until
from tests.intel_support import FixtureServer
from tests.pipeline_fixtures.support import copy_site


@pytest.fixture(scope="module")
def globex_site(tmp_path_factory):
    """The project's fixture site (products, pricing, about, news, a PDF) on loopback, on
    an address of its own: the session's workspace keeps the competitors of earlier tests,
    and a site of theirs on a port the system gave out again would make this one "already
    tracked"."""
    site = copy_site(tmp_path_factory.mktemp("globex") / "site")
    with FixtureServer(site, host="127.0.0.43") as server:
        yield server


def test_a_new_person_goes_from_invite_to_battlecard_matrix_and_graph(
    tab, live, globex_site, shot, tmp_path
):
    page = tab.page
    email = f"new-{secrets.token_hex(3)}@acme.example"

    # 1. The invite link an admin sent: choose a password, land in the app.
    page.goto(live.invite(email, "EDITOR"))
    page.get_by_label("Password", exact=True).fill("my first password")
    page.get_by_label("Password again").fill("my first password")
    with page.expect_navigation():
        page.get_by_role("button", name="Join the workspace").click()
    expect(page).to_have_url(live.url + "/")
    expect(page.locator("header")).to_contain_text("Sign out")

    # 2. Our product, with features and pricing, in Settings.
    product = f"Acme Desk {secrets.token_hex(2)}"
    tab.go("/settings/products")
    form = page.locator("form", has=page.get_by_role("button", name="Add the product"))
    form.get_by_label("Name", exact=True).fill(product)
    form.get_by_label("Description", exact=True).fill(
        "Help desk software with workflow automation."
    )
    form.get_by_label("Audience", exact=True).fill("Support teams")
    form.get_by_label("Features").fill(
        "Single sign-on: SAML and OIDC\nAudit logs: every change kept\nSLA management: timers"
    )
    plan = form.locator(".plan-row").first  # pricing is a row of inputs a plan (issue 28)
    plan.get_by_label("Plan name").fill("Team")
    plan.get_by_label("Price").fill("29")
    plan.get_by_label("Currency").fill("USD")
    plan.get_by_label("Period").select_option("month")
    plan.get_by_label("Unit").fill("per agent")
    with page.expect_navigation():
        form.get_by_role("button", name="Add the product").click()
    expect(page.locator("main")).to_contain_text(product)

    # 3. A competitor from the home page; 4. its analysis runs while we watch.
    competitor = f"Globex {secrets.token_hex(2)}"
    tab.go("/")
    page.get_by_label("Name", exact=True).fill(competitor)
    page.get_by_label("Website URL").fill(globex_site.url("/"))
    with page.expect_navigation():
        page.get_by_role("button", name="Add and analyze").click()
    expect(page).to_have_url(re.compile("/competitors/"))
    competitor_url = page.url
    shot(tab, "walkthrough-competitor-running")
    heading = page.locator("h1")
    reload_until(page, lambda: "COMPLETE" in heading.inner_text(), "the analysis")
    main = page.locator("main")
    expect(main).to_contain_text("Austin")  # the profile read from the site
    expect(main).to_contain_text("FlowDesk")  # its products
    shot(tab, "walkthrough-competitor")
    tab.go("/")
    expect(page.locator("main")).to_contain_text(competitor)
    shot(tab, "walkthrough-home")
    # 5. The battlecard the analysis wrote (the competitor page's Battlecards tab), and one
    # item's evidence, one click away.
    tab.go(competitor_url.removeprefix(live.url) + "?tab=battlecards")
    battlecards = page.locator("#battlecards a[href^='/battlecards/']")
    reload_until(page, lambda: battlecards.count() > 0, "the battlecard")
    with page.expect_navigation():
        battlecards.first.click()
    card_url = page.url
    reload_until(page, lambda: "GENERATING" not in page.locator("main").inner_text(), "the card")
    evidence = page.locator("details.bc-evidence").first
    evidence.locator("summary").click()
    quote_link = evidence.locator("a[href*='#:~:text=']").first
    expect(quote_link).to_be_visible()
    expect(quote_link).to_have_attribute("href", re.compile("^" + re.escape(globex_site.url("/"))))
    shot(tab, "walkthrough-battlecard")

    # 6. Print: the print stylesheet; a PDF of one or two pages.
    page.emulate_media(media="print")
    expect(page.locator("header.top")).to_be_hidden()
    pdf = page.pdf(format="A4")
    page.emulate_media(media="screen")
    from pypdf import PdfReader

    pages = len(PdfReader(io.BytesIO(pdf)).pages)
    assert 1 <= pages <= 2, pages
    (tmp_path / "battlecard.pdf").write_bytes(pdf)

    # 7. The matrix: categories x competitors, statuses in words and colour.
    with page.expect_navigation():
        page.locator("header").get_by_role("link", name="Matrix").click()
    matrix = page.locator("main")
    expect(matrix).to_contain_text(competitor)
    expect(matrix).to_contain_text(re.compile("SUPERIOR|MATCH|INFERIOR|UNKNOWN"))
    shot(tab, "walkthrough-matrix")

    # 8. The graph: drawn, and a click on the competitor shows its neighbours.
    with page.expect_navigation():
        page.locator("header").get_by_role("link", name="Graph").click()
    page.locator("#graph-view").wait_for(state="visible")
    page.get_by_label("Find a node").fill(competitor)
    page.locator("#graph-find").get_by_role("button", name="Go").click()
    panel = page.locator("#graph-panel")
    expect(panel.locator("h2")).to_have_text(competitor)
    expect(panel.locator("ul.neighbours li").first).to_be_attached()  # one neighbour or more
    shot(tab, "walkthrough-graph")

    assert tab.errors == [] and tab.dialogs == [], (tab.errors, tab.dialogs)
    assert competitor_url.startswith(live.url) and card_url.startswith(live.url)
