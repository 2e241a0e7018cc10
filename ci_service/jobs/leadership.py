"""Which process runs the scheduler: exactly one at a time (issue 15).

On PostgreSQL every process with the scheduler enabled is a candidate. The leader is the
one holding the session-level advisory lock ``SCHEDULER_LOCK`` on a connection of its own,
opened from the database URL and kept outside the pool (a pooled connection is shared and
recycled; this one lives as long as the leadership). When the leader dies, its connection
drops and the server releases the lock, so the next candidate to try takes over.

On SQLite one process owns the database file: it always leads.
"""

from __future__ import annotations

import logging
import threading

from ci_service.store.db import SCHEDULER_LOCK, database, is_postgres, is_postgres_url, redact_url

log = logging.getLogger("ci_service.scheduler")

# TCP keepalives, so a leader cut off from the server notices within about half a minute
# instead of the system's default two hours.
KEEPALIVES = {
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
}


def bound_database_url() -> str | None:
    """The PostgreSQL URL the models are bound to, or None on SQLite (or when unbound)."""
    db = database.obj
    return db.database if db is not None and is_postgres(db) else None


class Leadership:
    """``try_lead()`` -> whether this process leads now; ``release()`` gives the lead up.

    Thread-safe; the connection is only touched under a lock.
    """

    def __init__(self, database_url: str | None = None, *, lock_key: int = SCHEDULER_LOCK):
        self.url = database_url if database_url and is_postgres_url(database_url) else None
        self.lock_key = lock_key
        self._conn = None  # a candidate's (or the leader's) own connection
        self._leading = False
        self._lock = threading.Lock()

    @property
    def contested(self) -> bool:
        """True on PostgreSQL, where several processes may want the lead."""
        return self.url is not None

    @property
    def leading(self) -> bool:
        """Whether this process held the lead at the last check (no database call)."""
        return self._leading if self.contested else True

    def try_lead(self) -> bool:
        """Take the lead if it is free; True when this process leads (checked live)."""
        if not self.contested:
            return True
        with self._lock:
            try:
                if self._conn is None:
                    self._conn = self._connect()
                with self._conn.cursor() as cursor:
                    if self._leading:
                        cursor.execute("SELECT 1")  # the session, and so the lock, is alive
                    else:
                        cursor.execute("SELECT pg_try_advisory_lock(%s)", (self.lock_key,))
                        self._leading = bool(cursor.fetchone()[0])
            except Exception as exc:  # server away or connection cut: not leading any more
                if self._leading:
                    log.warning("scheduler leadership lost: %s", _first_line(exc))
                else:
                    log.debug("scheduler leadership: %s", _first_line(exc))
                self._drop()
            return self._leading

    def release(self) -> None:
        """Give the lead up at once, so a candidate can take it on its next try. Idempotent."""
        with self._lock:
            if self._leading and self._conn is not None:
                try:  # closing alone frees the lock too, but only once the backend has ended
                    with self._conn.cursor() as cursor:
                        cursor.execute("SELECT pg_advisory_unlock(%s)", (self.lock_key,))
                except Exception:  # the connection is gone already, and the lock with it
                    pass
            self._drop()

    def _connect(self):
        import psycopg2

        conn = psycopg2.connect(
            self.url, connect_timeout=5, application_name="ci-service scheduler", **KEEPALIVES
        )
        conn.autocommit = True
        return conn

    def _drop(self) -> None:
        conn, self._conn, self._leading = self._conn, None, False
        if conn is not None:
            try:
                conn.close()
            except Exception:  # already broken: nothing left to release
                pass

    def __repr__(self) -> str:
        where = redact_url(self.url) if self.url else "sqlite"
        return f"<Leadership {where} leading={self.leading}>"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
