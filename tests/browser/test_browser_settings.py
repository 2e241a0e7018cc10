"""In a real browser: the settings pages (organization, products, API keys)."""

from __future__ import annotations

import re
import secrets

from playwright.sync_api import expect


def test_profile_and_product_forms(signed_in, live, shot):
    page = signed_in.page
    signed_in.go("/settings")
    page.get_by_label("Name", exact=True).fill("Acme")
    page.get_by_label("Website").fill("https://acme.example")
    page.get_by_label("Strengths").fill("Fast setup\nGreat support")
    with page.expect_navigation():
        page.get_by_role("button", name="Save the profile").click()
    expect(page.get_by_role("status")).to_have_text("Saved.")
    expect(page.locator("main")).to_contain_text("Great support")
    shot(signed_in, "settings-organization")

    name = f"Atlas {secrets.token_hex(2)}"
    signed_in.go("/settings/products")
    form = page.locator("form", has=page.get_by_role("button", name="Add the product"))
    form.get_by_label("Name", exact=True).fill(name)
    form.get_by_label("Features").fill("SSO: SAML and OIDC\nAudit log")
    form.get_by_label("Categories").fill("CRM")
    plan = form.locator(".plan-row").first
    plan.get_by_label("Plan name").fill("Team")
    plan.get_by_label("Price").fill("49")
    plan.get_by_label("Currency").fill("USD")
    plan.get_by_label("Period").select_option("month")
    plan.get_by_label("Unit").fill("per user")
    with page.expect_navigation():
        form.get_by_role("button", name="Add the product").click()
    expect(page.locator("h1")).to_have_text(name)
    expect(page.locator("main table")).to_contain_text("USD 49")
    page.locator(".plan-row").first.get_by_label("Price").fill("49 a fortnight")
    with page.expect_navigation():
        page.get_by_role("button", name="Save the product").click()
    expect(page.get_by_role("alert")).to_contain_text("not a number")  # shown again, with why
    shot(signed_in, "settings-product")
    products = live.api("GET", "/api/products").json()["products"]
    stored = next(p for p in products if p["name"] == name)
    assert [f["name"] for f in stored["features"]] == ["SSO", "Audit log"]
    assert stored["pricing"][0]["price"] == 49  # the bad edit changed nothing
    assert not signed_in.errors


def test_an_api_key_is_shown_once(signed_in, live, shot):
    page = signed_in.page
    signed_in.go("/settings/keys")
    page.get_by_label("Name", exact=True).fill("laptop")
    page.get_by_label("write").uncheck()
    page.get_by_label("admin").uncheck()
    with page.expect_navigation():
        page.get_by_role("button", name="Create the key").click()
    key = page.get_by_label("The new key").input_value()
    assert re.fullmatch(r"svc_live_[0-9a-f]{32}", key)
    shot(signed_in, "settings-keys")
    signed_in.go("/settings/keys")
    assert key not in page.content()
    assert live.api("GET", "/api/competitors", headers={"X-API-Key": key}).status_code == 200
