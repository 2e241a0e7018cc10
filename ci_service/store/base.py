"""Base model and the field types shared by every table."""

from __future__ import annotations

import json
from datetime import datetime

from peewee import CharField, Model, TextField

from ci_service.store.db import database, new_id
from ci_service.timeutil import read_stored, stored_text


class JSONField(TextField):
    """JSON stored as text (portable across SQLite and PostgreSQL)."""

    def db_value(self, value):
        if value is None:
            return None
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)

    def python_value(self, value):
        if value is None:
            return None
        # Most JSON columns hold an empty list or object; skipping the parser for those
        # takes a measurable share off every list endpoint (issue 8 benchmark).
        if value == "[]":
            return []
        if value == "{}":
            return {}
        return json.loads(value)


class UTCDateTimeField(TextField):
    """Aware UTC datetimes stored as fixed-width ISO text, so text order is time order."""

    FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"

    def db_value(self, value):
        if value is None:
            return None
        if isinstance(value, str):
            return value
        return stored_text(value)

    def python_value(self, value):
        if value is None:
            return None
        # fromisoformat reads the stored form (trailing Z included) about 40x faster than
        # strptime, which dominated list endpoints in the issue 8 benchmark.
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            return read_stored(value)  # a row an older version wrote badly: never a 500


class BaseModel(Model):
    id = CharField(primary_key=True, default=new_id, max_length=64)

    class Meta:
        database = database
        legacy_table_names = False
