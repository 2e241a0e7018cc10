"""Issue 25, the OAuth doors found from outside: each test here failed on the code before it.

- The authorization endpoint redirected invalid requests (bogus scope, no PKCE, another
  response type) to the client's redirect URI: with open registration, an open redirector.
- Registration had no throttle and no expiry.
- A password change ended web sessions but not OAuth connections.
- Parallel refreshes with one refresh token (a client's retry) revoked the connection.
- Revocation answered another client's token differently from garbage; the metadata
  document's error page gave end users an environment variable to set.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from click.testing import CliRunner

from ci_service.cli import cli
from ci_service.store.db import connection
from ci_service.store.oauth import OAuthClient, OAuthGrant, OAuthToken
from ci_service.timeutil import utcnow
from tests.concurrency_support import all_at_once
from tests.oauth_support import (
    REDIRECT,
    code_for,
    connect,
    consent,
    exchange,
    mcp,
    oauth_error,
    redirect_params,
    refresh,
    register,
    start,
)
from tests.web_support import PASSWORD

NEW_PASSWORD = "a brand new passphrase"


def refused(answer) -> str:
    """An authorization request's error page: 400, redirected nowhere; its HTML."""
    html = answer.get_data(as_text=True)
    assert answer.status_code == 400 and "Location" not in answer.headers, html
    assert "This application cannot connect" in html
    return html


def works(web, tokens) -> bool:
    return mcp(web.client, tokens["access_token"]).status_code == 200


# -- the authorization request: validated whole, never an error redirect ----------------------

INVALID_REQUESTS = [
    ({"scope": "bogus"}, "invalid_scope"),
    ({"scope": "read admin"}, "invalid_scope"),
    ({"code_challenge": None, "code_challenge_method": None}, "PKCE is required"),
    ({"code_challenge_method": "plain"}, "S256"),
    ({"code_challenge": "short"}, "code_challenge"),
    ({"response_type": "token"}, "unsupported_response_type"),
    ({"response_type": None}, "unsupported_response_type"),
    ({"resource": "https://other.example/mcp"}, "invalid_target"),
]


@pytest.mark.parametrize("params, detail", INVALID_REQUESTS)
def test_an_invalid_request_is_an_error_page_before_sign_in(app, params, detail):
    """RFC 9700 §4.11.2: anyone can register a redirect URI, so an invalid request is never
    sent to one, and nobody is asked to sign in for it."""
    anonymous = app.test_client()
    flow = start(anonymous, **params)
    html = refused(anonymous.get("/oauth/authorize", query_string=flow.params))
    assert detail in html


@pytest.mark.parametrize("params, detail", INVALID_REQUESTS[:4])
def test_an_invalid_request_is_an_error_page_when_signed_in(web, params, detail):
    flow = start(web.client, **params)
    assert detail in refused(web.client.get("/oauth/authorize", query_string=flow.params))
    # The consent form's POST is validated the same way: not even "deny" redirects then.
    answer = web.post_form(
        "/oauth/authorize",
        data={"decision": "deny", "user_id": web.user_id},
        csrf_from="/",
        query_string=flow.params,
    )
    assert detail in refused(answer)


def test_scopes_beyond_the_clients_registration_are_refused(web):
    client_id = register(web.client, scope="read")["client_id"]
    html = refused(
        web.client.get("/oauth/authorize", query_string=start(web.client, client_id).params)
    )
    assert "invalid_scope" in html


@pytest.mark.parametrize("scope", ["read", None], ids=["the-registered-one", "none-asked"])
def test_the_registered_scope_or_none_is_granted(web, scope):
    """What it registered is fine, and no scope at all means the registered ones."""
    client_id = register(web.client, scope="read")["client_id"]
    flow = start(web.client, client_id, scope=scope)
    tokens = exchange(web.client, flow, code_for(web, flow, scopes=("read",))).get_json()
    assert tokens["scope"] == "read"


def test_denying_still_goes_back_with_access_denied_state_and_iss(web):
    """The person's own choice: sent back to the verified redirect URI, not an open redirect."""
    flow = start(web.client)
    sent = redirect_params(consent(web, flow, decision="deny"))
    assert sent["error"] == "access_denied" and sent["state"] == flow.params["state"]
    assert sent["iss"] == "http://localhost" and "code" not in sent


# -- registration: a throttle per client address, and expiry of clients never used ------------


