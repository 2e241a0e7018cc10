"""The load and the disruptions of tests/test_db_restart.py (issue 25: database
restarts are survived)."""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass

import httpx
import psycopg2

from tests.live import LiveServer
from tests.waiting import wait_for

# Each client cycles through its mix: four only read, two write every other request (so a
# write that waits on SQLite's lock never holds up the readers).
MIXES = (("list", "healthz"),) * 4 + (("deal", "list"),) * 2
RECOVERY = 1.0  # seconds after a disruption from which every request must succeed


@dataclass
class Outcome:
    sent: float
    done: float
    kind: str
    status: int | None
    body: dict | None
    headers: httpx.Headers | None
    error: str | None = None

    @property
    def read(self) -> bool:
        return self.kind != "deal"


class Load:
    """One thread per mix in ``MIXES`` sending its requests back to back until ``stop()``."""

    def __init__(self, url: str, key: str):
        self.url = url
        self.key = key
        self.outcomes: list[Outcome] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._client, args=(i,), daemon=True) for i in range(len(MIXES))
        ]

    def start(self) -> Load:
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> list[Outcome]:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=60)
        assert not any(t.is_alive() for t in self._threads), "a client thread hung"
        return list(self.outcomes)

    def count(self, predicate) -> int:
        with self._lock:
            return sum(1 for outcome in self.outcomes if predicate(outcome))

    def _client(self, index: int) -> None:
        headers = {"X-API-Key": self.key}
        with httpx.Client(base_url=self.url, headers=headers, timeout=30) as client:
            mix, n = MIXES[index], 0
            while not self._stop.is_set():
                kind = mix[n % len(mix)]
                n += 1
                self._record(kind, lambda k=kind, i=n: self._send(client, k, index, i))

    @staticmethod
    def _send(client: httpx.Client, kind: str, index: int, n: int) -> httpx.Response:
        if kind == "healthz":
            return client.get("/healthz")
        if kind == "list":
            return client.get("/api/competitors")
        body = {"prospectCompanyName": f"Prospect {index}-{n}", "outcome": "WON"}
        return client.post("/api/deals", json=body)

    def _record(self, kind: str, send) -> None:
        sent = time.monotonic()
        try:
            response = send()
        except httpx.HTTPError as exc:
            outcome = Outcome(sent, time.monotonic(), kind, None, None, None, repr(exc))
        else:
            try:
                body = response.json()
            except ValueError:
                body = {"text": response.text[:500]}
            outcome = Outcome(
                sent, time.monotonic(), kind, response.status_code, body, response.headers
            )
        with self._lock:
            self.outcomes.append(outcome)


def run_disrupted(server: LiveServer, key: str, disrupt) -> tuple[list[Outcome], list[float]]:
    """Load the server, call ``disrupt()`` twice (each time once the load has gone on
    for ``RECOVERY`` s and more since the last), and return every outcome and the
    disruptions' start times."""
    load = Load(server.url, key).start()
    marks: list[float] = []
    try:
        wait_for(lambda: load.count(lambda o: o.status == 200) >= 40, timeout=30)
        for _ in range(2):
            mark = time.monotonic()
            marks.append(mark)
            disrupt()
            # Enough requests sent after the recovery second, and answered.
            wait_for(
                lambda m=mark: load.count(lambda o: o.sent > m + RECOVERY) >= 60,
                timeout=30,
            )
    finally:
        outcomes = load.stop()
    return outcomes, marks


def terminate_backends(database_url: str) -> int:
    """Terminate every session on the database (the admin connection's excepted): the
    number terminated."""
    conn = psycopg2.connect(database_url, connect_timeout=5)
    try:
        conn.autocommit = True
        with conn.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            return cursor.fetchone()[0]
    finally:
        conn.close()


def hold_write_lock(path: str, seconds: float) -> tuple[float, float]:
    """Another process's writer: the file's write lock held for ``seconds``, then a
    checkpoint that truncates the WAL (both things a second process may do at any time).
    Returns when the lock was held, from and to."""
    conn = sqlite3.connect(path, timeout=10, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        held = time.monotonic()
        conn.execute("CREATE TABLE IF NOT EXISTS outside_writer (n INTEGER)")
        conn.execute("INSERT INTO outside_writer VALUES (1)")
        time.sleep(seconds)  # the server's writes wait meanwhile
        conn.execute("COMMIT")
        released = time.monotonic()
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return held, released


def rate_limit_count(database_url: str) -> int:
    conn = psycopg2.connect(database_url, connect_timeout=5)
    try:
        with conn.cursor() as cursor:
            cursor.execute("SELECT coalesce(sum(count), 0) FROM rate_limit_counter")
            return cursor.fetchone()[0]
    finally:
        conn.close()


def terminate_backends_from(admin, name: str) -> None:
    with admin.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
            (name,),
        )


class NoRoundTrips:
    """A psycopg2 connection whose cursors are refused: proves a check sent nothing."""

    def __init__(self, conn):
        self._conn = conn

    def __getattr__(self, name):
        if name == "cursor":
            raise AssertionError("the check made a round trip")
        return getattr(self._conn, name)
