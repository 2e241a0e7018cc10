"""How a user's text becomes a search pattern, on either backend: nothing typed is syntax."""

from __future__ import annotations


def quote_fts(text: str) -> str:
    """``text`` as one FTS5 string (a phrase): nothing in it is query syntax."""
    return '"' + text.replace('"', '""') + '"'


def like_pattern(text: str) -> str:
    """``%text%`` for ``LIKE``/``ILIKE ... ESCAPE '\\'``: nothing typed is a wildcard."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def regex_literal(text: str) -> str:
    """``text`` as a PostgreSQL regular expression (ARE) that matches exactly it: every
    character but a letter, digit or space quoted with a backslash (a backslash before a
    character that is not alphanumeric stands for that character; before a letter or
    digit it would start an escape such as ``\\d``)."""
    return "".join(c if c.isalnum() or c == " " else "\\" + c for c in text)
