"""Store setup: pragmas, migrations that are forward-only and idempotent."""

from __future__ import annotations

import pytest

from ci_service.store import migrations
from ci_service.store.db import (
    UnsupportedDatabase,
    database,
    make_database,
    open_database,
    sqlite_path,
)


def test_pragmas(tmp_path):
    db = open_database(str(tmp_path / "p.db"))
    with db.connection_context():
        assert db.execute_sql("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute_sql("PRAGMA foreign_keys").fetchone()[0] == 1
        assert db.execute_sql("PRAGMA busy_timeout").fetchone()[0] >= 5000


def test_migrations_apply_once_in_order(tmp_path):
    db = open_database(str(tmp_path / "m.db"))
    names = [name for name, _ in migrations.MIGRATIONS]
    with db.connection_context():
        assert migrations.applied_migrations(db) == names
        assert migrations.migrate(db) == []  # idempotent


def test_upgrade_from_an_older_file_keeps_data(tmp_path):
    """A file made by the first release (only 0001 applied) upgrades without data loss."""
    path = tmp_path / "old.db"
    db = make_database(str(path))
    database.initialize(db)
    first_name, first = migrations.MIGRATIONS[0]
    with db.connection_context():
        db.execute_sql("CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT)")
        first(db)
        db.execute_sql("INSERT INTO schema_migrations VALUES (?, '2026-01-01')", (first_name,))
        db.execute_sql(
            "INSERT INTO tenant (id, name, plan, created_at) "
            "VALUES ('t1', 'a', 'PRO', '2026-01-01T00:00:00.000000Z')"
        )
        assert "job" not in db.get_tables()
    db.close()

    reopened = open_database(str(path))
    with reopened.connection_context():
        assert migrations.applied_migrations(reopened) == [n for n, _ in migrations.MIGRATIONS]
        assert "job" in reopened.get_tables()
        row = reopened.execute_sql("SELECT name, plan FROM tenant WHERE id = 't1'").fetchone()
        assert row == ("a", "PRO")


def test_sqlite_url_forms(tmp_path):
    assert sqlite_path("sqlite:///tmp/x.db") == "tmp/x.db"
    assert sqlite_path("sqlite:////abs/x.db") == "/abs/x.db"
    assert sqlite_path("./x.db") == "./x.db"
    with pytest.raises(UnsupportedDatabase):
        sqlite_path("mysql://host/db")
