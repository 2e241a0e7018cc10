"""Online backup and restore of the SQLite database file (PostgreSQL: ``pg_backup.py``,
which ``backup_database`` and ``restore_database`` hand a ``postgresql://`` URL to).

``backup_database`` copies the live file with SQLite's online backup API from a fresh
read-only connection. The copy is one read transaction, so it is a consistent snapshot of
committed transactions; in WAL mode readers do not block writers, so ``serve`` keeps
writing while it runs. The copy goes to a temporary file next to the destination, is
switched to a self-contained rollback-journal file, passes ``PRAGMA integrity_check`` and
is only then renamed into place (never over an existing file unless ``force``).

``restore_database`` checks that the backup is intact and is a ci-service database, takes
exclusive access to the destination and copies the backup into it with the same backup API
(one transaction: a failure leaves the destination as it was; SQLite itself deals with the
destination's -wal/-shm files), then runs the migrations so an older backup is upgraded.

In-use rule: a restore needs exclusive access to the destination. It asks SQLite for it
(``locking_mode=EXCLUSIVE`` plus a read); that fails while any other connection has the
file open, and ``ci-service serve`` keeps one connection open for its whole life
(``hold_open``) precisely so a restore can see it. So a restore into the database of a
running server is refused, with or without ``force``; ``force`` only allows replacing an
existing database that nothing is using.
"""

from __future__ import annotations

import os
import sqlite3
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

# BackupError and migrate_database live in backup_common.py, which pg_backup.py imports too
# (no import cycles); they stay importable from here.
from ci_service.store.backup_common import BackupError, migrate_database
from ci_service.store.db import is_postgres_url, sqlite_path
from ci_service.store.pg_backup import backup_postgres, restore_postgres

LOCK_TIMEOUT = 0.5  # seconds to wait for exclusive access to a restore destination


def _file_path(url_or_path: str, what: str) -> Path:
    path = sqlite_path(url_or_path)
    if path == ":memory:":
        raise BackupError(f"the {what} is an in-memory database; give a file path")
    return Path(path).expanduser()


def _open_read_only(path: Path, timeout: float = 10.0) -> sqlite3.Connection:
    uri = "file:" + quote(str(path.absolute())) + "?mode=ro"
    return sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _integrity(conn: sqlite3.Connection) -> str:
    rows = conn.execute("PRAGMA integrity_check").fetchall()
    return "ok" if rows == [("ok",)] else "; ".join(str(r[0]) for r in rows[:3])


def _is_ci_service(conn: sqlite3.Connection) -> bool:
    row = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    return row is not None


def _check_database(conn: sqlite3.Connection, path: Path, what: str) -> None:
    """Raise unless ``conn`` is an intact ci-service database."""
    try:
        result = _integrity(conn)
        is_ours = _is_ci_service(conn)
    except sqlite3.DatabaseError as exc:
        if "not a database" in str(exc):
            raise BackupError(f"{what} {path} is not a SQLite database") from None
        raise BackupError(f"{what} {path} is corrupt ({exc})") from None
    if result != "ok":
        raise BackupError(f"{what} {path} failed the integrity check: {result}")
    if not is_ours:
        raise BackupError(f"{what} {path} is not a ci-service database (no schema_migrations)")


def _fsync(path: Path, directory: bool = False) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if directory else 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _remove(*paths: Path) -> None:
    for path in paths:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


