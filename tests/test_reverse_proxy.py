"""``serve`` behind a TLS-terminating reverse proxy (issue 25).

Caddy (Debian's ``caddy``) with its own local certificate authority sits in front of a real
``serve``; the official MCP SDK completes its OAuth flow and calls a tool over ``https://``.
The metadata, the ``WWW-Authenticate`` challenge and the cookies name the public address,
never what a client put in ``Host``; the client address behind the proxy is the one the
proxy saw (``X-Forwarded-For`` from the trusted proxy only).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import ssl
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.async_support import run_coroutine
from tests.backends import unavailable
from tests.live import ChildProcess, LiveServer, ci_service_command, run_cli, seed_owner
from tests.test_oauth_sdk import EMAIL, MemoryStorage, Person, _provider, _session
from tests.waiting import wait_for
from tests.web_support import PASSWORD, csrf_of

CADDYFILE = """\
{{
	admin off
	skip_install_trust
	local_certs
	auto_https disable_redirects
	http_port {http_port}
	https_port {https_port}
	storage file_system {storage}
}}
https://localhost:{https_port} {{
	tls internal
	reverse_proxy {upstream}
}}
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def require_caddy() -> str:
    path = shutil.which("caddy")
    if path is None:
        unavailable("Caddy is missing (apt-get install -y caddy)")
    return path


class Caddy(ChildProcess):
    """``caddy run`` on a Caddyfile of its own, with its data (the local CA) in ``home``."""

    def __init__(self, executable: str, home: Path, https_port: int, upstream: str):
        self.home = home
        self.https_port = https_port
        self.url = f"https://localhost:{https_port}"
        self.env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "xdg"),
                    "XDG_CONFIG_HOME": str(home / "xdg")}  # fmt: skip
        self.process = None
        self.lines: list[str] = []
        config = home / "Caddyfile"
        config.write_text(
            CADDYFILE.format(
                http_port=free_port(),
                https_port=https_port,
                storage=home / "data",
                upstream=upstream,
            )
        )
        self.command = [executable, "run", "--config", str(config), "--adapter", "caddyfile"]

    @property
    def root_certificate(self) -> Path:
        return self.home / "data" / "pki" / "authorities" / "local" / "root.crt"

    @property
    def verify(self) -> ssl.SSLContext:
        """What a client trusts to reach the proxy: Caddy's own local certificate authority."""
        return ssl.create_default_context(cafile=str(self.root_certificate))

    def start(self, timeout: float = 30) -> Caddy:
        self._spawn(self.command, self.lines.append)

        def serving():
            if self.process.poll() is not None:
                raise RuntimeError("caddy exited:\n" + "".join(self.lines))
            if not self.root_certificate.exists():
                return False
            try:
                answer = httpx.get(self.url + "/healthz", verify=self.verify, timeout=2)
            except httpx.HTTPError:
                return False
            return answer.status_code == 200

        wait_for(serving, timeout=timeout)
        return self


@pytest.fixture(scope="module")
def proxied(module_database_url, tmp_path_factory):
    """(Caddy, the serve behind it, an API key): serve knows its public https address and
    trusts the proxy's forwarded headers."""
    caddy_path = require_caddy()
    database = module_database_url
    key = seed_owner(database, EMAIL, PASSWORD)
    https_port = free_port()
    public = f"https://localhost:{https_port}"
    serve_args = ("--no-scheduler", "--public-url", public, "--trusted-proxy", "127.0.0.1")
    with LiveServer(database, *serve_args) as server:
        home = tmp_path_factory.mktemp("caddy")
        upstream = server.url.removeprefix("http://")
        with Caddy(caddy_path, home, https_port, upstream) as caddy:
            yield caddy, server, key


def test_metadata_and_challenge_name_the_public_https_address(proxied):
    caddy, _server, _key = proxied
    verify = caddy.verify
    resource = httpx.get(caddy.url + "/.well-known/oauth-protected-resource/mcp", verify=verify)
    assert resource.json()["resource"] == caddy.url + "/mcp"
    assert resource.json()["authorization_servers"] == [caddy.url]
    metadata = httpx.get(caddy.url + "/.well-known/oauth-authorization-server", verify=verify)
    assert metadata.json()["issuer"] == caddy.url
    assert metadata.json()["token_endpoint"] == caddy.url + "/oauth/token"
    assert "http://" not in metadata.text
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    challenge = httpx.post(caddy.url + "/mcp", json=ping, verify=verify)
    assert challenge.status_code == 401
    expected = f'resource_metadata="{caddy.url}/.well-known/oauth-protected-resource/mcp"'
    assert expected in challenge.headers["www-authenticate"]


