"""Unified search (``GET /api/search``): competitors, then battlecards, then intel items.

Rules (spec): case-insensitive substring match of the stripped query (2 to ``MAX_QUERY``
characters); competitors on their name, battlecards on kill shot, landmines, pricing
wedge and why-we-win / why-we-lose titles and descriptions, intel items on content; at
most ``LIMIT`` results in total, filled in that order (so competitors can crowd out the
rest); each ``{type, id, title, subtitle, url, score: null}`` with an app-relative url.
Within a type: competitors by name, battlecards most recently written first, intel newest
first.

Index: competitor names and battlecard text live in ``search_doc`` with one FTS5 trigram
table per kind (``competitor_fts``, ``battlecard_fts``; store/analysis.py), intel content
in ``intel_fts`` (``substring_search_intel``). A query of 3+ characters is one quoted
FTS5 phrase, so nothing a user types is query syntax, and a phrase of trigrams is exactly
a substring match. A 2-character query has no trigram: it scans the workspace's ``search_doc`` rows
(one per competitor and battlecard) with ``LIKE`` (ASCII) or a case-folded comparison
(other text), and intel with the intel service's bounded scan (the newest 1,000 items).

Windows (issue 16): competitors, battlecards and 2-character intel queries are answered
from the workspace's in-memory windows at its data version (services/search/window.py),
exact after every write; the SQL below runs when a workspace's window is over its size
cap or windows are off. So a search is usually one statement (the intel trigram query),
and at most one per kind, each joining the matches to the columns the results show
(competitor name and website; card mode, text, competitor and product names; intel title
and content).

On PostgreSQL ``search_doc`` has one ``pg_trgm`` GIN index on its text, and a query is an
``ILIKE`` of the escaped needle: the same substring match, the same order rules.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ci_service.errors import ValidationFailed
from ci_service.services.search import window as search_window
from ci_service.services.search.excerpt import excerpt
from ci_service.services.search.intel_search import substring_search_rows
from ci_service.services.search.text import like_pattern, quote_fts
from ci_service.store.data_version import read_version
from ci_service.store.db import database, is_postgres

LIMIT = 20
MIN_QUERY = 2
MAX_QUERY = 500


def check_query(q: Any) -> str:
    """The stripped query; 400 naming ``q`` when missing, shorter than 2 or too long."""
    if not isinstance(q, str) or len(q.replace("\x00", "").strip()) < MIN_QUERY:
        raise ValidationFailed.field("q", f"must be at least {MIN_QUERY} characters")
    needle = q.replace("\x00", "").strip()
    if len(needle) > MAX_QUERY:
        raise ValidationFailed.field("q", f"must be at most {MAX_QUERY} characters")
    return needle


# What each kind's rows carry into the results, joined onto its search_doc match (one query
# per kind; a match whose record is gone is skipped by the inner join).
_COLUMNS = {
    "competitor": ("r.id, r.name, r.website_url", "JOIN competitor r ON r.id = d.ref_id"),
    "battlecard": (
        "r.id, r.mode, r.search_text, c.name, o.name",
        "JOIN battlecard r ON r.id = d.ref_id LEFT JOIN competitor c ON c.id = r.competitor_id "
        "LEFT JOIN offering o ON o.id = r.my_product_id",
    ),
}


def match_docs(workspace_id: str, kind: str, needle: str, limit: int) -> list[str]:
    """Ids of the workspace's ``kind`` records whose indexed text contains ``needle``:
    competitors by name, battlecards most recently written first (``doc_id`` order)."""
    return [row[0] for row in _matches(workspace_id, kind, needle, limit)]


def _matches(
    workspace_id: str, kind: str, needle: str, limit: int, version: int | None = None
) -> list[tuple]:
    """The rows (``_COLUMNS``) of the workspace's ``kind`` records whose indexed text
    contains ``needle``, in result order, at most ``limit``: from the workspace's window
    (services/search/window.py) at ``version``, or from SQL when it has none."""
    if limit <= 0:
        return []
    window = search_window.window(workspace_id, kind, version, _WINDOW_LOADERS[kind], grams=True)
    if window is not None:
        return window.find(needle, limit)
    rows = _matching_rows(workspace_id, kind, needle, limit)
    if kind == "competitor":
        rows = sorted(rows, key=_competitor_order)
    return rows[:limit]


def _competitor_order(row: tuple) -> tuple[str, str]:
    return ((row[1] or "").casefold(), row[0])


def _load_competitors(workspace_id: str) -> list[tuple[str, tuple]]:
    """Every indexed competitor's name and result row, sorted as results are."""
    columns, joins = _COLUMNS["competitor"]
    sql = (
        f"SELECT {columns} FROM search_doc d {joins} WHERE d.workspace_id = {database.param} "
        "AND d.kind = 'competitor'"
    )
    rows = sorted(database.execute_sql(sql, [workspace_id]).fetchall(), key=_competitor_order)
    return [(row[1], row) for row in rows]


