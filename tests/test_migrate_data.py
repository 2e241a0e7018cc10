"""``ci-service migrate-data``: a seeded SQLite installation copied into PostgreSQL (and back)
by the real command, then used through the API on the copy.

These tests pick their backends themselves (SQLite source, PostgreSQL destination), so they
do not take the ``backend`` parameter and run once.
"""

from __future__ import annotations

import json
import sqlite3
import threading

import psycopg2
import pytest

from ci_service.jobs.runner import JobRunner
from ci_service.services.identity import api_keys as apikeys
from ci_service.services.workspace.workspaces import create_workspace
from ci_service.settings import load_settings
from ci_service.store.db import connection
from ci_service.store.transfer import model_classes
from ci_service.web.app import create_app, shutdown_app
from tests.backends import postgres_maker
from tests.conftest import ApiClient
from tests.live import LiveServer, run_cli
from tests.resource_helpers import ok
from tests.waiting import wait_for
from tests.workspace_seed import seed_workspace

TAG = "Zephyr"


def make_app(database: str):
    app = create_app(load_settings(environ={}, database=database, job_workers=0, scheduler=False))
    app.config["TESTING"] = True
    return app


def make_api(app) -> ApiClient:
    with connection():
        workspace = create_workspace(f"ws-{TAG}", "ENTERPRISE")
        user = apikeys.ensure_user(workspace, None, "OWNER")
        _row, key = apikeys.create_key(user, name="seed", rate_limit=1_000_000)
    return ApiClient(app.test_client(), key, workspace.id, user.id)


@pytest.fixture
def pg(postgres_databases):
    """pg() -> a new, empty (unmigrated) PostgreSQL database URL, dropped afterwards."""
    yield from postgres_maker(postgres_databases, migrated=False)


@pytest.fixture
def key_file(tmp_path, monkeypatch):
    """PostgreSQL's key file for this test (else it lands in the working directory)."""
    path = tmp_path / "pg-secret.key"
    monkeypatch.setenv("CI_SERVICE_SECRET_KEY_FILE", str(path))
    monkeypatch.delenv("CI_SERVICE_SECRET_KEY", raising=False)
    return path


@pytest.fixture
def small_sqlite(tmp_path):
    """An empty, migrated SQLite installation (path)."""
    from ci_service.store.backup import migrate_database

    path = str(tmp_path / "old.db")
    migrate_database(path)
    return path


@pytest.fixture
def seeded_sqlite(tmp_path, key_file):
    """A SQLite installation with rows of every kind: (path, Seeded)."""
    path = str(tmp_path / "old.db")
    app = make_app(path)
    try:
        runner = JobRunner(0)
        try:
            seeded = seed_workspace(make_api(app), TAG, runner=runner)
        finally:
            runner.stop(5)
    finally:
        shutdown_app(app)
    return path, seeded


def sqlite_rows(path: str, table: str, columns: str = "*") -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(f'SELECT {columns} FROM "{table}"').fetchall()
    finally:
        conn.close()


def pg_rows(url: str, table: str, columns: str = "*") -> list[tuple]:
    conn = psycopg2.connect(url)
    try:
        with conn.cursor() as cursor:
            cursor.execute(f'SELECT {columns} FROM "{table}"')
            return cursor.fetchall()
    finally:
        conn.close()


def migrate_data(source: str, dest: str, *extra: str):
    return run_cli(source, "migrate-data", "--to", dest, *extra)


