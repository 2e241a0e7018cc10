"""Which process runs the scheduler: exactly one at a time (issues 15 and 25).

On PostgreSQL every process with the scheduler enabled is a candidate. The leader is the
one holding the ``scheduler`` row of the ``lease`` table (``store/leases.py``): a holder id
and an expiry. A candidate takes the lease with one atomic statement when it is free or
has expired; the leader renews it every third of ``lease_seconds`` and checks it again
right before each scan. A leader that cannot renew (the lease ran out while it was frozen,
another process holds it, the server is away) has lost the lead and stops scanning at once.
So a leader that hangs (SIGSTOP, a stalled machine) loses the lead within a lease, and
when it comes back it does not scan on a lead it no longer holds.

Issue 15 used a session-level advisory lock instead; a hung process keeps its session, and
so the lock, for as long as it hangs, which stopped all scheduling. A lock is no longer
taken at all: the lease alone decides. A clean stop deletes the row, so another candidate
takes over at its next try; a killed leader is replaced once its lease runs out.

The statements run on a connection of the leadership's own, opened from the database URL
and kept outside the pool (a pooled connection is shared and recycled). Times are the
database server's, so the hosts' clocks do not matter. On SQLite one process owns the
database file: it always leads.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable

from ci_service.store import leases
from ci_service.store.db import database, is_postgres, is_postgres_url, redact_url

log = logging.getLogger("ci_service.scheduler")

DEFAULT_LEASE_SECONDS = 30.0

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
    """``try_lead()`` -> whether this process leads now (taking or renewing the lease);
    ``confirm()`` -> whether it still holds an unexpired lease (renewing it);
    ``release()`` gives the lead up.

    ``clock`` (tests): seconds since the epoch, used instead of the database server's clock.
    Thread-safe; the connection is only touched under a lock.
    """

    def __init__(
        self,
        database_url: str | None = None,
        *,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        name: str = leases.SCHEDULER,
        clock: Callable[[], float] | None = None,
    ):
        if not lease_seconds > 0:
            raise ValueError(f"the scheduler lease must be more than 0 seconds: {lease_seconds}")
        self.url = database_url if database_url and is_postgres_url(database_url) else None
        self.lease_seconds = float(lease_seconds)
        self.name = name
        self.clock = clock
        # Unique per candidate, so two schedulers in one process (tests) are two holders.
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
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

    @property
    def heartbeat_seconds(self) -> float:
        """How often the leader renews its lease."""
        return self.lease_seconds / 3

    def try_lead(self) -> bool:
        """Keep the lead (renewing the lease) or, not leading, take it if it is free or
        expired; True when this process leads now (checked live)."""
        if not self.contested:
            return True
        return self._lease(renew_only=False)

    def confirm(self) -> bool:
        """Whether this process still leads: it holds the lease and the lease has not run
        out (renewed on the way). Call right before acting as the leader."""
        if not self.contested:
            return True
        return self._lease(renew_only=True)

    def _lease(self, *, renew_only: bool) -> bool:
        with self._lock:
            if renew_only and not self._leading:
                return False
            now = self.clock() if self.clock is not None else None
            try:
                if self._conn is None:
                    self._conn = self._connect()
                with self._conn.cursor() as cursor:
                    if self._leading:
                        held = leases.renew(cursor, self.name, self.holder, self.lease_seconds, now)
                        if not held:
                            log.warning(
                                "scheduler leadership lost: the lease ran out or another "
                                "process holds it (pid %d)",
                                os.getpid(),
                            )
                        self._leading = held
                    else:
                        self._leading = leases.take(
                            cursor, self.name, self.holder, self.lease_seconds, now
                        )
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
                try:
                    with self._conn.cursor() as cursor:
                        leases.release(cursor, self.name, self.holder)
                except Exception:  # the server is away: the lease runs out on its own
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
