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
(other text), and intel with the intel service's bounded scan.

On PostgreSQL ``search_doc`` has one ``pg_trgm`` GIN index on its text, and a query is an
``ILIKE`` of the escaped needle: the same substring match, the same order rules.
"""

from __future__ import annotations

from typing import Any

from ci_service.errors import ValidationFailed
from ci_service.services.intel import substring_search_intel
from ci_service.services.search_text import like_pattern, quote_fts
from ci_service.store.db import database

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


def match_docs(workspace_id: str, kind: str, needle: str, limit: int) -> list[str]:
    """Ids of the workspace's ``kind`` records whose indexed text contains ``needle``:
    competitors by name, battlecards most recently written first (``doc_id`` order)."""
    if limit <= 0:
        return []
    rows = _matching_rows(workspace_id, kind, needle, limit)
    if kind != "competitor":
        return [r[0] for r in rows]
    from ci_service.store.competitors import Competitor

    names = {
        c.id: c.name
        for c in Competitor.select(Competitor.id, Competitor.name).where(
            Competitor.id.in_([r[0] for r in rows])
        )
    }
    ordered = sorted(names, key=lambda i: (names[i].casefold(), i))
    return ordered[:limit]


def _matching_rows(workspace_id: str, kind: str, needle: str, limit: int) -> list[tuple]:
    # Competitors are sorted by name afterwards, so all of their matches are needed (one
    # row per competitor: bounded by the plan's competitor limit).
    cap = -1 if kind == "competitor" else limit
    from ci_service.store.db import is_postgres

    if is_postgres():  # ILIKE folds case by the database's locale (C.UTF-8: Unicode)
        sql = (
            "SELECT ref_id FROM search_doc WHERE workspace_id = %s AND kind = %s "
            "AND text ILIKE %s ESCAPE '\\' ORDER BY doc_id DESC"
        )
        if cap >= 0:
            sql += f" LIMIT {int(cap)}"
        return database.execute_sql(sql, [workspace_id, kind, like_pattern(needle)]).fetchall()
    if len(needle) >= 3:
        table = f"{kind}_fts"  # kind is one of two literals, never user text
        sql = (
            f"SELECT d.ref_id FROM {table} f JOIN search_doc d ON d.doc_id = f.rowid "
            f"WHERE {table} MATCH ? AND d.workspace_id = ? ORDER BY f.rowid DESC LIMIT ?"
        )
        return database.execute_sql(sql, [quote_fts(needle), workspace_id, cap]).fetchall()
    if needle.isascii():
        sql = (
            "SELECT ref_id FROM search_doc WHERE workspace_id = ? AND kind = ? "
            "AND text LIKE ? ESCAPE '\\' ORDER BY doc_id DESC LIMIT ?"
        )
        return database.execute_sql(sql, [workspace_id, kind, like_pattern(needle), cap]).fetchall()
    # LIKE folds ASCII only; compare case-folded text in Python instead.
    folded = needle.casefold()
    sql = "SELECT ref_id, text FROM search_doc WHERE workspace_id = ? AND kind = ? "
    sql += "ORDER BY doc_id DESC"
    rows = database.execute_sql(sql, [workspace_id, kind]).fetchall()
    hits = [(r[0],) for r in rows if folded in (r[1] or "").casefold()]
    return hits if cap < 0 else hits[:cap]


def _excerpt(text: str, needle: str, width: int = 120) -> str:
    flat = " ".join((text or "").split())
    at = flat.casefold().find(needle.casefold())
    if at < 0:
        return flat[:width]
    start = max(0, at - width // 3)
    piece = flat[start : start + width]
    return ("…" if start else "") + piece + ("…" if start + width < len(flat) else "")


def search(workspace_id: str, q: Any) -> list[dict[str, Any]]:
    """Search results for ``q`` (see the module docstring)."""
    from ci_service.store.analysis import Battlecard
    from ci_service.store.competitors import Competitor
    from ci_service.store.resources import Offering

    needle = check_query(q)
    results: list[dict[str, Any]] = []
    ids = match_docs(workspace_id, "competitor", needle, LIMIT)
    rows = {c.id: c for c in Competitor.select().where(Competitor.id.in_(ids))} if ids else {}
    for cid in ids:
        if cid in rows:
            results.append(
                {
                    "type": "competitor",
                    "id": cid,
                    "title": rows[cid].name,
                    "subtitle": rows[cid].website_url,
                    "url": f"/competitors/{cid}",
                    "score": None,
                }
            )
    ids = match_docs(workspace_id, "battlecard", needle, LIMIT - len(results))
    if ids:
        fields = (
            Battlecard.id,
            Battlecard.competitor,
            Battlecard.my_product,
            Battlecard.mode,
            Battlecard.search_text,
        )
        cards = {b.id: b for b in Battlecard.select(*fields).where(Battlecard.id.in_(ids))}
        names = {
            c.id: c.name
            for c in Competitor.select(Competitor.id, Competitor.name).where(
                Competitor.id.in_([b.competitor_id for b in cards.values()])
            )
        }
        products = {
            o.id: o.name
            for o in Offering.select(Offering.id, Offering.name).where(
                Offering.id.in_([b.my_product_id for b in cards.values()])
            )
        }
        for bid in ids:
            card = cards.get(bid)
            if card is None:
                continue
            results.append(
                {
                    "type": "battlecard",
                    "id": bid,
                    "title": f"{products.get(card.my_product_id, '')} vs "
                    f"{names.get(card.competitor_id, '')} ({card.mode})",
                    "subtitle": _excerpt(card.search_text, needle),
                    "url": f"/battlecards/{bid}",
                    "score": None,
                }
            )
    remaining = LIMIT - len(results)
    if remaining > 0:
        for item in substring_search_intel(workspace_id, needle, remaining):
            results.append(
                {
                    "type": "intel",
                    "id": item.id,
                    "title": item.title or _excerpt(item.content, needle, 80),
                    "subtitle": _excerpt(item.content, needle),
                    "url": f"/intel/{item.id}",
                    "score": None,
                }
            )
    return results[:LIMIT]
