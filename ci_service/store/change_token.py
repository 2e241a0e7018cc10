"""A cheap value that changes whenever this thread may see a different database (issue 31).

``change_token()`` on SQLite is this thread's connection, its ``PRAGMA data_version`` (a
new value after any other connection, in this process or another, has committed) and its
``total_changes`` (rows this connection itself has changed). Equal tokens before two reads
mean nothing was committed in between, so the first read's rows are still the rows: what
lets the key check reuse the row it read (services/identity/auth.py) without giving up
seeing a revoked key on the very next request. PostgreSQL has no such cheap check: None,
read again.
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
    (version,) = conn.execute("PRAGMA data_version").fetchone()
    return (conn, version, conn.total_changes)
