"""Real-browser tests: Playwright for Python driving Debian's Chromium (/usr/bin/chromium).

One live ``ci-service serve`` (a free port, a temporary database, job workers on) serves the
whole browser session. It is seeded from the command line, as an operator would: workspace
``acme`` (ENTERPRISE), an OWNER and a VIEWER with passwords, and an API key of the OWNER
(``live.api(...)``) to seed records exactly as REST does.

Playwright's own browser download does not work here: Chromium is launched from its Debian
path with fixed flags. Without Chromium the tests are skipped, except in CI (``CI=true``),
where that is a failure. Screenshots go to ``$CI_SERVICE_SCREENSHOTS`` when set, else to a
folder in pytest's temporary directory; the path is printed at the end of the run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

import httpx
import pytest

from tests.backends import unavailable
from tests.live import LiveServer, ci_service_command, run_cli
from tests.waiting import wait_for

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
PASSWORD = "correct horse battery"
OWNER = "owner@acme.example"
VIEWER = "viewer@acme.example"
TIMEOUT_MS = 15_000


def chromium_path() -> str | None:
    if os.access(CHROMIUM, os.X_OK):
        return CHROMIUM
    return shutil.which("chromium")


def _require_browser() -> str:
    path = chromium_path()
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        path = None
    if path is None:
        unavailable("Chromium or Playwright is missing (apt-get install -y chromium)")
    return path


@dataclass
class Live:
    """The running app and how to reach it."""

    server: LiveServer
    database: str
    url: str
    key: str
    workspace: str = "acme"
    owner: str = OWNER
    viewer: str = VIEWER
    password: str = PASSWORD

    def api(self, method: str, path: str, **kwargs) -> httpx.Response:
        """A REST call with the OWNER's API key."""
        headers = {"X-API-Key": self.key, **kwargs.pop("headers", {})}
        return httpx.request(method, self.url + path, headers=headers, timeout=30, **kwargs)

    def cli(self, *args: str, stdin: str | None = None) -> str:
        """Run ``ci-service`` against the live database; its standard output."""
        result = subprocess.run(
            ci_service_command(self.database, *args),
            input=stdin,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout

    def wait_for_job(self, job_id: str, timeout: float = 60) -> dict:
        """Poll ``GET /api/jobs/{id}`` until the job is no longer running; the job."""
        return wait_for(
            lambda: self.api("GET", f"/api/jobs/{job_id}").json()["job"],
            timeout,
            0.2,
            f"job {job_id} to end",
            until=lambda job: job["status"] != "running",
        )

    def add_competitor(self, name: str, url: str, wait: bool = True) -> tuple[dict, str]:
        """POST /api/competitors (its collect job runs in the live server); with ``wait``,
        until that job completed. Returns (competitor, job id)."""
        answer = self.api("POST", "/api/competitors", json={"name": name, "websiteUrl": url})
        assert answer.status_code == 200, answer.text
        body = answer.json()
        if wait:
            job = self.wait_for_job(body["jobId"])
            assert job["status"] == "completed", job
        return body["competitor"], body["jobId"]

    def add_person(self, email: str, role: str) -> None:
        self.cli(
            *("users", "create", "--workspace", self.workspace, "--email", email),
            *("--role", role, "--password-stdin"),
            stdin=self.password + "\n",
        )

    def own_workspace(self, name: str, email: str) -> Live:
        """A new ENTERPRISE workspace ``name`` with ``email`` as its OWNER (password
        ``PASSWORD``): this app, acting with a key of that OWNER. For tests whose pages
        must show their own records only."""
        self.cli("workspaces", "create", name, "--plan", "ENTERPRISE")
        other = replace(self, workspace=name, owner=email)
        other.add_person(email, "OWNER")
        out = other.cli("keys", "create", "--workspace", name, "--name", "tests", "--email", email)
        other.key = out.strip().splitlines()[-1]
        return other

    def invite(self, email: str, role: str) -> str:
        """A one-time invite link (the CLI prints it as its last line)."""
        out = self.cli(
            *("users", "invite", email, "--workspace", self.workspace, "--role", role),
            *("--base-url", self.url),
        )
        return out.strip().splitlines()[-1]


@pytest.fixture(scope="session")
def chromium() -> str:
    return _require_browser()


@pytest.fixture(scope="session")
def live(chromium, session_database_url) -> Live:
    """The live app (one for the session and backend), seeded through the CLI."""
    database = session_database_url
    created = run_cli(database, "workspaces", "create", "acme", "--plan", "ENTERPRISE")
    assert created.returncode == 0, created.stderr
    env = {
        "CI_SERVICE_ALLOW_PRIVATE_URLS": "1",  # the sites tests collect are on 127.0.0.1
        "CI_SERVICE_CRAWL_DELAY_SECONDS": "0",  # local sites: no politeness delay needed
    }
    server = LiveServer(database, "--no-scheduler", env=env)
    server.start()
    try:
        live = Live(server, database, server.url, key="")
        live.add_person(OWNER, "OWNER")
        live.add_person(VIEWER, "VIEWER")
        out = live.cli(
            *("keys", "create", "--workspace", "acme", "--name", "browser tests"),
            *("--email", OWNER),
        )
        live.key = out.strip().splitlines()[-1]
        assert re.fullmatch(r"svc_live_[0-9a-f]{32}", live.key)
        yield live
    finally:
        try:
            server.stop()
        finally:
            server.kill()


@pytest.fixture(scope="session")
def browser(chromium):
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=TIMEOUT_MS)  # expect(...) waits as long as page actions do
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=chromium, args=CHROMIUM_ARGS, headless=True
        )
        yield launched
        launched.close()


