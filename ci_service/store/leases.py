"""Named leases in a table: who leads the scheduler on PostgreSQL (issue 25).

One row per lease: ``name``, the ``holder`` (an id its process made up) and ``expires_at``
(seconds since the epoch). Each verb is one atomic statement on a DB-API cursor of the
caller's own connection (``jobs/leadership.py`` keeps one outside the pool):

- ``take``: the lease becomes the caller's when it is free or has expired, or is extended
  when it is already the caller's and unexpired;
- ``renew``: extended only while it is the caller's and unexpired (a holder that was
  frozen past its expiry has lost it, even if no one took it meanwhile);
- ``release``: given up at once, so another candidate takes it on its next try.

Times come from the database server's clock (``clock_timestamp()``), so the hosts' clocks
never matter; tests pass ``now`` (epoch seconds) instead. PostgreSQL only: on SQLite one
process owns the file and always leads, so the table is made but never used.
"""

from __future__ import annotations

from typing import Any

from peewee import CharField, FloatField, Model

from ci_service.store.engine import database

SCHEDULER = "scheduler"
SERVER_NOW = "extract(epoch from clock_timestamp())"


class Lease(Model):
    name = CharField(primary_key=True, max_length=100)
    holder = CharField(max_length=200)
    expires_at = FloatField()  # seconds since the epoch, on the database server's clock

    class Meta:
        database = database
        table_name = "lease"


def _now(now: float | None) -> tuple[str, list[Any]]:
    """SQL for "now" and its parameters: the server's clock, or ``now`` when given."""
    return (SERVER_NOW, []) if now is None else ("%s", [float(now)])


def take(cursor, name: str, holder: str, seconds: float, now: float | None = None) -> bool:
    """Hold lease ``name`` for ``seconds`` if it is free, expired or already ours; True
    when ``holder`` holds it now (one statement: two candidates never both win)."""
    at, params = _now(now)
    cursor.execute(
        f"INSERT INTO lease (name, holder, expires_at) VALUES (%s, %s, {at} + %s) "
        "ON CONFLICT (name) DO UPDATE "
        "SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at "
        f"WHERE lease.holder = EXCLUDED.holder OR lease.expires_at <= {at} "
        "RETURNING holder",
        [name, holder, *params, float(seconds), *params],
    )
    return cursor.fetchone() is not None


def renew(cursor, name: str, holder: str, seconds: float, now: float | None = None) -> bool:
    """Extend lease ``name`` by ``seconds`` from now if ``holder`` holds it and it has not
    expired; False otherwise (taken by another, or lapsed while this holder was away)."""
    at, params = _now(now)
    cursor.execute(
        f"UPDATE lease SET expires_at = {at} + %s "
        f"WHERE name = %s AND holder = %s AND expires_at > {at} RETURNING holder",
        [*params, float(seconds), name, holder, *params],
    )
    return cursor.fetchone() is not None


def release(cursor, name: str, holder: str) -> bool:
    """Give lease ``name`` up if ``holder`` holds it; True when it did."""
    cursor.execute(
        "DELETE FROM lease WHERE name = %s AND holder = %s RETURNING holder", [name, holder]
    )
    return cursor.fetchone() is not None


def current(cursor, name: str) -> tuple[str, float] | None:
    """``(holder, expires_at)`` of lease ``name``, or None when no one holds it."""
    cursor.execute("SELECT holder, expires_at FROM lease WHERE name = %s", [name])
    row = cursor.fetchone()
    return (row[0], float(row[1])) if row else None
