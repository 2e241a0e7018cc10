"""Database setup: SQLite (the default, one file) or PostgreSQL (several processes).

One module-level proxy that every model binds to; the app factory and the CLI initialise it
with a real database (nothing connects at import time).

SQLite runs in WAL mode with foreign keys on and a busy timeout, and every transaction
begins IMMEDIATE: a writer takes the lock up front, so concurrent writers wait on the busy
timeout instead of failing mid-transaction with "database is locked". Threads of one process
queue on a lock of their own before that (``_Transaction``), which wakes them at once.

PostgreSQL (``postgresql://user@host/db``) goes through peewee's pooled PostgreSQL support
on psycopg2. The service's rules were written against SQLite's one-writer-at-a-time
transactions (check a plan limit, then insert; ``MAX(seq) + 1``; the one-active-job check),
so every ``transaction()`` on PostgreSQL takes one transaction-level advisory lock first
(``WRITE_LOCK``): writers are serialized exactly as on SQLite, in every process, while
reads never wait. Hot counters (rate limits, job claims and leases) do not use
``transaction()``: they are single atomic statements or row locks of their own.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from contextlib import ContextDecorator, contextmanager, nullcontext
from pathlib import Path

from peewee import Database, DatabaseProxy, SqliteDatabase
from playhouse.pool import PooledPostgresqlDatabase

database = DatabaseProxy()

SQLITE_BUSY_TIMEOUT = 10  # seconds a writer waits for the lock before "database is locked"
SQLITE_PRAGMAS = {
    "journal_mode": "wal",
    "foreign_keys": 1,
    "busy_timeout": SQLITE_BUSY_TIMEOUT * 1000,
    # WAL + NORMAL is durable against process crashes (SIGKILL); only an OS crash can
    # lose the last transactions, which is the trade every WAL deployment makes.
    "synchronous": "normal",
    # 4 MB of page cache per connection (serve keeps one per thread). At 16 MB, searches
    # at 100k intel items on 8 threads left the process at 241 MB RSS, at 4 MB 168 MB,
    # with no measurable slowdown (issue 16, scripts/bench_search_hot.py).
    "cache_size": -4_000,
    # Statement journals and temporary tables in memory, not in files under /var/tmp: a
    # deal write opened, wrote and deleted one per transaction (issue 16: 196 → 132
    # pwrite calls per deal under 8 clients, `strace -c`).
    "temp_store": "memory",
}

# Column types by backend for our own field types (store/base.py).
SQLITE_FIELD_TYPES = {"JSONTEXT": "TEXT"}
# FLOAT: peewee says REAL (4 bytes) on PostgreSQL; SQLite REAL is 8 bytes, so keep them equal.
POSTGRES_FIELD_TYPES = {"JSONTEXT": "JSONB", "FLOAT": "DOUBLE PRECISION"}

# Advisory lock keys (PostgreSQL). Advisory locks are per database, so two installations
# on one server never share them.
WRITE_LOCK = 7_301_001  # held by every write transaction until it ends
MIGRATE_LOCK = 7_301_002  # held while migrations run (processes starting at once)
SCHEDULER_LOCK = 7_301_003  # held by the one process that runs the scheduler

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
DEFAULT_POOL_SIZE = 20


class UnsupportedDatabase(ValueError):
    pass


def new_id() -> str:
    """A new row id: 32 hex digits in the UUID version 7 layout (RFC 9562), a millisecond
    timestamp followed by 74 random bits. Ids made one after another sort together, so
    the rows and index entries of one write land on the same few B-tree pages instead of
    one random page each: a deal wrote a third of the pages it did with random ids
    (issue 16), on either backend. Still unguessable where it matters: 74 random bits."""
    millis = time.time_ns() // 1_000_000
    rand = int.from_bytes(os.urandom(10), "big")
    value = (millis & 0xFFFF_FFFF_FFFF) << 80 | 0x7 << 76 | (rand >> 62 & 0xFFF) << 64
    value |= 0b10 << 62 | rand & 0x3FFF_FFFF_FFFF_FFFF
    return f"{value:032x}"


def is_postgres_url(url_or_path: str) -> bool:
    return str(url_or_path).startswith(POSTGRES_SCHEMES)


def sqlite_path(url_or_path: str) -> str:
    """The file path behind a plain path or a ``sqlite:///`` URL."""
    text = str(url_or_path)
    if text.startswith("sqlite:///"):
        return text[len("sqlite:///") :] or ":memory:"
    if "://" in text:
        scheme = text.split("://", 1)[0]
        raise UnsupportedDatabase(
            f"unsupported database URL scheme '{scheme}': use a file path, sqlite:///path "
            "or postgresql://user@host/db"
        )
    return text


