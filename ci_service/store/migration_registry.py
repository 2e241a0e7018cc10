"""The registry of migrations and the helpers a migration uses.

Split out of migrations.py so there are no import cycles: schema.py (the list of
migrations, which imports the models) registers into this module, which imports no model,
and migrations.py, which runs them, imports schema.py. See migrations.py for the rules.
"""

from __future__ import annotations

from collections.abc import Callable

from peewee import Database
from playhouse.migrate import SchemaMigrator
from playhouse.migrate import migrate as run_operations

Migration = tuple[str, Callable[[Database], None]]
MIGRATIONS: list[Migration] = []


def migration(name: str):
    """Register a migration function under ``name`` (order of registration is order of use)."""

    def register(fn: Callable[[Database], None]):
        if any(existing == name for existing, _ in MIGRATIONS):
            raise ValueError(f"duplicate migration {name}")
        MIGRATIONS.append((name, fn))
        return fn

    return register


def add_column_if_missing(db: Database, table: str, column: str, field) -> None:
    if column in {c.name for c in db.get_columns(table)}:
        return
    default = field.default
    if not field.null and isinstance(default, int | float | str) and not isinstance(default, bool):
        # One ALTER TABLE ... NOT NULL DEFAULT: peewee's migrator adds a NOT NULL column by
        # rebuilding the table on SQLite, which fails on a large, busy file ("database table
        # is locked") and copies every row for nothing.
        kind = db._field_types.get(field.field_type, field.field_type)
        literal = (
            "'" + default.replace("'", "''") + "'" if isinstance(default, str) else repr(default)
        )
        db.execute_sql(
            f'ALTER TABLE "{table}" ADD COLUMN "{column}" {kind} NOT NULL DEFAULT {literal}'
        )
        return
    run_operations(SchemaMigrator.from_database(db).add_column(table, column, field))
