"""People see and revoke the MCP clients they connected (issue 17): REST, the settings page
and the CLI, one service underneath; and client ID metadata documents."""

from __future__ import annotations

import json
from urllib.parse import unquote

import httpx
import pytest

from ci_service.services.identity import oauth_clients
from ci_service.services.identity import users as people
from ci_service.store.db import connection
from ci_service.store.oauth import OAuthClient
from tests.oauth_support import connect, consent, exchange, mcp, redirect_params, start
from tests.web_support import sign_in


def listing(api) -> list[dict]:
    answer = api.get("/api/connected-clients")
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()["connectedClients"]


def test_rest_lists_and_revokes_ones_own(make_web, make_api):
    web = make_web()
    _, tokens = connect(web)
    mine = make_api(workspace=_workspace(web), role="EDITOR")
    assert listing(mine) == []  # another person's connection is not theirs to see
    # The person's own key sees it (web.api is an OWNER key of the same workspace: all).
    (item,) = listing(web.api)
    assert item["clientName"] == "Test assistant" and item["scopes"] == ["read", "write"]
    assert item["userId"] == web.user_id and item["userEmail"] == web.email
    assert mine.delete(f"/api/connected-clients/{item['id']}").status_code == 404
    assert mcp(web.client, tokens["access_token"]).status_code == 200
    assert web.api.delete(f"/api/connected-clients/{item['id']}").get_json() == {"success": True}
    assert mcp(web.client, tokens["access_token"]).status_code == 401
    assert listing(web.api) == []
    assert web.api.delete(f"/api/connected-clients/{item['id']}").status_code == 404


def test_rest_needs_the_admin_scope(make_web, make_api):
    web = make_web()
    reader = make_api(workspace=_workspace(web), scopes=["read", "write"])
    assert reader.get("/api/connected-clients").status_code == 403


def test_last_used_is_recorded(web):
    _, tokens = connect(web)
    assert listing(web.api)[0]["lastUsedAt"] is None
    mcp(web.client, tokens["access_token"])
    assert listing(web.api)[0]["lastUsedAt"] is not None


def test_another_workspace_cannot_see_or_revoke(make_web, make_api):
    web = make_web()
    connect(web)
    (item,) = listing(web.api)
    stranger = make_api()
    assert listing(stranger) == []
    assert stranger.delete(f"/api/connected-clients/{item['id']}").status_code == 404


def test_settings_page_lists_and_disconnects(web):
    _, tokens = connect(web)
    page = web.get("/settings/connections")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "Test assistant" in html and "read, write" in html
    assert 'href="/settings/connections"' in web.get("/settings").get_data(as_text=True)
    (item,) = listing(web.api)
    path = f"/settings/connections/{item['id']}/revoke"
    assert web.client.post(path, data={}).status_code == 400  # no CSRF token: nothing changes
    assert mcp(web.client, tokens["access_token"]).status_code == 200
    answer = web.post_form(path, csrf_from="/settings/connections")
    assert answer.status_code == 302
    assert "App disconnected." in web.get(answer.headers["Location"]).get_data(as_text=True)
    assert mcp(web.client, tokens["access_token"]).status_code == 401


def test_a_viewer_sees_the_page_with_only_their_own(make_web):
    owner = make_web()
    connect(owner)
    viewer = make_web(role="VIEWER", workspace=_workspace(owner))
    html = viewer.get("/settings/connections").get_data(as_text=True)
    assert "No connected apps." in html and "Test assistant" not in html


def test_removing_a_person_ends_their_connections(make_web):
    owner = make_web()
    member = make_web(role="EDITOR", workspace=_workspace(owner))
    _, tokens = connect(member)
    with connection():
        people.remove_user(owner.workspace_id, member.user_id, _principal(owner))
    assert mcp(member.client, tokens["access_token"]).status_code == 401


def test_consenting_again_updates_the_one_connection(web):
    flow, _ = connect(web)
    again = start(web.client, client_id=flow.client_id)
    code = redirect_params(consent(web, again, scopes=("read",)))["code"]
    assert exchange(web.client, again, code).get_json()["scope"] == "read"
    (item,) = listing(web.api)
    assert item["scopes"] == ["read"]


def test_a_person_in_two_workspaces_chooses_one(make_web):
    first = make_web()
    second = make_web(email=first.email)  # the same person, a second workspace
    flow = start(second.client)
    html = second.client.get("/oauth/authorize", query_string=flow.params).get_data(as_text=True)
    assert _workspace(first).name in html and _workspace(second).name in html
    code = redirect_params(consent(second, flow, user_id=second.user_id))["code"]
    assert exchange(second.client, flow, code).status_code == 200
    (item,) = listing(second.api)
    assert item["workspaceId"] == second.workspace_id
    assert listing(first.api) == []


