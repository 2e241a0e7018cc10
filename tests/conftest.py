"""Shared fixtures: a fresh database per test, workspaces, keys and an authenticated client.

Every test that uses a database runs on both backends (``database_url`` is parametrized:
test ids end in ``[sqlite]`` / ``[postgresql]``; ``--backend`` picks one). Each run gets its
own temporary SQLite file or its own PostgreSQL database (tests/backends.py), so tests pass
alone and in any order.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import pytest

from ci_service.services.identity import api_keys as apikeys
from ci_service.services.workspace.workspaces import create_workspace
from ci_service.settings import load_settings
from ci_service.store.db import connection
from ci_service.web.app import create_app, shutdown_app
from tests.backends import BACKENDS, PostgresDatabases, require_postgres


def pytest_addoption(parser):
    parser.addoption(
        "--backend",
        choices=("all", *BACKENDS),
        default="all",
        help="database backend(s) to run the suite on (default: both)",
    )


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "backends(*names): run this test on these database backends only (no test is "
        "generated for the others: nothing to skip)",
    )


MAX_WORKERS = 4


def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (pyproject.toml): a worker per core, at most ``MAX_WORKERS``. Every
    worker runs its own servers, Chromium and PostgreSQL databases: on a many-core machine
    more of them would contend for the one PostgreSQL server and the disk, not run faster."""
    return min(MAX_WORKERS, os.cpu_count() or 1)


def pytest_terminal_summary(terminalreporter, config):
    """Where the browser tests left their screenshots (tests/browser/conftest.py
    ``screenshot_dir``). Here, not there: under pytest-xdist this process only gathers
    the workers' reports and never loads that conftest, and each worker made its folder
    under its own part of the run's temporary directory (popen-gw0/, popen-gw1/, ...)."""
    configured = os.environ.get("CI_SERVICE_SCREENSHOTS")
    if configured:
        folders = [Path(configured)]
    else:
        base = config._tmp_path_factory.getbasetemp()
        found = [*base.glob("screenshots*"), *base.glob("popen-gw*/screenshots*")]
        folders = sorted(f for f in found if f.is_dir() and not f.is_symlink() and any(f.iterdir()))
    for folder in folders:
        terminalreporter.write_line(f"browser screenshots: {folder}")


def backends_for(node, config) -> tuple[str, ...]:
    """The backends a test runs on: ``--backend``, narrowed by its ``backends`` marker."""
    chosen = config.getoption("backend")
    backends = BACKENDS if chosen == "all" else (chosen,)
    marker = node.get_closest_marker("backends")
    return tuple(b for b in backends if b in marker.args) if marker else backends


def pytest_generate_tests(metafunc):
    if "backend" in metafunc.fixturenames:
        backends = backends_for(metafunc.definition, metafunc.config)
        metafunc.parametrize("backend", backends, indirect=True)


@pytest.fixture(scope="session", autouse=True)
def secret_key_file(tmp_path_factory):
    """On PostgreSQL the alerts key file defaults to the working directory; tests (and the
    servers they start, which inherit the environment) keep it in a temporary one."""
    path = tmp_path_factory.mktemp("secrets") / "ci-service-test.key"
    previous = os.environ.get("CI_SERVICE_SECRET_KEY_FILE")
    os.environ["CI_SERVICE_SECRET_KEY_FILE"] = str(path)
    yield path
    if previous is None:
        os.environ.pop("CI_SERVICE_SECRET_KEY_FILE", None)
    else:
        os.environ["CI_SERVICE_SECRET_KEY_FILE"] = previous


@pytest.fixture(scope="session")
def postgres_databases():
    databases = PostgresDatabases()
    yield databases
    databases.close()


@pytest.fixture
def backend(request):
    """The backend of this run, "sqlite" or "postgresql": every test that uses a database
    fixture runs once on each (``pytest_generate_tests``)."""
    return getattr(request, "param", "sqlite")


@pytest.fixture
def make_database_url(backend, tmp_path, postgres_databases):
    """make_database_url(migrated=True) -> a new database of this run's backend (a SQLite
    path, or a PostgreSQL database, migrated from the template unless asked otherwise,
    dropped after the test)."""
    made: list[str] = []
    if backend == "postgresql":
        require_postgres(postgres_databases)

    def make(migrated: bool = True, name: str | None = None) -> str:
        if backend == "sqlite":
            return str(tmp_path / (name or f"db-{len(made) + 1}.db"))
        url = postgres_databases.create(migrated)
        made.append(url)
        return url

    yield make
    for url in made:
        _release(postgres_databases, url)


def _release(postgres_databases, url: str) -> None:
    """Close this process's connections to ``url``, forget what it cached of it (the next
    test gets the same name, emptied), and hand it back."""
    from ci_service.services.graph import layout as graph_layout
    from ci_service.services.intel import index as intel_index
    from ci_service.store.db import close_database, database

    if database.obj is not None and getattr(database.obj, "database", None) == url:
        close_database()
    intel_index.reset_index_cache()
    graph_layout.clear_cache()
    postgres_databases.release(url)


def _scoped_database(request, tmp_path_factory, postgres_databases):
    if request.param == "sqlite":
        yield str(tmp_path_factory.mktemp("db") / "ci.db")
        return
    require_postgres(postgres_databases)
    url = postgres_databases.create()
    yield url
    _release(postgres_databases, url)


@pytest.fixture(scope="module", params=BACKENDS)
def module_database_url(request, tmp_path_factory, postgres_databases):
    """A database shared by one module's tests (live servers), on each backend."""
    yield from _scoped_database(request, tmp_path_factory, postgres_databases)


@pytest.fixture(scope="session", params=BACKENDS)
def session_database_url(request, tmp_path_factory, postgres_databases):
    """A database shared by the session's tests (the browser's live app), on each backend."""
    yield from _scoped_database(request, tmp_path_factory, postgres_databases)


@pytest.fixture
def database_url(make_database_url):
    """A fresh database of the backend this run is parametrized with."""
    return make_database_url(name="ci.db")


@pytest.fixture
def settings(database_url):
    return load_settings(
        environ={},
        database=database_url,
        job_workers=0,
        scheduler=False,
        # The test client's requests name http://localhost: the service's address there.
        public_url="http://localhost",
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
    from ci_service.services.identity import users as people
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
def run(make_database_url):
    """run(*args) -> click result: the ci-service CLI on a temporary database."""
    from click.testing import CliRunner

    from ci_service.cli import cli

    database = make_database_url(name="cli.db")

    def invoke(*args):
        result = CliRunner().invoke(cli, ["--database", database, *args])
        assert "Traceback" not in result.output
        return result

    invoke.database = database
    return invoke


SCOPED_BACKEND_PARAMS = ("module_database_url", "session_database_url")


def pytest_collection_modifyitems(config, items):
    """``--backend`` and ``backends`` markers for the module- and session-scoped databases."""
    keep, drop = [], []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        scoped = [params[name] for name in SCOPED_BACKEND_PARAMS if name in params]
        allowed = backends_for(item, config)
        (drop if any(value not in allowed for value in scoped) else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
