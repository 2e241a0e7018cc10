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
import threading
import time
from contextlib import ContextDecorator, nullcontext

from peewee import Database, DatabaseProxy

from ci_service.store import checkpoints

database = DatabaseProxy()

# Advisory lock keys (PostgreSQL). Advisory locks are per database, so two installations
# on one server never share them.
WRITE_LOCK = 7_301_001  # held by every write transaction until it ends
MIGRATE_LOCK = 7_301_002  # held while migrations run (processes starting at once)


_entropy = threading.local()  # per thread: [bytes from os.urandom, read position, fork]
_ENTROPY_BYTES = 4_000  # 400 ids per os.urandom call
_forks = [0]
os.register_at_fork(after_in_child=lambda: _forks.__setitem__(0, _forks[0] + 1))


def _random_80_bits() -> int:
    """80 bits from the operating system's CSPRNG, read 4,000 bytes at a time: a deal made
    13 ids, each an ``os.urandom`` system call that also let go of the GIL, which another
    request thread then took (issue 31). A forked child never reuses its parent's bytes."""
    state = getattr(_entropy, "state", None)
    if state is None or state[1] + 10 > _ENTROPY_BYTES or state[2] != _forks[0]:
        state = _entropy.state = [os.urandom(_ENTROPY_BYTES), 0, _forks[0]]
    start = state[1]
    state[1] = start + 10
    return int.from_bytes(state[0][start : start + 10], "big")


def new_id() -> str:
    """A new row id: 32 hex digits in the UUID version 7 layout (RFC 9562), a millisecond
    timestamp followed by 74 random bits. Ids made one after another sort together, so
    the rows and index entries of one write land on the same few B-tree pages instead of
    one random page each: a deal wrote a third of the pages it did with random ids
    (issue 16), on either backend. Still unguessable where it matters: 74 random bits."""
    millis = time.time_ns() // 1_000_000
    rand = _random_80_bits()
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
        # Checkpoints from a thread of their own, not in a commit (store/checkpoints.py).
        conn.execute(f"PRAGMA wal_autocheckpoint = {checkpoints.WRITER_AUTOCHECKPOINT}")
        db.checkpointer = checkpoints.Checkpointer(
            lambda: sqlite3.connect(db.database, timeout=db._timeout, isolation_level=None),
            db.writer_lock,
            lambda: db.batch is None,  # no group commit's transaction open
        ).start()
        db.writer = conn
    return db.writer


_STATE = ("conn", "closed", "ctx", "transactions", "commit_callbacks")
GROUP_MAX = 16  # writes per shared commit at most


class _Batch:
    """One SQLite transaction on the writer connection that several write transactions of
    this process share (group commit, below)."""

    __slots__ = ("marker", "members", "done", "error")

    def __init__(self, marker) -> None:
        self.marker = marker  # peewee's transaction, at the bottom of each member's stack
        self.members = 0
        self.done = threading.Event()
        self.error: BaseException | None = None


