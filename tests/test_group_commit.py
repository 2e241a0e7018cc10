"""Group commit on SQLite's writer connection (issue 31, store/engine.py): a group write
that ends while another thread waits for the write lock hands its open transaction on and
returns once the shared commit has run; a write that fails is rolled back alone; a failed
commit fails every write of the group."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from ci_service.services.alerts import events
from ci_service.store import engine
from ci_service.store.db import (
    commit_count,
    connection,
    database,
    keep_writer_connection,
    transaction,
)
from ci_service.store.events import Event

pytestmark = pytest.mark.backends("sqlite")


def titles_on_disk() -> set[str]:
    """What another connection sees: committed rows only."""
    conn = sqlite3.connect(database.obj.database)
    try:
        return {row[0] for row in conn.execute("SELECT title FROM event")}
    finally:
        conn.close()


def wait_until(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.001)


class Writer(threading.Thread):
    """Writes one event in its own transaction; ``hold`` keeps the transaction open until
    set; records what it saw right after the transaction ended."""

    def __init__(self, workspace_id: str, title: str, *, group: bool, fail: bool = False):
        super().__init__(daemon=True)
        self.workspace_id, self.title, self.group, self.fail = workspace_id, title, group, fail
        self.inside = threading.Event()
        self.hold = threading.Event()
        self.hold.set()
        self.error: BaseException | None = None
        self.seen_after: set[str] = set()
        self.commits = 0
        self.callbacks: list[str] = []

    def run(self) -> None:
        try:
            with connection():
                before = commit_count()
                try:
                    with transaction(group=self.group):
                        events.emit(self.workspace_id, "deal.recorded", self.title)
                        database.after_commit(lambda: self.callbacks.append(self.title))
                        self.inside.set()
                        self.hold.wait(10)
                        if self.fail:
                            raise RuntimeError(f"{self.title} failed")
                finally:
                    self.seen_after = titles_on_disk()
                    self.commits = commit_count() - before
        except BaseException as exc:  # noqa: BLE001 - asserted by the tests
            self.error = exc


@pytest.fixture()
def writer_db(app):
    keep_writer_connection(database.obj)  # what serve and worker do
    return database.obj


def count_commits(db, monkeypatch) -> list[int]:
    """The writer's COMMITs, one entry each."""
    commits: list[int] = []
    original = type(db).commit

    def counted(self):
        commits.append(1)
        return original(self)

    monkeypatch.setattr(type(db), "commit", counted)
    return commits


def run_pair(workspace_id: str, first: Writer, second: Writer) -> None:
    """``first`` holds its transaction open until ``second`` waits for the write lock."""
    first.hold.clear()
    first.start()
    assert first.inside.wait(10)
    second.start()
    wait_until(lambda: database.obj.writers_waiting == 1)
    first.hold.set()
    first.join(10)
    second.join(10)
    assert not first.is_alive() and not second.is_alive()


def test_a_group_write_hands_its_transaction_on_and_returns_after_the_shared_commit(
    writer_db, make_workspace, monkeypatch
):
    workspace = make_workspace()
    commits = count_commits(writer_db, monkeypatch)
    first = Writer(workspace.id, "first", group=True)
    second = Writer(workspace.id, "second", group=False)
    run_pair(workspace.id, first, second)
    assert first.error is None and second.error is None
    assert len(commits) == 1  # one COMMIT for both writes
    # Each returned only once both rows were on disk, and counts the commit as its own.
    assert {"first", "second"} <= first.seen_after
    assert {"first", "second"} <= second.seen_after
    assert first.commits == second.commits == 1
    assert first.callbacks == ["first"] and second.callbacks == ["second"]
    assert writer_db.batch is None
    with connection():
        assert database.transaction_depth() == 0


def test_without_waiting_writers_a_group_write_commits_at_once(writer_db, make_workspace):
    workspace = make_workspace()
    alone = Writer(workspace.id, "alone", group=True)
    alone.start()
    alone.join(10)
    assert alone.error is None and "alone" in alone.seen_after and alone.commits == 1


def test_a_write_that_is_not_a_group_write_commits_even_with_writers_waiting(
    writer_db, make_workspace, monkeypatch
):
    workspace = make_workspace()
    commits = count_commits(writer_db, monkeypatch)
    first = Writer(workspace.id, "job write", group=False)
    second = Writer(workspace.id, "next", group=True)
    run_pair(workspace.id, first, second)
    assert first.error is None and second.error is None
    assert "job write" in first.seen_after
    assert len(commits) == 2  # committed before the next write began