def _body(**extra) -> dict:
    return {
        "client_name": "Bulk",
        "redirect_uris": [REDIRECT],
        "token_endpoint_auth_method": "none",
        **extra,
    }


def test_registrations_are_limited_per_address_and_hour(app, settings):
    """20 an hour from one address (the default), counted in the database: parallel
    registrations cannot overshoot, and they hold for another app on the same database."""
    assert settings.oauth_registrations_per_hour == 20

    def post(i):
        return app.test_client().post("/oauth/register", json=_body(client_name=f"c{i}"))

    answers = all_at_once(25, post)
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [201] * 20 + [429] * 5, [a.get_data(as_text=True) for a in answers]
    limited = next(a for a in answers if a.status_code == 429)
    body = oauth_error(limited, 429, "temporarily_unavailable")
    assert "20 client registrations an hour" in body["error_description"]
    assert 3500 <= int(limited.headers["Retry-After"]) <= 3600
    assert limited.headers["Cache-Control"] == "no-store"
    # Another address is counted on its own.
    other = app.test_client().post(
        "/oauth/register", json=_body(), environ_base={"REMOTE_ADDR": "203.0.113.9"}
    )
    assert other.status_code == 201
    # Rolling hour: once the oldest registrations are over an hour old, there is room again.
    with connection():
        oldest = (
            OAuthClient.select(OAuthClient.id)
            .where(OAuthClient.registered_from == "127.0.0.1")
            .order_by(OAuthClient.created_at)
            .limit(2)
        )
        ids = [row.id for row in oldest]
        past = utcnow() - timedelta(minutes=61)
        OAuthClient.update(created_at=past).where(OAuthClient.id.in_(ids)).execute()
    assert post(0).status_code == 201
    assert post(1).status_code == 201
    assert post(2).status_code == 429


def test_a_client_never_connected_expires(web, settings):
    unused = register(web.client)["client_id"]
    flow, tokens = connect(web)  # a client someone connected: kept
    document = "https://assistant.example/oauth/client.json"
    day_ago = utcnow() - timedelta(hours=settings.oauth_unused_client_hours, minutes=1)
    with connection():
        OAuthClient.create(
            id=document,
            client_name="Hosted",
            redirect_uris=[REDIRECT],
            grant_types=["authorization_code"],
            response_types=["code"],
            scope="read write",
            token_endpoint_auth_method="none",
            source="metadata_document",
            fetched_at=day_ago,
        )
        OAuthClient.update(created_at=day_ago).execute()
    # Unknown from now on, on every path.
    html = refused(
        web.client.get("/oauth/authorize", query_string=start(web.client, unused).params)
    )
    assert "not known" in html
    answer = web.client.post(
        "/oauth/token",
        data={
            "grant_type": "authorization_code",
            "code": "ci_code_x",
            "client_id": unused,
            "redirect_uri": REDIRECT,
            "code_verifier": "x" * 43,
        },
    )
    assert answer.get_json()["error"] == "invalid_client"
    listed = CliRunner().invoke(
        cli, ["--database", settings.database, "oauth", "clients", "list", "--json"]
    )
    assert {c["id"] for c in json.loads(listed.output)} == {flow.client_id, document}
    # The connected client still works; the next registration deletes the expired one.
    assert refresh(web.client, flow.client_id, tokens["refresh_token"]).status_code == 200
    fresh = register(web.client)["client_id"]
    with connection():
        left = {row.id for row in OAuthClient.select(OAuthClient.id)}
    assert left == {flow.client_id, document, fresh}


def test_clients_connected_before_the_upgrade_are_used_ones(web):
    """Migration 0018 marks the clients that already have connections, so they never
    expire as unused (with their connections)."""
    from ci_service.store.db import database, transaction
    from ci_service.store.schema import add_oauth_hardening

    flow, _ = connect(web)
    unused = register(web.client)["client_id"]
    with connection():
        OAuthClient.update(first_connected_at=None).execute()  # as an older release left it
        with transaction():
            add_oauth_hardening(database)
        marked = {row.id: row.first_connected_at for row in OAuthClient.select()}
    assert marked[flow.client_id] is not None and marked[unused] is None


# -- what ends connections --------------------------------------------------------------------


def _all_refused(web, flow, tokens) -> None:
    assert mcp(web.client, tokens["access_token"]).status_code == 401
    oauth_error(refresh(web.client, flow.client_id, tokens["refresh_token"]), 400, "invalid_grant")


