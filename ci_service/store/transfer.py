"""Copy an installation's data from one database to another (``ci-service migrate-data``).

Either direction between SQLite and PostgreSQL (SQLite -> PostgreSQL is the usual move):

- The source is read in one consistent snapshot without writing to it: a read-only SQLite
  connection in one read transaction (WAL: writers keep going, the copy sees what was
  committed when it began), or a PostgreSQL ``REPEATABLE READ READ ONLY`` transaction. So a
  running installation can be copied.
- The source must be at the schema this release writes (its ``schema_migrations`` names
  every migration); the destination is migrated to it first. A destination holding any row
  in a model table is refused before anything is written: nothing is ever merged.
- Every model table is copied in foreign-key order (``sort_models``), ids kept, in
  batches, in ONE write transaction on the destination. Values are converted per column
  type (SQLite booleans are 0/1, PostgreSQL's ``bytea`` arrives as a ``memoryview``, JSON
  is text on one side and ``jsonb`` on the other). A self-reference (an intel item's
  previous version) is written as NULL, then set once the whole table is in.
- Stored secrets (``ENCRYPTED_COLUMNS``) are re-encrypted with the destination's key
  (``services.secrets_box``), so its subscriptions can still send.
- The search index is rebuilt on the destination, and every table's row count is checked
  equal on both sides before the commit; any difference rolls the whole copy back.
"""

from __future__ import annotations

import importlib
import pkgutil
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

from peewee import BlobField, BooleanField, ForeignKeyField, Model, PeeweeException, sort_models

from ci_service.store.db import (
    UnsupportedDatabase,
    close_database,
    database,
    is_postgres,
    is_postgres_url,
    make_database,
    redact_url,
    sqlite_path,
    transaction,
)

BATCH = 1000
# Not model tables: rebuilt on the destination (search_doc), or the migrations' own record.
SKIPPED_TABLES = {"schema_migrations", "search_doc"}
# table -> columns holding Fernet tokens (store/alerts.py)
ENCRYPTED_COLUMNS = {
    "subscription": ("target_encrypted", "secret_encrypted", "previous_secret_encrypted")
}


class TransferError(Exception):
    """A copy that cannot be done or did not check out; the message says why.

    ``exit_code`` 2: refused before anything was written (bad input, a destination that
    holds data); 1: failed during the copy (rolled back)."""

    def __init__(self, message: str, exit_code: int = 1):
        super().__init__(message)
        self.exit_code = exit_code


def _driver_errors() -> tuple[type[BaseException], ...]:
    import psycopg2

    # RuntimeError: ensure_pg_trgm's "ask a superuser to create the extension".
    return (PeeweeException, sqlite3.Error, psycopg2.Error, UnsupportedDatabase, RuntimeError)