def test_a_failing_write_is_rolled_back_alone(writer_db, make_workspace):
    workspace = make_workspace()
    first = Writer(workspace.id, "kept", group=True)
    second = Writer(workspace.id, "failed", group=True, fail=True)
    run_pair(workspace.id, first, second)
    assert first.error is None
    assert isinstance(second.error, RuntimeError)
    on_disk = titles_on_disk()
    assert "kept" in on_disk and "failed" not in on_disk
    assert second.commits == 0 and second.callbacks == []
    assert first.callbacks == ["kept"]


def test_writes_after_a_failed_one_share_the_group_and_are_kept(writer_db, make_workspace):
    """Each member after the first runs in the same named savepoint (engine's
    ``_MemberSavepoint``): one rolled back leaves none behind for the next."""
    workspace = make_workspace()
    first = Writer(workspace.id, "kept", group=True)
    failed = Writer(workspace.id, "failed", group=True, fail=True)
    last = Writer(workspace.id, "last", group=True)
    first.hold.clear()
    first.start()
    assert first.inside.wait(10)
    failed.start()
    last.start()
    wait_until(lambda: database.obj.writers_waiting == 2)
    first.hold.set()
    for writer in (first, failed, last):
        writer.join(10)
        assert not writer.is_alive()
    assert first.error is None and last.error is None
    assert isinstance(failed.error, RuntimeError)
    on_disk = titles_on_disk()
    assert {"kept", "last"} <= on_disk and "failed" not in on_disk
    assert writer_db.batch is None
    # Nothing of the group is left open on the writer connection.
    assert not writer_db.writer.in_transaction


def test_a_failing_first_write_hands_nothing_on(writer_db, make_workspace):
    workspace = make_workspace()
    first = Writer(workspace.id, "broken", group=True, fail=True)
    second = Writer(workspace.id, "after", group=False)
    run_pair(workspace.id, first, second)
    assert isinstance(first.error, RuntimeError) and second.error is None
    assert "broken" not in titles_on_disk() and "after" in titles_on_disk()
    assert first.commits == 0


def test_a_failed_shared_commit_fails_every_write_of_the_group(
    writer_db, make_workspace, monkeypatch
):
    workspace = make_workspace()

    def refuse(self):
        raise sqlite3.OperationalError("disk I/O error")

    first = Writer(workspace.id, "lost one", group=True)
    second = Writer(workspace.id, "lost two", group=False)
    first.hold.clear()
    first.start()
    assert first.inside.wait(10)
    monkeypatch.setattr(type(writer_db), "commit", refuse)
    second.start()
    wait_until(lambda: database.obj.writers_waiting == 1)
    first.hold.set()
    first.join(10)
    second.join(10)
    monkeypatch.undo()
    assert isinstance(first.error, sqlite3.OperationalError)
    assert isinstance(second.error, sqlite3.OperationalError)
    assert first.commits == second.commits == 0
    assert first.callbacks == second.callbacks == []
    assert not {"lost one", "lost two"} & titles_on_disk()
    assert writer_db.batch is None
    with connection():  # the writer connection is usable again
        with transaction():
            events.emit(workspace.id, "deal.recorded", "afterwards")
        assert Event.select().where(Event.title == "afterwards").count() == 1


def test_a_group_holds_at_most_group_max_writes(writer_db, make_workspace, monkeypatch):
    monkeypatch.setattr(engine, "GROUP_MAX", 2)
    workspace = make_workspace()
    commits = count_commits(writer_db, monkeypatch)
    first, second, third = (Writer(workspace.id, t, group=True) for t in ("1st", "2nd", "3rd"))
    first.hold.clear()
    second.hold.clear()
    first.start()
    assert first.inside.wait(10)
    second.start()
    wait_until(lambda: database.obj.writers_waiting == 1)
    first.hold.set()  # hands the transaction to the second write
    assert second.inside.wait(10)
    third.start()
    wait_until(lambda: database.obj.writers_waiting == 1)
    second.hold.set()  # the group's second write: commits although the third waits
    for writer in (first, second, third):
        writer.join(10)
        assert not writer.is_alive() and writer.error is None
    assert len(commits) == 2
    assert {"1st", "2nd"} <= first.seen_after


def test_a_transaction_nobody_took_on_is_committed_by_the_write_that_waits_for_it(
    writer_db, make_workspace
):
    """The writer it was handed to gave up on the lock at that very moment (its timeout):
    the waiting write commits the group itself once the lock is free."""
    workspace = make_workspace()
    first = Writer(workspace.id, "orphaned", group=True)
    first.hold.clear()
    first.start()
    assert first.inside.wait(10)
    with writer_db.waiting_lock:
        writer_db.writers_waiting += 1  # a writer that will never take the lock
    try:
        first.hold.set()
        first.join(10)
    finally:
        with writer_db.waiting_lock:
            writer_db.writers_waiting -= 1
    assert not first.is_alive() and first.error is None
    assert "orphaned" in first.seen_after and first.commits == 1
    assert writer_db.batch is None
