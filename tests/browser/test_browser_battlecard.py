"""In a real browser: reading a battlecard as tiles, opening an item's evidence, editing a
tile's items by hand (marked edited, kept when the card is generated again), the keyboard,
a phone's width, and copying it as Markdown. Screenshots: ``battlecard-tiles``,
``battlecard-tiles-phone`` and ``battlecard-edited``."""

from __future__ import annotations

import io
import re
import secrets
import unicodedata

import pytest
from playwright.sync_api import expect

from tests.intel_support import FixtureServer
from tests.pipeline_fixtures.support import copy_site


@pytest.fixture(scope="module")
def card(live, tmp_path_factory):
    """A battlecard written from the fixture site (collected by the live server)."""
    with FixtureServer(copy_site(tmp_path_factory.mktemp("site") / "site")) as site:
        product = live.api(
            "POST",
            "/api/products",
            json={
                "name": f"Acme Edit {secrets.token_hex(2)}",
                "description": "Help desk",
                "audience": "Support teams",
                "features": [{"name": "Single sign-on", "description": "SAML"}],
                "pricing": [{"name": "Team", "price": 29, "currency": "USD", "period": "month"}],
            },
        )
        assert product.status_code in (200, 201), product.text
        product_id = product.json()["product"]["id"]
        competitor, _job = live.add_competitor(
            f"Edited Rival {secrets.token_hex(2)}", site.url("/")
        )
        started = live.api(
            "POST",
            f"/api/battlecards/{competitor['id']}/generate",
            json={"productId": product_id, "mode": "ATTACK"},
        ).json()
        assert live.wait_for_job(started["jobId"])["status"] == "completed"
        yield {"id": started["battlecard"]["id"], "competitor": competitor, "product": product_id}


def test_read_edit_and_regenerate_a_battlecard(signed_in, live, card, shot):
    page = signed_in.page
    signed_in.go(f"/battlecards/{card['id']}")
    lose = page.locator("#whyWeLose li.bc-item").first
    # The evidence: one click away, the quote and a link opening the page at it.
    lose.locator("details.bc-evidence summary").click()
    expect(lose.locator("blockquote.quote").first).to_be_visible()
    evidence_link = lose.locator("details.bc-evidence a").first
    expect(evidence_link).to_have_attribute("href", re.compile("#:~:text="))
    # A hand edit in the tile's form: saved, marked edited.
    tile = page.locator("#whyWeLose")
    tile.get_by_role("button", name="Edit why we lose").click()
    words = f"Our reps say: they win on price for small teams ({secrets.token_hex(2)})."
    tile.get_by_label("Description of item 1").fill(words)
    with page.expect_navigation():
        tile.get_by_role("button", name="Save").click()
    edited = page.locator("#whyWeLose li.bc-item").first
    expect(edited.locator(".bc-edited")).to_have_count(1)
    edited.locator("details.bc-evidence summary").click()
    expect(edited.locator(".bc-desc")).to_have_text(words)
    shot(signed_in, "battlecard-edited")
    # Generated again: the edit stays, still marked.
    body = {"productId": card["product"], "mode": "ATTACK"}
    again = live.api("POST", f"/api/battlecards/{card['competitor']['id']}/generate", json=body)
    assert live.wait_for_job(again.json()["jobId"])["status"] == "completed"
    signed_in.go(f"/battlecards/{card['id']}")
    expect(page.locator("#whyWeLose .bc-desc").first).to_have_text(words)
    rest = live.api("GET", f"/api/battlecards/{card['id']}").json()["battlecard"]
    assert any(words == item["description"] for item in rest["content"]["whyWeLose"])
    # Copy as Markdown (the button shows with JavaScript).
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.locator("#bc-copy").click()
    page.locator("#bc-copy-status").filter(has_text="Markdown").wait_for()
    assert signed_in.errors == [] and signed_in.dialogs == []


