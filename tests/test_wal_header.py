"""The WAL index's header as the key check's change signal (issue 31, store/wal_header.py).

A commit by any connection of any process changes the header; nothing committed leaves it
as it was; the index file stays the one mapped while another process opens, writes and
closes the database (the last connection to close would delete it); and ``serve``'s key
check, which reads it instead of running ``PRAGMA data_version``, refuses a key that the
CLI revoked in another process on the very next request.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest

from ci_service.store.change_token import change_token
from ci_service.store.db import connection, database
from ci_service.store.wal_header import WalHeader
from ci_service.web.app import create_app, shutdown_app

pytestmark = pytest.mark.backends("sqlite")


def wal_database(path) -> str:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = wal")
    conn.execute("CREATE TABLE t (x)")
    conn.close()  # the last connection: the index file goes with it
    return str(path)


def commit_in_another_process(path: str, sql: str = "INSERT INTO t VALUES (1)") -> None:
    """Open, commit and close, as a CLI command does, in a process of its own."""
    code = (
        "import sqlite3, sys\n"
        "conn = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "conn.execute(sys.argv[2])\n"
        "conn.close()\n"
    )
    subprocess.run([sys.executable, "-c", code, path, sql], check=True, timeout=60)


def test_any_commit_changes_the_header_and_nothing_else_does(tmp_path):
    path = wal_database(tmp_path / "a.db")
    header = WalHeader.open(path)
    assert header is not None
    try:
        before = header.read()
        assert len(before) == 96
        reader = sqlite3.connect(path, isolation_level=None)
        assert reader.execute("SELECT count(*) FROM t").fetchone() == (0,)
        assert header.read() == before  # a read commits nothing

        commit_in_another_process(path)
        after_other = header.read()
        assert after_other != before

        reader.execute("INSERT INTO t VALUES (2)")  # a commit of this process
        after_own = header.read()
        assert after_own != after_other

        # A checkpoint that starts the log again writes a new header; the next commit,
        # appending to the log from its start, makes yet another.
        reader.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        truncated = header.read()
        commit_in_another_process(path)
        assert header.read() not in (truncated, after_own, after_other, before)
        reader.close()
    finally:
        header.close()


def test_the_index_file_stays_the_one_mapped_while_others_come_and_go(tmp_path):
    path = wal_database(tmp_path / "b.db")
    assert not os.path.exists(path + "-shm")  # removed by the last connection's close
    header = WalHeader.open(path)
    try:
        inode = os.stat(path + "-shm").st_ino
        for _ in range(3):
            before = header.read()
            commit_in_another_process(path)  # it opens, commits and closes: not the last
            assert os.stat(path + "-shm").st_ino == inode
            assert header.read() != before
    finally:
        header.close()
    assert not os.path.exists(path + "-shm")  # closing it leaves nothing behind


# SQLite's "dead man switch": the byte of the index file on which every process that has it
# open holds a shared lock; one that finds no lock there truncates the file and starts it
# again (unix VFS: UNIX_SHM_DMS, (22 + 8) * 4 + 8).
DMS_BYTE = 128


def index_lock_is_held(path: str) -> bool:
    """Whether some other process holds a lock on the index's DMS byte, asked from a new
    process (record locks are per process)."""
    code = (
        "import fcntl, os, sys\n"
        "fd = os.open(sys.argv[1], os.O_RDWR)\n"
        "try:\n"
        "    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, int(sys.argv[2]))\n"
        "except OSError:\n"
        "    sys.exit(3)\n"
        "sys.exit(0)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, path + "-shm", str(DMS_BYTE)], timeout=60)
    assert done.returncode in (0, 3)
    return done.returncode == 3


def test_mapping_the_header_leaves_sqlites_locks_in_place(tmp_path):
    """Closing any descriptor of a file drops all of a process's record locks on it: the
    header must be mapped without opening or closing one, or another process would find
    the index unlocked and truncate it under this one's mapping."""
    path = wal_database(tmp_path / "c.db")
    request_thread = sqlite3.connect(path, isolation_level=None)  # as serve's threads do
    request_thread.execute("SELECT count(*) FROM t").fetchone()
    assert index_lock_is_held(path)
    header = WalHeader.open(path)
    assert header is not None
    assert index_lock_is_held(path)
    before = header.read()
    commit_in_another_process(path)
    assert header.read() != before
    header.close()
    assert index_lock_is_held(path)  # the request thread's connection still has it
    assert request_thread.execute("SELECT count(*) FROM t").fetchone() == (1,)
    request_thread.close()


def test_no_header_where_there_is_none(tmp_path):
    assert WalHeader.open(":memory:") is None
    path = str(tmp_path / "rollback.db")
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE t (x)")
    conn.close()
    assert WalHeader.open(path) is None  # rollback journal: no WAL index
    assert WalHeader.open(str(tmp_path / "missing" / "no.db")) is None


def test_serve_reads_the_header_and_sees_a_revocation_by_the_cli(
    settings, make_workspace, make_key, tmp_path
):
    """As ``serve`` runs (connections kept): the token is the header, not a statement, and
    a key revoked by ``ci-service keys revoke`` in another process, which opens and closes
    the database, is refused on the next request."""
    app = create_app(settings.with_overrides(usage_flush_seconds=3600), persistent_connections=True)
    try:
        assert database.obj.wal_header is None  # mapped on first use, not at start-up
        key, row = make_key(make_workspace())
        client = app.test_client()
        assert client.get("/api/competitors", headers={"X-API-Key": key}).status_code == 200
        assert database.obj.wal_header is not None
        with connection():
            first = change_token()
            assert first[1] == database.obj.wal_header.read()
            assert change_token() == first  # nothing committed

        revoke = subprocess.run(
            [sys.executable, "-m", "ci_service", "--database", settings.database]
            + ["keys", "revoke", row.id],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
        )
        assert revoke.returncode == 0, revoke.stderr
        assert client.get("/api/competitors", headers={"X-API-Key": key}).status_code == 401
    finally:
        shutdown_app(app)
    assert database.obj.wal_header is None  # closed with the database
