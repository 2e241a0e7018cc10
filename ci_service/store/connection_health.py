"""Is a database connection still usable, and did an error mean the database went away?
(issue 25: after a PostgreSQL restart, failover, ``pg_terminate_backend`` or a pooler's or
``idle_session_timeout``'s cut, ``serve`` answered 500 until it was restarted.)

``store/db.py`` asks these on behalf of its two backends; nothing here holds state.
"""

from __future__ import annotations

import select
import sqlite3

from peewee import DatabaseError, InterfaceError, OperationalError

LOST = "lost"  # the connection broke, or none could be opened: a new one may work at once
BUSY = "busy"  # SQLite: another connection held the write lock past the busy timeout

# SQLSTATE classes of a connection the server ended or refused: 08 connection exception,
# 57 operator intervention (57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot
# connect now) except 57014, a cancelled statement, whose connection is fine.
_LOST_SQLSTATE_CLASSES = ("08", "57")
_CANCELLED = "57014"


def _readable(fd: int) -> bool:
    """Whether ``fd`` has something to read (or hung up) right now, without waiting."""
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLPRI)
        return bool(poller.poll(0))  # POLLHUP and POLLERR are always reported
    return bool(select.select([fd], [], [], 0)[0])  # pragma: no cover - Windows


def connection_is_dead(conn) -> bool:
    """Whether an idle psycopg2 connection is known to be unusable, usually without a round
    trip: cheap enough to ask before every request.

    psycopg2 sets ``closed`` once it has met a broken connection, and the transaction
    status is known locally. Beyond those, an idle connection's socket tells: the server
    only speaks when asked (the service never LISTENs), so an idle connection with
    something to read has been sent the server's FATAL "terminating connection" and the
    end of the stream. Only then does a ``SELECT 1`` confirm it (it fails at once on such a
    connection; a rare notice sent on its own costs one round trip, not the connection).
    A connection inside a transaction is in use and is left alone: its own statements
    will tell. A server cut off without closing the socket is not seen here; its next
    statement fails instead (and a read is retried, web/outages.py)."""
    if conn.closed:
        return True
    from psycopg2 import extensions

    status = conn.info.transaction_status
    if status == extensions.TRANSACTION_STATUS_UNKNOWN:
        return True
    if status != extensions.TRANSACTION_STATUS_IDLE:
        return False
    try:
        if not _readable(conn.fileno()):
            return False
        with conn.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception:  # psycopg2's error, or a socket the OS already took back
        return True
    return bool(conn.closed)


def _sqlstates(exc: BaseException):
    seen = 0
    while exc is not None and seen < 5:  # peewee re-raises psycopg2's error as its own
        code = getattr(exc, "pgcode", None)
        if code:
            yield code
        exc = exc.__cause__ or exc.__context__
        seen += 1


def postgres_connection_lost(exc: BaseException, conn) -> bool:
    """Whether ``exc`` came from the connection ``conn`` breaking, or (``conn`` None) from
    failing to open one, rather than from the statement (a constraint, a bad query, a
    cancelled statement or a serialization failure leave the connection as it was)."""
    import psycopg2

    if not isinstance(exc, DatabaseError | InterfaceError | psycopg2.Error):
        return False
    if any(
        code.startswith(_LOST_SQLSTATE_CLASSES) and code != _CANCELLED for code in _sqlstates(exc)
    ):
        return True
    if conn is None:  # the connect failed: server down, restarting, refusing connections
        return isinstance(
            exc,
            InterfaceError | OperationalError | psycopg2.OperationalError | psycopg2.InterfaceError,
        )
    return bool(conn.closed) or _status_unknown(conn)


def _status_unknown(conn) -> bool:
    from psycopg2 import extensions

    try:
        return conn.info.transaction_status == extensions.TRANSACTION_STATUS_UNKNOWN
    except Exception:
        return True


def sqlite_outage(exc: BaseException) -> str | None:
    """``BUSY`` for SQLite's "database is locked" (another connection, another process
    say, held the write lock past the busy timeout), ``LOST`` when the file could not be
    opened, else None."""
    if not isinstance(exc, OperationalError | sqlite3.OperationalError):
        return None
    text = str(exc)
    if "database is locked" in text or "database table is locked" in text:
        return BUSY
    return LOST if "unable to open database file" in text else None
