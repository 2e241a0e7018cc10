"""In a real browser: reading a battlecard, opening an item's evidence, editing an item by
hand (marked edited, kept when the card is generated again) and copying it as Markdown."""

from __future__ import annotations

import secrets

import pytest

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
    assert lose.locator("blockquote.quote").first.is_visible()
    assert "#:~:text=" in lose.locator("details.bc-evidence a").first.get_attribute("href")
    # A hand edit: saved, marked edited.
    lose.locator("details.bc-edit summary").click()
    words = f"Our reps say: they win on price for small teams ({secrets.token_hex(2)})."
    lose.get_by_label("Description").fill(words)
    with page.expect_navigation():
        lose.get_by_role("button", name="Save edit").click()
    edited = page.locator("#whyWeLose li.bc-item").first
    assert words in edited.inner_text() and edited.locator(".bc-edited").count() == 1
    shot(signed_in, "battlecard-edited")
    # Generated again: the edit stays, still marked.
    body = {"productId": card["product"], "mode": "ATTACK"}
    again = live.api("POST", f"/api/battlecards/{card['competitor']['id']}/generate", json=body)
    assert live.wait_for_job(again.json()["jobId"])["status"] == "completed"
    signed_in.go(f"/battlecards/{card['id']}")
    assert words in page.locator("#whyWeLose").inner_text()
    rest = live.api("GET", f"/api/battlecards/{card['id']}").json()["battlecard"]
    assert any(words == item["description"] for item in rest["content"]["whyWeLose"])
    # Copy as Markdown (the button shows with JavaScript).
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.locator("#bc-copy").click()
    page.locator("#bc-copy-status").filter(has_text="Markdown").wait_for()
    assert signed_in.errors == [] and signed_in.dialogs == []
