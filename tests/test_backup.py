"""``ci-service backup`` and ``ci-service restore``.

- A backup taken while eight clients write deals as fast as they can restores into a
  database that is intact, holds every deal acknowledged before the backup began, and no
  half-written deal.
- A restore into the database of a running server is refused (even with --force); once the
  server is gone (here: SIGKILLed, so a -wal file with the newest writes is left beside the
  database), --force replaces it and the server comes back with exactly the backup's data.
- A corrupt file, a file that is not a database, a database that is not ci-service's and an
  existing destination (without --force) are refused with a one-line error, leaving
  nothing behind; a backup from an older schema comes back upgraded.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import httpx
import pytest

from ci_service.store.backup import BackupError, backup_database, restore_database
from ci_service.store.db import database, make_database, open_database
from ci_service.store.migrations import MIGRATIONS, _load_all_migrations, applied_migrations
from tests.live import LiveServer, run_cli
from tests.test_crash_safety import DealBurst, deal_graph_problems, integrity, seed
from tests.waiting import wait_for

SERVE_ARGS = ("--threads", "8", "--no-scheduler", "--job-workers", "0")


def cli_error(result) -> str:
    """A failed command: exit 1, one 'Error: ...' line, never a traceback."""
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    return lines[0]


def deal_ids(database_path: Path) -> set[str]:
    conn = sqlite3.connect(database_path)
    try:
        return {row[0] for row in conn.execute("SELECT id FROM deal")}
    finally:
        conn.close()


def test_backup_under_write_load_restores_complete_and_intact(tmp_path):
    live_db, backup, restored = tmp_path / "ci.db", tmp_path / "backup.db", tmp_path / "r.db"
    ctx = seed(live_db)
    with LiveServer(str(live_db), *SERVE_ARGS) as server:
        burst = DealBurst(server.url, ctx["key"], ctx["competitor_id"]).start()
        try:
            wait_for(lambda: len(burst.acked) >= 40, timeout=30)
            acked_before = {deal_id for deal_id, _ in burst.acked}
            result = run_cli(str(live_db), "backup", str(backup), "--json")
            acked_during = len(burst.acked)
            wait_for(lambda: len(burst.acked) > acked_during, timeout=10)  # still writing
        finally:
            burst.join()
        assert set(burst.statuses) == {200}, burst.statuses
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["path"] == str(backup) and report["size"] == backup.stat().st_size > 0
    assert report["pages"] > 0 and report["seconds"] >= 0
    assert not Path(f"{backup}-wal").exists()  # one self-contained file
    assert not list(tmp_path.glob(".backup.db.*"))  # no temporary file left behind

    in_backup = deal_ids(backup)
    assert acked_before <= in_backup  # everything acknowledged before the backup began
    assert in_backup <= deal_ids(live_db)  # and nothing that was never committed

    result = run_cli(str(restored), "restore", str(backup), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["migrationsApplied"] == []
    assert integrity(restored) == ("ok", [])
    count, problems = deal_graph_problems(restored, waiting_ok=True)
    assert problems == [] and count == len(in_backup) >= 40

    with LiveServer(str(restored), *SERVE_ARGS) as server:  # the key and data are back
        headers = {"X-API-Key": ctx["key"]}
        listed = httpx.get(server.url + "/api/deals", headers=headers, timeout=10)
        assert listed.status_code == 200
        assert {d["id"] for d in listed.json()["deals"]} == in_backup
        graph = httpx.get(server.url + "/api/knowledge-graph", headers=headers, timeout=10)
        labels = {n["data"]["label"] for n in graph.json()["elements"]["nodes"]}
        assert {"DEAL", "ARGUMENT", "COMPETITOR"} <= labels


def test_restore_is_refused_while_serving_and_replaces_a_crashed_database(tmp_path):
    live_db, backup = tmp_path / "ci.db", tmp_path / "backup.db"
    ctx = seed(live_db)
    headers = {"X-API-Key": ctx["key"]}
    body = {"prospectCompanyName": "Kept", "outcome": "WON", "arguments": ["price"]}
    server = LiveServer(str(live_db), *SERVE_ARGS).start()
    try:
        kept = httpx.post(server.url + "/api/deals", json=body, headers=headers).json()["deal"]
        assert run_cli(str(live_db), "backup", str(backup)).returncode == 0
        body["prospectCompanyName"] = "Dropped"
        dropped = httpx.post(server.url + "/api/deals", json=body, headers=headers).json()
        # The server is idle between requests, yet it is seen: --force does not help.
        message = cli_error(run_cli(str(live_db), "restore", str(backup), "--force"))
        assert "in use" in message and "serve" in message
        deals = httpx.get(server.url + "/api/deals", headers=headers).json()["deals"]
        assert len(deals) == 2  # untouched
    finally:
        server.kill()  # a crash: the last writes are still in the -wal file beside it
    assert Path(f"{live_db}-wal").stat().st_size > 0
    assert "already exists" in cli_error(run_cli(str(live_db), "restore", str(backup)))

    result = run_cli(str(live_db), "restore", str(backup), "--force")
    assert result.returncode == 0, result.stderr
    assert "Restored" in result.stdout
    with LiveServer(str(live_db), *SERVE_ARGS) as server:
        base = server.url + "/api/deals/"
        assert httpx.get(base + kept["id"], headers=headers).status_code == 200
        assert httpx.get(base + dropped["deal"]["id"], headers=headers).status_code == 404
    assert integrity(live_db) == ("ok", [])


@pytest.fixture
def good_backup(tmp_path):
    source = tmp_path / "source.db"
    seed(source)
    backup = tmp_path / "good.db"
    result = backup_database(str(source), backup)
    assert result["path"] == str(backup) and result["pages"] > 0
    return backup


def corrupt_index(path: Path) -> None:
    """Empty the pages of one index: the table's rows are missing from it."""
    conn = sqlite3.connect(path)
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'workspace_name'")
    page = root.fetchone()[0]
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    empty_leaf = bytes([0x0A, 0, 0, 0, 0, 0x10, 0, 0]).ljust(page_size, b"\0")
    with open(path, "r+b") as f:
        f.seek((page - 1) * page_size)
        f.write(empty_leaf)


