"""WAL checkpoints off the request path (issue 31, store/checkpoints.py): the writer
connection of ``serve`` and ``worker`` checkpoints in a commit only as a backstop, far past
where the log starts again; a thread of its own copies the log back into the database
file a few times a second."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from ci_service.store import checkpoints
from ci_service.store.db import (
    close_database,
    connection,
    database,
    keep_writer_connection,
    transaction,
)
from tests.waiting import wait_for

pytestmark = pytest.mark.backends("sqlite")

ROWS = 3_000  # about 1,500 pages: past SQLite's automatic checkpoint at 1,000


def rows_in_the_database_file(path: str) -> int:
    """Rows of ``scratch`` in the main file alone (the log ignored): what was checkpointed.
    -1 when the file was caught mid-checkpoint (read as immutable, without SQLite's locks,
    its pages can be half copied): a waiting caller just reads again."""
    conn = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    try:
        found = conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'scratch'")
        if not found.fetchone()[0]:
            return 0
        return conn.execute("SELECT count(*) FROM scratch").fetchone()[0]
    except sqlite3.DatabaseError:
        return -1
    finally:
        conn.close()


def insert_pages(rows: int) -> None:
    with transaction():
        database.execute_sql(
            "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ?) "
            "INSERT INTO scratch SELECT n, hex(randomblob(1000)) FROM s",
            (rows,),
        )


def write_pages() -> None:
    with transaction():
        database.execute_sql("CREATE TABLE scratch (n INTEGER, body TEXT)")
        insert_pages(ROWS)  # a savepoint of the same transaction


def test_a_commit_on_the_writer_connection_never_checkpoints(app, monkeypatch):
    monkeypatch.setattr(checkpoints, "CHECKPOINT_SECONDS", 3600.0)  # no round comes
    db = database.obj
    keep_writer_connection(db)
    write_pages()
    # Only as a backstop, far past where the thread starts the log again.
    autocheckpoint = db.writer.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
    assert autocheckpoint == checkpoints.WRITER_AUTOCHECKPOINT > 2 * checkpoints.RESTART_PAGES
    assert rows_in_the_database_file(db.database) == 0  # all of it still in the log


def test_the_checkpoint_thread_copies_the_log_back(app):
    db = database.obj
    keep_writer_connection(db)
    write_pages()
    checkpointer = db.checkpointer
    # The thread counts a checkpoint once it has returned: the rows can be in the file a
    # moment before the count says so.
    wait_for(
        lambda: (rows_in_the_database_file(db.database), checkpointer.checkpoints),
        until=lambda seen: seen[0] == ROWS and seen[1] >= 1,
        message="the rows in the database file, copied by the thread",
    )
    close_database(db)  # stops the thread with the writer
    assert db.checkpointer is None and not checkpointer._thread.is_alive()


def log_pages(path: str) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1]
    finally:
        conn.close()


class WrittenDuring:
    """A checkpoint connection during whose first checkpoint another write commits, as
    writes go on in ``serve`` while the thread copies without the lock: the write began
    before the copy (so it did not start the log again) and commits after it."""

    def __init__(self, path: str) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.calls = 0
        self.began, self.go_on = threading.Event(), threading.Event()
        self.writer = threading.Thread(target=self._write)
        self.writer.start()
        self.began.wait(10)

    def _write(self) -> None:
        with connection(), transaction():
            database.execute_sql("INSERT INTO scratch VALUES (0, 'written during the copy')")
            self.began.set()
            self.go_on.wait(10)

    def execute(self, sql: str):
        self._row = self.conn.execute(sql).fetchone()
        self.calls += 1
        if self.calls == 1:
            self.go_on.set()
            self.writer.join(10)
        return self

    def fetchone(self):
        return self._row


@pytest.mark.parametrize("restart_pages", [100, 100_000])
def test_a_long_log_starts_again_although_writes_go_on(app, monkeypatch, restart_pages):
    """Past ``RESTART_PAGES`` the thread checkpoints once more under the write lock, so the
    next write finds the whole log copied and starts it again from its beginning; without
    that (a limit never reached), the write that came in during the copy keeps the log
    growing."""
    monkeypatch.setattr(checkpoints, "CHECKPOINT_SECONDS", 3600.0)  # rounds run by hand
    monkeypatch.setattr(checkpoints, "RESTART_PAGES", restart_pages)
    db = database.obj
    keep_writer_connection(db)
    write_pages()  # about 1,500 pages in the log
    checkpointer = db.checkpointer
    during = WrittenDuring(db.database)
    checkpointer._checkpoint(during)
    during.conn.close()
    insert_pages(1)
    restarted = log_pages(db.database) < 50
    assert restarted == (restart_pages == 100)
    assert checkpointer.restarts == (1 if restart_pages == 100 else 0)
