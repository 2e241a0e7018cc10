"""Database setup.

One module-level proxy that every model binds to; the app factory and the CLI initialise it
with a real database (nothing connects at import time). SQLite runs in WAL mode with foreign
keys on and a busy timeout, and every transaction begins IMMEDIATE: a writer takes the lock
up front, so concurrent writers wait on the busy timeout instead of failing mid-transaction
with "database is locked".
"""

from __future__ import annotations

import uuid
from contextlib import contextmanager
from pathlib import Path

from peewee import Database, DatabaseProxy, SqliteDatabase

database = DatabaseProxy()

SQLITE_PRAGMAS = {
    "journal_mode": "wal",
    "foreign_keys": 1,
    "busy_timeout": 10_000,
    # WAL + NORMAL is durable against process crashes (SIGKILL); only an OS crash can
    # lose the last transactions, which is the trade every WAL deployment makes.
    "synchronous": "normal",
    "cache_size": -16_000,
}


class UnsupportedDatabase(ValueError):
    pass


def new_id() -> str:
    return uuid.uuid4().hex


def sqlite_path(url_or_path: str) -> str:
    """The file path behind a plain path or a ``sqlite:///`` URL."""
    text = str(url_or_path)
    if text.startswith("sqlite:///"):
        return text[len("sqlite:///") :] or ":memory:"
    if "://" in text:
        scheme = text.split("://", 1)[0]
        raise UnsupportedDatabase(
            f"unsupported database URL scheme '{scheme}': use a file path or sqlite:///path"
        )
    return text


def make_database(url_or_path: str) -> Database:
    path = sqlite_path(url_or_path)
    if path != ":memory:":
        Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        path = str(Path(path).expanduser())
    return SqliteDatabase(path, pragmas=SQLITE_PRAGMAS, timeout=10, lock_type="IMMEDIATE")


def open_database(url_or_path: str) -> Database:
    """Bind the models to the database at ``url_or_path`` and bring its schema up to date."""
    from ci_service.store.migrations import migrate

    db = make_database(url_or_path)
    database.initialize(db)
    with db.connection_context():
        migrate(db)
    return db


def transaction():
    """One write unit: BEGIN IMMEDIATE ... COMMIT (nested calls become savepoints)."""
    return database.atomic()


@contextmanager
def connection():
    """A connection for work outside a request (jobs, CLI); reuses an open one."""
    if database.is_closed():
        with database.connection_context():
            yield database
    else:
        yield database
