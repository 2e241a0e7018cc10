"""How a user's text becomes a search pattern, on either backend: nothing typed is syntax."""

from __future__ import annotations


def quote_fts(text: str) -> str:
    """``text`` as one FTS5 string (a phrase): nothing in it is query syntax."""
    return '"' + text.replace('"', '""') + '"'


def like_pattern(text: str) -> str:
    """``%text%`` for ``LIKE``/``ILIKE ... ESCAPE '\\'``: nothing typed is a wildcard."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"