def model_classes() -> dict[str, type[Model]]:
    """table name -> model, for every model bound to the service's database."""
    import ci_service.store as store

    for module in pkgutil.iter_modules(store.__path__):
        importlib.import_module(f"{store.__name__}.{module.name}")

    def walk(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from walk(sub)

    from ci_service.store.base import BaseModel  # the shared base: no table of its own

    return {
        m._meta.table_name: m
        for m in walk(Model)
        if m._meta.database is database and m is not BaseModel
    }


def _describe(url: str) -> str:
    return redact_url(url)


# -- the source: one read-only snapshot ------------------------------------------------


class _Source:
    """A read-only connection to the source in one snapshot transaction."""

    def __init__(self, url: str):
        self.url = url
        self.postgres = is_postgres_url(url)
        self.param = "%s" if self.postgres else "?"
        if self.postgres:
            self.conn = self._open_postgres(url)
        else:
            self.conn = self._open_sqlite(url)

    @staticmethod
    def _open_postgres(url: str):
        import psycopg2
        import psycopg2.extras

        if url.startswith("postgres://"):
            url = "postgresql://" + url[len("postgres://") :]
        try:
            conn = psycopg2.connect(url, connect_timeout=10)
        except psycopg2.Error as exc:
            raise TransferError(f"cannot connect to {_describe(url)}: {exc}".strip(), 2) from None
        # JSON as text, as the service's own connections read it (store/db.py).
        psycopg2.extras.register_default_jsonb(conn, loads=lambda text: text)
        psycopg2.extras.register_default_json(conn, loads=lambda text: text)
        conn.set_session(isolation_level="REPEATABLE READ", readonly=True)
        return conn

    @staticmethod
    def _open_sqlite(url: str) -> sqlite3.Connection:
        path = sqlite_path(url)
        if path == ":memory:":
            raise TransferError("the source is an in-memory database; give a file path", 2)
        file = Path(path).expanduser()
        if not file.is_file():
            raise TransferError(f"no database at {file}", 2)
        uri = "file:" + quote(str(file.absolute())) + "?mode=ro"
        try:
            conn = sqlite3.connect(uri, uri=True, timeout=10, isolation_level=None)
            conn.execute("BEGIN")  # the snapshot starts at the first read, just below
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as exc:
            raise TransferError(f"cannot read {file}: {exc}", 2) from None
        return conn

    def execute_sql(self, sql: str, params=()):
        cursor = self.conn.cursor()
        cursor.execute(sql, params)
        return cursor

    def tables(self) -> list[str]:
        return _model_table_names(self)

    def columns(self, table: str) -> list[str]:
        cursor = self.execute_sql(f'SELECT * FROM "{table}" WHERE 1 = 0')
        return [d[0] for d in cursor.description]

    def count(self, table: str) -> int:
        return int(self.execute_sql(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0])

    def batches(self, table: str, columns: list[str]) -> Iterator[list[tuple]]:
        names = ", ".join(f'"{c}"' for c in columns)
        sql = f'SELECT {names} FROM "{table}"'
        if self.postgres:
            cursor = self.conn.cursor(name=f"ci_copy_{table}")  # server-side: bounded memory
            cursor.itersize = BATCH
            cursor.execute(sql)
        else:
            cursor = self.execute_sql(sql)
        try:
            while rows := cursor.fetchmany(BATCH):
                yield rows
        finally:
            cursor.close()

    def close(self) -> None:
        try:
            self.conn.rollback() if self.postgres else self.conn.execute("ROLLBACK")
        except Exception:  # noqa: BLE001 - closing anyway
            pass
        self.conn.close()


def _on_postgres(conn) -> bool:
    """``conn`` is a ``_Source`` or a peewee database: is it PostgreSQL?"""
    if isinstance(conn, _Source):
        return conn.postgres
    return is_postgres(conn)


def _model_table_names(conn) -> list[str]:
    """Every table of ``conn`` (a ``_Source`` or a peewee database) but FTS tables, their
    shadow tables, SQLite's own and ``SKIPPED_TABLES``."""
    if _on_postgres(conn):
        rows = conn.execute_sql(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
        ).fetchall()
        names = [r[0] for r in rows]
        virtual: list[str] = []
    else:
        rows = conn.execute_sql(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table'"
        ).fetchall()
        names = [r[0] for r in rows]
        virtual = [r[0] for r in rows if (r[1] or "").upper().startswith("CREATE VIRTUAL")]

    def skipped(name: str) -> bool:
        return (
            name in SKIPPED_TABLES
            or name.startswith("sqlite_")
            or any(name == v or name.startswith(v + "_") for v in virtual)
        )

    return sorted(n for n in names if not skipped(n))


# -- the checks before anything is written ---------------------------------------------


def _expected_migrations() -> list[str]:
    from ci_service.store import schema  # noqa: F401 - registers the migrations
    from ci_service.store.migrations import MIGRATIONS

    return [name for name, _ in MIGRATIONS]


def _check_source_schema(source: _Source) -> None:
    if "schema_migrations" not in _all_tables(source):
        raise TransferError(f"{_describe(source.url)} is not a ci-service database", 2)
    applied = {r[0] for r in source.execute_sql("SELECT name FROM schema_migrations").fetchall()}
    expected = _expected_migrations()
    missing = [name for name in expected if name not in applied]
    unknown = sorted(applied - set(expected))
    if unknown:
        raise TransferError(
            f"{_describe(source.url)} was written by a newer ci-service (migrations "
            f"{', '.join(unknown)}); run migrate-data with that release",
            2,
        )
    if missing:
        raise TransferError(
            f"{_describe(source.url)} is at an older schema (missing {', '.join(missing)}): "
            "start this release's ci-service on it once (it upgrades the schema), then copy",
            2,
        )


def _all_tables(conn) -> set[str]:
    if _on_postgres(conn):
        sql = (
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        )
    else:
        sql = "SELECT name FROM sqlite_master WHERE type = 'table'"
    return {r[0] for r in conn.execute_sql(sql).fetchall()}


def _holding_data(db, tables) -> list[str]:
    present = _all_tables(db)
    return [
        t
        for t in tables
        if t in present and db.execute_sql(f'SELECT 1 FROM "{t}" LIMIT 1').fetchone()
    ]


def _check_destination_empty(db, url: str, tables) -> None:
    present = _all_tables(db)
    if "schema_migrations" not in present and _model_table_names(db):
        raise TransferError(
            f"{_describe(url)} holds tables but is not a ci-service database; "
            "give an empty database",
            2,
        )
    full = _holding_data(db, tables)
    if full:
        raise TransferError(
            f"{_describe(url)} already holds data (tables {', '.join(full[:5])}"
            f"{', ...' if len(full) > 5 else ''}); migrate-data only copies into an empty "
            "database: drop and create it (PostgreSQL) or give a new file (SQLite)",
            2,
        )


# -- the copy ----------------------------------------------------------------------------


class _Secrets:
    """Re-encrypts Fernet tokens from the source's key to the destination's."""

    def __init__(self, source_url: str, dest_url: str):
        self.source_url = source_url
        self.dest_url = dest_url
        self._pair = None
        self.count = 0

    def _keys(self):
        if self._pair is None:
            from ci_service.store import secrets_box

            try:
                old = secrets_box.fernet_for(self.source_url, create=False)
            except FileNotFoundError:
                raise TransferError(
                    f"the source's stored secrets need its key, and there is none at "
                    f"{secrets_box.key_source(self.source_url)}: set "
                    f"{secrets_box.KEY_ENV} to the source installation's key",
                    2,
                ) from None
            self._pair = (old, secrets_box.fernet_for(self.dest_url))
        return self._pair

    def convert(self, token):
        if token is None:
            return None
        from cryptography.fernet import InvalidToken

        old, new = self._keys()
        if old is new:  # one key for both (CI_SERVICE_SECRET_KEY): nothing to do
            return token
        try:
            plain = old.decrypt(token.encode("ascii"))
        except (InvalidToken, ValueError):
            from ci_service.store import secrets_box

            raise TransferError(
                "a stored secret of the source does not decrypt with the key at "
                f"{secrets_box.key_source(self.source_url)}: set {secrets_box.KEY_ENV} to "
                "the key the source installation uses",
                2,
            ) from None
        self.count += 1
        return new.encrypt(plain).decode("ascii")


def _converters(model, columns, secrets: _Secrets):
    by_column = {f.column_name: f for f in model._meta.sorted_fields}
    out = []
    for column in columns:
        field = by_column.get(column)
        if column in ENCRYPTED_COLUMNS.get(model._meta.table_name, ()):
            out.append(secrets.convert)
        elif isinstance(field, BooleanField):
            out.append(lambda v: None if v is None else bool(v))
        elif isinstance(field, BlobField):
            out.append(lambda v: None if v is None else bytes(v))
        else:
            out.append(None)
    return out


def _insert(dest, table: str, columns: list[str], rows: list[tuple]) -> None:
    names = ", ".join(f'"{c}"' for c in columns)
    cursor = dest.cursor()
    if is_postgres(dest):
        from psycopg2.extras import execute_values

        execute_values(cursor, f'INSERT INTO "{table}" ({names}) VALUES %s', rows, page_size=BATCH)
    else:
        marks = ", ".join("?" for _ in columns)
        cursor.executemany(f'INSERT INTO "{table}" ({names}) VALUES ({marks})', rows)


def _copy_table(source: _Source, dest, model, secrets: _Secrets) -> int:
    table = model._meta.table_name
    dest_columns = [
        d[0] for d in dest.execute_sql(f'SELECT * FROM "{table}" WHERE 1 = 0').description
    ]
    missing = sorted(set(dest_columns) - set(source.columns(table)))
    if missing:
        raise TransferError(f"the source's table {table} lacks columns {', '.join(missing)}", 2)
    convert = _converters(model, dest_columns, secrets)
    # A reference to a row of the same table may point at a row not copied yet: written
    # as NULL first, then set once every row is in.
    self_refs = [
        dest_columns.index(f.column_name)
        for f in model._meta.sorted_fields
        if isinstance(f, ForeignKeyField) and f.rel_model is model
    ]
    pk = dest_columns.index(model._meta.primary_key.column_name) if self_refs else -1
    deferred: list[tuple[str, object, object]] = []
    copied = 0
    for batch in source.batches(table, dest_columns):
        rows = []
        for row in batch:
            values = [v if c is None else c(v) for c, v in zip(convert, row, strict=True)]
            for i in self_refs:
                if values[i] is not None:
                    deferred.append((dest_columns[i], values[i], values[pk]))
                    values[i] = None
            rows.append(tuple(values))
        _insert(dest, table, dest_columns, rows)
        copied += len(rows)
    p = dest.param
    cursor = dest.cursor()
    for column in {c for c, _, _ in deferred}:
        pairs = [(value, key) for c, value, key in deferred if c == column]
        cursor.executemany(
            f'UPDATE "{table}" SET "{column}" = {p} WHERE "{dest_columns[pk]}" = {p}', pairs
        )
    return copied


def copy_database(source_url: str, dest_url: str) -> dict:
    """Copy every row of ``source_url`` into the empty database ``dest_url`` (see the
    module docstring). Returns ``{"from", "to", "tables": [{"table", "rows"}], "rows",
    "secretsReencrypted", "secretKey", "seconds"}``; raises ``TransferError``."""
    from ci_service.store import secrets_box

    started = time.monotonic()
    errors = _driver_errors()
    try:
        if not is_postgres_url(dest_url):
            sqlite_path(dest_url)  # an unsupported scheme: a clear error, nothing made
        if not is_postgres_url(source_url) and not is_postgres_url(dest_url):
            a, b = Path(sqlite_path(source_url)), Path(sqlite_path(dest_url))
            if a.expanduser().absolute() == b.expanduser().absolute():
                raise TransferError("the source and the destination are the same file", 2)
        source = _Source(source_url)
    except UnsupportedDatabase as exc:
        raise TransferError(str(exc), 2) from None
    previous = database.obj
    dest = None
    try:
        _check_source_schema(source)
        models = model_classes()
        source_tables = source.tables()
        unknown = [t for t in source_tables if t not in models]
        if unknown:
            raise TransferError(
                f"the source has tables this release does not know: {', '.join(unknown)}", 2
            )
        dest = make_database(dest_url, pool_size=2)
        try:
            dest.connect(reuse_if_open=True)
        except errors as exc:
            raise TransferError(
                f"cannot connect to {_describe(dest_url)}: {exc}".strip(), 2
            ) from None
        _check_destination_empty(dest, dest_url, models)
        database.initialize(dest)  # migrations and the search index use the bound models
        from ci_service.store.migrations import migrate

        migrate(dest)
        ordered = [
            m
            for m in sort_models(list(models.values()))
            if m._meta.table_name in set(_model_table_names(dest))
        ]
        secrets = _Secrets(source_url, dest_url)
        counts = []
        with transaction():
            _check_destination_empty(dest, dest_url, models)  # again, under the write lock
            for model in ordered:
                table = model._meta.table_name
                if table not in source_tables:
                    raise TransferError(f"the source has no table {table}", 2)
                copied = _copy_table(source, dest, model, secrets)
                counts.append((table, copied))
            _rebuild_search(dest)
            mismatches = []
            for table, copied in counts:
                in_source = source.count(table)
                in_dest = int(dest.execute_sql(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0])
                if not in_source == in_dest == copied:
                    mismatches.append(f"{table}: source {in_source}, destination {in_dest}")
            if mismatches:
                raise TransferError("row counts differ, nothing was kept: " + "; ".join(mismatches))
    except TransferError:
        raise
    except errors as exc:
        raise TransferError(f"copy failed, nothing was kept: {exc}".strip()) from None
    finally:
        source.close()
        database.initialize(previous)
        if dest is not None:
            close_database(dest)
    return {
        "from": _describe(source_url),
        "to": _describe(dest_url),
        "tables": [{"table": t, "rows": n} for t, n in counts],
        "rows": sum(n for _, n in counts),
        "secretsReencrypted": secrets.count,
        "secretKey": secrets_box.key_source(dest_url),
        "seconds": round(time.monotonic() - started, 3),
    }


def _rebuild_search(dest) -> None:
    from ci_service.store.analysis import rebuild_search_index
    from ci_service.store.intel import rebuild_intel_fts

    rebuild_search_index()
    if not is_postgres(dest):
        rebuild_intel_fts()