def _load_battlecards(workspace_id: str) -> Iterator[tuple[str, tuple]]:
    """Every battlecard's text and result row, most recently written first."""
    columns, joins = _COLUMNS["battlecard"]
    sql = (
        f"SELECT {columns} FROM search_doc d {joins} WHERE d.workspace_id = {database.param} "
        "AND d.kind = 'battlecard' ORDER BY d.doc_id DESC"
    )
    cursor = database.execute_sql(sql, [workspace_id])
    try:  # closed even when the window stops early (over its cap)
        for row in cursor:
            yield row[2], row
    finally:
        cursor.close()


_WINDOW_LOADERS = {"competitor": _load_competitors, "battlecard": _load_battlecards}


def _matching_rows(workspace_id: str, kind: str, needle: str, limit: int) -> list[tuple]:
    # Competitors are sorted by name afterwards, so all of their matches are needed (one
    # row per competitor: bounded by the plan's competitor limit).
    cap = -1 if kind == "competitor" else limit
    columns, joins = _COLUMNS[kind]  # literals, never user text
    if is_postgres():  # ILIKE folds case by the database's locale (C.UTF-8: Unicode)
        sql = (
            f"SELECT {columns} FROM search_doc d {joins} WHERE d.workspace_id = %s "
            "AND d.kind = %s AND d.text ILIKE %s ESCAPE '\\' ORDER BY d.doc_id DESC"
        )
        if cap >= 0:
            sql += f" LIMIT {int(cap)}"
        return database.execute_sql(sql, [workspace_id, kind, like_pattern(needle)]).fetchall()
    if len(needle) >= 3:
        table = f"{kind}_fts"
        sql = (
            f"SELECT {columns} FROM {table} f JOIN search_doc d ON d.doc_id = f.rowid {joins} "
            f"WHERE {table} MATCH ? AND d.workspace_id = ? ORDER BY f.rowid DESC LIMIT ?"
        )
        return database.execute_sql(sql, [quote_fts(needle), workspace_id, cap]).fetchall()
    if needle.isascii():
        sql = (
            f"SELECT {columns} FROM search_doc d {joins} WHERE d.workspace_id = ? "
            "AND d.kind = ? AND d.text LIKE ? ESCAPE '\\' ORDER BY d.doc_id DESC LIMIT ?"
        )
        params = [workspace_id, kind, like_pattern(needle), cap]
        return database.execute_sql(sql, params).fetchall()
    # LIKE folds ASCII only; compare case-folded text in Python instead.
    folded = needle.casefold()
    sql = (
        f"SELECT d.text, {columns} FROM search_doc d {joins} WHERE d.workspace_id = ? "
        "AND d.kind = ? ORDER BY d.doc_id DESC"
    )
    rows = database.execute_sql(sql, [workspace_id, kind]).fetchall()
    hits = [r[1:] for r in rows if folded in (r[0] or "").casefold()]
    return hits if cap < 0 else hits[:cap]


def search(workspace_id: str, q: Any, *, version: int | None = None) -> list[dict[str, Any]]:
    """Search results for ``q`` (see the module docstring). ``version``: the workspace's
    data version when the caller has read it (an API key's lookup does), else read here."""
    needle = check_query(q)
    if version is None:
        version = read_version(workspace_id)
    results: list[dict[str, Any]] = [
        {
            "type": "competitor",
            "id": cid,
            "title": name,
            "subtitle": website_url,
            "url": f"/competitors/{cid}",
            "score": None,
        }
        for cid, name, website_url in _matches(workspace_id, "competitor", needle, LIMIT, version)
    ]
    for bid, mode, text, rival, product in _matches(
        workspace_id, "battlecard", needle, LIMIT - len(results), version
    ):
        results.append(
            {
                "type": "battlecard",
                "id": bid,
                "title": f"{product or ''} vs {rival or ''} ({mode})",
                "subtitle": excerpt(text, needle),
                "url": f"/battlecards/{bid}",
                "score": None,
            }
        )
    remaining = LIMIT - len(results)
    if remaining > 0:
        for item_id, title, content in substring_search_rows(
            workspace_id, needle, remaining, version=version
        ):
            results.append(
                {
                    "type": "intel",
                    "id": item_id,
                    "title": title or excerpt(content, needle, 80),
                    "subtitle": excerpt(content, needle),
                    "url": f"/intel/{item_id}",
                    "score": None,
                }
            )
    return results[:LIMIT]
