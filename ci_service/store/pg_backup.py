"""Backup and restore of a PostgreSQL database with ``pg_dump`` / ``pg_restore``.

``backup_postgres`` runs ``pg_dump --format=custom``: one ``REPEATABLE READ`` snapshot, so
the dump is consistent while servers keep writing. It is written to a temporary file beside
the destination, listed back with ``pg_restore --list`` (a truncated or foreign file fails
there) and only then renamed into place (never over an existing file unless ``force``).

``restore_postgres`` checks that the file is a ``pg_dump`` custom archive of a ci-service
database, refuses while other sessions are connected to the database (stop the servers
and workers first), then runs ``pg_restore --clean --if-exists --no-owner
--single-transaction`` (a failed restore leaves the database as it was) and the migrations,
so a backup from an older release comes back upgraded. Replacing a database that already
holds ci-service tables needs ``force``, as with SQLite.

The password of the URL goes to the tools in ``PGPASSWORD``, never on their command line,
and messages show the URL redacted.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import uuid
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from ci_service.store.backup_common import BackupError, migrate_database
from ci_service.store.db import redact_url

ARCHIVE_MAGIC = b"PGDMP"
SQLITE_MAGIC = b"SQLite format 3\x00"
TOOL_TIMEOUT = 6 * 3600  # a dump or restore that hangs this long is stuck, not slow


def _error(message: str) -> BackupError:
    return BackupError(message)


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise _error(
            f"{name} is not on PATH: install the PostgreSQL client tools of the server's "
            "major version (e.g. apt install postgresql-client) or use your PostgreSQL "
            f"host's own backups; ci-service runs {name} to back up and restore PostgreSQL"
        )
    return path


def connection_args(url: str) -> tuple[str, dict[str, str]]:
    """``(dsn without any password, environment with PGPASSWORD)`` for the libpq tools."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://") :]
    parts = urlsplit(url)
    env = {k: v for k, v in os.environ.items() if k != "PGPASSWORD"}
    password = parts.password
    query = parse_qsl(parts.query, keep_blank_values=True)
    if any(k == "password" for k, _ in query):
        password = next(v for k, v in query if k == "password")
        query = [(k, v) for k, v in query if k != "password"]
    netloc = parts.netloc
    if parts.password is not None:
        netloc = netloc.replace(f":{parts.password}@", "@", 1)
        password = unquote(parts.password)
    if password is not None:
        env["PGPASSWORD"] = password
    elif "PGPASSWORD" in os.environ:
        env["PGPASSWORD"] = os.environ["PGPASSWORD"]
    return urlunsplit(parts._replace(netloc=netloc, query=urlencode(query))), env