class _MemberSavepoint:
    """The savepoint a group's write after the first runs in, under one fixed name: the
    members run one after another, each released or rolled back before the next begins,
    so one name serves them all and its statements are prepared once. (peewee's savepoint
    names each one after a uuid4, an ``os.urandom`` call that let go of the GIL while the
    write lock was held; issue 31.) Rolled back, it is also released, so it leaves
    nothing on SQLite's savepoint stack."""

    __slots__ = ()

    def __enter__(self):
        database.execute_sql("SAVEPOINT ci_group_member")
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None:
            try:
                database.execute_sql("RELEASE ci_group_member")
                return False
            except BaseException:
                self._undo()
                raise
        self._undo()
        return False

    @staticmethod
    def _undo() -> None:
        database.execute_sql("ROLLBACK TO ci_group_member")
        database.execute_sql("RELEASE ci_group_member")


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
    before.

    Group commit (``group=True``, issue 31): a commit writes every page the transaction
    touched to the WAL, about 36 pages for a deal, and many of them (the tables' last
    leaves, the indexes on ids and times) are the same pages for the next deal. A group
    write that ends while other threads wait for the write lock does not commit: it hands
    the open transaction to the next writer and waits for the shared commit, which the
    last writer of the group runs (at most ``GROUP_MAX`` writes). Each write after the
    first runs in a savepoint of its own, so one that fails is rolled back alone; a
    failed commit fails every write of the group, and none is counted as committed.
    Only a write that waits while holding nothing another writer could need may hand
    off (a request's write does; a job holding a processing slot must not), which is
    why it is opt-in; any write joins an open group and, ending it, commits it."""

    def __init__(self, group: bool = False) -> None:
        self.group = group

    def __enter__(self):
        # Decided before entering: peewee counts transactions, not savepoints, so the depth
        # inside a nested call is still 1.
        outermost = database.transaction_depth() == 0
        postgres = is_postgres()
        self._lock = self._saved = self._batch = None
        if outermost and not postgres:
            self._use_writer(database.obj)
        if self._saved is not None:
            return self._join(database.obj)
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
        if self._batch is not None:
            return self._leave(database.obj, exc)
        try:
            return self._atomic.__exit__(exc_type, exc, tb)
        finally:
            self._release()

    def _use_writer(self, db: Database) -> None:  # db.py's SQLiteDatabase
        lock = db.writer_lock
        with db.waiting_lock:
            db.writers_waiting += 1
        try:
            # The busy timeout the database was made with (db.py: ``SQLITE_BUSY_TIMEOUT``).
            acquired = lock.acquire(timeout=db._timeout)
        finally:
            with db.waiting_lock:
                db.writers_waiting -= 1
        if not acquired:
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

    def _join(self, db: Database):
        """Begin the writer's transaction, or join the group's open one in a savepoint."""
        batch = db.batch
        self._atomic = None
        try:
            if batch is None:
                marker = database.transaction()
                marker.__enter__()  # BEGIN IMMEDIATE
                batch = db.batch = _Batch(marker)
            else:
                database.push_transaction(batch.marker)  # nested blocks become savepoints
                self._atomic = _MemberSavepoint()
                self._atomic.__enter__()
        except BaseException as exc:
            if batch is not None:
                batch.members += 1
                self._batch = batch
                self._leave(db, exc)
            else:
                self._release()
            raise
        batch.members += 1
        self._batch = batch
        return batch.marker

    def _leave(self, db: Database, exc: BaseException | None) -> bool:
        batch, self._batch = self._batch, None
        failed = exc is not None
        if self._atomic is not None:  # this write's savepoint: released, or rolled back
            try:
                self._atomic.__exit__(type(exc) if failed else None, exc, None)
            except BaseException as error:
                if not failed:
                    exc, failed = error, True
        state = db._state
        callbacks = [] if failed else list(state.commit_callbacks)
        del state.commit_callbacks[:]
        alone = batch.members == 1
        if self.group and not (failed and alone) and batch.members < GROUP_MAX:
            with db.waiting_lock:
                hand_off = db.writers_waiting > 0
            if hand_off:
                self._release()  # the next writer goes on in this transaction
                if failed:
                    raise exc
                _await_commit(db, batch)
                return self._committed(db, batch, callbacks)
        db.batch = None
        try:
            if failed and alone:
                db.rollback()  # the only write of the transaction
            elif failed:
                Database.commit(db)  # the others' writes: not counted as this thread's
            else:
                db.commit()
        except BaseException as error:
            batch.error = error
            try:
                db.rollback()
            except Exception:
                pass
        finally:
            self._release()
            batch.done.set()
        if failed:
            raise exc
        if batch.error is not None:
            raise batch.error
        for callback in callbacks:
            callback()
        return False

    @staticmethod
    def _committed(db: Database, batch: _Batch, callbacks: list) -> bool:
        """After another thread ran the group's commit: its error, or this write's
        after-commit callbacks, and the commit counted as this thread's."""
        if batch.error is not None:
            raise batch.error
        db.count_commit()
        for callback in callbacks:
            callback()
        return False

    def _release(self) -> None:
        if self._saved is not None:
            state, values = self._saved
            for name, value in zip(_STATE, values, strict=True):
                setattr(state, name, value)
            self._saved = None
        if self._lock is not None:
            self._lock.release()
            self._lock = None


def _await_commit(db: Database, batch: _Batch) -> None:
    """Wait for the group's commit. Should nobody have taken the open transaction on (the
    waiting writer gave up on the lock at the moment it was handed over, or the database
    was closed), commit it here once the write lock is free."""
    while not batch.done.wait(0.1):
        if not db.writer_lock.acquire(blocking=False):
            continue
        try:
            if db.batch is not batch:
                continue  # a writer has it, and will commit it
            db.batch = None
            try:
                if db.writer is None:
                    raise sqlite3.OperationalError("the writer connection was closed")
                db.writer.commit()
            except BaseException as error:
                batch.error = error
                if db.writer is not None:
                    db.writer.rollback()
            finally:
                batch.done.set()
        finally:
            db.writer_lock.release()


def transaction(*, group: bool = False):
    """One write unit: BEGIN IMMEDIATE ... COMMIT on SQLite, BEGIN + the write lock on
    PostgreSQL (nested calls become savepoints). ``group``: on SQLite's writer
    connection, may share its commit with the writes waiting behind it (``_Transaction``
    says when that is safe)."""
    return _Transaction(group)


def joined_transaction():
    """The open transaction, joined as it is, or a new one: for a write that commits or
    fails with its caller's, where a savepoint would be two statements more for nothing
    (the caller's transaction fails as a whole anyway)."""
    return nullcontext() if database.transaction_depth() > 0 else transaction()
