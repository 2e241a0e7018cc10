"""Forward-only schema migrations.

Each migration is a named function, applied once, in order, inside the same transaction as
the row that records it in ``schema_migrations``. Migrations never drop user data.

Convention: a migration that creates tables uses the model classes, so a later migration
must not change an existing model's columns in place; it adds them with
``add_column_if_missing`` so both new files and files created by older releases converge.
"""

from __future__ import annotations

from peewee import Database

from ci_service.store.engine import MIGRATE_LOCK, is_postgres

# The registry and the helpers live in migration_registry.py, which schema.py imports (no
# import cycles: schema.py imports the models, and this module imports schema.py). The
# names stay importable from here.
from ci_service.store.migration_registry import (  # noqa: F401
    MIGRATIONS,
    Migration,
    add_column_if_missing,
    migration,
)
from ci_service.timeutil import iso, utcnow


def applied_migrations(db: Database) -> list[str]:
    cursor = db.execute_sql("SELECT name FROM schema_migrations ORDER BY applied_at, name")
    return [row[0] for row in cursor.fetchall()]


def migrate(db: Database) -> list[str]:
    """Apply every pending migration; return the names applied now."""
    _load_all_migrations()
    if not is_postgres(db):
        return _migrate(db)
    # Processes starting at once: the first applies, the others wait, then find it done.
    db.execute_sql("SELECT pg_advisory_lock(%s)", (MIGRATE_LOCK,))
    try:
        return _migrate(db)
    finally:
        db.execute_sql("SELECT pg_advisory_unlock(%s)", (MIGRATE_LOCK,))


def _migrate(db: Database) -> list[str]:
    p = db.param
    db.execute_sql(
        "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT)"
    )
    applied_now = []
    for name, fn in MIGRATIONS:
        with db.atomic():
            # Re-checked inside the write lock: two processes starting at once apply it once.
            done = db.execute_sql(f"SELECT 1 FROM schema_migrations WHERE name = {p}", (name,))
            if done.fetchone():
                continue
            fn(db)
            if is_postgres(db):
                _text_columns(db)  # before a later migration's trigger depends on them
            db.execute_sql(
                f"INSERT INTO schema_migrations (name, applied_at) VALUES ({p}, {p})",
                (name, iso(utcnow())),
            )
            applied_now.append(name)
    return applied_now


def _text_columns(db: Database) -> None:
    """PostgreSQL: every string column is TEXT, as on SQLite.

    peewee declares ``CharField(max_length=n)`` as ``VARCHAR(n)``, which PostgreSQL
    enforces and SQLite does not; lengths are the API's validation's job, so one backend
    must not turn a long crawled URL into an error that the other accepts. Changing
    VARCHAR to TEXT rewrites nothing (they are binary compatible)."""
    rows = db.execute_sql(
        "SELECT table_name, column_name FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND data_type = 'character varying'"
    ).fetchall()
    for table, column in rows:
        db.execute_sql(f'ALTER TABLE "{table}" ALTER COLUMN "{column}" TYPE TEXT')


def _load_all_migrations() -> None:
    # Importing the list registers its migrations in order. Imported here, on first use, so
    # importing this module (db.py does) does not import every model; not a cycle: schema.py
    # imports migration_registry.py, not this module.
    from ci_service.store import schema  # noqa: F401
