"""Database setup: SQLite (the default, one file) or PostgreSQL (several processes).

One module-level proxy that every model binds to; the app factory and the CLI initialise it
with a real database (nothing connects at import time). The proxy, ``new_id``,
``is_postgres`` and the write transactions (``transaction``) live in engine.py, which imports
no model, and are re-exported here: this module runs the migrations, which import every
model, so the models importing it would make an import cycle.

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

When the database goes away (issue 25): a PostgreSQL connection the server closed (a
restart, a failover, ``pg_terminate_backend``, a pooler's or ``idle_session_timeout``'s
cut) is noticed without a round trip when it is checked out of the pool and before each
request (``open_checked``), and replaced; ``outage`` tells a lost connection (and SQLite's
lock held past the busy timeout) from other errors, for the web layer to retry a read or
answer 503; ``discard_connection`` drops a broken one without returning it to the pool.
"""

from __future__ import annotations

import logging
import threading
from contextlib import contextmanager
from pathlib import Path

from peewee import Database, InterfaceError, OperationalError, SqliteDatabase
from playhouse.pool import PooledPostgresqlDatabase

from ci_service.store.connection_health import (
    LOST,
    connection_is_dead,
    postgres_connection_lost,
    sqlite_outage,
)

# Re-exported: the rest of the service imports these from here; engine.py says why they
# live there.
from ci_service.store.engine import (  # noqa: F401
    MIGRATE_LOCK,
    WRITE_LOCK,
    database,
    is_postgres,
    joined_transaction,
    new_id,
    transaction,
)
from ci_service.store.migrations import migrate

log = logging.getLogger("ci_service.db")

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
    # with no measurable slowdown (issue 16, bench/search_hot.py).
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

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
DEFAULT_POOL_SIZE = 20


class UnsupportedDatabase(ValueError):
    pass


MISSING_DRIVER = 'PostgreSQL needs its driver: pip install "ci-service[postgresql]"'


class MissingDriver(Exception):
    """A postgresql:// database without its driver (psycopg2) installed. Not a ValueError:
    the CLI's handlers of bad URLs let it by, to the one line its root group prints."""


def require_postgres_driver() -> None:
    """Raise MissingDriver unless psycopg2 imports (peewee would fail later, on connect, with
    a traceback that does not say what to install)."""
    try:
        import psycopg2  # noqa: F401
    except ImportError:
        raise MissingDriver(MISSING_DRIVER) from None


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


_thread = threading.local()  # per thread: commits made (``commit_count``)


class _ConnectionUpkeep:
    """What both backends add to peewee's connection handling: commits counted per thread
    (so a request can tell whether it has written anything before it is run again,
    web/outages.py), and ``discard_connection``."""

    def commit(self):
        super().commit()
        self.count_commit()

    @staticmethod
    def count_commit() -> None:
        """One more commit of this thread's (also called for a write whose shared commit
        another thread ran: engine.py's group commit)."""
        _thread.commits = getattr(_thread, "commits", 0) + 1

    def connect(self, reuse_if_open=False):
        # A connection discarded inside ``connection_context()`` and opened again stays in
        # that context, so its exit still closes (returns) the new one. peewee's connect
        # starts from a clean state, which would leave the context's exit nothing to pop.
        ctx = self._state.ctx
        opened = super().connect(reuse_if_open)
        if opened and ctx and not self._state.ctx:
            self._state.ctx = ctx
        return opened

    def discard_connection(self) -> None:
        """Drop this thread's connection (broken, or of no further use); the next statement
        opens a new one. Not inside a transaction block: its transaction went with the
        connection, and the block's end would find none."""
        state = self._state
        conn, ctx = state.conn, state.ctx
        state.reset()
        state.ctx = ctx
        if conn is not None:
            self._drop(conn)


