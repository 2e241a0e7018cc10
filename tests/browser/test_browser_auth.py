"""In a real browser: sign-in and sign-out, invite links, and a VIEWER's read-only pages."""

from __future__ import annotations

import re
import secrets

from playwright.sync_api import expect

from tests.browser.conftest import PASSWORD


def test_sign_in_and_sign_out(tab, live, shot):
    tab.go("/settings")
    expect(tab.page).to_have_url(live.url + "/signin?next=/settings")
    shot(tab, "signin")
    tab.page.get_by_label("E-mail address").fill(live.owner)
    tab.page.get_by_label("Password").fill("not the password")
    with tab.page.expect_navigation():
        tab.page.get_by_role("button", name="Sign in").click()
    expect(tab.page.get_by_role("alert")).to_have_text("Wrong e-mail address or password")

    tab.page.get_by_label("Password").fill(live.password)
    with tab.page.expect_navigation():
        tab.page.get_by_role("button", name="Sign in").click()
    expect(tab.page).to_have_url(live.url + "/settings")  # back where they were going
    expect(tab.page.locator("header .role")).to_have_text("OWNER")
    cookie = next(c for c in tab.page.context.cookies() if c["name"] == "ci_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    assert "ci_session" not in tab.page.evaluate("document.cookie")  # scripts never see it

    tab.sign_out()
    expect(tab.page).to_have_url(live.url + "/signin")
    tab.go("/")
    expect(tab.page).to_have_url(re.compile("^" + re.escape(live.url + "/signin")))
    assert not tab.errors and not tab.dialogs


def test_an_invite_link_from_the_cli(tab, live, shot):
    email = f"new-{secrets.token_hex(3)}@acme.example"
    link = live.invite(email, "EDITOR")
    assert link.startswith(live.url + "/invite/")
    tab.page.goto(link)
    expect(tab.page.locator("main")).to_contain_text(email)
    shot(tab, "invite")
    tab.page.get_by_label("Password", exact=True).fill(PASSWORD)
    tab.page.get_by_label("Password again").fill(PASSWORD)
    with tab.page.expect_navigation():
        tab.page.get_by_role("button", name="Join the workspace").click()
    expect(tab.page).to_have_url(live.url + "/")  # home, signed in
    expect(tab.page.locator("header .role")).to_have_text("EDITOR")
    tab.page.goto(link)  # one use only
    expect(tab.page.locator("h1")).to_contain_text("not valid")


def test_an_invite_made_on_the_users_page(signed_in, browser, live, shot):
    page = signed_in.page
    signed_in.go("/settings/users")
    email = f"ui-{secrets.token_hex(3)}@acme.example"
    page.get_by_label("E-mail address").fill(email)
    page.get_by_label("Role", exact=True).select_option("VIEWER")
    with page.expect_navigation():
        page.get_by_role("button", name="Create an invite link").click()
    link = page.get_by_label("Invite link").input_value()
    shot(signed_in, "settings-users")
    signed_in.go("/settings/users")
    expect(page.get_by_label("Invite link")).to_have_count(0)  # shown once

    other = browser.new_context()
    try:
        newcomer = other.new_page()
        newcomer.goto(link)
        newcomer.get_by_label("Password", exact=True).fill(PASSWORD)
        newcomer.get_by_label("Password again").fill(PASSWORD)
        with newcomer.expect_navigation():
            newcomer.get_by_role("button", name="Join the workspace").click()
        expect(newcomer).to_have_url(live.url + "/")
        expect(newcomer.locator("header .role")).to_have_text("VIEWER")
    finally:
        other.close()
    signed_in.go("/settings/users")
    expect(page.locator("table.people")).to_contain_text(email)


def _write_controls(page) -> list[str]:
    """Forms that change something, and their buttons, in the page's main part."""
    forms = page.locator("main form").evaluate_all(
        "forms => forms.filter(f => f.method.toLowerCase() === 'post').map(f => f.action)"
    )
    buttons = page.locator("main button").evaluate_all(
        "bs => bs.filter(b => b.type === 'submit' && b.form && b.form.method === 'post')"
        ".map(b => b.textContent.trim())"
    )
    return forms + buttons


def test_a_viewer_sees_no_write_buttons(tab, live, shot):
    made = live.api(
        "POST",
        "/api/products",
        json={"name": "Viewer product", "description": "d", "audience": "a"},
    )
    assert made.status_code == 200, made.text
    product_id = made.json()["product"]["id"]
    tab.sign_in(live.viewer)
    expect(tab.page.locator("header .role")).to_have_text("VIEWER")
    for path in ("/", "/settings", "/settings/products", f"/settings/products/{product_id}"):
        response = tab.go(path)
        assert response.status == 200, path
        assert _write_controls(tab.page) == [], path
        expect(tab.page.locator("main textarea")).to_have_count(0)
    shot(tab, "viewer-settings-products")
    expect(tab.page.locator("main")).to_contain_text("Viewer product")
    for path in ("/settings/users", "/settings/keys"):
        assert tab.go(path).status == 403, path
    assert not tab.errors and not tab.dialogs
