"""The official MCP SDK's OAuth client against a real ``ci-service serve`` (issue 17).

``OAuthClientProvider`` discovers the protected resource and the authorization server,
registers itself, sends the person to the consent page (here: the test, signed in over HTTP
as that person, submits the form with their session and CSRF token), exchanges the code,
lists and calls tools, refreshes its token, and gets 401 once the person disconnects it.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.async_support import run_coroutine
from tests.live import (
    LiveServer,
    create_our_product,
    seed_owner,
    solution_arguments,
)
from tests.web_support import PASSWORD, csrf_of

mcp = pytest.importorskip("mcp")
httpx2 = pytest.importorskip("httpx2")
from mcp import Client  # noqa: E402
from mcp.client.auth import OAuthClientProvider  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared.auth import (  # noqa: E402
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

EMAIL = "ana@acme.example"
REDIRECT = "http://127.0.0.1:33418/callback"


class MemoryStorage:
    def __init__(self):
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


class Person:
    """The browser of a signed-in person: opens the consent page and answers it."""

    def __init__(self, base_url: str, verify=True):
        self.http = httpx.Client(base_url=base_url, verify=verify)
        form = self.http.get("/signin").text
        answer = self.http.post(
            "/signin",
            data={"csrf_token": csrf_of(form), "email": EMAIL, "password": PASSWORD},
        )
        assert answer.status_code == 302, answer.text
        self.allow = True
        self.pages: list[str] = []
        self.result: AuthorizationCodeResult | None = None

    async def redirect_handler(self, url: str) -> None:
        page = self.http.get(url)
        assert page.status_code == 200, page.text
        self.pages.append(page.text)
        user_id = re.search(r'name="user_id" value="([^"]+)" checked', page.text).group(1)
        answer = self.http.post(
            url,
            data={
                "csrf_token": csrf_of(page.text),
                "user_id": user_id,
                "grant_scope": ["read", "write"],
                "decision": "allow" if self.allow else "deny",
            },
        )
        assert answer.status_code == 302
        sent = {k: v[0] for k, v in parse_qs(urlsplit(answer.headers["location"]).query).items()}
        if "error" in sent:
            raise RuntimeError(f"the person refused: {sent['error']}")
        self.result = AuthorizationCodeResult(
            code=sent["code"], state=sent["state"], iss=sent["iss"]
        )

    async def callback_handler(self) -> AuthorizationCodeResult:
        assert self.result is not None
        return self.result


@pytest.fixture(scope="module")
def live(module_database_url):
    database = module_database_url
    key = seed_owner(database, EMAIL, PASSWORD)
    with LiveServer(database) as server:
        product = create_our_product(server.url, key)
        yield server, database, key, product


def _provider(url: str, person: Person, storage: MemoryStorage) -> OAuthClientProvider:
    metadata = OAuthClientMetadata(
        client_name="SDK test assistant",
        redirect_uris=[REDIRECT],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    return OAuthClientProvider(
        server_url=url + "/mcp",
        client_metadata=metadata,
        storage=storage,
        redirect_handler=person.redirect_handler,
        callback_handler=person.callback_handler,
    )


async def _session(url: str, provider: OAuthClientProvider, work, verify=True):
    async with httpx2.AsyncClient(auth=provider, timeout=30, verify=verify) as http:
        transport = streamable_http_client(url + "/mcp", http_client=http)
        async with Client(transport, mode="legacy") as client:
            return await work(client)


@pytest.fixture
def person(live):
    person = Person(live[0].url)
    yield person
    person.http.close()


def test_sdk_oauth_client_end_to_end(live, person):
    server, _database, key, product = live
    storage = MemoryStorage()
    provider = _provider(server.url, person, storage)

    async def work(client):
        listed = await client.list_tools()
        created = await client.call_tool(
            "create_solution", solution_arguments("Via OAuth", product)
        )
        return {t.name for t in listed.tools}, created

    # Connect: discovery, registration, consent, code exchange, then the tools.
    names, created = run_coroutine(_session(server.url, provider, work))
    assert {"list_solutions", "create_solution"} <= names
    assert created.is_error is False and created.structured_content["name"] == "Via OAuth"
    assert len(person.pages) == 1 and "SDK test assistant" in person.pages[0]
    assert "acme" in person.pages[0]
    assert storage.client_info.client_id.startswith("ci_client_")
    first = storage.tokens
    assert first.refresh_token and first.scope == "read write"

    # Refresh: the client's clock says the token expired; it refreshes, then calls a tool.
    provider.context.token_expiry_time = 1.0  # 1970

    async def read(client):
        return await client.call_tool("list_solutions", {})

    solutions = run_coroutine(_session(server.url, provider, read))
    assert solutions.is_error is False
    assert [s["name"] for s in solutions.structured_content["solutions"]] == ["Via OAuth"]
    second = storage.tokens
    assert second.access_token != first.access_token
    assert second.refresh_token != first.refresh_token
    assert len(person.pages) == 1  # refreshed, not asked again
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    old = httpx.post(
        server.url + "/mcp", json=ping, headers={"Authorization": f"Bearer {first.access_token}"}
    )
    assert old.status_code == 401  # rotated away

    # The person disconnects the app (REST, as the settings page does): 401 from then on.
    listed = httpx.get(server.url + "/api/connected-clients", headers={"X-API-Key": key}).json()
    (connection,) = listed["connectedClients"]
    assert connection["clientName"] == "SDK test assistant" and connection["userEmail"] == EMAIL
    revoked = httpx.delete(
        server.url + f"/api/connected-clients/{connection['id']}", headers={"X-API-Key": key}
    )
    assert revoked.status_code == 200
    answer = httpx.post(
        server.url + "/mcp", json=ping, headers={"Authorization": f"Bearer {second.access_token}"}
    )
    assert answer.status_code == 401
    assert 'error="invalid_token"' in answer.headers["www-authenticate"]
    assert answer.json()["error"]["code"] == 401
    token = httpx.post(
        server.url + "/oauth/token",
        data={
            "grant_type": "refresh_token",
            "refresh_token": second.refresh_token,
            "client_id": storage.client_info.client_id,
        },
    )
    assert token.status_code == 400 and token.json()["error"] == "invalid_grant"

    # The SDK itself: the 401 starts a new authorization, which the person now refuses.
    person.allow = False
    with pytest.raises(Exception):  # noqa: B017 - the SDK surfaces the refusal as its own error
        run_coroutine(_session(server.url, provider, read))
    assert len(person.pages) == 2
