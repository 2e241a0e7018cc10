"""The database proxy every model binds to, and write transactions.

Split out of db.py so there are no import cycles: every model imports this module (for the
proxy, ``new_id``, ``is_postgres``, ``transaction``) and it imports no model, while db.py,
which opens a database and runs the migrations, imports the migrations and through them
every model. db.py re-exports these names; the backends and the reasons behind the write
lock are described there.
"""

from __future__ import annotations

import os
import sqlite3
import time
from contextlib import ContextDecorator, nullcontext

from peewee import Database, DatabaseProxy

database = DatabaseProxy()

# Advisory lock keys (PostgreSQL). Advisory locks are per database, so two installations
# on one server never share them.
WRITE_LOCK = 7_301_001  # held by every write transaction until it ends
MIGRATE_LOCK = 7_301_002  # held while migrations run (processes starting at once)


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


def is_postgres(db: Database | None = None) -> bool:
    db = db if db is not None else database.obj
    return getattr(db, "backend", None) == "postgresql"


def _writer_connection(db: Database):  # db.py's SQLiteDatabase
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

    def _use_writer(self, db: Database) -> None:  # db.py's SQLiteDatabase
        lock = db.writer_lock
        # The busy timeout the database was made with (db.py: ``SQLITE_BUSY_TIMEOUT``).
        if not lock.acquire(timeout=db._timeout):
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