def _run(command: list[str], env: dict[str, str], what: str) -> subprocess.CompletedProcess:
    try:
        done = subprocess.run(
            command, env=env, capture_output=True, text=True, timeout=TOOL_TIMEOUT
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise _error(f"{what} failed: {exc}") from None
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        raise _error(f"{what} failed: {' '.join(detail[-3:]) or f'exit {done.returncode}'}")
    return done


def _query(url: str, sql: str) -> list[tuple]:
    import psycopg2

    dsn, env = connection_args(url)
    try:
        conn = psycopg2.connect(dsn, password=env.get("PGPASSWORD"), connect_timeout=10)
    except psycopg2.Error as exc:
        raise _error(f"cannot connect to {redact_url(url)}: {str(exc).strip()}") from None
    try:
        conn.autocommit = True
        with conn.cursor() as cursor:
            cursor.execute(sql)
            return cursor.fetchall()
    finally:
        conn.close()


def _has_ci_tables(url: str) -> bool:
    rows = _query(url, "SELECT to_regclass('schema_migrations') IS NOT NULL")
    return bool(rows[0][0])


def backup_postgres(url: str, dest: str | os.PathLike, *, force: bool = False) -> dict:
    """Dump the database at ``url`` to the file ``dest`` (custom format). Returns
    ``{"path", "size", "format", "seconds"}``."""
    started = time.monotonic()
    pg_dump = _tool("pg_dump")
    pg_restore = _tool("pg_restore")
    dest_path = Path(dest).expanduser()
    if dest_path.is_dir():
        raise _error(f"{dest_path} is a directory; give a file name")
    if not dest_path.parent.is_dir():
        raise _error(f"directory {dest_path.parent} does not exist")
    if dest_path.exists() and not force:
        raise _error(f"{dest_path} already exists; use --force to overwrite it")
    if not _has_ci_tables(url):
        raise _error(f"{redact_url(url)} is not a ci-service database (no schema_migrations)")
    dsn, env = connection_args(url)
    temp = dest_path.with_name(f".{dest_path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        _run(
            [pg_dump, "--format=custom", "--no-password", f"--file={temp}", f"--dbname={dsn}"],
            env,
            "pg_dump",
        )
        _run([pg_restore, "--list", str(temp)], env, "checking the dump (pg_restore --list)")
        if force:
            os.replace(temp, dest_path)
        else:
            try:
                os.link(temp, dest_path)  # never over a file that appeared meanwhile
            except FileExistsError:
                raise _error(f"{dest_path} already exists; use --force to overwrite it") from None
            except OSError:  # no hard links on this file system
                os.replace(temp, dest_path)
    finally:
        try:
            temp.unlink()
        except FileNotFoundError:
            pass
    return {
        "path": str(dest_path),
        "size": dest_path.stat().st_size,
        "format": "pg_dump custom",
        "seconds": round(time.monotonic() - started, 3),
    }


def restore_postgres(backup: str | os.PathLike, url: str, *, force: bool = False) -> dict:
    """Restore the ``pg_dump`` archive ``backup`` into the database at ``url``. Returns
    ``{"path", "size", "format", "migrationsApplied", "seconds"}``."""
    started = time.monotonic()
    pg_restore = _tool("pg_restore")
    backup_path = Path(backup).expanduser()
    if not backup_path.is_file():
        raise _error(f"no backup file at {backup_path}")
    with open(backup_path, "rb") as handle:
        head = handle.read(len(SQLITE_MAGIC))
    if head.startswith(SQLITE_MAGIC):
        raise _error(
            f"{backup_path} is a SQLite backup: restore it into a SQLite file, then copy that "
            "into PostgreSQL with ci-service migrate-data"
        )
    if not head.startswith(ARCHIVE_MAGIC):
        raise _error(f"{backup_path} is not a pg_dump archive (made by ci-service backup)")
    dsn, env = connection_args(url)
    listing = _run([pg_restore, "--list", str(backup_path)], env, f"reading {backup_path}")
    if not re.search(r"^\d+; \d+ \d+ TABLE \S+ schema_migrations ", listing.stdout, re.M):
        raise _error(f"{backup_path} is not a ci-service database (no schema_migrations)")
    if _has_ci_tables(url) and not force:
        raise _error(
            f"{redact_url(url)} already holds a ci-service database; use --force to replace "
            "it (stop ci-service serve and workers first)"
        )
    others = _other_connections(url)
    if others:
        raise _error(
            f"{redact_url(url)} is in use by {others} other connection(s) (is ci-service serve "
            "or a worker running?); stop them and restore again"
        )
    _run(
        [
            pg_restore,
            "--clean",
            "--if-exists",
            "--no-owner",
            "--single-transaction",
            "--exit-on-error",
            "--no-password",
            f"--dbname={dsn}",
            str(backup_path),
        ],
        env,
        "pg_restore",
    )
    applied = migrate_database(url)
    return {
        "path": redact_url(url),
        "size": backup_path.stat().st_size,
        "format": "pg_dump custom",
        "migrationsApplied": applied,
        "seconds": round(time.monotonic() - started, 3),
    }


CLOSING_GRACE_SECONDS = 3.0  # a client that just disconnected leaves its backend a moment


def _other_connections(url: str) -> int:
    """How many other sessions hold the database, after giving ones that are closing (the
    CLI command that ran just before, a pool being shut) a moment to end."""
    deadline = time.monotonic() + CLOSING_GRACE_SECONDS
    while True:
        others = _query(
            url,
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )[0][0]
        if not others or time.monotonic() >= deadline:
            return int(others)
        time.sleep(0.1)