def backup_database(
    source: str,
    dest: str | os.PathLike,
    *,
    force: bool = False,
    pages: int = -1,
    progress: Callable[[int, int, int], object] | None = None,
) -> dict:
    """Copy the database at ``source`` (path or sqlite:/// URL) to the file ``dest``.

    ``pages=-1`` (the default) copies everything in one step: one read transaction, so a
    steady stream of writes cannot make it start over (a stepped copy restarts whenever
    another connection writes between steps). ``progress(status, remaining, total)`` is
    sqlite3's callback. Returns ``{"path", "size", "pages", "seconds"}``.
    """
    if is_postgres_url(source):
        return backup_postgres(source, dest, force=force)
    started = time.monotonic()
    source_path = _file_path(source, "source")
    dest_path = Path(dest).expanduser()
    if not source_path.is_file():
        raise BackupError(f"no database at {source_path}")
    if dest_path.is_dir():
        raise BackupError(f"{dest_path} is a directory; give a file name")
    if not dest_path.parent.is_dir():
        raise BackupError(f"directory {dest_path.parent} does not exist")
    if _same_file(source_path, dest_path):
        raise BackupError(f"{dest_path} is the database itself")
    if dest_path.exists() and not force:
        raise BackupError(f"{dest_path} already exists; use --force to overwrite it")

    temp = dest_path.with_name(f".{dest_path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        try:
            src = _open_read_only(source_path)
        except sqlite3.Error as exc:
            raise BackupError(f"cannot open {source_path}: {exc}") from None
        try:
            try:
                if not _is_ci_service(src):
                    raise BackupError(f"{source_path} is not a ci-service database")
                dst = sqlite3.connect(temp, isolation_level=None)
                try:
                    src.backup(dst, pages=pages, progress=progress)
                    # A backup is one self-contained file: no -wal beside it.
                    dst.execute("PRAGMA journal_mode=DELETE")
                    result = _integrity(dst)
                    if result != "ok":
                        raise BackupError(f"the copy failed the integrity check: {result}")
                    page_count = dst.execute("PRAGMA page_count").fetchone()[0]
                finally:
                    dst.close()
            except sqlite3.Error as exc:
                raise BackupError(f"backup of {source_path} failed: {exc}") from None
        finally:
            src.close()
        _fsync(temp)
        if force:
            os.replace(temp, dest_path)
        else:
            try:
                os.link(temp, dest_path)  # atomic, and never over a file that appeared meanwhile
            except FileExistsError:
                raise BackupError(
                    f"{dest_path} already exists; use --force to overwrite it"
                ) from None
            except OSError:  # no hard links on this file system
                if dest_path.exists():
                    raise BackupError(
                        f"{dest_path} already exists; use --force to overwrite it"
                    ) from None
                os.replace(temp, dest_path)
        _fsync(dest_path.parent, directory=True)
    finally:
        _remove(temp, temp.with_name(temp.name + "-journal"))
    return {
        "path": str(dest_path),
        "size": dest_path.stat().st_size,
        "pages": page_count,
        "seconds": round(time.monotonic() - started, 3),
    }


def restore_database(
    backup: str | os.PathLike,
    dest: str,
    *,
    force: bool = False,
    lock_timeout: float = LOCK_TIMEOUT,
) -> dict:
    """Restore the backup file ``backup`` into the database ``dest`` (path or sqlite:/// URL).

    Refuses a backup that is not an intact ci-service database, an existing destination
    unless ``force``, and (always) a destination another process has open. Returns
    ``{"path", "size", "pages", "migrationsApplied", "seconds"}``.
    """
    if is_postgres_url(dest):
        return restore_postgres(backup, dest, force=force)
    started = time.monotonic()
    backup_path = Path(backup).expanduser()
    dest_path = _file_path(dest, "destination")
    if not backup_path.is_file():
        raise BackupError(f"no backup file at {backup_path}")
    with open(backup_path, "rb") as handle:
        if handle.read(5) == b"PGDMP":
            raise BackupError(
                f"{backup_path} is a PostgreSQL dump: restore it with --database "
                "postgresql://..., then copy that into SQLite with ci-service migrate-data"
            )
    if _same_file(backup_path, dest_path):
        raise BackupError(f"{backup_path} is the destination database itself")
    if dest_path.is_dir():
        raise BackupError(f"{dest_path} is a directory")
    existed = dest_path.exists()
    if existed and not force:
        raise BackupError(
            f"{dest_path} already exists; use --force to replace it (stop ci-service serve first)"
        )
    try:
        src = _open_read_only(backup_path)
    except sqlite3.Error as exc:
        raise BackupError(f"cannot open {backup_path}: {exc}") from None
    try:
        _check_database(src, backup_path, "backup")
        dest_path.parent.mkdir(parents=True, exist_ok=True)  # like serve's first start
        try:
            dst = sqlite3.connect(dest_path, timeout=lock_timeout, isolation_level=None)
        except sqlite3.Error as exc:
            raise BackupError(f"cannot open {dest_path}: {exc}") from None
        try:
            _take_exclusive(dst, dest_path)
            try:
                src.backup(dst)
                result = _integrity(dst)
                page_count = dst.execute("PRAGMA page_count").fetchone()[0]
            except sqlite3.Error as exc:
                raise BackupError(f"restore into {dest_path} failed: {exc}") from None
            if result != "ok":  # pragma: no cover - the source passed the same check
                raise BackupError(f"the restored database failed the integrity check: {result}")
        finally:
            dst.close()  # releases the exclusive lock
    except BackupError:
        if not existed:
            _remove(dest_path, *(Path(f"{dest_path}{s}") for s in ("-journal", "-wal", "-shm")))
        raise
    finally:
        src.close()
    applied = migrate_database(str(dest_path))
    return {
        "path": str(dest_path),
        "size": dest_path.stat().st_size,
        "pages": page_count,
        "migrationsApplied": applied,
        "seconds": round(time.monotonic() - started, 3),
    }


def _take_exclusive(conn: sqlite3.Connection, path: Path) -> None:
    """Hold an exclusive lock on ``path`` until ``conn`` closes, or raise if it is in use.

    Plain ``BEGIN EXCLUSIVE`` is not enough in WAL mode (it only excludes writers, and an
    idle connection holds no lock to conflict with). In exclusive locking mode the first
    read must take the file's exclusive lock, which every other open connection prevents.
    """
    try:
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        conn.execute("BEGIN EXCLUSIVE")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        conn.execute("COMMIT")
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise BackupError(
                f"{path} is in use by another process (is ci-service serve running?); "
                "stop it and restore again"
            ) from None
        raise BackupError(f"cannot lock {path}: {exc}") from None
    except sqlite3.DatabaseError as exc:  # not a database: a wrong path, most likely; keep it
        raise BackupError(f"{path} is not a SQLite database ({exc}); remove it first") from None


def hold_open(url_or_path: str) -> sqlite3.Connection | None:
    """Open and keep a connection to the database (``serve`` holds one for its lifetime).

    An idle connection holds no lock that blocks anyone, but it does make a restore's
    request for exclusive access fail, which is how a restore knows a server is running.
    PostgreSQL needs none (a restore counts the database's sessions): None.
    """
    if is_postgres_url(url_or_path):
        return None
    path = sqlite_path(url_or_path)
    if path == ":memory:":
        return None
    conn = sqlite3.connect(
        Path(path).expanduser(), timeout=10, isolation_level=None, check_same_thread=False
    )
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # opens the WAL: shared lock
    return conn
