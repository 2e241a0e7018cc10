"""The write path's machinery (issue 16): SQLite writers of one process queue on a lock and
share one writer connection, the thread's own connection comes back afterwards; events join
their caller's transaction; statements built once bind values as peewee would; row ids are
time-ordered UUIDs."""

from __future__ import annotations

import os
import threading
import uuid
from datetime import UTC, datetime

import pytest

from ci_service.services.alerts import events
from ci_service.store import statements
from ci_service.store.db import (
    connection,
    database,
    joined_transaction,
    keep_writer_connection,
    new_id,
    transaction,
)
from ci_service.store.events import Event
from ci_service.store.graph import GraphNode


def test_ids_are_time_ordered_version_7_uuids():
    ids = [new_id() for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    for value in ids[:50]:
        parsed = uuid.UUID(value)
        assert len(value) == 32 and parsed.version == 7 and parsed.variant == uuid.RFC_4122
    # The leading 48 bits are the milliseconds: later ids never sort before earlier ones'
    # millisecond.
    millis = [int(v[:12], 16) for v in ids]
    assert millis == sorted(millis)
    assert abs(millis[-1] - datetime.now(UTC).timestamp() * 1000) < 60_000


def test_ids_stay_unique_across_threads_and_a_fork():
    """The random bits are read from the OS 4,000 bytes at a time, per thread; a forked
    child reads its own instead of going on with its parent's."""
    from concurrent.futures import ThreadPoolExecutor

    new_id()  # this thread has bytes left over
    with ThreadPoolExecutor(4) as pool:
        ids = [
            i
            for batch in pool.map(lambda _: [new_id() for _ in range(1000)], range(8))
            for i in batch
        ]
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next ids, to the parent
        os.close(read)
        os.write(write, "".join(new_id() for _ in range(5)).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        text = pipe.read()
    os.waitpid(pid, 0)
    child = [text[i : i + 32] for i in range(0, len(text), 32)]
    parent = [new_id() for _ in range(5)]
    ids += child + parent
    assert len(child) == 5 and len(set(ids)) == len(ids)
    # Beyond the time, the random bits differ too (the same bytes would give the same).
    assert not {c[12:] for c in child} & {p[12:] for p in parent}


@pytest.mark.backends("sqlite")
def test_a_transaction_runs_on_the_writer_connection_and_gives_the_thread_its_own_back(app):
    with connection():
        own = database.connection()
        with transaction():  # not a server process: the thread's own connection
            assert database.connection() is own
    keep_writer_connection(database.obj)  # what serve and worker do
    with connection():
        own = database.connection()
        with transaction():
            writer = database.connection()
            assert writer is not own
            with transaction():  # nested: a savepoint on the same connection
                assert database.connection() is writer
        assert database.connection() is own
        with pytest.raises(RuntimeError), transaction():
            assert database.connection() is writer  # the same writer every time
            raise RuntimeError("rolled back")
        assert database.connection() is own
        assert database.transaction_depth() == 0


def test_writes_from_many_threads_all_commit(app, make_workspace):
    workspace = make_workspace()
    errors: list[BaseException] = []

    def write(n: int) -> None:
        try:
            with connection():
                for i in range(10):
                    events.emit(workspace.id, "deal.recorded", f"deal {n}-{i}")
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with connection():
        titles = [e.title for e in Event.select().where(Event.workspace == workspace.id)]
    assert sorted(titles) == sorted(f"deal {n}-{i}" for n in range(8) for i in range(10))


def test_an_event_joins_its_callers_transaction(app, make_workspace):
    workspace = make_workspace()
    with connection():
        sent: list[str] = []
        original = database.obj.execute_sql

        def counted(sql, params=None, *args, **kwargs):
            sent.append(sql)
            return original(sql, params, *args, **kwargs)

        database.obj.execute_sql = counted
        try:
            with pytest.raises(RuntimeError), transaction():
                events.emit(workspace.id, "deal.recorded", "joined")
                raise RuntimeError("the change failed")
        finally:
            del database.obj.execute_sql
        assert not any("SAVEPOINT" in s.upper() for s in sent), sent
        # The event went with the change it told of.
        assert Event.select().where(Event.workspace == workspace.id).count() == 0
        with joined_transaction():  # none open: a transaction of its own
            assert database.transaction_depth() == 1
            events.emit(workspace.id, "deal.recorded", "alone")
        assert Event.select().where(Event.workspace == workspace.id).count() == 1


def test_prepared_inserts_and_selects_read_back_as_peewee_writes(app, make_workspace):
    workspace = make_workspace()
    when = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    rows = [
        {
            "id": new_id(),
            "workspace": workspace.id,
            "key": f"K:{i}",
            "label": "ARGUMENT",
            "name": "Ünïcode ' \" \\ name",
            "ref_type": None,
            "ref_id": None,
            "properties": {"n": i, "nested": [True, None, "x"]},
            "created_at": when,
        }
        for i in range(3)
    ]
    with connection(), transaction():
        statements.insert_rows(GraphNode, rows, batch=2)  # two statements
    with connection():
        sql = statements.select_sql(GraphNode, "t.workspace_id = {param}", "test")
        got = {n.key: n for n in statements.select_models(GraphNode, sql, [workspace.id])}
        by_peewee = {n.key: n for n in GraphNode.select().where(GraphNode.workspace == workspace)}
    assert set(got) == set(by_peewee) == {"K:0", "K:1", "K:2"}
    for key, node in got.items():
        assert node.__data__ == by_peewee[key].__data__
        assert node.properties["nested"] == [True, None, "x"] and node.created_at == when
        assert node.workspace_id == workspace.id
