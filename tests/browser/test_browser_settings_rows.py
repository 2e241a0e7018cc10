"""In a real browser: our pricing as rows (one added with "Add row"), and pending invites
with "Copy link" and "Revoke" (issue 28)."""

from __future__ import annotations

import secrets

from playwright.sync_api import expect

PRODUCT = {"description": "Our helpdesk", "audience": "Support teams", "pricing": []}


def test_pricing_rows_added_saved_and_refused(signed_in, live, shot, axe):
    page = signed_in.page
    name = f"Orbit {secrets.token_hex(3)}"
    created = live.api("POST", "/api/products", json={"name": name, **PRODUCT})
    product_id = created.json()["product"]["id"]
    signed_in.go(f"/settings/products/{product_id}")
    form = page.locator("form", has=page.get_by_role("button", name="Save the product"))
    rows = form.locator(".plan-row")
    expect(rows).to_have_count(2)  # no plans yet: the two blank rows

    first = rows.nth(0)
    first.get_by_label("Plan name").fill("Team")
    first.get_by_label("Price").fill("15")
    first.get_by_label("Currency").fill("USD")
    first.get_by_label("Period").select_option("month")
    first.get_by_label("Unit").fill("per user")
    form.get_by_role("button", name="Add row").click()
    expect(rows).to_have_count(3)
    added = rows.nth(2)
    expect(added.get_by_label("Plan name")).to_be_focused()
    expect(added.locator("legend")).to_have_text("Plan 3")
    added.get_by_label("Plan name").fill("Enterprise")
    added.get_by_label("On request").check()
    rows.nth(1).get_by_role("button", name="Remove plan 2").click()  # the blank one
    expect(rows).to_have_count(2)
    expect(rows.nth(1).locator("legend")).to_have_text("Plan 2")
    with page.expect_navigation():
        form.get_by_role("button", name="Save the product").click()

    expect(page.get_by_role("status")).to_have_text("Saved.")
    table = page.locator("section.card table")
    expect(table.get_by_role("row", name="Team")).to_contain_text("USD 15")
    expect(table.get_by_role("row", name="Team")).to_contain_text("per user")
    expect(table.get_by_role("row", name="Enterprise")).to_contain_text("On request")
    stored = live.api("GET", f"/api/products/{product_id}").json()["product"]["pricing"]
    assert [(p["name"], p["price"], p["onRequest"]) for p in stored] == [
        ("Team", 15, False),
        ("Enterprise", None, True),
    ]

    # A price typed into the name: refused with the split to make, on that row.
    new_row = form.locator(".plan-row").nth(2)
    new_row.get_by_label("Plan name").fill("Scale $49/user/month")
    with page.expect_navigation():
        form.get_by_role("button", name="Save the product").click()
    expect(page.get_by_role("alert")).to_contain_text(
        'Scale $49/user/month: put the price in its own fields: name "Scale", price 49'
    )
    bad = page.locator(".plan-row").nth(2).get_by_label("Plan name")
    expect(bad).to_have_attribute("aria-invalid", "true")
    expect(bad).to_have_value("Scale $49/user/month")
    expect(bad).to_have_accessible_description(
        'Scale $49/user/month: put the price in its own fields: name "Scale", price 49, '
        "currency USD, period month, unit per user"
    )
    shot(signed_in, "settings-pricing-rows")
    assert axe(signed_in) == []
    page.set_viewport_size({"width": 375, "height": 800})  # a phone: the rows wrap
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    stored = live.api("GET", f"/api/products/{product_id}").json()["product"]["pricing"]
    assert [p["name"] for p in stored] == ["Team", "Enterprise"]  # nothing saved
    assert not signed_in.errors
    # The refused form's page is a 400 by design; nothing else may fail (a missing script).
    assert [e for e in signed_in.console_errors if "status of 400" not in e] == []


def test_an_invite_is_copied_then_revoked(signed_in, context, live, shot, axe):
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live.url)
    page = signed_in.page
    signed_in.go("/settings/users")
    email = f"copy-{secrets.token_hex(3)}@acme.example"
    page.get_by_label("E-mail address").fill(email)
    page.get_by_label("Role", exact=True).select_option("EDITOR")
    with page.expect_navigation():
        page.get_by_role("button", name="Create an invite link").click()
    link = page.get_by_label("Invite link").input_value()
    assert link.startswith(live.url + "/invite/")
    page.get_by_role("button", name="Copy link").click()
    expect(page.locator("#invite-link-status")).to_have_text("Copied.")
    assert page.evaluate("navigator.clipboard.readText()") == link

    invites = page.locator("section", has=page.get_by_role("heading", name="Pending invites"))
    row = invites.get_by_role("row", name=email)
    expect(row).to_contain_text("EDITOR")
    expect(row).not_to_contain_text(link)  # only a hash is stored: the list has no link
    shot(signed_in, "settings-invites")
    assert axe(signed_in) == []
    page.set_viewport_size({"width": 375, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.set_viewport_size({"width": 1280, "height": 900})
    with page.expect_navigation():
        row.get_by_role("button", name=f"Revoke the invite for {email}").click()
    expect(page.get_by_role("status")).to_contain_text("Invite revoked")
    expect(invites.get_by_role("row", name=email)).to_have_count(0)

    page.goto(link)
    expect(page.locator("h1")).to_have_text("This invite link is not valid")
    assert not signed_in.errors
