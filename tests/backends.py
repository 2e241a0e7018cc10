"""The two database backends the suite runs on: a temporary SQLite file, and an empty
migrated PostgreSQL database per test.

PostgreSQL databases are cloned from a migrated template (``CREATE DATABASE ... TEMPLATE``,
about 0.5 s here, against about a second to migrate an empty database) and, after a test,
emptied with ``DELETE`` (triggers off; a few milliseconds for a test's rows, where
``TRUNCATE`` makes new files for every table and index) and handed to the next test,
unless the test changed its schema: that one is dropped.

PostgreSQL is found at ``CI_SERVICE_TEST_POSTGRES`` (default
``postgresql://postgres@127.0.0.1:5432/test``, the machine's trust-auth server). When it
cannot be reached the PostgreSQL runs are skipped, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import os
import secrets
import threading
from urllib.parse import urlsplit, urlunsplit

import pytest

ADMIN_URL_ENV = "CI_SERVICE_TEST_POSTGRES"
DEFAULT_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
BACKENDS = ("sqlite", "postgresql")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def admin_url() -> str:
    return os.environ.get(ADMIN_URL_ENV, DEFAULT_ADMIN_URL)


def url_for(name: str) -> str:
    parts = urlsplit(admin_url())
    return urlunsplit(parts._replace(path="/" + name))


def _admin_execute(*statements: str) -> None:
    import psycopg2

    conn = psycopg2.connect(admin_url(), connect_timeout=5)
    try:
        conn.autocommit = True
        with conn.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)
    finally:
        conn.close()


class PostgresDatabases:
    """Creates (from one migrated template) and drops the test databases of one session."""

    def __init__(self) -> None:
        self.prefix = f"ci_test_{os.getpid()}_{secrets.token_hex(3)}"
        self.template = f"{self.prefix}_template"
        self._count = 0
        self._free: list[str] = []  # emptied databases, ready for the next test
        self._shape: tuple | None = None  # the template's (tables, migrations)
        self._lock = threading.Lock()
        self._ready = False
        self.error: str | None = None

    def _drop_leftovers(self) -> None:
        """Databases of test sessions that were killed before their teardown."""
        import psycopg2

        conn = psycopg2.connect(admin_url(), connect_timeout=5)
        try:
            with conn.cursor() as cursor:
                cursor.execute("SELECT datname FROM pg_database WHERE datname LIKE 'ci_test_%'")
                names = [row[0] for row in cursor.fetchall()]
        finally:
            conn.close()
        for name in names:
            pid = name.split("_")[2]
            if pid.isdigit() and not _alive(int(pid)):
                _admin_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def _make_template(self) -> None:
        from ci_service.store.db import close_database, open_database

        self._drop_leftovers()
        _admin_execute(f'CREATE DATABASE "{self.template}"')
        db = open_database(url_for(self.template), pool_size=2)
        close_database(db)
        self._shape = self._shape_of(url_for(self.template))
        self._ready = True

    @staticmethod
    def _shape_of(url: str) -> tuple:
        import psycopg2

        conn = psycopg2.connect(url, connect_timeout=5)
        try:
            with conn.cursor() as cursor:
                cursor.execute(
                    "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"
                )
                tables = tuple(row[0] for row in cursor.fetchall())
                cursor.execute("SELECT name FROM schema_migrations ORDER BY name")
                migrations = tuple(row[0] for row in cursor.fetchall())
                cursor.execute(
                    "SELECT sequence_name FROM information_schema.sequences "
                    "WHERE sequence_schema = 'public' ORDER BY 1"
                )
                sequences = tuple(row[0] for row in cursor.fetchall())
        finally:
            conn.close()
        return tables, migrations, sequences

    def available(self) -> bool:
        if self._ready:
            return True
        if self.error is None:
            try:
                self._make_template()
            except Exception as exc:  # no server, no driver: said once, per the rules above
                self.error = f"PostgreSQL at {admin_url()} is not usable: {exc}"
        return self._ready

    def create(self, migrated: bool = True) -> str:
        with self._lock:
            if migrated and self._free:
                return url_for(self._free.pop())
            self._count += 1
            name = f"{self.prefix}_{self._count}"
        template = f' TEMPLATE "{self.template}"' if migrated else ""
        _admin_execute(f'CREATE DATABASE "{name}"{template}')
        return url_for(name)

    def drop(self, url: str) -> None:
        name = urlsplit(url).path.lstrip("/")
        _admin_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def release(self, url: str) -> None:
        """Empty a test's database for the next test, or drop it when its schema is not the
        template's any more (a restore, a migration test) or it cannot be emptied."""
        import psycopg2

        name = urlsplit(url).path.lstrip("/")
        try:
            if self._shape is None or self._shape_of(url) != self._shape:
                raise ValueError("schema changed")
            tables, _migrations, sequences = self._shape
            conn = psycopg2.connect(url, connect_timeout=5)
            try:
                conn.autocommit = True
                with conn.cursor() as cursor:
                    # Sessions a test left behind (a killed server's) would hold locks.
                    cursor.execute(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                    )
                    cursor.execute("SET lock_timeout = '5s'")
                    cursor.execute("BEGIN")
                    cursor.execute("SET LOCAL session_replication_role = replica")  # no FKs
                    for table in tables:
                        if table != "schema_migrations":
                            cursor.execute(f'DELETE FROM "{table}"')
                    for sequence in sequences:
                        cursor.execute(f'ALTER SEQUENCE "{sequence}" RESTART')
                    cursor.execute("COMMIT")
            finally:
                conn.close()
        except Exception:
            self.drop(url)
            return
        with self._lock:
            self._free.append(name)

    def close(self) -> None:
        for name in self._free:
            self.drop(url_for(name))
        self._free = []
        if self._ready:
            self.drop(url_for(self.template))


def unavailable(message: str) -> None:
    """Something a test needs is missing: a skip with ``message``, but under ``CI=true`` a
    failure, since CI must run every test."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{message} (CI runs every test)", pytrace=False)
    pytest.skip(message)


def require_postgres(databases: PostgresDatabases) -> None:
    if not databases.available():
        unavailable(databases.error or "PostgreSQL is not usable")


def postgres_maker(databases: PostgresDatabases, migrated: bool = True):
    """For a fixture: ``yield from postgres_maker(postgres_databases)`` gives the test
    ``make(migrated=...) -> a new PostgreSQL database URL`` and drops every one it made
    afterwards (not back to the reuse pool: a restore or migration changes the schema)."""
    require_postgres(databases)
    made = []

    def make(migrated: bool = migrated) -> str:
        url = databases.create(migrated=migrated)
        made.append(url)
        return url

    yield make
    for url in made:
        databases.drop(url)


def everything_stored(database: str, backend: str) -> tuple[str, bytes]:
    """Every stored row as text, and (SQLite) the file's bytes."""
    if backend == "postgresql":
        import psycopg2

        conn = psycopg2.connect(database)
        with conn.cursor() as cursor:
            cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
            tables = [row[0] for row in cursor.fetchall()]
            rows = []
            for table in tables:
                cursor.execute(f'SELECT t::text FROM "{table}" t')
                rows += [row[0] for row in cursor.fetchall()]
        conn.close()
        dump = "\n".join(rows)
        return dump, dump.encode()
    import sqlite3

    conn = sqlite3.connect(database)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    dump = "\n".join(conn.iterdump())
    conn.close()
    with open(database, "rb") as handle:
        return dump, handle.read()