def test_tiles_evidence_and_a_tile_edit(signed_in, card, shot, axe):
    """The card as tiles: the kill shot first, a count on each tile, one claim a line; an
    item's evidence opens in place; one Edit per tile edits its items, Cancel and Save."""
    page = signed_in.page
    signed_in.go(f"/battlecards/{card['id']}")
    tiles = page.locator(".bc-tiles > section.bc-tile")
    expect(tiles).to_have_count(7)
    expect(tiles.first).to_have_id("killShot")  # first, even while it is empty
    # The kill shot, written in its tile: it stands out on top of the grid.
    kill = page.locator("#killShot")
    kill.get_by_role("button", name="Edit kill shot").click()
    line = f"Only we ship single sign-on on every plan ({secrets.token_hex(2)})."
    kill.get_by_label("Kill shot").fill(line)
    with page.expect_navigation():
        kill.get_by_role("button", name="Save").click()
    expect(tiles.first).to_have_id("killShot")
    expect(kill).to_have_class(re.compile(r"\bbc-hero\b"))
    expect(kill).not_to_have_class(re.compile(r"\bbc-empty\b"))
    expect(kill.locator(".bc-text")).to_contain_text(line)
    hero, grid = kill.bounding_box(), page.locator(".bc-tiles").bounding_box()
    assert abs(hero["width"] - grid["width"]) < 2  # across the grid
    lose = page.locator("#whyWeLose")
    expect(lose.locator("li.bc-item").nth(1)).to_be_attached()  # two items or more
    count = lose.locator("li.bc-item").count()
    expect(lose.locator("h2 .bc-count")).to_have_text(f"{count} items")
    # laptop: the tiles sit side by side (two or three columns)
    boxes = [tiles.nth(n).bounding_box() for n in (1, 2)]
    assert boxes[0]["y"] == boxes[1]["y"] and boxes[0]["x"] < boxes[1]["x"]
    # one control per item, no Edit under items; the quote hidden until opened
    item = lose.locator("li.bc-item").first
    expect(item.locator("summary")).to_have_count(1)
    expect(item.locator("blockquote").first).to_be_hidden()
    expect(lose.get_by_role("button", name="Edit why we lose")).to_have_count(1)
    item.locator("details.bc-evidence > summary").click()
    expect(item.locator("blockquote.quote").first).to_be_visible()
    expect(item.get_by_role("link").first).to_have_attribute("href", re.compile("#:~:text="))
    item.locator("details.bc-evidence > summary").click()
    expect(item.locator("blockquote").first).to_be_hidden()
    page.evaluate("window.scrollTo(0, 0)")  # the header sticks where the page was scrolled
    shot(signed_in, "battlecard-tiles")
    assert axe(signed_in) == []

    # Print: every tile expanded (the descriptions behind the disclosures included), no
    # controls, one or two pages.
    page.emulate_media(media="print")
    expect(lose.locator(".bc-desc").first).to_be_visible()
    expect(lose.locator("summary").first).to_be_hidden()
    expect(lose.locator("blockquote").first).to_be_hidden()
    expect(lose.get_by_role("button", name="Edit why we lose")).to_be_hidden()
    pdf = page.pdf(format="A4")
    page.emulate_media(media="screen")
    from pypdf import PdfReader

    printed = PdfReader(io.BytesIO(pdf))
    assert 1 <= len(printed.pages) <= 2, len(printed.pages)
    text = " ".join(" ".join((p.extract_text() or "").split()) for p in printed.pages)
    text = unicodedata.normalize("NFKC", text)  # the PDF's ligatures (ﬀ, ﬂ) as letters
    described = " ".join(lose.locator(".bc-desc").first.text_content().split())
    assert described[:40] in text and line[:30] in text

    # Edit then Cancel: nothing saved, the lines are back, focus on the toggle.
    toggle = lose.get_by_role("button", name="Edit why we lose")
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    title = lose.get_by_label("Title of item 2")
    expect(lose.get_by_label("Title of item 1")).to_be_focused()
    expect(lose.locator(".bc-view")).to_be_hidden()
    shot(lose, "battlecard-tile-edit")
    assert axe(signed_in) == []  # the open form too
    before = title.input_value()
    title.fill("Cancelled words")
    lose.get_by_role("link", name="Cancel").click()
    expect(lose.locator(".bc-view")).to_be_visible()
    expect(toggle).to_be_focused()
    expect(lose).not_to_contain_text("Cancelled words")
    assert axe(signed_in) == []

    # Edit, change item 2's title, Save: kept after a reload, item 1 not marked edited.
    toggle.click()
    expect(lose.get_by_label("Title of item 2")).to_have_value(before)
    words = f"They win on price for small teams {secrets.token_hex(2)}"
    lose.get_by_label("Title of item 2").fill(words)
    with page.expect_navigation():
        lose.get_by_role("button", name="Save").click()
    page.reload()
    second = page.locator("#whyWeLose li.bc-item").nth(1)
    expect(second.locator(".bc-claimtext")).to_have_text(words)
    expect(second.locator(".bc-edited")).to_have_count(1)
    assert signed_in.errors == [] and signed_in.console_errors == []


def test_keyboard_opens_evidence_and_edits_a_tile(signed_in, card):
    page = signed_in.page
    signed_in.go(f"/battlecards/{card['id']}")
    summary = page.locator("#whyWeLose li.bc-item").first.locator("summary")
    # Tab from the control just before it: the next stop is the evidence toggle.
    page.locator("#whyWeLose .bc-edit-toggle").focus()
    page.keyboard.press("Tab")
    expect(summary).to_be_focused()
    outline = summary.evaluate("s => getComputedStyle(s).outlineStyle")
    assert outline != "none", outline  # focus visible
    page.keyboard.press("Enter")
    first = page.locator("#whyWeLose li.bc-item").first
    expect(first.locator("blockquote.quote").first).to_be_visible()
    page.keyboard.press("Enter")
    expect(first.locator("blockquote.quote").first).to_be_hidden()
    # The tile's Edit toggle with the keyboard: opens on Enter, Escape closes it.
    toggle = page.locator("#whyWeLose .bc-edit-toggle")
    toggle.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_label("Title of item 1").first).to_be_focused()
    page.keyboard.press("Escape")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(toggle).to_be_focused()


def test_tiles_stack_on_a_phone(browser, live, card, shot):
    phone = browser.new_context(viewport={"width": 375, "height": 800})
    try:
        from tests.browser.conftest import Tab

        tab = Tab(phone.new_page(), live)
        tab.sign_in(live.owner)
        tab.go(f"/battlecards/{card['id']}")
        page = tab.page
        tiles = page.locator(".bc-tiles > section.bc-tile")
        boxes = [tiles.nth(n).bounding_box() for n in (1, 2)]
        assert boxes[0]["x"] == boxes[1]["x"] and boxes[0]["y"] < boxes[1]["y"]  # one column
        item = page.locator("#whyWeLose li.bc-item").first
        item.locator("summary").click()
        expect(item.locator("blockquote.quote").first).to_be_visible()
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, width
        from tests.browser.test_browser_phone import BROKEN_WORDS

        assert page.evaluate(BROKEN_WORDS) == []  # no word broken mid-word, tiles open too
        shot(tab, "battlecard-tiles-phone")
    finally:
        phone.close()
