"""In a real browser: from the solution matrix's "No solution yet", create a solution
through the form by ticking categories of our product, then see its row in the solution
matrix scored against each competitor; the feature matrix with a product no competitor
names says why and leads on.

A workspace of its own (so other browser tests' pages are unchanged): our product, two
competitors marked relevant to it and their matrix cells, written straight into the live
server's database as the services store them. Screenshots: ``solution-form``,
``solution-matrix``, ``matrix-no-relevant-competitor``.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from ci_service.services.workspace import offerings
from ci_service.store.analysis import MatrixCell
from ci_service.store.competitors import Competitor
from ci_service.store.db import close_database, connection, open_database, transaction
from ci_service.store.identity import Workspace

WORKSPACE = "solutions"
EMAIL = "owner@solutions.example"
# (competitor, {category id: status}); scores for Security (1.0) + Integrations (0.5):
# Northwind (4*1 + 1*0.5) / 1.5 = 3; Southwind (2*1 + 2*0.5) / 1.5 = 2.
RIVALS = {
    "Northwind": {"security-compliance": "SUPERIOR", "integrations": "INFERIOR"},
    "Southwind": {"security-compliance": "MATCH", "integrations": "MATCH"},
}
NAMES = {"security-compliance": "Security & Compliance", "integrations": "Integrations"}


def seed(database: str) -> dict[str, str]:
    open_database(database)
    try:
        with connection(), transaction():
            ws = Workspace.get(Workspace.name == WORKSPACE).id
            product = offerings.create_offering(
                ws, {"name": "Acme Cloud", "description": "Data hub", "audience": "Data teams"}
            )
            lonely = offerings.create_offering(
                ws, {"name": "Acme Desk", "description": "Help desk", "audience": "Support"}
            )
            out = {"product": product.id, "lonely": lonely.id}
            for name, statuses in RIVALS.items():
                rival = Competitor.create(
                    workspace=ws,
                    name=name,
                    website_url=f"https://{name.lower()}.example",
                    status="COMPLETE",
                    relevant_product_ids=[product.id],
                )
                out[name] = rival.id
                for category_id, status in statuses.items():
                    MatrixCell.create(
                        workspace=ws,
                        competitor=rival.id,
                        product=product.id,
                        category_id=category_id,
                        category_name=NAMES[category_id],
                        summary=[f"{NAMES[category_id]}: read from {name}'s pages."],
                        capability_status=status,
                        evidence_ids=[],
                    )
            return out
    finally:
        close_database()  # the test process keeps nothing open on the live database


@pytest.fixture(scope="module")
def world(live):
    live.own_workspace(WORKSPACE, EMAIL)
    return seed(live.database)


def cloud(page):
    """The form's categories of our product "Acme Cloud" (Acme Desk has its own)."""
    return page.get_by_role("group", name="Acme Cloud")


@pytest.fixture
def owner(tab):
    tab.sign_in(EMAIL)
    return tab


def test_create_a_solution_then_see_it_in_the_solution_matrix(owner, world, shot):
    page = owner.page
    owner.go("/matrix/solutions")
    empty = page.locator("section.empty-state")
    expect(empty).to_contain_text("No solution yet")
    expect(empty.get_by_role("button", name="Generate solutions")).to_be_visible()
    empty.get_by_role("link", name="Create a solution").click()
    expect(page.get_by_role("heading", name="New solution")).to_be_visible()

    # nothing ticked: the form comes back with the contract's message and what was typed
    page.get_by_label("Name").fill("Trust and integrations")
    page.get_by_role("button", name="Create the solution").click()
    expect(page.get_by_role("alert")).to_contain_text("at least one category mapping")
    expect(page.get_by_label("Name")).to_have_value("Trust and integrations")

    page.get_by_label("Description").fill("What a security-minded buyer weighs")
    cloud(page).get_by_label("Security & Compliance", exact=True).check()
    cloud(page).get_by_label("Integrations", exact=True).check()
    page.get_by_label("Weight of Integrations (Acme Cloud)").fill("0.5")
    shot(owner, "solution-form")
    page.get_by_role("button", name="Create the solution").click()

    card = page.locator("li.solution", has_text="Trust and integrations")
    expect(page.get_by_role("status")).to_have_text("Solution created.")
    expect(card).to_contain_text("Security & Compliance")
    expect(card).to_contain_text("weight 0.5")

    card.get_by_role("link", name=re.compile("Scores in the solution matrix")).click()
    row = page.locator("tr[data-solution]", has_text="Trust and integrations")
    expect(row.locator("th")).to_contain_text("What a security-minded buyer weighs")
    north = row.locator(f"td[data-competitor='{world['Northwind']}']")
    south = row.locator(f"td[data-competitor='{world['Southwind']}']")
    expect(north.locator("summary").first).to_have_text("3 / 4")
    expect(south.locator("summary").first).to_have_text("2 / 4")
    # one click on: the category cells behind the score, status in words
    north.locator("summary").first.click()
    expect(north.locator("ul.drill")).to_contain_text("SUPERIOR")
    expect(north.locator("ul.drill")).to_contain_text("INFERIOR")
    shot(owner, "solution-matrix")
    assert owner.errors == [] and owner.dialogs == []


