"""Base model and the field types shared by every table."""

from __future__ import annotations

import json
from datetime import datetime

from peewee import CharField, Model, TextField

from ci_service.store.engine import database, new_id
from ci_service.timeutil import read_stored, stored_text


class JSONField(TextField):
    """JSON: TEXT on SQLite, JSONB on PostgreSQL. Values reach Python as text on both (the
    PostgreSQL connection leaves JSONB unparsed, store/db.py), and are parsed here."""

    field_type = "JSONTEXT"  # mapped per backend: store/db.py *_FIELD_TYPES

    def db_value(self, value):
        if value is None:
            return None
        if not value and isinstance(value, dict | list):  # most rows: skip the encoder
            return "{}" if isinstance(value, dict) else "[]"
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        if "\\u0000" in text:  # a NUL in a string: PostgreSQL's JSONB refuses it (db.py)
            text = json.dumps(_without_nul(value), separators=(",", ":"), ensure_ascii=False)
        return text

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


def _without_nul(value):
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, list | tuple):
        return [_without_nul(v) for v in value]
    if isinstance(value, dict):
        return {_without_nul(k): _without_nul(v) for k, v in value.items()}
    return value


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