def test_signing_in_goes_on_to_the_consent_page(make_web, app):
    web = make_web()
    flow = start(web.client)
    browser = app.test_client()
    to_signin = browser.get("/oauth/authorize", query_string=flow.params)
    next_url = to_signin.headers["Location"].split("next=", 1)[1]
    answer = sign_in(browser, web.email, next_url=unquote(next_url))
    assert answer.status_code == 302 and answer.headers["Location"].startswith("/oauth/authorize?")
    assert browser.get(answer.headers["Location"]).status_code == 200


def test_cli_lists_and_revokes(run):
    assert run("workspaces", "create", "acme", "--plan", "ENTERPRISE").exit_code == 0
    result = run("oauth", "connections", "list", "--json")
    assert result.exit_code == 0 and json.loads(result.output) == []
    assert run("oauth", "clients", "list").output.strip() == "(none)"
    missing = run("oauth", "connections", "revoke", "nope")
    assert missing.exit_code != 0 and "not found" in missing.output


def test_cli_revokes_a_real_connection(make_web, app, settings):
    from click.testing import CliRunner

    from ci_service.cli import cli

    web = make_web()
    _, tokens = connect(web)
    runner = CliRunner()
    base = ["--database", settings.database, "oauth"]
    listed = runner.invoke(cli, [*base, "connections", "list", "--workspace", web.workspace_id])
    assert listed.exit_code == 0 and "Test assistant" in listed.output
    rows = json.loads(runner.invoke(cli, [*base, "connections", "list", "--json"]).output)
    clients = json.loads(runner.invoke(cli, [*base, "clients", "list", "--json"]).output)
    assert clients[0]["name"] == "Test assistant" and clients[0]["source"] == "registration"
    revoked = runner.invoke(cli, [*base, "connections", "revoke", rows[0]["id"]])
    assert revoked.exit_code == 0 and "Revoked connection" in revoked.output
    assert mcp(web.client, tokens["access_token"]).status_code == 401


# -- client ID metadata documents -------------------------------------------------------------

DOCUMENT_URL = "https://assistant.example/oauth/client.json"


def _document_server(monkeypatch, document, status=200):
    seen = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(status, json=document)

    monkeypatch.setattr(
        oauth_clients, "transport_factory", lambda allow_private: httpx.MockTransport(answer)
    )
    return seen


def test_a_client_id_metadata_document_is_fetched_and_used(web, monkeypatch):
    document = {
        "client_id": DOCUMENT_URL,
        "client_name": "Hosted assistant",
        "redirect_uris": ["http://127.0.0.1:33418/callback"],
        "grant_types": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_method": "none",
    }
    seen = _document_server(monkeypatch, document)
    flow = start(web.client, client_id=DOCUMENT_URL)
    page = web.client.get("/oauth/authorize", query_string=flow.params)
    assert page.status_code == 200 and "Hosted assistant" in page.get_data(as_text=True)
    code = redirect_params(consent(web, flow))["code"]
    tokens = exchange(web.client, flow, code).get_json()
    assert mcp(web.client, tokens["access_token"]).status_code == 200
    assert seen == [DOCUMENT_URL] * len(seen) and len(seen) == 1  # cached after the first read
    with connection():
        assert OAuthClient.get_by_id(DOCUMENT_URL).source == "metadata_document"


@pytest.mark.parametrize(
    "document, status, message",
    [
        ({"client_id": "https://else.example/c.json",
          "redirect_uris": ["http://127.0.0.1/cb"]}, 200, "its own URL"),
        ({"client_id": DOCUMENT_URL, "redirect_uris": ["http://evil.example/cb"]}, 200, "loopback"),
        ({"client_id": DOCUMENT_URL, "redirect_uris": ["http://127.0.0.1/cb"],
          "token_endpoint_auth_method": "client_secret_basic"}, 200, "token_endpoint_auth_method"),
        ({}, 404, "HTTP 404"),
    ],
)  # fmt: skip
def test_bad_metadata_documents_are_an_error_page(web, monkeypatch, document, status, message):
    _document_server(monkeypatch, document, status)
    flow = start(web.client, client_id=DOCUMENT_URL)
    answer = web.client.get("/oauth/authorize", query_string=flow.params)
    assert answer.status_code == 400 and "Location" not in answer.headers
    assert message in answer.get_data(as_text=True)


def test_metadata_documents_go_through_the_ssrf_guard(web):
    flow = start(web.client, client_id="https://127.0.0.1/oauth/client.json")
    answer = web.client.get("/oauth/authorize", query_string=flow.params)
    assert answer.status_code == 400 and "not allowed" in answer.get_data(as_text=True)


# -- helpers --------------------------------------------------------------------------------


def _workspace(web):
    from ci_service.store.identity import Workspace

    with connection():
        return Workspace.get_by_id(web.workspace_id)


def _principal(web):
    from ci_service.store.people import WebSession

    with connection():
        session = WebSession.select().where(WebSession.user == web.user_id).first()
        return people.principal_for(session)
