"""The tool server's OAuth 2.1 (issue 17), in process: metadata, registration, the code flow
with PKCE, refresh rotation, revocation and the protected resource's checks. The negative
cases of the issue each have a test here; ``tests/test_oauth_sdk.py`` runs the official
SDK client against a real ``serve``."""

from __future__ import annotations

from datetime import timedelta

import pytest
from authlib.oauth2.rfc8414 import AuthorizationServerMetadata

from ci_service.store.db import connection
from ci_service.store.identity import Tenant, Workspace
from ci_service.store.oauth import OAuthCode, OAuthToken
from ci_service.timeutil import utcnow
from tests.oauth_support import (
    BASE,
    REDIRECT,
    RESOURCE,
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

# -- discovery ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"],
)
def test_protected_resource_metadata(client, path):
    answer = client.get(path)
    assert answer.status_code == 200
    assert answer.get_json() == {
        "resource": RESOURCE,
        "authorization_servers": [BASE],
        "scopes_supported": ["read", "write"],
        "bearer_methods_supported": ["header"],
        "resource_name": "ci-service tool server (MCP)",
    }


def test_authorization_server_metadata_is_valid_rfc8414(client):
    metadata = client.get("/.well-known/oauth-authorization-server").get_json()
    AuthorizationServerMetadata(metadata).validate()
    assert metadata["issuer"] == BASE
    assert metadata["code_challenge_methods_supported"] == ["S256"]
    assert metadata["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert metadata["registration_endpoint"] == BASE + "/oauth/register"
    assert metadata["revocation_endpoint"] == BASE + "/oauth/revoke"
    assert metadata["client_id_metadata_document_supported"] is True
    assert metadata["authorization_response_iss_parameter_supported"] is True


@pytest.mark.parametrize(
    "path", ["/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server"]
)
def test_a_clients_host_header_is_never_echoed(client, path):
    """Issue 25: the issuer is the configured public address, whatever Host a client sends."""
    answer = client.get(path, base_url="http://evil.example:8443")
    assert "evil.example" not in answer.get_data(as_text=True)
    assert BASE in answer.get_data(as_text=True)


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer ci_at_nope"}])
def test_401_names_the_resource_metadata_and_keeps_the_jsonrpc_body(client, headers):
    answer = client.post(
        "/mcp", json={"jsonrpc": "2.0", "id": 7, "method": "ping"}, headers=headers
    )
    assert answer.status_code == 401
    challenge = answer.headers["WWW-Authenticate"]
    assert challenge.startswith("Bearer ")
    assert f'resource_metadata="{BASE}/.well-known/oauth-protected-resource/mcp"' in challenge
    assert ('error="invalid_token"' in challenge) == bool(headers)
    body = answer.get_json()
    assert body["jsonrpc"] == "2.0" and body["id"] == 7 and body["error"]["code"] == 401


# -- registration ---------------------------------------------------------------------------


def test_registration_of_a_public_and_a_confidential_client(client):
    public = register(client)
    assert public["client_id"].startswith("ci_client_") and "client_secret" not in public
    assert public["token_endpoint_auth_method"] == "none"
    assert public["redirect_uris"] == [REDIRECT] and public["scope"] == "read write"
    confidential = register(client, token_endpoint_auth_method="client_secret_post")
    assert confidential["client_secret"] and confidential["client_secret_expires_at"] == 0


@pytest.mark.parametrize(
    "body, error",
    [
        ([], "invalid_client_metadata"),
        ("text", "invalid_client_metadata"),
        ({}, "invalid_redirect_uri"),
        ({"redirect_uris": "http://127.0.0.1/cb"}, "invalid_redirect_uri"),
        ({"redirect_uris": ["http://evil.example/cb"]}, "invalid_redirect_uri"),
        ({"redirect_uris": ["javascript:alert(1)"]}, "invalid_redirect_uri"),
        ({"redirect_uris": ["https://app.example/cb#frag"]}, "invalid_redirect_uri"),
        ({"redirect_uris": [REDIRECT], "grant_types": ["client_credentials"]}, None),
        ({"redirect_uris": [REDIRECT], "grant_types": ["implicit", 3]}, None),
        ({"redirect_uris": [REDIRECT], "response_types": ["token"]}, None),
        ({"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "private_key_jwt"}, None),
        ({"redirect_uris": [REDIRECT], "scope": "admin"}, None),
        ({"redirect_uris": [REDIRECT], "client_name": {"x": 1}}, None),
        ({"redirect_uris": [REDIRECT], "client_uri": "javascript:x"}, None),
        ({"redirect_uris": [REDIRECT] * 11}, "invalid_redirect_uri"),
        ({"redirect_uris": ["http://127.0.0.1:99999/cb"]}, "invalid_redirect_uri"),
    ],
)
def test_bad_registrations_are_oauth_errors(client, body, error):
    answer = client.post("/oauth/register", json=body)
    oauth_error(answer, 400, error or "invalid_client_metadata")


def test_registration_needs_a_json_body(client):
    answer = client.post("/oauth/register", data="{nope", content_type="application/json")
    oauth_error(answer, 400, "invalid_client_metadata")
    answer = client.post("/oauth/register", data={"redirect_uris": REDIRECT})
    oauth_error(answer, 400, "invalid_client_metadata")


# -- the code flow --------------------------------------------------------------------------


def test_the_whole_flow_acts_as_the_person(web):
    flow, tokens = connect(web)
    assert tokens["token_type"] == "Bearer" and tokens["scope"] == "read write"
    assert tokens["expires_in"] == 3600 and tokens["refresh_token"].startswith("ci_rt_")
    answer = mcp(web.client, tokens["access_token"])
    assert answer.status_code == 200
    assert {"get_competitor", "create_solution"} <= {
        t["name"] for t in answer.get_json()["result"]["tools"]
    }
    assert answer.headers["X-RateLimit-Limit"] == "1000"  # a key's default
    with connection():
        rows = list(OAuthToken.select())
    # Only hashes are stored.
    assert rows and all(tokens["access_token"] not in (r.access_hash, r.refresh_hash) for r in rows)


def test_offline_access_is_accepted_and_ignored(web):
    _, tokens = connect(web, scope="read write offline_access")
    assert tokens["scope"] == "read write" and tokens["refresh_token"]


def test_unknown_scopes_are_an_error_page(web):
    """Issue 25: an invalid request is never redirected, even to a registered URI."""
    flow = start(web.client, scope="read admin")
    html = refused(web.client.get("/oauth/authorize", query_string=flow.params))
    assert "invalid_scope" in html and "permissions" in html


def test_consent_page_names_the_client_the_workspace_and_the_scopes(web):
    flow = start(web.client)
    page = web.client.get("/oauth/authorize", query_string=flow.params)
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "Test assistant" in html and "127.0.0.1:33418" in html
    with connection():
        name = Workspace.get_by_id(web.workspace_id).name
    assert name in html and 'value="read"' in html and 'value="write"' in html
    assert "<script>" not in html  # CSP-safe: no inline script
    assert "form-action 'self' http://127.0.0.1:33418" in page.headers["Content-Security-Policy"]


def test_signing_in_returns_to_the_consent_page(make_web, app):
    web = make_web()
    flow = start(web.client)
    stranger = app.test_client()
    answer = stranger.get("/oauth/authorize", query_string=flow.params)
    assert answer.status_code == 302 and answer.headers["Location"].startswith("/signin?next=")


def test_denying_sends_access_denied_back(web):
    params = redirect_params(consent(web, start(web.client), decision="deny"))
    assert params["error"] == "access_denied" and params["iss"] == BASE


def test_consent_needs_the_csrf_token(web):
    flow = start(web.client)
    answer = web.client.post(
        "/oauth/authorize", query_string=flow.params, data={"decision": "allow"}
    )
    assert answer.status_code == 400 and "Location" not in answer.headers


def test_wrong_pkce_verifier_is_refused_and_spends_the_code(web):
    flow = start(web.client)
    code = code_for(web, flow)
    oauth_error(exchange(web.client, flow, code, code_verifier="x" * 50), 400, "invalid_grant")
    oauth_error(exchange(web.client, flow, code), 400, "invalid_grant")


@pytest.mark.parametrize(
    "params, description",
    [
        ({"code_challenge": None, "code_challenge_method": None}, "PKCE is required"),
        ({"code_challenge_method": "plain"}, "S256"),
        ({"code_challenge_method": None}, "S256"),
    ],
)
def test_pkce_s256_is_required(web, params, description):
    flow = start(web.client, **params)
    html = refused(web.client.get("/oauth/authorize", query_string=flow.params))
    assert "invalid_request" in html and description in html


def test_a_reused_code_is_refused_and_revokes_what_it_issued(web):
    flow = start(web.client)
    code = code_for(web, flow)
    first = exchange(web.client, flow, code)
    assert first.status_code == 200
    oauth_error(exchange(web.client, flow, code), 400, "invalid_grant")
    assert mcp(web.client, first.get_json()["access_token"]).status_code == 401
    refreshed = refresh(web.client, flow.client_id, first.get_json()["refresh_token"])
    oauth_error(refreshed, 400, "invalid_grant")


def test_an_expired_code_is_refused(web):
    flow = start(web.client)
    code = code_for(web, flow)
    with connection():
        OAuthCode.update(expires_at=utcnow() - timedelta(seconds=1)).execute()
    oauth_error(exchange(web.client, flow, code), 400, "invalid_grant")


def test_an_unregistered_redirect_uri_is_never_redirected_to(web):
    flow = start(web.client, redirect_uri="http://127.0.0.1:33418/other")
    answer = web.client.get("/oauth/authorize", query_string=flow.params)
    assert answer.status_code == 400 and "Location" not in answer.headers
    assert "not registered" in answer.get_data(as_text=True)
    flow = start(web.client, redirect_uri="https://evil.example/callback")
    assert web.client.get("/oauth/authorize", query_string=flow.params).status_code == 400


def test_loopback_redirects_match_on_any_port(web):
    flow = start(web.client, redirect_uri="http://127.0.0.1:50123/callback")
    params = redirect_params(consent(web, flow))
    assert exchange(web.client, flow, params["code"]).status_code == 200


def test_the_token_request_must_repeat_the_redirect_uri(web):
    flow = start(web.client)
    code = code_for(web, flow)
    answer = exchange(web.client, flow, code, redirect_uri="http://127.0.0.1:1/callback")
    oauth_error(answer, 400, "invalid_grant")


def test_tokens_are_only_minted_for_this_resource(web):
    flow = start(web.client, resource="https://other.example/mcp")
    html = refused(web.client.get("/oauth/authorize", query_string=flow.params))
    assert "invalid_target" in html
    flow = start(web.client)
    code = code_for(web, flow)
    answer = exchange(web.client, flow, code, resource="https://other.example/mcp")
    oauth_error(answer, 400, "invalid_target")


def test_a_token_for_another_resource_is_refused(web, app):
    """A token minted for this server under another name is not valid here (audience)."""
    _, tokens = connect(web)
    token = tokens["access_token"]
    assert mcp(web.client, token).status_code == 200
    settings = app.config["CI_SETTINGS"]
    app.config["CI_SETTINGS"] = settings.with_overrides(public_url="http://other-name.example")
    answer = mcp(web.client, token)
    assert (
        answer.status_code == 401 and 'error="invalid_token"' in answer.headers["WWW-Authenticate"]
    )


def test_an_expired_access_token_is_refused(web):
    _, tokens = connect(web)
    with connection():
        OAuthToken.update(expires_at=utcnow() - timedelta(seconds=1)).execute()
    answer = mcp(web.client, tokens["access_token"])
    assert (
        answer.status_code == 401 and 'error="invalid_token"' in answer.headers["WWW-Authenticate"]
    )


def test_a_bearer_token_is_not_an_api_key(web):
    _, tokens = connect(web)
    answer = web.client.get(
        "/api/competitors", headers={"Authorization": f"Bearer {tokens['access_token']}"}
    )
    assert answer.status_code == 401


def test_api_keys_still_work_on_the_tool_server(web):
    answer = web.client.post(
        "/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"X-API-Key": web.api.key, "Authorization": "Bearer ci_at_garbage"},
    )
    assert answer.status_code == 200 and "WWW-Authenticate" not in answer.headers


# -- refresh and revocation -------------------------------------------------------------------


def test_refresh_rotates_and_detects_reuse(web):
    flow, tokens = connect(web)
    answer = refresh(web.client, flow.client_id, tokens["refresh_token"])
    assert answer.status_code == 200
    fresh = answer.get_json()
    assert fresh["refresh_token"] != tokens["refresh_token"] and fresh["scope"] == "read write"
    assert mcp(web.client, fresh["access_token"]).status_code == 200
    assert mcp(web.client, tokens["access_token"]).status_code == 401  # the old pair died
    # The rotated refresh token presented again after the grace window for retries (issue
    # 25, tests/test_oauth_hardening.py): refused, and the connection ends.
    with connection():
        for row in OAuthToken.select().where(OAuthToken.replaced_by.is_null(False)):
            row.revoked_at -= timedelta(minutes=1)
            row.save()
    oauth_error(refresh(web.client, flow.client_id, tokens["refresh_token"]), 400, "invalid_grant")
    assert mcp(web.client, fresh["access_token"]).status_code == 401


def test_refresh_needs_the_same_client(web):
    flow, tokens = connect(web)
    other = register(web.client)["client_id"]
    oauth_error(refresh(web.client, other, tokens["refresh_token"]), 400, "invalid_grant")
    assert refresh(web.client, flow.client_id, tokens["refresh_token"]).status_code == 200


def test_revocation_endpoint(web):
    flow, tokens = connect(web)
    answer = web.client.post(
        "/oauth/revoke", data={"token": tokens["access_token"], "client_id": flow.client_id}
    )
    assert answer.status_code == 200
    assert mcp(web.client, tokens["access_token"]).status_code == 401
    # The pair ends together (RFC 7009 §2.1 allows it).
    oauth_error(refresh(web.client, flow.client_id, tokens["refresh_token"]), 400, "invalid_grant")
    unknown = web.client.post(
        "/oauth/revoke", data={"token": "ci_at_x", "client_id": flow.client_id}
    )
    assert unknown.status_code == 200  # RFC 7009 §2.2


def test_revoking_the_refresh_token_ends_the_connection(web):
    flow, tokens = connect(web)
    web.client.post(
        "/oauth/revoke",
        data={"token": tokens["refresh_token"], "client_id": flow.client_id},
    )
    assert mcp(web.client, tokens["access_token"]).status_code == 401
    oauth_error(refresh(web.client, flow.client_id, tokens["refresh_token"]), 400, "invalid_grant")


def test_a_confidential_client_authenticates(web):
    registered = register(web.client, token_endpoint_auth_method="client_secret_basic")
    flow = start(web.client, client_id=registered["client_id"])
    code = code_for(web, flow)
    oauth_error(exchange(web.client, flow, code), 401, "invalid_client")
    answer = web.client.post(
        "/oauth/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT,
            "code_verifier": flow.verifier,
        },
        auth=(registered["client_id"], registered["client_secret"]),
    )
    assert answer.status_code == 200, answer.get_json()
    tokens = answer.get_json()
    assert tokens["token_type"] == "Bearer" and tokens["scope"] == "read write"
    # The token it got works on the tool server, for what its scopes grant.
    listed = mcp(web.client, tokens["access_token"])
    assert listed.status_code == 200, listed.get_json()
    assert "list_solutions" in {tool["name"] for tool in listed.get_json()["result"]["tools"]}
    call = {"name": "list_solutions", "arguments": {}}
    called = mcp(web.client, tokens["access_token"], "tools/call", call, request_id=2)
    assert called.status_code == 200, called.get_json()
    assert called.get_json()["id"] == 2 and called.get_json()["result"]["isError"] is False


# -- scopes, roles and plans ------------------------------------------------------------------


def test_a_read_token_calling_a_write_tool_gets_a_scope_challenge(web):
    _, tokens = connect(web, scopes=("read",))
    assert tokens["scope"] == "read"
    token = tokens["access_token"]
    listed = mcp(web.client, token, "tools/call", {"name": "list_solutions", "arguments": {}})
    assert listed.status_code == 200 and listed.get_json()["result"]["isError"] is False
    call = {"name": "trigger_refresh", "arguments": {"competitorId": "x"}}
    answer = mcp(web.client, token, "tools/call", call, request_id=9)
    assert answer.status_code == 403
    challenge = answer.headers["WWW-Authenticate"]
    assert 'error="insufficient_scope"' in challenge and 'scope="read write"' in challenge
    body = answer.get_json()
    assert body["id"] == 9 and body["error"]["code"] == 403
    assert body["error"]["data"]["details"]["code"] == "INSUFFICIENT_SCOPE"
    direct = mcp(web.client, token, "trigger_refresh", {"competitorId": "x"})
    assert direct.status_code == 403


def test_a_viewer_token_with_write_scope_still_cannot_write(make_web):
    viewer = make_web(role="VIEWER")
    _, tokens = connect(viewer)
    call = {"name": "trigger_refresh", "arguments": {"competitorId": "x"}}
    result = mcp(viewer.client, tokens["access_token"], "tools/call", call).get_json()["result"]
    assert result["isError"] is True
    assert result["structuredContent"]["error"]["data"]["details"]["code"] == "FORBIDDEN"


def test_a_starter_workspace_cannot_be_chosen(make_web, make_workspace):
    web = make_web(plan="STARTER")
    flow = start(web.client)
    page = web.client.get("/oauth/authorize", query_string=flow.params).get_data(as_text=True)
    assert "needs the Enterprise plan" in page and " disabled" in page
    answer = consent(web, flow, user_id=web.user_id)
    assert answer.status_code == 403 and "Location" not in answer.headers
    with connection():
        assert OAuthCode.select().count() == 0


def test_a_workspace_downgraded_to_starter_loses_the_tool_server(web):
    _, tokens = connect(web)
    with connection():
        tenant = Workspace.get_by_id(web.workspace_id).tenant_id
        Tenant.update(plan="STARTER").where(Tenant.id == tenant).execute()
    answer = mcp(web.client, tokens["access_token"])
    assert answer.status_code == 403
    assert answer.get_json()["error"]["data"]["requiredPlan"] == "ENTERPRISE"


# -- bad input is an OAuth error, never a 500 ---------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"grant_type": "password", "username": "a", "password": "b"},
        {"grant_type": "authorization_code"},
        {"grant_type": "authorization_code", "client_id": "nope", "code": "x"},
        {"grant_type": "refresh_token", "client_id": "nope", "refresh_token": "ci_rt_x"},
        {"grant_type": 'bad"\\type'},
        {"grant_type": "authorization_code", "code": "é" * 10, "client_id": "x"},
        {"grant_type": ["authorization_code", "refresh_token"]},
    ],
)
def test_bad_token_requests(client, data):
    answer = client.post("/oauth/token", data=data)
    assert answer.status_code in (400, 401)
    assert isinstance(answer.get_json().get("error"), str)


def test_token_endpoint_wants_a_form(client):
    oauth_error(client.post("/oauth/token", json={"grant_type": "x"}), 400, "invalid_request")


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"client_id": "nope", "response_type": "code"},
        {"client_id": "é", "response_type": "code"},
        {"client_id": 'a"b', "response_type": "token"},
    ],
)
def test_bad_authorization_links_show_an_error_page(web, params):
    answer = web.client.get("/oauth/authorize", query_string=params)
    assert answer.status_code == 400 and "Location" not in answer.headers
    assert "cannot connect" in answer.get_data(as_text=True)


def test_an_unsupported_response_type_is_an_error_page(web):
    flow = start(web.client, response_type="token")
    html = refused(web.client.get("/oauth/authorize", query_string=flow.params))
    assert "unsupported_response_type" in html


def refused(answer) -> str:
    """An authorization request's error page: 400, redirected nowhere; its HTML."""
    html = answer.get_data(as_text=True)
    assert answer.status_code == 400 and "Location" not in answer.headers, html
    assert "This application cannot connect" in html
    return html