@pytest.mark.parametrize("through", ["caddy", "the-plain-port"])
def test_a_host_header_a_client_chose_is_never_echoed(proxied, through):
    caddy, server, _key = proxied
    # Caddy serves only its site's name, so through it the forgery is a forwarded header; on
    # the plain port (the trusted proxy's address, so waitress believes X-Forwarded-Host) the
    # Host itself.
    forged = {"X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "http"}
    if through == "caddy":
        base, verify, headers = caddy.url, caddy.verify, forged
    else:
        base, verify, headers = server.url, True, {"Host": "evil.example", **forged}
    answer = httpx.get(
        base + "/.well-known/oauth-authorization-server", headers=headers, verify=verify
    )
    assert answer.status_code == 200
    assert "evil.example" not in answer.text and answer.json()["issuer"] == caddy.url


def test_mcp_sdk_oauth_and_a_tool_call_over_https(proxied):
    caddy, _server, _key = proxied
    verify = caddy.verify
    person = Person(caddy.url, verify=verify)
    try:
        storage = MemoryStorage()
        provider = _provider(caddy.url, person, storage)

        async def work(client):
            listed = await client.list_tools()
            called = await client.call_tool("list_competitors", {})
            return {tool.name for tool in listed.tools}, called

        names, called = run_coroutine(_session(caddy.url, provider, work, verify=verify))
    finally:
        person.http.close()
    assert "list_competitors" in names
    assert called.is_error is False
    assert len(person.pages) == 1 and storage.tokens.access_token
    # The consent page was reached over https, and the code came back with the https issuer.
    assert person.result.iss == caddy.url


def test_session_cookie_is_secure_behind_the_proxy(proxied):
    caddy, _server, _key = proxied
    with httpx.Client(base_url=caddy.url, verify=caddy.verify) as browser:
        form = browser.get("/signin")
        answer = browser.post(
            "/signin",
            data={"csrf_token": csrf_of(form.text), "email": EMAIL, "password": PASSWORD},
        )
        assert answer.status_code == 302
        cookies = [v for k, v in answer.headers.multi_items() if k == "set-cookie"]
        assert cookies and all("; Secure" in cookie for cookie in cookies)
        assert browser.get("/").status_code == 200  # signed in: the cookie comes back


def _key_for(database: str, ip: str) -> str:
    made = run_cli(
        database, "keys", "create", "--workspace", "acme", "--name", f"only {ip}",
        "--allowed-ip", ip,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    return made.stdout.strip().splitlines()[-1]


def test_client_address_comes_from_the_trusted_proxy_only(proxied, module_database_url):
    caddy, server, _key = proxied
    database = module_database_url
    outside = _key_for(database, "203.0.113.9")
    local = _key_for(database, "127.0.0.1")
    # Through Caddy the client is this machine, whatever it claims: Caddy replaces a client's
    # own X-Forwarded-For, so the loopback key works and the other does not.
    verify = caddy.verify
    headers = {"X-Forwarded-For": "203.0.113.9"}
    for key, status in ((local, 200), (outside, 403)):
        answer = httpx.get(
            caddy.url + "/api/competitors", headers={"X-API-Key": key, **headers}, verify=verify
        )
        assert answer.status_code == status, answer.text
    # From the trusted proxy's address, its X-Forwarded-For names the client.
    claimed = httpx.get(server.url + "/api/competitors", headers={"X-API-Key": outside, **headers})
    assert claimed.status_code == 200
    refused = httpx.get(server.url + "/api/competitors", headers={"X-API-Key": local, **headers})
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "IP_NOT_ALLOWED"


def test_forwarded_headers_from_an_untrusted_peer_are_ignored(module_database_url):
    database = module_database_url
    run_cli(database, "workspaces", "create", "plain", "--plan", "ENTERPRISE")
    made = run_cli(
        database, "keys", "create", "--workspace", "plain", "--name", "k",
        "--allowed-ip", "203.0.113.9",
    )  # fmt: skip
    key = made.stdout.strip().splitlines()[-1]
    with LiveServer(database) as server:
        forged = {"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https"}
        answer = httpx.get(server.url + "/api/competitors", headers={"X-API-Key": key, **forged})
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "IP_NOT_ALLOWED"
        # No public URL given: serve names its own address.
        metadata = httpx.get(server.url + "/.well-known/oauth-authorization-server", headers=forged)
        assert metadata.json()["issuer"] == server.url


@pytest.mark.parametrize(
    "value", ["ftp://ci.example.com", "https://ci.example.com/ci", "ci.example.com", "https://"]
)
def test_a_malformed_public_url_is_a_clear_error(tmp_path, value):
    answer = subprocess.run(
        ci_service_command(str(tmp_path / "ci.db"), "serve", "--port", "0", "--public-url", value),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert answer.returncode != 0
    assert "public_url must look like" in answer.stderr and "Traceback" not in answer.stderr


def test_invite_links_name_the_public_address(web, app):
    """An invite link is made from the public address, not from the request's."""
    app.config["CI_SETTINGS"] = app.config["CI_SETTINGS"].with_overrides(
        public_url="https://ci.example.com"
    )
    answer = web.post_form(
        "/settings/users/invite",
        {"email": "new@example.com", "role": "EDITOR"},
        csrf_from="/settings/users",
    )
    assert answer.status_code == 200
    page = answer.get_data(as_text=True)
    assert re.search(r'id="invite-link"[^>]*value="https://ci\.example\.com/invite/[^"]+"', page)
    assert "http://localhost/invite" not in page  # the address this request came in on


def test_cli_invite_links_default_to_the_public_address(run, monkeypatch):
    assert run("workspaces", "create", "acme").exit_code == 0
    monkeypatch.setenv("CI_SERVICE_PUBLIC_URL", "https://ci.example.com")
    invited = run("users", "invite", "ivy@example.com", "--workspace", "acme")
    assert invited.exit_code == 0, invited.output
    assert invited.output.strip().splitlines()[-1].startswith("https://ci.example.com/invite/")