def test_restore_refuses_bad_backups_and_leaves_nothing_behind(tmp_path, good_backup):
    dest = tmp_path / "new" / "ci.db"
    cases = {}
    corrupt = tmp_path / "corrupt.db"
    shutil.copy(good_backup, corrupt)
    corrupt_index(corrupt)
    cases[corrupt] = "failed the integrity check: row 1 missing from index workspace_name"
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"definitely not sqlite\n" * 400)
    cases[garbage] = "is not a SQLite database"
    foreign = tmp_path / "foreign.db"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.commit()
    conn.close()
    cases[foreign] = "is not a ci-service database"
    cases[tmp_path / "missing.db"] = "no backup file at"

    for path, expected in cases.items():
        with pytest.raises(BackupError, match=expected):
            restore_database(path, str(dest))
        message = cli_error(run_cli(str(dest), "restore", str(path), "--force"))
        assert expected in message and str(path) in message
        assert not dest.parent.exists()  # not even its directory


def test_restore_and_backup_never_overwrite_without_force(tmp_path, good_backup):
    dest = tmp_path / "existing.db"
    dest.write_bytes(b"precious")
    message = cli_error(run_cli(f"sqlite:///{dest}", "restore", str(good_backup)))
    assert "already exists; use --force" in message
    assert dest.read_bytes() == b"precious"

    source = good_backup  # any ci-service database will do as a source
    message = cli_error(run_cli(str(source), "backup", str(dest)))
    assert "already exists; use --force" in message
    assert dest.read_bytes() == b"precious"
    # Not even --force replaces a file that is not a database: a wrong path, most likely.
    message = cli_error(run_cli(str(dest), "restore", str(good_backup), "--force"))
    assert "is not a SQLite database" in message and "remove it first" in message
    assert dest.read_bytes() == b"precious"
    result = run_cli(str(source), "backup", str(dest), "--force")
    assert result.returncode == 0, result.stderr
    assert "Backed up" in result.stdout and integrity(dest) == ("ok", [])

    assert "no database at" in cli_error(run_cli(str(tmp_path / "nope.db"), "backup", "x.db"))
    message = cli_error(run_cli(str(source), "backup", str(source), "--force"))
    assert "is the database itself" in message
    message = cli_error(run_cli(str(source), "backup", str(tmp_path / "no-dir" / "b.db")))
    assert "does not exist" in message
    foreign = tmp_path / "foreign.db"
    sqlite3.connect(foreign).execute("CREATE TABLE notes (body TEXT)").connection.close()
    message = cli_error(run_cli(str(foreign), "backup", str(tmp_path / "f.db")))
    assert "is not a ci-service database" in message


def test_restore_upgrades_a_backup_from_an_older_schema(tmp_path):
    _load_all_migrations()
    older = tmp_path / "older.db"
    db = make_database(str(older))
    previous = database.obj
    database.initialize(db)
    try:
        with db.connection_context():
            db.execute_sql(
                "CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT)"
            )
            for name, apply in MIGRATIONS[:-1]:  # a release before the latest migration
                with db.atomic():
                    apply(db)
                    db.execute_sql(
                        "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                        (name, "2026-01-01T00:00:00.000000Z"),
                    )
    finally:
        database.initialize(previous)

    dest = tmp_path / "upgraded.db"
    result = restore_database(older, str(dest))
    assert result["migrationsApplied"] == [MIGRATIONS[-1][0]]
    upgraded = open_database(str(dest))
    with upgraded.connection_context():
        assert applied_migrations(upgraded) == [name for name, _ in MIGRATIONS]
    assert integrity(dest) == ("ok", [])