def test_sqlite_to_postgres_keeps_every_row_and_the_copy_works(
    seeded_sqlite, pg, tmp_path, key_file
):
    source, seeded = seeded_sqlite
    dest = pg()
    done = migrate_data(source, dest, "--json")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    result = json.loads(done.stdout)
    counts = {t["table"]: t["rows"] for t in result["tables"]}

    # Every model table, with the source's count, and the data of every kind is there.
    assert set(counts) == set(model_classes())
    for table, rows in counts.items():
        assert rows == len(sqlite_rows(source, table)), table
    for table in (
        "competitor",
        "intel_item",
        "intel_embedding",
        "tree_node",
        "battlecard",
        "subscription",
        "api_key",
        "job",
        "event",
        "graph_node",
    ):
        assert counts[table] > 0, table
    assert result["rows"] == sum(counts.values())
    assert result["secretsReencrypted"] >= 2  # the webhook's target and signing secret

    # Ids kept, table by table; values converted per type (bool, bytes, JSON) and equal.
    for table, model in model_classes().items():
        key = model._meta.primary_key.column_name
        assert {r[0] for r in sqlite_rows(source, table, key)} == {
            r[0] for r in pg_rows(dest, table, key)
        }, table
    for kind, table in (
        ("competitor", "competitor"),
        ("intel", "intel_item"),
        ("battlecard", "battlecard"),
        ("node", "tree_node"),
    ):
        found = {r[0] for r in pg_rows(dest, table, "id")}
        assert set(seeded.ids[kind]) <= found, kind
    old_vectors = dict(sqlite_rows(source, "intel_embedding", "item_id, vector"))
    new_vectors = {k: bytes(v) for k, v in pg_rows(dest, "intel_embedding", "item_id, vector")}
    assert new_vectors == old_vectors and old_vectors
    old_active = dict(sqlite_rows(source, "offering", "id, is_active"))
    assert dict(pg_rows(dest, "offering", "id, is_active")) == {
        k: bool(v) for k, v in old_active.items()
    }
    old_cells = {r[0]: json.loads(r[1]) for r in sqlite_rows(source, "tree_node", "id, metadata")}
    assert {r[0]: r[1] for r in pg_rows(dest, "tree_node", "id, metadata")} == old_cells

    # The copy serves: the source's API key works, search finds competitor and intel text,
    # and the subscription's secrets decrypt with the destination's key.
    app = make_app(dest)
    try:
        api = ApiClient(app.test_client(), seeded.key, None, None)
        found = ok(api.get("/api/search", query_string={"q": f"{TAG}Rival"}))["results"]
        assert seeded.first("competitor") in {r["id"] for r in found if r["type"] == "competitor"}
        found = ok(api.get("/api/search", query_string={"q": f"{TAG}Evidence: "}))["results"]
        assert {r["id"] for r in found if r["type"] == "intel"} & set(seeded.ids["intel"])
        assert ok(api.get(f"/api/competitors/{seeded.first('competitor')}"))
        from ci_service.services.alerts.subscriptions import read_target, signing_secrets
        from ci_service.store.alerts import Subscription

        with connection():
            row = Subscription.get_by_id(seeded.first("subscription"))
            assert read_target(row) == f"https://{TAG.lower()}-hooks.example/ci"
            assert signing_secrets(row)[0].startswith("whsec_")
    finally:
        shutdown_app(app)
    assert key_file.exists() and result["secretKey"] == str(key_file)

    # And back: PostgreSQL -> a new SQLite file, the same counts again.
    back = str(tmp_path / "back.db")
    done = migrate_data(dest, back, "--json")
    assert done.returncode == 0, done.stderr
    now_in_dest = {table: len(pg_rows(dest, table)) for table in counts}  # the app wrote too
    assert {t["table"]: t["rows"] for t in json.loads(done.stdout)["tables"]} == now_in_dest
    assert (
        sqlite_rows(back, "intel_embedding", "item_id, vector")
        and dict(sqlite_rows(back, "intel_embedding", "item_id, vector")) == old_vectors
    )
    conn = sqlite3.connect(back)
    try:  # the SQLite full-text index was rebuilt on the copy
        hits = conn.execute(
            "SELECT count(*) FROM intel_fts WHERE intel_fts MATCH ?", (f'"{TAG}Evidence"',)
        ).fetchone()[0]
    finally:
        conn.close()
    assert hits >= 1


def test_a_destination_holding_data_is_refused_and_left_as_it_was(seeded_sqlite, pg):
    source, _seeded = seeded_sqlite
    dest = pg()
    assert migrate_data(source, dest).returncode == 0
    before = len(pg_rows(dest, "intel_item"))
    again = migrate_data(source, dest)
    assert again.returncode == 2
    assert "already holds data" in again.stderr and "Traceback" not in again.stderr
    assert len(pg_rows(dest, "intel_item")) == before


@pytest.mark.parametrize(
    ("source", "dest", "message"),
    [
        ("{tmp}/old.db", "mysql://root@localhost/ci", "unsupported database URL scheme 'mysql'"),
        ("{tmp}/missing.db", "{tmp}/new.db", "no database at"),
        (
            "{tmp}/old.db",
            "postgresql://postgres:hunter2@127.0.0.1:5432/ci_no_such_db",
            "cannot connect to postgresql://postgres:***@127.0.0.1:5432/ci_no_such_db",
        ),
        ("{tmp}/old.db", "{tmp}/old.db", "the same file"),
        ("{tmp}/plain.db", "{tmp}/new.db", "not a ci-service database"),
    ],
)
def test_bad_input_is_a_clear_error(small_sqlite, tmp_path, source, dest, message):
    plain = sqlite3.connect(tmp_path / "plain.db")
    plain.execute("CREATE TABLE t (x)")
    plain.close()
    source, dest = source.format(tmp=tmp_path), dest.format(tmp=tmp_path)
    done = run_cli(source, "migrate-data", "--to", dest)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr and "hunter2" not in done.stderr


def test_a_running_installation_is_copied_consistently(seeded_sqlite, pg):
    """Writes keep landing on the source while the copy runs; the copy holds a snapshot
    (counts checked) and the source keeps every write."""
    source, seeded = seeded_sqlite
    dest = pg()
    stop = threading.Event()
    written = []
    errors = []
    with LiveServer(source) as server:
        import httpx

        def write():
            with httpx.Client(base_url=server.url, headers={"X-API-Key": seeded.key}) as http:
                while not stop.is_set():
                    answer = http.post(
                        "/api/intel",
                        json={"content": f"note {len(written)}", "title": "load"},
                    )
                    (written if answer.status_code == 200 else errors).append(answer)

        writer = threading.Thread(target=write)
        writer.start()
        try:
            # The writer is under way: copy now.
            wait_for(lambda: written or errors, 30, message="the writer's first answer")
            done = migrate_data(source, dest, "--json")
        finally:
            stop.set()
            writer.join(30)
    assert not errors, errors[0].text
    assert done.returncode == 0, done.stderr
    copied = {t["table"]: t["rows"] for t in json.loads(done.stdout)["tables"]}["intel_item"]
    total = len(sqlite_rows(source, "intel_item"))
    assert len(pg_rows(dest, "intel_item")) == copied <= total
    assert total - copied <= len(written)
