"""The OAuth flow of the tool server driven through the Flask test client (not a test module).

``connect(web)`` registers a public client, signs the consent form as the person behind the
``WebClient`` (their session, their CSRF token), exchanges the code and returns the tokens;
the smaller helpers let a test break one step at a time.
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

from tests.web_support import csrf_of

BASE = "http://localhost"
RESOURCE = BASE + "/mcp"
REDIRECT = "http://127.0.0.1:33418/callback"
USER_ID = re.compile(r'name="user_id" value="([^"]+)"( checked)?')


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).decode().rstrip("=")


def register(client, **metadata) -> dict:
    body = {
        "client_name": "Test assistant",
        "redirect_uris": [REDIRECT],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        **metadata,
    }
    answer = client.post("/oauth/register", json=body)
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


@dataclass
class Flow:
    client_id: str
    verifier: str
    params: dict = field(default_factory=dict)


def start(client, client_id: str | None = None, **params) -> Flow:
    """An authorization request's parameters (registering a client unless one is given)."""
    client_id = client_id or register(client)["client_id"]
    verifier, challenge = pkce()
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "state": secrets.token_urlsafe(8),
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "scope": "read write",
        "resource": RESOURCE,
        **params,
    }
    return Flow(client_id, verifier, {k: v for k, v in query.items() if v is not None})


def consent(web, flow: Flow, scopes=("read", "write"), user_id=None, decision="allow"):
    """Open the consent page as ``web``'s person and submit it; the POST's answer."""
    page = web.client.get("/oauth/authorize", query_string=flow.params)
    assert page.status_code == 200, page.get_data(as_text=True)
    html = page.get_data(as_text=True)
    if user_id is None:
        checked = [m.group(1) for m in USER_ID.finditer(html) if m.group(2)]
        user_id = checked[0] if checked else ""
    data = {"csrf_token": csrf_of(html), "user_id": user_id, "decision": decision}
    data["grant_scope"] = list(scopes)
    return web.client.post("/oauth/authorize", query_string=flow.params, data=data)


def redirect_params(answer) -> dict[str, str]:
    assert answer.status_code == 302, answer.get_data(as_text=True)
    location = answer.headers["Location"]
    assert location.startswith("http://127.0.0.1:"), location
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def code_for(web, flow: Flow, **consent_options) -> str:
    params = redirect_params(consent(web, flow, **consent_options))
    assert params["state"] == flow.params["state"] and params["iss"] == BASE
    return params["code"]


def exchange(client, flow: Flow, code: str, **overrides):
    data = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": flow.params["redirect_uri"],
        "client_id": flow.client_id,
        "code_verifier": flow.verifier,
        "resource": RESOURCE,
        **overrides,
    }
    return client.post("/oauth/token", data={k: v for k, v in data.items() if v is not None})


def refresh(client, client_id: str, refresh_token: str, **overrides):
    data = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": client_id}
    return client.post("/oauth/token", data={**data, **overrides})


def connect(web, scopes=("read", "write"), **params) -> tuple[Flow, dict]:
    """The whole flow: (flow, token response) for ``web``'s person."""
    flow = start(web.client, **params)
    answer = exchange(web.client, flow, code_for(web, flow, scopes=scopes))
    assert answer.status_code == 200, answer.get_json()
    return flow, answer.get_json()


def mcp(client, token: str, method: str = "tools/list", params=None, request_id=1, **kw):
    body = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        body["params"] = params
    return client.post("/mcp", json=body, headers={"Authorization": f"Bearer {token}"}, **kw)


def oauth_error(answer, status: int, error: str) -> dict:
    """Assert an OAuth error body (RFC 6749 §5.2): the status and ``error`` code."""
    body = answer.get_json()
    assert answer.status_code == status, (answer.status_code, body)
    assert isinstance(body, dict) and body.get("error") == error, body
    return body
