"""Lists the database writes as JSON itself (issue 16): one statement, one value back.

A list endpoint read row by row costs, per row, a step of the driver and a Python object
per column. On SQLite the step also releases the interpreter lock, and with several server
threads busy every release hands the interpreter to another thread: under load that
switching cost more than the work. Built by the database (SQLite's ``json_object`` and
``json_group_array``, PostgreSQL's ``json_build_object`` and ``json_agg``) the whole list
is one row, and Python only wraps it (``JsonText``, embedded by web/json_provider.py).

The answer must be the one the Python path gives, byte for byte after parsing: timestamps
become ``timeutil.iso`` text (milliseconds, ``Z``), JSON columns are embedded as JSON, and
keys marked ``omit_null`` are left out when the column is null. Where the database cannot
promise that for some row (a timestamp an older version stored in another form, or text in
a SQLite JSON column that isn't JSON), the statement says so or fails, and the caller
takes the Python path: ``fetch`` returns None. tests/test_json_rows.py compares the two paths.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from peewee import DatabaseError

from ci_service.store.engine import database, is_postgres

# The stored form of every timestamp (timeutil.stored_text): 27 characters, microseconds, Z.
_STORED_TIME_GLOB = "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]"
_STORED_TIME_GLOB += ".[0-9][0-9][0-9][0-9][0-9][0-9]Z"
_STORED_TIME_REGEX = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$"


class JsonText:
    """JSON text the database wrote, to embed as it is in an answer."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return f"JsonText({self.text[:40]!r}...)"


@dataclass(frozen=True)
class Key:
    """One key of each listed object.

    ``kind``: ``value`` (the column as it is), ``json`` (a JSON column, embedded) or
    ``time`` (a stored timestamp, written as ``timeutil.iso`` does)."""

    name: str
    column: str
    kind: str = "value"
    omit_null: bool = False


def _value(key: Key, postgres: bool) -> str:
    column = f"t.{key.column}"
    if key.kind == "time":
        # "2026-01-31T12:00:00.123456Z" -> "2026-01-31T12:00:00.123Z": iso() truncates too.
        return f"substr({column}, 1, 23) || 'Z'"
    if key.kind == "json" and not postgres:
        return f"json({column})"  # embedded as JSON, not as a string holding JSON
    return column


def _unsure(key: Key, postgres: bool) -> str | None:
    """A condition true where the database can't write what the Python path would. (A
    SQLite JSON column that isn't JSON needs none: ``json()`` raises, see ``fetch``.)"""
    column = f"t.{key.column}"
    if key.kind != "time":
        return None
    if postgres:
        return f"({column} IS NOT NULL AND {column} !~ '{_STORED_TIME_REGEX}')"
    return f"({column} IS NOT NULL AND {column} NOT GLOB '{_STORED_TIME_GLOB}')"


def _object(keys: Sequence[Key], postgres: bool) -> str:
    """One object per row. Keys left out when null make one ``CASE`` branch per set of
    them present: cheaper than patching an object, which the database would parse again."""
    build = "json_build_object" if postgres else "json_object"
    optional = [k for k in keys if k.omit_null]
    if len(optional) > 3:
        raise ValueError("at most 3 keys may be left out when null")
    branches = []
    for present in itertools.product((True, False), repeat=len(optional)):
        shown = {k.name for k, here in zip(optional, present, strict=True) if here}
        pairs = ", ".join(
            f"'{k.name}', {_value(k, postgres)}" for k in keys if not k.omit_null or k.name in shown
        )
        test = " AND ".join(
            f"t.{k.column} IS {'NOT ' if here else ''}NULL"
            for k, here in zip(optional, present, strict=True)
        )
        branches.append((test, f"{build}({pairs})"))
    if len(branches) == 1:
        return branches[0][1]
    cases = " ".join(f"WHEN {test} THEN {item}" for test, item in branches[:-1])
    return f"CASE {cases} ELSE {branches[-1][1]} END"


@dataclass(frozen=True)
class JsonList:
    """``SELECT`` of one JSON array: the rows of ``table`` matching ``where`` (SQL with
    ``{param}`` placeholders; ``where_postgres`` where PostgreSQL needs other words), in
    ``order``, with ``LIMIT``/``OFFSET`` as the last two parameters. The statement text is
    built once per backend."""

    table: str
    keys: tuple[Key, ...]
    where: str
    order: str
    where_postgres: str | None = None
    _statements: dict = field(default_factory=dict, compare=False, repr=False)

    def sql(self, postgres: bool) -> str:
        cached = self._statements.get(postgres)
        if cached is not None:
            return cached
        param = "%s" if postgres else "?"
        unsure = " OR ".join(filter(None, (_unsure(k, postgres) for k in self.keys))) or "FALSE"
        where = (self.where_postgres or self.where) if postgres else self.where
        rows = (
            f"SELECT * FROM {self.table} WHERE {where.format(param=param)} "
            f"ORDER BY {self.order} LIMIT {param} OFFSET {param}"
        )
        item = _object(self.keys, postgres)
        if postgres:
            order = ", ".join(f"t.{part.strip()}" for part in self.order.split(","))
            sql = (
                f"SELECT coalesce(json_agg({item} ORDER BY {order}), '[]'::json)::text, "
                f"count(*) FILTER (WHERE {unsure}) FROM ({rows}) t"
            )
        else:
            # The subquery's order is the aggregate's: SQLite reads it as written.
            sql = f"SELECT json_group_array({item}), total({unsure}) FROM ({rows}) t"
        self._statements[postgres] = sql
        return sql

    def fetch(self, params: Sequence, limit: int, offset: int) -> JsonText | None:
        """The list as JSON text to embed in an answer, or None where the Python path
        must answer (see the module docstring)."""
        postgres = is_postgres()
        try:
            text, unsure = database.execute_sql(
                self.sql(postgres), (*params, limit, offset)
            ).fetchone()
        except DatabaseError:
            # SQLite's json() and json_each raise on a column that isn't JSON: the
            # caller's Python path decides what such a list answers.
            if postgres:
                raise
            return None
        if unsure:
            return None
        return JsonText(text)
