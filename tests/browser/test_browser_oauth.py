"""In a real browser: an MCP client connects to the tool server with OAuth (issue 17).

The client is played by the test: it registers itself over HTTP with a loopback redirect URI
(a local server on a free port that records the query string it receives), builds the
authorization link (PKCE S256, ``resource=<server>/mcp``, scopes ``read write``) and opens it
in Chromium, where the person signs in and answers the consent page. The code that comes back
is exchanged over HTTP and the token used on ``/mcp``; the person then disconnects the app
under Settings → Connected apps and the token stops working.
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from playwright.sync_api import expect

from tests.intel_support import FixtureServer
from tests.waiting import wait_for

CALLBACK = "/callback"
BACK_PAGE = b"<!doctype html><title>Signed in</title><p>You can close this window.</p>"


@pytest.fixture
def receiver():
    """The client's loopback redirect target: records every request, answers a small page."""
    server = FixtureServer()
    server.routes[CALLBACK] = lambda handler: handler.send(200, BACK_PAGE)
    with server:
        yield server


def received(receiver: FixtureServer, timeout: float = 15) -> dict[str, str]:
    """The query of the first request to the callback (polled until it arrived)."""
    paths = wait_for(
        lambda: [p for p in receiver.paths() if urlsplit(p).path == CALLBACK],
        timeout,
        message="the redirect to reach the client",
    )
    assert len(paths) == 1, paths
    return {k: v[0] for k, v in parse_qs(urlsplit(paths[0]).query).items()}


def at_path(live, path: str) -> re.Pattern:
    """``expect(page).to_have_url(at_path(live, "/x"))``: the app's page ``path``, any query."""
    return re.compile("^" + re.escape(live.url + path) + r"(\?|$)")


@dataclass
class Client:
    """A public OAuth client registered on the live app, and one authorization request."""

    base: str
    name: str
    client_id: str
    redirect_uri: str
    verifier: str = ""
    state: str = ""

    @classmethod
    def register(cls, live, receiver: FixtureServer) -> Client:
        name = f"Desk assistant {secrets.token_hex(2)}"
        redirect_uri = receiver.url(CALLBACK)
        answer = httpx.post(
            live.url + "/oauth/register",
            json={
                "client_name": name,
                "redirect_uris": [redirect_uri],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": "none",
            },
            timeout=30,
        )
        assert answer.status_code == 201, answer.text
        body = answer.json()
        assert "client_secret" not in body
        return cls(live.url, name, body["client_id"], redirect_uri)

    @property
    def resource(self) -> str:
        return self.base + "/mcp"

    def authorize_url(self) -> str:
        self.verifier = secrets.token_urlsafe(48)
        digest = hashlib.sha256(self.verifier.encode()).digest()
        self.state = secrets.token_urlsafe(12)
        query = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": self.redirect_uri,
            "state": self.state,
            "code_challenge": base64.urlsafe_b64encode(digest).decode().rstrip("="),
            "code_challenge_method": "S256",
            "scope": "read write",
            "resource": self.resource,
        }
        return self.base + "/oauth/authorize?" + urlencode(query)

    def exchange(self, code: str) -> dict:
        answer = httpx.post(
            self.base + "/oauth/token",
            data={
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": self.redirect_uri,
                "client_id": self.client_id,
                "code_verifier": self.verifier,
                "resource": self.resource,
            },
            timeout=30,
        )
        assert answer.status_code == 200, answer.text
        return answer.json()

    def tools_list(self, token: str) -> httpx.Response:
        return httpx.post(
            self.resource,
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={"Authorization": f"Bearer {token}"},
            timeout=30,
        )


def open_consent(tab, live, client: Client) -> None:
    """Open the client's authorization link; sign in when the app asks for it."""
    page = tab.page
    page.goto(client.authorize_url())
    if urlsplit(page.url).path == "/signin":
        page.get_by_label("E-mail address").fill(live.owner)
        page.get_by_label("Password").fill(live.password)
        with page.expect_navigation():
            page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(at_path(live, "/oauth/authorize"))
    page.get_by_role("heading", name=f"Connect “{client.name}” to ci-service").wait_for()


def answer_consent(tab, client: Client, button: str) -> None:
    """Press Allow or Deny and wait until the browser arrived at the client's redirect URI."""
    page = tab.page
    with page.expect_navigation(url=re.compile(re.escape(client.redirect_uri) + r"\?")):
        page.get_by_role("button", name=button, exact=True).click()
    page.get_by_text("You can close this window.").wait_for()


def test_connect_use_and_disconnect_an_app(tab, live, receiver, shot):
    page = tab.page
    client = Client.register(live, receiver)
    open_consent(tab, live, client)  # not signed in yet: the link goes through /signin

    main = page.locator("main")
    expect(main).to_contain_text(client.name)
    expect(main).to_contain_text(live.owner)
    expect(main).to_contain_text(urlsplit(client.redirect_uri).netloc)  # where the answer goes
    workspace = main.get_by_role("group", name="Workspace")
    choice = workspace.get_by_role("radio", name=re.compile(rf"^{live.workspace}\b"))
    expect(choice).to_be_checked()
    expect(choice).to_be_enabled()
    expect(workspace).to_contain_text("OWNER · ENTERPRISE")
    scopes = main.get_by_role("group", name="What it may do")
    for scope in ("read", "write"):
        expect(scopes.get_by_role("checkbox", name=re.compile(rf"^{scope}:"))).to_be_checked()
    shot(tab, "oauth_consent")

    answer_consent(tab, client, "Allow")
    sent = received(receiver)
    assert sent["state"] == client.state and sent["iss"] == live.url
    assert sent["code"] and "error" not in sent

    tokens = client.exchange(sent["code"])
    assert tokens["token_type"] == "Bearer" and tokens["scope"] == "read write"
    listed = client.tools_list(tokens["access_token"])
    assert listed.status_code == 200, listed.text
    assert "get_competitor" in {tool["name"] for tool in listed.json()["result"]["tools"]}

    tab.go("/settings")
    with page.expect_navigation():
        page.get_by_role("navigation", name="Settings").get_by_role(
            "link", name="Connected apps"
        ).click()
    expect(page).to_have_url(at_path(live, "/settings/connections"))
    row = page.locator("table tbody tr", has_text=client.name)
    expect(row).to_have_count(1)
    expect(row).to_contain_text(client.client_id)
    expect(row).to_contain_text("read, write")
    shot(tab, "connected_apps")

    with page.expect_navigation():
        row.get_by_role("button", name=f"Disconnect {client.name}").click()
    expect(page.get_by_role("status")).to_have_text("App disconnected.")
    expect(page.locator("table tbody tr", has_text=client.name)).to_have_count(0)
    refused = client.tools_list(tokens["access_token"])
    assert refused.status_code == 401, refused.text
    assert refused.headers["WWW-Authenticate"].startswith("Bearer ")
    assert not tab.errors and not tab.dialogs


def test_denying_sends_access_denied_back(signed_in, live, receiver):
    client = Client.register(live, receiver)
    open_consent(signed_in, live, client)  # already signed in: straight to the consent page
    answer_consent(signed_in, client, "Deny")
    sent = received(receiver)
    assert sent["error"] == "access_denied" and "code" not in sent
    assert sent["state"] == client.state and sent["iss"] == live.url
    signed_in.go("/settings/connections")
    expect(signed_in.page.locator("table tbody tr", has_text=client.name)).to_have_count(0)
    assert not signed_in.errors and not signed_in.dialogs
