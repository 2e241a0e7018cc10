"""Statements written once and run many times, for the hot write paths (issue 16).

peewee builds the SQL of every query anew: for the handful of small statements of a deal
write, building them cost more than running them. These helpers make the same SQL peewee
would (the models' table and column names, values through each field's ``db_value``)
once per shape and backend, and then only bind values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from peewee import Model

from ci_service.store.engine import database, is_postgres

_SQL: dict[tuple, str] = {}


def _quote(name: str) -> str:
    return f'"{name}"'


def _param() -> str:
    return "%s" if is_postgres() else "?"


def insert_sql(model: type[Model], names: tuple[str, ...], rows: int, suffix: str = "") -> str:
    """``INSERT INTO table (columns of field names) VALUES (...) x rows suffix``."""
    key = ("insert", model, names, rows, suffix, is_postgres())
    sql = _SQL.get(key)
    if sql is None:
        fields = model._meta.fields
        columns = ", ".join(_quote(fields[name].column_name) for name in names)
        one = "(" + ", ".join([_param()] * len(names)) + ")"
        sql = f"INSERT INTO {_quote(model._meta.table_name)} ({columns}) VALUES "
        sql += ", ".join([one] * rows) + (f" {suffix}" if suffix else "")
        _SQL[key] = sql
    return sql


def insert_rows(
    model: type[Model], rows: Sequence[Mapping[str, Any]], *, suffix: str = "", batch: int = 100
) -> None:
    """Insert ``rows`` (field name -> value, the same names in each) in statements of up
    to ``batch`` rows; ``suffix`` follows the VALUES (e.g. an ``ON CONFLICT`` clause)."""
    if not rows:
        return
    names = tuple(rows[0])
    columns = [(name, model._meta.fields[name].db_value) for name in names]
    for start in range(0, len(rows), batch):
        chunk = rows[start : start + batch]
        params = [convert(row[name]) for row in chunk for name, convert in columns]
        database.execute_sql(insert_sql(model, names, len(chunk), suffix), params)


def insert_model(instance: Model) -> None:
    """``instance.save(force_insert=True)`` for a model whose id is set (every BaseModel
    gets one at construction), in one prepared-once statement."""
    insert_rows(type(instance), [instance.__data__])


def select_sql(model: type[Model], where: str, cache_key: str) -> str:
    """``SELECT`` of every column of ``model`` (its table as ``t``) ``WHERE where``, with
    ``{param}`` placeholders in ``where``; built once per ``cache_key`` and backend."""
    key = ("select", model, cache_key, is_postgres())
    sql = _SQL.get(key)
    if sql is None:
        columns = ", ".join(f"t.{_quote(f.column_name)}" for f in model._meta.sorted_fields)
        sql = f"SELECT {columns} FROM {_quote(model._meta.table_name)} t WHERE "
        sql += where.format(param=_param())
        _SQL[key] = sql
    return sql


def select_models(model: type[Model], sql: str, params: Sequence[Any]) -> list[Model]:
    """Model instances of ``sql``'s rows, which must hold ``model``'s sorted fields in
    order (``select_sql``); values read through each field's ``python_value``."""
    fields = model._meta.sorted_fields
    converters = [f.python_value for f in fields]
    names = [f.name for f in fields]
    return [
        bare_model(
            model,
            {
                name: None if value is None else convert(value)
                for name, convert, value in zip(names, converters, row, strict=True)
            },
        )
        for row in database.execute_sql(sql, params).fetchall()
    ]


def bare_model(model: type[Model], data: dict[str, Any]) -> Model:
    """An instance of ``model`` holding ``data`` (field name -> Python value, every field
    given), without peewee's ``__init__``: no defaults filled in and no attribute set one
    by one, which cost more than the statement on the hot write paths."""
    instance = model.__new__(model)
    instance.__data__ = data
    instance._dirty = set()
    instance.__rel__ = {}
    return instance