def test_edit_a_solution_from_the_solution_matrix(owner, world):
    page = owner.page
    answer = owner.go("/solutions")
    assert answer.status == 200
    page.get_by_role("link", name="New solution").click()
    page.get_by_label("Name").fill("Only security")
    cloud(page).get_by_label("Security & Compliance", exact=True).check()
    page.get_by_role("button", name="Create the solution").click()
    expect(page.get_by_role("status")).to_have_text("Solution created.")

    owner.go("/matrix/solutions")
    row = page.locator("tr[data-solution]", has_text="Only security")
    expect(row.locator(f"td[data-competitor='{world['Northwind']}'] summary").first).to_have_text(
        "4 / 4"
    )
    row.get_by_role("link", name="Edit Only security").click()
    expect(cloud(page).get_by_label("Security & Compliance", exact=True)).to_be_checked()
    cloud(page).get_by_label("Security & Compliance", exact=True).uncheck()
    cloud(page).get_by_label("Integrations", exact=True).check()
    page.get_by_role("button", name="Save the solution").click()
    expect(page.get_by_role("status")).to_have_text("Solution saved.")

    owner.go("/matrix/solutions")
    row = page.locator("tr[data-solution]", has_text="Only security")
    expect(row.locator(f"td[data-competitor='{world['Northwind']}'] summary").first).to_have_text(
        "1 / 4"
    )
    assert owner.errors == []


def test_a_product_no_competitor_names_leads_on(owner, world, shot):
    page = owner.page
    owner.go("/matrix")
    page.get_by_label("Our product").select_option(label="Acme Desk")
    page.get_by_role("button", name="Apply filters").click()
    empty = page.locator("section.empty-state")
    expect(empty.get_by_role("heading")).to_have_text(
        "No competitor is marked relevant to Acme Desk"
    )
    expect(empty.locator("li", has_text="Northwind")).to_contain_text("not marked relevant")
    expect(empty.locator("li", has_text="Southwind")).to_contain_text("not marked relevant")
    shot(owner, "matrix-no-relevant-competitor")
    empty.get_by_role("link", name="Show all competitors").click()
    expect(page.locator("table.matrix thead")).to_contain_text("Northwind")
    expect(page.locator("table.matrix thead")).to_contain_text("Southwind")


def test_solution_pages_fit_a_phone(browser, live, world, shot):
    from tests.browser.conftest import TIMEOUT_MS, Tab

    phone = browser.new_context(viewport={"width": 375, "height": 800}, is_mobile=True)
    phone.set_default_timeout(TIMEOUT_MS)
    try:
        tab = Tab(phone.new_page(), live)
        tab.sign_in(EMAIL)
        for path in ("/solutions", "/solutions/new", "/matrix/solutions"):
            assert tab.go(path).status == 200, path
            width = tab.page.evaluate("document.documentElement.scrollWidth")
            assert width <= 376, (path, width)
        shot(tab, "solution-matrix-phone")
        assert tab.errors == []
    finally:
        phone.close()