class SQLiteDatabase(_ConnectionUpkeep, _StorableParams, SqliteDatabase):
    backend = "sqlite"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The process's write lock and, once ``keep_writer_connection``, its one writer
        # connection (``_Transaction`` says why).
        self.writer_lock = threading.Lock()
        self.keep_writer = False
        self.writer = None
        self.checkpointer = None  # with the writer: store/checkpoints.py
        # Group commit on the writer connection (engine.py): the open shared transaction
        # and how many threads wait for the write lock.
        self.batch = None
        self.writers_waiting = 0
        self.waiting_lock = threading.Lock()
        # With the writer: the WAL index's header, which tells of any commit without a
        # statement (store/wal_header.py, store/change_token.py); opened on first use.
        self.wal_header = None
        self._wal_header_lock = threading.Lock()
        self._wal_header_tried = False

    def open_checked(self) -> None:
        """This thread's connection, opened unless it is: a file connection does not break
        when something else happens to the database."""
        self.connect(reuse_if_open=True)

    def _drop(self, conn) -> None:
        if conn is not self.writer:  # the writer is the process's, closed with it
            conn.close()

    def commit_signal(self):
        """The WAL index's header of this file in a process that keeps its writer
        (``serve``, ``worker``), mapped on the first call, not at start-up; None elsewhere,
        or where it cannot be mapped (store/change_token.py then asks SQLite)."""
        if not self._wal_header_tried and self.keep_writer:
            with self._wal_header_lock:
                if not self._wal_header_tried:
                    from ci_service.store.wal_header import WalHeader  # ctypes: not at start

                    self.wal_header = WalHeader.open(self.database)
                    self._wal_header_tried = True
        return self.wal_header

    def close_idle_connections(self) -> None:
        """No pool: each thread holds its own file connection."""

    def release_connection(self) -> None:
        """Kept open: a file connection holds no server slot, and a thread that only
        touches its job row fills a few pages of its cache, not ``cache_size``."""

    def outage(self, exc: BaseException) -> str | None:
        return sqlite_outage(exc)


class PostgresDatabase(_ConnectionUpkeep, _StorableParams, PooledPostgresqlDatabase):
    """Pooled PostgreSQL whose JSONB values arrive as text, as SQLite's do: JSONField
    parses them itself, so both backends give the same Python values.

    A connection the server has closed is noticed (``connection_is_dead``: no round trip
    while the socket is quiet) on checkout from the pool and, for the connections ``serve``
    keeps per thread, before each request, and is dropped: taken out of the pool's
    bookkeeping (``_in_use``) and closed once, so the pool never hands it out again and
    never counts it against ``max_connections``."""

    backend = "postgresql"

    def _connect(self):
        import psycopg2.extras

        conn = super()._connect()
        psycopg2.extras.register_default_jsonb(conn, loads=lambda text: text)
        psycopg2.extras.register_default_json(conn, loads=lambda text: text)
        return conn

    def _is_closed(self, conn):
        # The pool asks this of an idle connection it is about to hand out (under its lock,
        # before it enters ``_in_use``): peewee's own check is a SELECT 1 round trip each time.
        if connection_is_dead(conn):
            self._close_raw(conn)  # its socket now, not at garbage collection
            return True
        return False

    def open_checked(self) -> None:
        """This thread's connection: the one it holds if that is alive, else a new one."""
        state = self._state
        if not state.closed and not state.transactions and connection_is_dead(state.conn):
            log.warning("database connection lost (closed by the server); opening a new one")
            self.discard_connection()
        self.connect(reuse_if_open=True)

    def _drop(self, conn) -> None:
        # Out of the pool's bookkeeping, never back into it: its slot is free for a new one.
        with self._pool_lock:
            self._in_use.pop(self.conn_key(conn), None)
            self._pool_available.notify()  # a thread waiting for a free slot may go on
        self._close_raw(conn)

    def close_idle_connections(self) -> None:
        self.close_idle()  # under the pool lock: none is being handed out meanwhile

    def outage(self, exc: BaseException) -> str | None:
        return LOST if postgres_connection_lost(exc, self._state.conn) else None

    def release_connection(self) -> None:
        """Give this thread's connection back to the pool (not inside a transaction); the
        next statement takes one again."""
        state = self._state
        if state.closed or state.transactions:
            return
        conn, ctx = state.conn, state.ctx
        state.reset()
        state.ctx = ctx
        self._close(conn)


