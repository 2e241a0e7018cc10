"""Sign-in for people: passwords, sessions, CSRF, throttling, invites, workspaces, headers."""

from __future__ import annotations

from datetime import timedelta

import pytest

from ci_service.services.identity import users as people
from ci_service.store.db import connection
from ci_service.store.identity import User
from ci_service.store.people import Login, WebSession
from tests.web_support import PASSWORD, csrf_of, sign_in


def test_pages_need_a_session_and_sign_in_lands_on_the_page_asked_for(app, make_workspace):
    workspace = make_workspace()
    with connection():
        people.create_user(workspace.id, "Ana@Example.com", "EDITOR", PASSWORD)
    browser = app.test_client()
    first = browser.get("/")
    assert first.status_code == 302 and first.headers["Location"].startswith("/signin?next=")
    answer = sign_in(browser, "ana@example.com", next_url="/?x=1")
    assert answer.status_code == 302 and answer.headers["Location"] == "/?x=1"
    cookie = answer.headers["Set-Cookie"]
    assert "ci_session=" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert "Secure" not in cookie  # plain http here; TLS adds it
    home = browser.get("/")
    assert home.status_code == 200 and "Sign out" in home.get_data(as_text=True)
    with connection():
        stored = WebSession.get()
        token = cookie.split("ci_session=", 1)[1].split(";", 1)[0]
        assert stored.token_hash != token and token not in stored.token_hash  # hashed
        assert Login.get().password_hash.startswith("$argon2id$")


def test_secure_cookie_over_tls(app, make_workspace):
    workspace = make_workspace()
    with connection():
        people.create_user(workspace.id, "tls@example.com", "VIEWER", PASSWORD)
    browser = app.test_client()
    form = browser.get("/signin", base_url="https://ci.example")
    token = csrf_of(form.get_data(as_text=True))
    answer = browser.post(
        "/signin",
        base_url="https://ci.example",
        data={"csrf_token": token, "email": "tls@example.com", "password": PASSWORD},
    )
    assert answer.status_code == 302 and "Secure" in answer.headers["Set-Cookie"]


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/x", "/\\evil"])
def test_next_never_leaves_the_site(web, target, app):
    browser = app.test_client()
    answer = sign_in(browser, web.email, next_url=target)
    assert answer.headers["Location"] == "/"


def test_wrong_password_and_unknown_account_read_the_same(app, make_workspace):
    workspace = make_workspace()
    with connection():
        people.create_user(workspace.id, "bo@example.com", "VIEWER", PASSWORD)
    wrong = sign_in(app.test_client(), "bo@example.com", "not the password")
    unknown = sign_in(app.test_client(), "nobody@example.com", "not the password")
    assert wrong.status_code == unknown.status_code == 401
    assert "Wrong e-mail address or password" in wrong.get_data(as_text=True)
    assert "Wrong e-mail address or password" in unknown.get_data(as_text=True)
    assert "ci_session" not in (wrong.headers.get("Set-Cookie") or "")


def test_sign_in_is_throttled_per_account(app, make_workspace):
    workspace = make_workspace()
    with connection():
        people.create_user(workspace.id, "cy@example.com", "VIEWER", PASSWORD)
    browser = app.test_client()
    for _ in range(people.MAX_ACCOUNT_FAILURES):
        assert sign_in(browser, "cy@example.com", "wrong password!").status_code == 401
    locked = sign_in(browser, "cy@example.com")  # even the right password waits
    assert locked.status_code == 429 and "try again in" in locked.get_data(as_text=True)
    other = sign_in(app.test_client(), "cy@example.com")
    assert other.status_code == 429


