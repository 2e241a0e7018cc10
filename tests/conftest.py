"""Shared fixtures: a fresh database per test, workspaces, keys and an authenticated client.

Every test gets its own temporary SQLite file, so tests pass alone and in any order.
"""

from __future__ import annotations

import secrets

import pytest

from ci_service.services import apikeys
from ci_service.services.workspaces import create_workspace
from ci_service.settings import load_settings
from ci_service.store.db import connection
from ci_service.web.app import create_app, shutdown_app


@pytest.fixture
def settings(tmp_path):
    return load_settings(
        environ={},
        database=str(tmp_path / "ci.db"),
        job_workers=0,
        scheduler=False,
    )


@pytest.fixture
def app(settings):
    app = create_app(settings)
    app.config["TESTING"] = True
    yield app
    shutdown_app(app)


@pytest.fixture
def client(app):
    return app.test_client()


class ApiClient:
    """Flask test client that sends one API key on every call."""

    def __init__(self, client, key: str, workspace_id: str, user_id: str):
        self.client = client
        self.key = key
        self.workspace_id = workspace_id
        self.user_id = user_id

    def _headers(self, headers):
        return {"X-API-Key": self.key, **(headers or {})}

    def get(self, path, **kw):
        return self.client.get(path, headers=self._headers(kw.pop("headers", None)), **kw)

    def delete(self, path, **kw):
        return self.client.delete(path, headers=self._headers(kw.pop("headers", None)), **kw)

    def post(self, path, json=None, **kw):
        return self.client.post(
            path, json=json, headers=self._headers(kw.pop("headers", None)), **kw
        )

    def put(self, path, json=None, **kw):
        return self.client.put(
            path, json=json, headers=self._headers(kw.pop("headers", None)), **kw
        )

    def patch(self, path, json=None, **kw):
        return self.client.patch(
            path, json=json, headers=self._headers(kw.pop("headers", None)), **kw
        )


@pytest.fixture
def make_workspace(app):
    """make_workspace(name=None, plan="ENTERPRISE") -> Workspace"""
    counter = iter(range(1, 10_000))

    def make(name=None, plan="ENTERPRISE"):
        with connection():
            return create_workspace(name or f"ws-{next(counter)}", plan)

    return make


@pytest.fixture
def make_key(app):
    """make_key(workspace, role="OWNER", email=None, **key options) -> (key, ApiKey row)"""

    def make(workspace, role="OWNER", email=None, name="test key", **options):
        with connection():
            user = apikeys.ensure_user(workspace, email, role)
            row, key = apikeys.create_key(user, name=name, **options)
        return key, row

    return make


@pytest.fixture
def make_api(client, make_workspace, make_key):
    """make_api(plan="ENTERPRISE", role="OWNER", workspace=None, **key options) -> ApiClient"""

    def make(plan="ENTERPRISE", role="OWNER", workspace=None, **options):
        workspace = workspace or make_workspace(plan=plan)
        key, row = make_key(workspace, role=role, **options)
        return ApiClient(client, key, workspace.id, row.user_id)

    return make


@pytest.fixture
def api(make_api):
    """An OWNER key with every scope on an ENTERPRISE workspace."""
    return make_api()


@pytest.fixture
def make_web(app, make_workspace, make_key):
    from ci_service.services import people
    from tests.web_support import PASSWORD, WebClient, sign_in

    def make(plan="ENTERPRISE", role="OWNER", workspace=None, email=None):
        workspace = workspace or make_workspace(plan=plan)
        email = email or f"person-{secrets.token_hex(4)}@example.com"
        with connection():
            user = people.create_user(workspace.id, email, role, PASSWORD)
        client = app.test_client()
        answer = sign_in(client, email)
        assert answer.status_code == 302, answer.get_data(as_text=True)
        key, _row = make_key(workspace, role="OWNER")
        api = ApiClient(app.test_client(), key, workspace.id, None)
        return WebClient(client, email, workspace.id, user.id, api)

    return make


@pytest.fixture
def web(make_web):
    """An OWNER signed in to an ENTERPRISE workspace."""
    return make_web()


@pytest.fixture
def run(tmp_path):
    """run(*args) -> click result: the ci-service CLI on a temporary database."""
    from click.testing import CliRunner

    from ci_service.cli import cli

    database = str(tmp_path / "cli.db")

    def invoke(*args):
        result = CliRunner().invoke(cli, ["--database", database, *args])
        assert "Traceback" not in result.output
        return result

    return invoke


def pytest_collection_modifyitems(config, items):
    """Browser tests last: Playwright's sync API keeps an event loop running on the main
    thread for the browser session, and ``asyncio.run`` (the MCP SDK tests) refuses to start
    inside one."""
    items.sort(key=lambda item: "/tests/browser/" in str(item.path).replace("\\", "/"))