def make_database(url_or_path: str, *, pool_size: int = DEFAULT_POOL_SIZE) -> Database:
    text = str(url_or_path)
    if is_postgres_url(text):
        require_postgres_driver()
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


def open_database(url_or_path: str, *, pool_size: int = DEFAULT_POOL_SIZE) -> Database:
    """Bind the models to the database at ``url_or_path`` and bring its schema up to date."""
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
    checkpointer = getattr(db, "checkpointer", None)
    if checkpointer is not None:
        db.checkpointer = None
        checkpointer.stop()
    wal_header = getattr(db, "wal_header", None)
    if wal_header is not None:
        db.wal_header = None
        wal_header.close()
    close_all = getattr(db, "close_all", None)
    if close_all is not None:
        close_all()


def keep_writer_connection(db: Database) -> None:
    """Let write transactions on ``db`` (SQLite) share one connection that stays open until
    ``close_database``: for the long-running processes (``serve``, ``worker``). Elsewhere
    (the CLI, tests) a transaction writes on its thread's connection, so closing that
    leaves nothing open on the file. These processes also read the WAL index's header
    for the key check's change token (``SQLiteDatabase.commit_signal``)."""
    if isinstance(db, SQLiteDatabase):
        db.keep_writer = True


@contextmanager
def connection():
    """A connection for work outside a request (jobs, CLI); reuses an open one."""
    if database.is_closed():
        with database.connection_context():
            yield database
    else:
        yield database


def open_checked() -> bool:
    """Before a request: this thread's connection, replaced if the server closed it. False
    when none can be opened now; the request then meets that at its first statement (an
    outage: 503), and /healthz reports it."""
    try:
        database.obj.open_checked()
    except (OperationalError, InterfaceError) as exc:
        log.debug("could not open a database connection: %s", exc)
        return False
    return True


def discard_connection() -> None:
    """Drop this thread's connection (broken, or of no further use); the next statement
    opens a new one."""
    database.obj.discard_connection()


def connection_lost() -> None:
    """This thread's connection broke: drop it, and on PostgreSQL the pool's idle ones too.
    Whatever cut one (a restart, a failover, ``pg_terminate_backend``) most likely cut the
    others, and a terminated backend's socket may not show it for a few milliseconds, so
    the pool's check on checkout could hand one out: the next statement opens a new one."""
    db = database.obj
    db.discard_connection()
    db.close_idle_connections()


def release_connection() -> None:
    """Let a thread that will wait a long while (a crawl between its polite requests, a
    job waiting for a processing slot) give its connection up: back to the pool on
    PostgreSQL, so a pool smaller than the number of such threads is not used up by
    waiting. SQLite keeps its file connection (``SQLiteDatabase.release_connection``)."""
    db = database.obj
    if db is not None:
        db.release_connection()


def outage(exc: BaseException) -> str | None:
    """``LOST`` when ``exc`` means this thread's connection broke or could not be opened (a
    new one may work at once), ``BUSY`` when SQLite's write lock stayed taken past the
    busy timeout, None for any other error (the statement's own fault)."""
    db = database.obj
    return db.outage(exc) if db is not None else None


def ping() -> bool:
    """Whether the database answers ``SELECT 1``, trying once more on a new connection when
    this thread's fails (one a restart closed, say): new, not one of the pool's."""
    for _attempt in range(2):
        try:
            database.execute_sql("SELECT 1").fetchone()
            return True
        except Exception as exc:  # whatever failed, the next try starts from a new connection
            log.debug("database ping failed: %s", exc)
            connection_lost()  # the pool's idle ones most likely went with it
    return False


def commit_count() -> int:
    """How many transactions this thread has committed (ever): compare two readings to see
    whether anything was committed between them."""
    return getattr(_thread, "commits", 0)