def test_sign_in_is_throttled_per_address(app, make_workspace):
    workspace = make_workspace()
    with connection():
        for n in range(people.MAX_ADDRESS_FAILURES + 1):
            people.create_user(workspace.id, f"p{n}@example.com", "VIEWER", PASSWORD)
    browser = app.test_client()
    for n in range(people.MAX_ADDRESS_FAILURES):
        assert sign_in(browser, f"p{n}@example.com", "wrong password!").status_code == 401
    blocked = sign_in(browser, f"p{people.MAX_ADDRESS_FAILURES}@example.com")
    assert blocked.status_code == 429


def test_a_form_without_its_csrf_token_changes_nothing(web):
    signed_out = web.client.post("/signout")
    assert signed_out.status_code == 400
    assert "form expired" in signed_out.get_data(as_text=True)
    assert web.get("/").status_code == 200  # still signed in
    wrong = web.client.post("/signout", data={"csrf_token": "x" * 43})
    assert wrong.status_code == 400
    anonymous = web.client.application.test_client().post(
        "/signin", data={"email": web.email, "password": PASSWORD}
    )
    assert anonymous.status_code == 400


def test_sign_out_ends_the_session_on_the_server(web):
    cookie = web.client.get_cookie("ci_session").value
    answer = web.post_form("/signout", csrf_from="/")
    assert answer.status_code == 302 and answer.headers["Location"] == "/signin"
    replay = web.client.application.test_client()
    replay.set_cookie("ci_session", cookie)
    assert replay.get("/").status_code == 302  # the old cookie no longer works


def test_a_password_change_ends_every_session(web, app):
    other_device = app.test_client()
    assert sign_in(other_device, web.email).status_code == 302
    changed = web.post_form(
        "/account/password",
        {"current": PASSWORD, "password": "a brand new secret", "confirm": "a brand new secret"},
    )
    assert changed.status_code == 302
    assert web.get("/").status_code == 302 and other_device.get("/").status_code == 302
    assert sign_in(app.test_client(), web.email, PASSWORD).status_code == 401
    assert sign_in(app.test_client(), web.email, "a brand new secret").status_code == 302


def test_the_cli_password_change_ends_sessions_too(web):
    with connection():
        people.set_password(web.email, "set by an admin now")
    assert web.get("/").status_code == 302


def test_removing_the_user_ends_their_session(web):
    with connection():
        User.get_by_id(web.user_id).delete_instance(recursive=True)
    assert web.get("/").status_code == 302


def test_a_person_of_two_workspaces_picks_one(app, make_workspace):
    alpha, beta = make_workspace(name="Alpha"), make_workspace(name="Beta")
    with connection():
        people.create_user(alpha.id, "dee@example.com", "VIEWER", PASSWORD)
        in_beta = people.create_user(beta.id, "dee@example.com", "EDITOR")
    browser = app.test_client()
    answer = sign_in(browser, "dee@example.com")
    assert answer.headers["Location"] == "/workspaces"
    assert browser.get("/").headers["Location"] == "/workspaces"
    page = browser.get("/workspaces").get_data(as_text=True)
    assert "Alpha" in page and "Beta" in page
    token = csrf_of(page)
    chosen = browser.post("/workspaces", data={"csrf_token": token, "userId": in_beta.id})
    assert chosen.status_code == 302
    assert "Beta" in browser.get("/").get_data(as_text=True)


def test_a_workspace_that_is_not_yours_cannot_be_picked(web, make_workspace):
    other = make_workspace()
    with connection():
        stranger = people.create_user(other.id, "eve@example.com", "OWNER", PASSWORD)
    answer = web.post_form("/workspaces", {"userId": stranger.id})
    assert answer.status_code == 404
    assert "not in your workspace" in answer.get_data(as_text=True)