def redact_url(url_or_path: str) -> str:
    """The database URL with any password replaced, for logs and messages."""
    from urllib.parse import urlsplit, urlunsplit

    text = str(url_or_path)
    if not is_postgres_url(text):
        return text
    parts = urlsplit(text)
    if parts.password is None:
        return text
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def storable_text(text: str) -> str:
    """``text`` as both backends can store it: without NUL characters (PostgreSQL refuses
    them in TEXT and JSONB) and with lone surrogates (not encodable as UTF-8: both backends
    refuse them) replaced by U+FFFD. Neither is text a person wrote; the rest is kept."""
    if "\x00" in text:
        text = text.replace("\x00", "")
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in text)
    return text


class _StorableParams:
    """Every statement's string parameters pass through ``storable_text``, on both backends."""

    def execute_sql(self, sql, params=None):
        if params:
            params = [storable_text(p) if isinstance(p, str) else p for p in params]
        return super().execute_sql(sql, params)


class SQLiteDatabase(_StorableParams, SqliteDatabase):
    backend = "sqlite"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The process's write lock and, once ``keep_writer_connection``, its one writer
        # connection (``_Transaction`` says why).
        self.writer_lock = threading.Lock()
        self.keep_writer = False
        self.writer = None


class PostgresDatabase(_StorableParams, PooledPostgresqlDatabase):
    """Pooled PostgreSQL whose JSONB values arrive as text, as SQLite's do: JSONField
    parses them itself, so both backends give the same Python values."""

    backend = "postgresql"

    def _connect(self):
        import psycopg2.extras

        conn = super()._connect()
        psycopg2.extras.register_default_jsonb(conn, loads=lambda text: text)
        psycopg2.extras.register_default_json(conn, loads=lambda text: text)
        return conn


def make_database(url_or_path: str, *, pool_size: int = DEFAULT_POOL_SIZE) -> Database:
    text = str(url_or_path)
    if is_postgres_url(text):
        if text.startswith("postgres://"):
            text = "postgresql://" + text[len("postgres://") :]
        return PostgresDatabase(
            text,
            max_connections=pool_size,
            stale_timeout=300,
            timeout=30,  # wait this long for a free pooled connection, then fail
            field_types=POSTGRES_FIELD_TYPES,
        )
    path = sqlite_path(text)
    if path != ":memory:":
        Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        path = str(Path(path).expanduser())
    return SQLiteDatabase(
        path,
        pragmas=SQLITE_PRAGMAS,
        timeout=SQLITE_BUSY_TIMEOUT,
        lock_type="IMMEDIATE",
        field_types=SQLITE_FIELD_TYPES,
    )


def is_postgres(db: Database | None = None) -> bool:
    db = db if db is not None else database.obj
    return getattr(db, "backend", None) == "postgresql"


def open_database(url_or_path: str, *, pool_size: int = DEFAULT_POOL_SIZE) -> Database:
    """Bind the models to the database at ``url_or_path`` and bring its schema up to date."""
    from ci_service.store.migrations import migrate

    db = make_database(url_or_path, pool_size=pool_size)
    database.initialize(db)
    with db.connection_context():
        migrate(db)
    return db


def close_database(db: Database | None = None) -> None:
    """Close every connection of ``db`` (PostgreSQL: the whole pool)."""
    db = db if db is not None else database.obj
    if db is None:
        return
    if not db.is_closed():
        db.close()
    writer = getattr(db, "writer", None)
    if writer is not None:
        with db.writer_lock:
            db.writer = None
            writer.close()
    close_all = getattr(db, "close_all", None)
    if close_all is not None:
        close_all()


