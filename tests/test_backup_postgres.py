"""``ci-service backup`` / ``restore`` on PostgreSQL (pg_dump / pg_restore), through the real
command. PostgreSQL only, so these tests do not take the ``backend`` parameter: they run once.
"""

from __future__ import annotations

import threading

import httpx
import psycopg2
import pytest

from ci_service.store.pg_backup import connection_args
from tests.backends import postgres_maker
from tests.live import LiveServer, run_cli
from tests.waiting import wait_for

PASSWORD = "hunter2-not-logged"


@pytest.fixture
def pg(postgres_databases):
    """pg(migrated=True) -> a new PostgreSQL database URL, dropped afterwards."""
    yield from postgres_maker(postgres_databases)


@pytest.fixture(autouse=True)
def key_file(tmp_path, monkeypatch):
    monkeypatch.setenv("CI_SERVICE_SECRET_KEY_FILE", str(tmp_path / "pg-secret.key"))


def with_password(url: str) -> str:
    # The test server trusts every local connection, so any password is accepted: it only
    # has to stay out of output.
    return url.replace("postgres@", f"postgres:{PASSWORD}@", 1)


def workspace_names(url: str) -> set[str]:
    conn = psycopg2.connect(url)
    try:
        with conn.cursor() as cursor:
            cursor.execute("SELECT name FROM workspace")
            return {r[0] for r in cursor.fetchall()}
    finally:
        conn.close()


def count(url: str, table: str) -> int:
    conn = psycopg2.connect(url)
    try:
        with conn.cursor() as cursor:
            cursor.execute(f'SELECT count(*) FROM "{table}"')
            return cursor.fetchone()[0]
    finally:
        conn.close()


def ok(done, *needles: str) -> str:
    assert done.returncode == 0, done.stderr
    out = done.stdout + done.stderr
    assert PASSWORD not in out and "Traceback" not in out
    for needle in needles:
        assert needle in out
    return out


def refused(done, *needles: str) -> str:
    assert done.returncode == 1, (done.stdout, done.stderr)
    out = done.stdout + done.stderr
    assert PASSWORD not in out and "Traceback" not in out
    for needle in needles:
        assert needle in out, out
    return out


def test_backup_then_restore_brings_the_database_back(pg, tmp_path):
    url = with_password(pg())
    dump = tmp_path / "ci.dump"
    ok(run_cli(url, "workspaces", "create", "before"))
    ok(run_cli(url, "backup", str(dump)), "Backed up", str(dump))
    assert dump.read_bytes()[:5] == b"PGDMP"
    refused(run_cli(url, "backup", str(dump)), "already exists; use --force")

    ok(run_cli(url, "workspaces", "create", "after"))
    assert workspace_names(url) == {"before", "after"}
    refused(run_cli(url, "restore", str(dump)), "already holds a ci-service database")
    ok(run_cli(url, "restore", str(dump), "--force"), "Restored")
    assert workspace_names(url) == {"before"}  # the later write is gone
    ok(run_cli(url, "workspaces", "create", "again"))  # and the database works on

    # Into a new, empty database: no --force needed.
    fresh = pg(migrated=False)
    ok(run_cli(fresh, "restore", str(dump)), "Restored")
    assert workspace_names(fresh) == {"before"}


def test_backup_while_serving_is_consistent_and_restore_waits_for_the_server(pg, tmp_path):
    url = pg()
    ok(run_cli(url, "workspaces", "create", "busy", "--plan", "ENTERPRISE"))
    minted = run_cli(url, "keys", "create", "--workspace", "busy", "--name", "k")
    ok(minted)
    key = minted.stdout.split()[-1]
    dump = tmp_path / "busy.dump"
    written, errors = [], []
    stop = threading.Event()
    with LiveServer(url) as server:

        def write():
            with httpx.Client(base_url=server.url, headers={"X-API-Key": key}) as http:
                while not stop.is_set():
                    answer = http.post("/api/intel", json={"content": f"n{len(written)}"})
                    (written if answer.status_code == 200 else errors).append(answer)

        writer = threading.Thread(target=write)
        writer.start()
        try:
            wait_for(lambda: written or errors, 30, message="the writer's first answer")
            ok(run_cli(url, "backup", str(dump)))
            # The server holds connections: a restore is refused, even with --force.
            refused(run_cli(url, "restore", str(dump), "--force"), "in use by")
        finally:
            stop.set()
            writer.join(30)
    assert not errors, errors[0].text
    fresh = pg(migrated=False)
    ok(run_cli(fresh, "restore", str(dump)))
    restored = count(fresh, "intel_item")
    assert 0 < restored <= count(url, "intel_item")
    # One snapshot: every restored item has its search columns and workspace.
    conn = psycopg2.connect(fresh)
    try:
        with conn.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM intel_item i LEFT JOIN workspace w "
                "ON w.id = i.workspace_id WHERE w.id IS NULL"
            )
            assert cursor.fetchone()[0] == 0
    finally:
        conn.close()


def test_missing_tools_and_wrong_files_are_clear_errors(pg, tmp_path):
    url = pg()
    dump = tmp_path / "x.dump"
    out = refused(run_cli(url, "backup", str(dump), env={"PATH": ""}), "pg_dump is not on PATH")
    assert "postgresql-client" in out and not dump.exists()
    ok(run_cli(url, "backup", str(dump)))
    refused(run_cli(url, "restore", str(dump), "--force", env={"PATH": ""}), "pg_restore")

    # A SQLite backup into PostgreSQL, and a PostgreSQL dump into SQLite: said, not tried.
    sqlite_db = tmp_path / "ci.db"
    ok(run_cli(str(sqlite_db), "workspaces", "create", "lite"))
    ok(run_cli(str(sqlite_db), "backup", str(tmp_path / "lite.bak")))
    refused(
        run_cli(url, "restore", str(tmp_path / "lite.bak"), "--force"),
        "is a SQLite backup",
        "migrate-data",
    )
    refused(run_cli(str(tmp_path / "new.db"), "restore", str(dump)), "is a PostgreSQL dump")
    junk = tmp_path / "junk.dump"
    junk.write_bytes(b"not a dump at all")
    refused(run_cli(url, "restore", str(junk), "--force"), "not a pg_dump archive")


def test_the_password_goes_in_the_environment_never_on_the_command_line():
    dsn, env = connection_args(f"postgresql://ci:{PASSWORD}@db.example:5433/ci?sslmode=require")
    assert PASSWORD not in dsn and env["PGPASSWORD"] == PASSWORD
    assert dsn == "postgresql://ci@db.example:5433/ci?sslmode=require"
    dsn, env = connection_args("postgres://ci@db.example/ci?password=p%40ss")
    assert "p@ss" not in dsn and "pass" not in dsn and env["PGPASSWORD"] == "p@ss"