def test_changing_ones_password_ends_ones_connections_everywhere(make_web, make_workspace):
    from ci_service.services.identity import users as people

    web = make_web()
    with connection():  # the same person in a second workspace
        elsewhere = people.create_user(make_workspace().id, web.email, "OWNER")
    other_person = make_web()
    flow, tokens = connect(web)
    second = start(web.client)
    code = code_for(web, second, user_id=elsewhere.id)
    second_tokens = exchange(web.client, second, code).get_json()
    assert works(web, second_tokens)
    _, kept = connect(other_person)
    answer = web.post_form(
        "/account/password",
        data={"current": PASSWORD, "password": NEW_PASSWORD, "confirm": NEW_PASSWORD},
    )
    assert answer.status_code == 302
    _all_refused(web, flow, tokens)
    _all_refused(web, second, second_tokens)
    assert works(other_person, kept)
    with connection():
        assert OAuthGrant.select().where(OAuthGrant.revoked_at.is_null()).count() == 1
        live = OAuthToken.select().where(OAuthToken.revoked_at.is_null()).count()
    assert live == 1  # other_person's pair only


def test_the_cli_setting_a_password_ends_connections(web, settings):
    flow, tokens = connect(web)
    result = CliRunner().invoke(
        cli,
        [
            "--database",
            settings.database,
            "users",
            "set-password",
            "--email",
            web.email,
            "--password-stdin",
        ],
        input=NEW_PASSWORD + "\n",
    )
    assert result.exit_code == 0, result.output
    _all_refused(web, flow, tokens)
    assert "connected apps ended" in result.output


def test_removing_a_person_ends_their_connections_there(make_web):
    owner = make_web()
    member = make_web(role="EDITOR", workspace=_workspace(owner))
    flow, tokens = connect(member)
    page = owner.post_form(f"/settings/users/{member.user_id}/remove", csrf_from="/settings/users")
    assert page.status_code == 302
    _all_refused(member, flow, tokens)


def test_signing_out_leaves_connected_apps_working(web):
    """The documented choice: sign-out ends this browser's session only."""
    flow, tokens = connect(web)
    assert web.post_form("/signout", csrf_from="/").status_code == 302
    assert web.get("/settings").status_code == 302  # signed out
    assert works(web, tokens)
    assert refresh(web.client, flow.client_id, tokens["refresh_token"]).status_code == 200


# -- a retried refresh --------------------------------------------------------------------------


def test_parallel_refreshes_with_one_token_all_succeed(web, app):
    flow, tokens = connect(web)

    def send(_i):
        return refresh(app.test_client(), flow.client_id, tokens["refresh_token"])

    answers = all_at_once(4, send)
    assert [a.status_code for a in answers] == [200] * 4, [a.get_json() for a in answers]
    pairs = [a.get_json() for a in answers]
    assert len({p["refresh_token"] for p in pairs}) == 4
    for pair in pairs:  # whichever answer the client kept, the connection goes on
        assert works(web, pair)
    assert refresh(web.client, flow.client_id, pairs[-1]["refresh_token"]).status_code == 200
    assert mcp(web.client, tokens["access_token"]).status_code == 401  # the old pair is gone


def test_a_retry_is_only_for_the_same_client_and_the_grace_window(web, app):
    flow, tokens = connect(web)
    assert refresh(web.client, flow.client_id, tokens["refresh_token"]).status_code == 200
    other = register(web.client)["client_id"]
    oauth_error(refresh(web.client, other, tokens["refresh_token"]), 400, "invalid_grant")
    retried = refresh(web.client, flow.client_id, tokens["refresh_token"])
    assert retried.status_code == 200
    # The window counts from the first rotation: move it past the grace window.
    grace = app.config["CI_SETTINGS"].oauth_refresh_grace_seconds
    assert grace == 30
    with connection():
        for row in OAuthToken.select().where(OAuthToken.replaced_by.is_null(False)):
            row.revoked_at -= timedelta(seconds=grace + 1)
            row.save()
    # A reuse after it is theft, as before: the whole connection ends.
    oauth_error(refresh(web.client, flow.client_id, tokens["refresh_token"]), 400, "invalid_grant")
    assert mcp(web.client, retried.get_json()["access_token"]).status_code == 401