def keep_writer_connection(db: Database) -> None:
    """Let write transactions on ``db`` (SQLite) share one connection that stays open until
    ``close_database``: for the long-running processes (``serve``, ``worker``). Elsewhere
    (the CLI, tests) a transaction writes on its thread's connection, so closing that
    leaves nothing open on the file."""
    if isinstance(db, SQLiteDatabase):
        db.keep_writer = True


def _writer_connection(db: SQLiteDatabase):
    """The SQLite connection every write transaction of this process uses (made on first
    use; call with the writer lock held). None unless ``keep_writer_connection``, or for
    an in-memory database, where each connection is a database of its own."""
    if db.writer is None and db.keep_writer and db.database != ":memory:":
        params = {**db.connect_params, "check_same_thread": False}  # one thread at a time
        conn = sqlite3.connect(db.database, timeout=db._timeout, isolation_level=None, **params)
        db._add_conn_hooks(conn)  # the same pragmas and functions as peewee's connections
        db.writer = conn
    return db.writer


_STATE = ("conn", "closed", "ctx", "transactions", "commit_callbacks")


class _Transaction(ContextDecorator):
    """``database.atomic()`` that, when it is the outermost transaction (nested calls are
    savepoints and already hold it), takes the write lock: ``WRITE_LOCK`` on PostgreSQL;
    on SQLite a lock of this process, then ``BEGIN IMMEDIATE`` on the process's one
    writer connection.

    Why, on SQLite (issue 16): a writer that finds the file locked sleeps in SQLite's busy
    handler (1, 2, 5, 10 … 100 ms) and polls, so threads of one server writing at once
    spent most of their time asleep while the lock was free; threads queued on a Python
    lock wake the moment it is released. And a connection drops its page cache whenever
    another connection has written, so with each thread writing through its own, every
    write began by reading its B-tree pages again (about 120 reads per deal); one writer
    connection keeps them (in ``serve`` and ``worker``: ``keep_writer_connection``). The
    thread's own connection is put back when the transaction ends. Other processes on the
    file still meet SQLite's busy timeout; a thread that can't get the process lock within
    that timeout writes on its own connection and waits in ``BEGIN IMMEDIATE``, as
    before."""

    def __enter__(self):
        # Decided before entering: peewee counts transactions, not savepoints, so the depth
        # inside a nested call is still 1.
        outermost = database.transaction_depth() == 0
        postgres = is_postgres()
        self._lock = self._saved = None
        if outermost and not postgres:
            self._use_writer(database.obj)
        self._atomic = database.atomic()
        try:
            txn = self._atomic.__enter__()
        except BaseException:
            self._release()
            raise
        if outermost and postgres:
            try:
                database.execute_sql("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
            except BaseException as exc:
                self._atomic.__exit__(type(exc), exc, exc.__traceback__)
                raise
        return txn

    def __exit__(self, exc_type, exc, tb):
        try:
            return self._atomic.__exit__(exc_type, exc, tb)
        finally:
            self._release()

    def _use_writer(self, db: SQLiteDatabase) -> None:
        lock = db.writer_lock
        if not lock.acquire(timeout=SQLITE_BUSY_TIMEOUT):
            return
        self._lock = lock
        try:
            writer = _writer_connection(db)
        except BaseException:
            self._release()
            raise
        if writer is not None:
            state = db._state
            self._saved = (state, tuple(getattr(state, name) for name in _STATE))
            state.set_connection(writer)

    def _release(self) -> None:
        if self._saved is not None:
            state, values = self._saved
            for name, value in zip(_STATE, values, strict=True):
                setattr(state, name, value)
            self._saved = None
        if self._lock is not None:
            self._lock.release()
            self._lock = None


def transaction():
    """One write unit: BEGIN IMMEDIATE ... COMMIT on SQLite, BEGIN + the write lock on
    PostgreSQL (nested calls become savepoints)."""
    return _Transaction()


def joined_transaction():
    """The open transaction, joined as it is, or a new one: for a write that commits or
    fails with its caller's, where a savepoint would be two statements more for nothing
    (the caller's transaction fails as a whole anyway)."""
    return nullcontext() if database.transaction_depth() > 0 else transaction()


@contextmanager
def connection():
    """A connection for work outside a request (jobs, CLI); reuses an open one."""
    if database.is_closed():
        with database.connection_context():
            yield database
    else:
        yield database
