"""In a real browser: a matrix cell opens to the features matched, theirs alone, ours alone
and coming soon, each with its quote; a battlecard item shows where they stand on our
feature, what of theirs matched it and, for an absence, the pages read.

The rows are written straight into the live server's database, as the services store them
(a workspace of their own, so the other browser tests' pages are unchanged). Screenshots:
``matrix-cell-features`` and ``battlecard-claims``.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from ci_service.services.intel import items as intel
from ci_service.services.workspace import offerings
from ci_service.store.analysis import Battlecard, MatrixCell
from ci_service.store.competitors import Competitor
from ci_service.store.db import close_database, connection, open_database, transaction
from ci_service.store.identity import Workspace
from ci_service.timeutil import utcnow

WORKSPACE = "claims"
EMAIL = "owner@claims.example"
HOSTILE = "<script>alert(1)</script>"
SITE = "https://northwind.example"

PAGES = {
    "integrations": (
        "Northwind integrations",
        "Connect any REST API as a data source in minutes. "
        "Sync your bases both ways with the Airtable integration.",
    ),
    "pricing": (
        "Northwind pricing",
        "The Self-host Pro plan is coming soon for teams that keep data on their own servers.",
    ),
    "security": (
        "Northwind security",
        "Single sign-on with SAML is available on the Enterprise plan.",
    ),
    "product": ("Northwind product", "Build dashboards from every source you connect."),
}
SENTENCES = {
    "rest": "Connect any REST API as a data source in minutes.",
    "airtable": "Sync your bases both ways with the Airtable integration.",
    "selfhost": "The Self-host Pro plan is coming soon for teams that keep data on their own "
    "servers.",
}
READ = "not on their product or pricing pages, 14 pages read"


def at(key: str, sentence: str) -> str:
    words = "%20".join(sentence.split()[:4])
    return f"{SITE}/{key}#:~:text={words}"


def q(ids: dict[str, str], key: str, sentence: str) -> dict[str, str]:
    return {"evidenceId": ids[key], "quote": sentence, "url": at(key, sentence)}


def seed(database: str) -> dict[str, str]:
    open_database(database)
    try:
        with connection(), transaction():
            ws = Workspace.get(Workspace.name == WORKSPACE).id
            product = offerings.create_offering(
                ws, {"name": "Acme Cloud", "description": "Data hub", "audience": "Data teams"}
            )
            rival = Competitor.create(
                workspace=ws,
                name="Northwind",
                website_url=SITE,
                status="COMPLETE",
                relevant_product_ids=[product.id],
            )
            ids = {}
            for key, (title, content) in PAGES.items():
                ids[key] = intel.record_evidence(
                    ws,
                    source_type="WEB_PAGE",
                    url=f"{SITE}/{key}",
                    title=title,
                    content=content,
                    competitor_id=rival.id,
                ).item.id
            features = {
                "matched": [
                    {
                        "ours": "REST connectors",
                        "theirs": "REST API data sources",
                        "quotes": [q(ids, "integrations", SENTENCES["rest"])],
                    }
                ],
                "theirsOnly": [
                    {
                        "name": "Airtable integration",
                        "quotes": [q(ids, "integrations", SENTENCES["airtable"])],
                    }
                ],
                "oursOnly": [{"name": "Self-hosting", "read": READ, "quotes": []}],
                "soon": [
                    {
                        "ours": "Self-hosting",
                        "theirs": "Self-host Pro plan",
                        "quotes": [q(ids, "pricing", SENTENCES["selfhost"])],
                    }
                ],
            }
            hostile = {"theirsOnly": [{"name": f"Dashboards {HOSTILE}", "quotes": []}]}
            cells = (
                ("core-features", "Core Features", "MATCH", hostile, ["product"]),
                ("integrations", "Integrations", "MATCH", features, ["integrations"]),
                ("security-compliance", "Security & Compliance", "MATCH", None, ["security"]),
            )
            for category_id, name, status, cell_features, evidence in cells:
                MatrixCell.create(
                    workspace=ws,
                    competitor=rival.id,
                    product=product.id,
                    category_id=category_id,
                    category_name=name,
                    summary=[f"{name}: both products cover it."],
                    capability_status=status,
                    evidence_ids=[ids[k] for k in evidence],
                    features=cell_features,
                )
            pages_read = [
                {"evidenceId": ids[k], "title": PAGES[k][0], "url": f"{SITE}/{k}", "pageKind": kind}
                for k, kind in (("product", "PRODUCT"), ("pricing", "PRICING"))
            ]
            content = {
                "whyWeWin": [
                    {
                        "title": "Self-hosting today",
                        "description": "Northwind only runs in their cloud; we install on "
                        "your servers.",
                        "quotes": [q(ids, "pricing", SENTENCES["selfhost"])],
                        "evidenceIds": [ids["pricing"]],
                        "feature": "Self-hosting",
                        "state": "THEY_LACK",
                        "read": READ,
                        "pagesRead": pages_read,
                    }
                ],
                "whyWeLose": [
                    {
                        "title": "Airtable sync",
                        "description": "Northwind syncs Airtable both ways; we do not.",
                        "quotes": [q(ids, "integrations", SENTENCES["airtable"])],
                        "feature": "Airtable integration",
                        "state": "WE_LACK",
                    }
                ],
                "objections": [
                    {
                        "objection": "Northwind connects to any API",
                        "response": "So do we: our REST connectors read any REST API.",
                        "quotes": [q(ids, "integrations", SENTENCES["rest"])],
                        "feature": "REST connectors",
                        "state": "THEY_HAVE",
                        "matched": [
                            {
                                "ours": "REST connectors",
                                "theirs": "REST API data sources",
                                "quotes": [q(ids, "integrations", SENTENCES["rest"])],
                            }
                        ],
                    }
                ],
                "talkingPoints": [
                    {
                        "title": "Their self-hosting is a promise",
                        "description": "Ours ships today.",
                        "quotes": [q(ids, "pricing", SENTENCES["selfhost"])],
                        "feature": "Self-hosting",
                        "state": "COMING_SOON",
                        "matched": [
                            {
                                "ours": "Self-hosting",
                                "theirs": "Self-host Pro plan",
                                "quotes": [q(ids, "pricing", SENTENCES["selfhost"])],
                            }
                        ],
                    }
                ],
                "killShot": "Your data never leaves your servers with us.",
                "killShotQuotes": [],
                "landmines": ["Ask when their Self-host Pro plan ships."],
                "pricingWedge": "",
            }
            card = Battlecard.create(
                workspace=ws,
                competitor=rival.id,
                my_product=product.id,
                mode="ATTACK",
                status="READY",
                content=content,
                evidence_ids=[ids["pricing"], ids["integrations"]],
                generated_at=utcnow(),
            )
            return {"product": product.id, "competitor": rival.id, "card": card.id}
    finally:
        close_database()  # the test process keeps nothing open on the live database


@pytest.fixture(scope="module")
def claims(live):
    live.own_workspace(WORKSPACE, EMAIL)
    return seed(live.database)


@pytest.fixture
def owner(tab):
    tab.sign_in(EMAIL)
    return tab


def test_matrix_cell_opens_to_its_matched_features(owner, claims, shot):
    page = owner.page
    owner.go(f"/matrix?productId={claims['product']}")
    cell = cell_in(page, "integrations", claims)
    expect(cell.locator("summary")).to_contain_text("1 matched")
    body = cell.locator(".features")
    expect(body).to_be_hidden()  # closed until opened
    cell.locator("summary").click()
    expect(body).to_be_visible()
    for words in (
        "REST connectors",
        "REST API data sources",
        "Only Northwind",
        "Airtable integration",
        "Only ours",
        "Self-hosting",
        READ,
        "Coming soon at Northwind",
        "Self-host Pro plan",
        SENTENCES["rest"],
        SENTENCES["selfhost"],
    ):
        expect(body).to_contain_text(words)
    link = body.locator(".matched a").first
    expect(link).to_be_visible()
    expect(link).to_have_attribute("href", re.compile("#:~:text="))
    # the cell stays readable: the opened body is not squeezed into a narrow column
    assert cell.bounding_box()["width"] >= 320
    # a hostile feature name is text, never markup
    core = cell_in(page, "core-features", claims)
    core.locator("summary").click()
    expect(core.locator(".features")).to_contain_text(f"Dashboards {HOSTILE}")
    core.locator("summary").click()
    # a cell without features opens as before
    plain = cell_in(page, "security-compliance", claims)
    plain.locator("summary").click()
    expect(plain.locator(".features")).to_have_count(0)
    expect(plain).to_contain_text("both products cover it")
    plain.locator("summary").click()
    shot(owner, "matrix-cell-features")
    assert owner.errors == [] and owner.dialogs == []


def cell_in(page, category_id, claims):
    return page.locator(
        f"tr[data-category='{category_id}'] td[data-competitor='{claims['competitor']}'] "
        "details.cell"
    )


def test_matrix_cell_features_fit_a_phone(browser, live, claims, shot):
    from tests.browser.conftest import TIMEOUT_MS, Tab

    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone.set_default_timeout(TIMEOUT_MS)
    try:
        tab = Tab(phone.new_page(), live)
        tab.sign_in(EMAIL)
        tab.go(f"/matrix?productId={claims['product']}")
        cell = cell_in(tab.page, "integrations", claims)
        cell.locator("summary").click()
        body = cell.locator(".features")
        expect(body).to_be_visible()
        expect(body).to_contain_text(SENTENCES["rest"])
        # the table scrolls sideways inside its frame; the page itself does not
        width = tab.page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, width
        # as a reader scrolls the table: the cell just right of the sticky category column
        cell.evaluate(
            "d => { const td = d.closest('td'), th = td.parentElement.querySelector('th');"
            " td.closest('.table-wrap').scrollLeft = td.offsetLeft - th.offsetWidth; }"
        )
        shot(tab, "matrix-cell-features-phone")
        assert tab.errors == []
    finally:
        phone.close()


def test_battlecard_items_show_their_claims(owner, claims, shot):
    page = owner.page
    owner.go(f"/battlecards/{claims['card']}")
    win = page.locator("#whyWeWin-0")
    # on the line: where they stand; behind the item's disclosure: the claim's details
    expect(win.locator(".bc-line .badge.bc-they-lack")).to_have_text("They lack it")
    win.locator("details.bc-evidence > summary").click()
    expect(win.locator(".bc-feature")).to_have_text("Feature: Self-hosting")
    expect(win.locator(".bc-read")).to_contain_text(READ)
    pages = win.locator("details.bc-pages")
    pages.locator("summary").click()
    expect(pages.get_by_role("link", name="Northwind pricing")).to_be_visible()
    expect(page.locator("#whyWeLose-0 .badge")).to_have_text("We lack it")
    objection = page.locator("#objections-0")
    expect(objection.locator(".badge")).to_have_text("They have it")
    objection.locator("details.bc-evidence > summary").click()
    pair = objection.locator(".bc-matched li").first
    expect(pair).to_be_visible()
    expect(pair).to_contain_text("REST connectors")
    expect(pair).to_contain_text("REST API data sources")
    expect(pair.locator("blockquote")).to_have_text(f"“{SENTENCES['rest']}”")
    expect(pair.get_by_role("link")).to_have_attribute("href", re.compile("#:~:text="))
    soon = page.locator("#talkingPoints-0")
    expect(soon.locator(".badge")).to_have_text("Coming soon")
    soon.locator("details.bc-evidence > summary").click()
    expect(soon.locator(".bc-matched")).to_contain_text("Self-host Pro plan")
    expect(soon).to_contain_text("Matches at")
    page.evaluate("window.scrollTo(0, 0)")  # the header sticks where the page was scrolled
    shot(owner, "battlecard-claims")
    assert owner.errors == [] and owner.dialogs == []