def test_no_grace_when_it_is_set_to_zero(web, app):
    app.config["CI_SETTINGS"] = app.config["CI_SETTINGS"].with_overrides(
        oauth_refresh_grace_seconds=0
    )
    flow, tokens = connect(web)
    fresh = refresh(web.client, flow.client_id, tokens["refresh_token"]).get_json()
    oauth_error(refresh(web.client, flow.client_id, tokens["refresh_token"]), 400, "invalid_grant")
    assert mcp(web.client, fresh["access_token"]).status_code == 401


def test_no_retry_once_the_new_pair_was_revoked(web):
    flow, tokens = connect(web)
    fresh = refresh(web.client, flow.client_id, tokens["refresh_token"]).get_json()
    revoked = web.client.post(
        "/oauth/revoke", data={"token": fresh["access_token"], "client_id": flow.client_id}
    )
    assert revoked.status_code == 200
    oauth_error(refresh(web.client, flow.client_id, tokens["refresh_token"]), 400, "invalid_grant")


# -- revocation (RFC 7009) ----------------------------------------------------------------------


def test_revocation_answers_alike_whether_a_token_exists_or_not(make_web):
    web = make_web()
    flow, tokens = connect(web)
    stranger = make_web()
    _, theirs = connect(stranger)
    again = start(web.client, client_id=flow.client_id)  # a second pair of the same client
    spent = exchange(web.client, again, code_for(web, again)).get_json()
    web.client.post(
        "/oauth/revoke", data={"token": spent["access_token"], "client_id": flow.client_id}
    )

    def revoke(token, **extra):
        answer = web.client.post(
            "/oauth/revoke", data={"token": token, "client_id": flow.client_id, **extra}
        )
        return answer.status_code, answer.get_data(), answer.headers.get("Content-Type")

    answers = {
        "garbage": revoke("nope"),
        "unknown": revoke("ci_at_" + "x" * 43),
        "another client's access token": revoke(theirs["access_token"]),
        "another client's refresh token": revoke(theirs["refresh_token"]),
        "already revoked": revoke(spent["access_token"]),
        "its own": revoke(tokens["access_token"]),
    }
    assert set(answers.values()) == {answers["its own"]}, answers
    assert answers["its own"][:2] == (200, b"")
    assert works(stranger, theirs)  # another client's token was not touched
    assert mcp(web.client, tokens["access_token"]).status_code == 401


@pytest.mark.parametrize("hint", ["refresh_token", "bogus", "id_token"])
def test_the_token_type_hint_is_only_a_hint(web, hint):
    """RFC 7009 §2.1: the server searches every type; an unknown hint may be ignored."""
    flow, tokens = connect(web)
    answer = web.client.post(
        "/oauth/revoke",
        data={
            "token": tokens["access_token"],
            "client_id": flow.client_id,
            "token_type_hint": hint,
        },
    )
    assert answer.status_code == 200
    assert mcp(web.client, tokens["access_token"]).status_code == 401


def test_revocation_still_authenticates_the_client(web):
    registered = register(web.client, token_endpoint_auth_method="client_secret_basic")
    flow = start(web.client, client_id=registered["client_id"])
    code = code_for(web, flow)
    tokens = web.client.post(
        "/oauth/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT,
            "code_verifier": flow.verifier,
        },
        auth=(registered["client_id"], registered["client_secret"]),
    ).get_json()
    wrong = web.client.post(
        "/oauth/revoke",
        data={"token": tokens["access_token"]},
        auth=(registered["client_id"], "wrong"),
    )
    oauth_error(wrong, 401, "invalid_client")
    assert mcp(web.client, tokens["access_token"]).status_code == 200
    missing = web.client.post(
        "/oauth/revoke",
        data={"client_id": registered["client_id"]},
        auth=(registered["client_id"], registered["client_secret"]),
    )
    oauth_error(missing, 400, "invalid_request")


# -- what people are told -----------------------------------------------------------------------


def test_a_metadata_document_error_gives_no_operator_advice(web):
    flow = start(web.client, client_id="https://127.0.0.1/oauth/client.json")
    html = refused(web.client.get("/oauth/authorize", query_string=flow.params))
    assert "CI_SERVICE" not in html and "environment" not in html.lower()
    assert "details could not be read." in html
    assert "not allowed" in html  # the developer's detail


def _workspace(web):
    from ci_service.store.identity import Workspace

    with connection():
        return Workspace.get_by_id(web.workspace_id)