class Tab:
    """A page with what the tests watch: dialogs (alert/confirm), page errors, CSP reports."""

    def __init__(self, page, live: Live):
        self.page = page
        self.live = live
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.console: list[str] = []
        self.console_errors: list[str] = []  # console.error and failed loads (a 404 asset)
        page.on("dialog", self._dialog)
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("console", self._console)

    def _console(self, message) -> None:
        self.console.append(message.text)
        if message.type == "error":
            self.console_errors.append(f"{message.text} ({message.location.get('url', '')})")

    def _dialog(self, dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def go(self, path: str):
        response = self.page.goto(self.live.url + path)
        self.page.wait_for_load_state("load")
        return response

    def sign_in(self, email: str, password: str = PASSWORD, next_path: str = "/") -> None:
        self.go("/signin?next=" + next_path)
        self.page.get_by_label("E-mail address").fill(email)
        self.page.get_by_label("Password").fill(password)
        with self.page.expect_navigation():
            self.page.get_by_role("button", name="Sign in").click()

    def sign_out(self) -> None:
        menu = self.page.locator("header.top .menu-toggle")
        if menu.is_visible() and menu.get_attribute("aria-expanded") != "true":
            menu.click()  # on a phone the header's links and Sign out are behind Menu
        with self.page.expect_navigation():
            self.page.get_by_role("button", name="Sign out").click()


def reload_until(page, check, message: str, timeout: float = 90) -> None:
    """Reload ``page`` every half second until ``check()`` holds (a page that shows a job's
    end once reloaded); ``check`` may assert to stop at once (the job failed)."""

    def reloaded_check() -> bool:
        if check():
            return True
        page.reload()
        return False

    wait_for(reloaded_check, timeout, 0.5, message, sleep=lambda s: page.wait_for_timeout(s * 1000))


SEVERE = ("serious", "critical")


def axe_violations(target) -> list[str]:
    """Run axe-core (``axe-playwright-python``'s bundled copy) on the page as it is now; its
    serious and critical violations, one line each: rule id, impact, the elements' selectors.
    Injected through the DevTools protocol, so the page's CSP does not block it."""
    from axe_playwright_python.sync_playwright import Axe

    page = getattr(target, "page", target)
    results = Axe().run(page, options={"resultTypes": ["violations"]})
    found = []
    for violation in results.response["violations"]:
        if violation.get("impact") not in SEVERE:
            continue
        targets = [" ".join(map(str, node["target"])) for node in violation["nodes"]]
        found.append(
            f"{violation['id']} ({violation['impact']}): {violation['help']} -> "
            + "; ".join(targets[:6])
            + (f" (+{len(targets) - 6} more)" if len(targets) > 6 else "")
        )
    return found


@pytest.fixture
def axe():
    """``axe(tab)``: the page's serious/critical axe-core violations (empty when clean)."""
    return axe_violations


@pytest.fixture
def context(browser):
    made = browser.new_context(viewport={"width": 1280, "height": 900})
    made.set_default_timeout(TIMEOUT_MS)
    yield made
    made.close()


@pytest.fixture
def tab(context, live) -> Tab:
    """A fresh browser tab (its own cookies) on the live app."""
    return Tab(context.new_page(), live)


@pytest.fixture
def signed_in(tab, live) -> Tab:
    """The OWNER, signed in."""
    tab.sign_in(live.owner)
    return tab


@pytest.fixture(scope="session")
def screenshot_dir(tmp_path_factory) -> Path:
    configured = os.environ.get("CI_SERVICE_SCREENSHOTS")
    folder = Path(configured) if configured else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def shot(screenshot_dir):
    """``shot(tab_or_page, "name")``: a full-page screenshot into the screenshot folder."""

    def take(target, name: str) -> Path:
        page = getattr(target, "page", target)
        path = screenshot_dir / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
