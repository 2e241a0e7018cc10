"""A cheap value that changes whenever this thread may see a different database (issue 31).

``change_token()`` on SQLite is this thread's connection, a value that any commit of any
connection, in this process or another, changes, and the connection's ``total_changes``
(rows it has changed itself, committed or not). That value is the WAL index's header where
the process keeps one mapped (``serve`` and ``worker``: store/wal_header.py, a memory
read), else the connection's ``PRAGMA data_version`` (a statement). Equal tokens before
two reads mean nothing was committed in between, so the first read's rows are still the
rows: what lets the key check reuse the row it read (services/identity/auth.py) without
giving up seeing a revoked key on the very next request. PostgreSQL has no such cheap
check: None, read again.
"""

from __future__ import annotations

from ci_service.store.engine import database, is_postgres


def change_token() -> tuple | None:
    """The token of this thread's connection now; None when there is no cheap one (no open
    connection, or PostgreSQL)."""
    db = database.obj
    if db is None or is_postgres(db) or db.is_closed():
        return None
    conn = db.connection()
    wal_header = db.commit_signal()
    if wal_header is not None:
        return (conn, wal_header.read(), conn.total_changes)
    (version,) = conn.execute("PRAGMA data_version").fetchone()
    return (conn, version, conn.total_changes)