def test_invite_link_sets_a_password_once(app, make_workspace):
    workspace = make_workspace(name="Gamma")
    with connection():
        token, _row = people.invite(workspace.id, "fay@example.com", "EDITOR")
    browser = app.test_client()
    page = browser.get(f"/invite/{token}")
    assert page.status_code == 200 and "Join Gamma" in page.get_data(as_text=True)
    csrf = csrf_of(page.get_data(as_text=True))
    mismatch = browser.post(
        f"/invite/{token}",
        data={"csrf_token": csrf, "password": "one password", "confirm": "another"},
    )
    assert mismatch.status_code == 400
    joined = browser.post(
        f"/invite/{token}",
        data={"csrf_token": csrf, "password": "fay's password", "confirm": "fay's password"},
    )
    assert joined.status_code == 302 and browser.get("/").status_code == 200
    with connection():
        assert User.get(User.email == "fay@example.com").role == "EDITOR"
    again = app.test_client().get(f"/invite/{token}")
    assert again.status_code == 404 and "not valid" in again.get_data(as_text=True)


def test_an_expired_invite_is_refused(make_workspace, app):
    workspace = make_workspace()
    with connection():
        token, _row = people.invite(workspace.id, "gus@example.com", "VIEWER", timedelta(0))
    assert app.test_client().get(f"/invite/{token}").status_code == 404


def test_an_invite_for_someone_with_a_password_needs_that_password(web, make_workspace, app):
    other = make_workspace(name="Delta")
    with connection():
        token, _row = people.invite(other.id, web.email, "VIEWER")
    browser = app.test_client()
    csrf = csrf_of(browser.get(f"/invite/{token}").get_data(as_text=True))
    wrong = browser.post(
        f"/invite/{token}",
        data={"csrf_token": csrf, "password": "take over!!", "confirm": "take over!!"},
    )
    assert wrong.status_code == 401
    right = browser.post(
        f"/invite/{token}", data={"csrf_token": csrf, "password": PASSWORD, "confirm": PASSWORD}
    )
    assert right.status_code == 302


@pytest.mark.parametrize("signed_in", [True, False], ids=["home-signed-in", "signin-page"])
def test_pages_carry_a_strict_content_security_policy(web, app, signed_in):
    response = web.get("/") if signed_in else app.test_client().get("/signin")
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy
    assert "frame-ancestors 'none'" in policy
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_browsers_get_an_html_404_and_scripts_keep_json(web):
    page = web.get("/competitors/not-an-id-anywhere", headers={"Accept": "text/html"})
    assert page.status_code == 404 and page.mimetype == "text/html"
    unknown = web.get("/no/such/path")
    assert unknown.status_code == 404 and unknown.mimetype == "application/json"
    assert unknown.json["error"]["code"] == "NOT_FOUND"


def test_cli_users_commands(make_database_url):
    from click.testing import CliRunner

    from ci_service.cli import cli

    db = make_database_url(name="cli.db")
    runner = CliRunner()
    assert runner.invoke(cli, ["--database", db, "workspaces", "create", "acme"]).exit_code == 0
    created = runner.invoke(
        cli,
        ["--database", db, "users", "create", "--workspace", "acme", "--email", "Hal@X.io",
         "--role", "EDITOR", "--password-stdin"],
        input="hal's password\n",
    )  # fmt: skip
    assert created.exit_code == 0, created.output
    listed = runner.invoke(
        cli, ["--database", db, "users", "list", "--workspace", "acme", "--json"]
    )
    assert '"email": "hal@x.io"' in listed.output and '"canSignIn": true' in listed.output
    short = runner.invoke(
        cli,
        ["--database", db, "users", "set-password", "--email", "hal@x.io", "--password-stdin"],
        input="short\n",
    )
    assert short.exit_code == 1 and "8 characters" in short.output
    invited = runner.invoke(
        cli,
        ["--database", db, "users", "invite", "ivy@x.io", "--workspace", "acme",
         "--role", "VIEWER", "--base-url", "https://ci.acme.example/", "--hours", "2"],
    )  # fmt: skip
    assert invited.exit_code == 0
    link = invited.output.strip().splitlines()[-1]
    assert link.startswith("https://ci.acme.example/invite/") and len(link) > 60
