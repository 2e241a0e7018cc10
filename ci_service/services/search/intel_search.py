"""Intel search: semantic search blended with BM25, substring search, and reindexing.

``search_intel`` (the search_intel tool) ranks candidate items by three signals:

* ``cos``: cosine similarity of the query and item vectors (the in-memory index), < 0 as 0;
* ``lex``: Okapi BM25 (k1 1.2, b 0.75) of the query's words (3+ characters, stop words
  dropped, the 4 longest), a title occurrence counting twice, divided by the best BM25
  among the candidates (0..1). Document frequencies come from the FTS5 trigram index,
  counted up to ``DF_CAP`` matches per word, and are cached per word until ``max(seq)``
  (another process's insert) or this process's intel writes (``intel_index.generation``)
  change: an idf is an estimate anyway (capped, and ``max(seq)`` counts deleted items), but
  a word's first count costs up to 8 ms at 100k items;
* ``exact``: 1 when the whole query occurs in the title or content (case-insensitive).

``base = 0.65 * cos + 0.35 * lex``; ``relevanceScore = 0.5 + 0.5 * base`` for an exact
hit and ``0.5 * base`` otherwise. So every item containing the query (an exact name)
ranks above every item that does not, and within each tier meaning and keyword overlap
decide.

Candidates: the best ``max(50, 5 * limit)`` items by cosine, the newest
``max(50, 2 * limit)`` items containing the whole query (queries of one or two words:
names), and the newest ``max(20, limit)`` containing each word, all from the trigram index
newest first, which stops early. BM25 is computed here over the candidates rather than
with FTS5's ``bm25()``: on a trigram index ``bm25()`` reads every match of every word
(31 ms for one common word, 600 ms for three, at 10k items), and a long phrase that
occurs nowhere makes FTS5 walk whole doclists (130 ms at 100k items).

``substring_search_intel`` (for /api/search) matches item content case-insensitively:
queries of 3+ characters use the trigram index (a quoted phrase of trigrams is a
substring match); 2-character queries cannot use trigrams, so they scan the newest
``SHORT_SCAN_ROWS`` (1,000) items of the workspace with ``LIKE``, newest first, stopping
at the limit: a common pair is found within a few rows, and a pair that occurs nowhere
reads the whole window, about 0.5 ms at 100k items (10,000 rows took 13 ms and did not
stay in the page cache; issue 16). ``substring_search_rows`` returns the matching rows' id,
title and content in that one query (what /api/search needs).

On PostgreSQL the trigram index is ``pg_trgm`` (GIN on title and content) and a phrase
match is an ``ILIKE`` of the escaped phrase; document frequencies are counted the same way,
up to ``DF_CAP``.
"""

from __future__ import annotations

import math
import re
import threading
from typing import Any

from ci_service.services.common.fields import fail
from ci_service.services.intel import index as intel_index
from ci_service.services.intel.items import intel_to_dict
from ci_service.services.intel.text import STOP_WORDS
from ci_service.services.search import window as search_window
from ci_service.services.search.text import like_pattern, quote_fts, regex_literal
from ci_service.store.db import database, is_postgres, transaction
from ci_service.store.intel import IntelEmbedding, IntelItem, upsert_embeddings
from ci_service.store.trees import KnowledgeTree, TreeNode

W_COSINE, W_LEXICAL = 0.65, 0.35
K1, B = 1.2, 0.75
MAX_WORDS = 4
MAX_PHRASE_WORDS = 2
DF_CAP = 1000
MAX_QUERY = 1000
SHORT_SCAN_ROWS = 1_000
_WORD = re.compile(r"\w{3,}", re.UNICODE)


def _check(query: Any, limit: Any) -> tuple[str, int]:
    if not isinstance(query, str) or not query.strip():
        raise fail({"query": ["must be a non-empty string"]})
    if len(query) > MAX_QUERY:
        raise fail({"query": [f"must be at most {MAX_QUERY} characters"]})
    if limit is None:
        limit = 10
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 100:
        raise fail({"limit": ["must be an integer from 1 to 100"]})
    return " ".join(query.split()), limit


_df_lock = threading.Lock()


def _newest_matching(
    workspace_id: str, phrase: str, competitor_id: str | None, k: int
) -> list[int]:
    """Seqs of the newest ``k`` items whose title or content contains ``phrase``.

    With a competitor and a common phrase (``DF_CAP`` matches or more) the competitor's own
    items are read newest first and checked here instead: the index would walk the whole
    workspace's matches, newest first, to find the few that are this competitor's (at 1,000
    competitors about 1,000 × k rows; issue 31). Answers are cached (``_newest_cache``)."""
    mark = _max_seq()
    key = (intel_index.db_key(), workspace_id, phrase.casefold(), competitor_id, k)
    version = (mark, intel_index.generation())
    found = _newest_cache.get(key)
    if found is not None and found[0] == version:
        return found[1]
    if competitor_id is not None and _cached_document_frequency(phrase.casefold(), mark) >= DF_CAP:
        seqs = _competitor_newest_matching(workspace_id, phrase, competitor_id, k)
    else:
        seqs = _index_newest_matching(workspace_id, phrase, competitor_id, k)
    with _df_lock:
        if len(_newest_cache) >= NEWEST_CACHE_SIZE:
            _newest_cache.clear()
        _newest_cache[key] = (version, seqs)
    return seqs


# The answers of _newest_matching, kept as the document frequencies are (until max(seq) or
# this process's intel writes change): a rare phrase of common words costs FTS5 a walk of
# long doclists (47 ms at a million items for "Vendor0011 acquisition"). A cached seq that
# another process has deleted since is dropped by _texts, as a stale vector is.
_newest_cache: dict[tuple, tuple[tuple[int, int], list[int]]] = {}
NEWEST_CACHE_SIZE = 4096


def _index_newest_matching(
    workspace_id: str, phrase: str, competitor_id: str | None, k: int
) -> list[int]:
    p = database.param
    if is_postgres():
        match, pattern = _pg_match(phrase)
        sql = "SELECT seq FROM intel_item i WHERE i.workspace_id = %s AND "
        sql += f"(title {match} OR content {match})"
        params: list[Any] = [workspace_id, pattern, pattern]
        order = "i.seq"
    else:
        sql = (
            "SELECT i.seq FROM intel_fts JOIN intel_item i ON i.seq = intel_fts.rowid "
            "WHERE i.workspace_id = ? AND intel_fts MATCH ?"
        )
        params = [workspace_id, quote_fts(phrase)]
        order = "intel_fts.rowid"
    if competitor_id is not None:
        sql += f" AND i.competitor_id = {p}"
        params.append(competitor_id)
    sql += f" ORDER BY {order} DESC LIMIT {p}"
    params.append(k)
    return [row[0] for row in database.execute_sql(sql, params).fetchall()]


COMPETITOR_PAGE = 200


def _competitor_newest_matching(
    workspace_id: str, phrase: str, competitor_id: str, k: int
) -> list[int]:
    """The competitor's items newest first, ``COMPETITOR_PAGE`` at a time (its
    (workspace, competitor, seq) index), checked for ``phrase`` case-insensitively."""
    p = database.param
    needle = phrase.casefold()
    found: list[int] = []
    last = None
    while len(found) < k:
        sql = (
            f"SELECT seq, title, content FROM intel_item WHERE workspace_id = {p} "
            f"AND competitor_id = {p}"
        )
        params: list[Any] = [workspace_id, competitor_id]
        if last is not None:
            sql += f" AND seq < {p}"
            params.append(last)
        sql += f" ORDER BY seq DESC LIMIT {COMPETITOR_PAGE}"
        rows = database.execute_sql(sql, params).fetchall()
        for seq, title, content in rows:
            if needle in (title or "").casefold() or needle in (content or "").casefold():
                found.append(seq)
                if len(found) == k:
                    break
        if len(rows) < COMPETITOR_PAGE:
            break
        last = rows[-1][0]
    return found


def _max_seq() -> int:
    """``max(seq)``: an index lookup; the version of the document-frequency cache."""
    row = database.execute_sql("SELECT max(seq) FROM intel_item").fetchone()
    return int(row[0] or 0)


_df_cache: dict[tuple[str, str], tuple[tuple[int, int], int]] = {}
DF_CACHE_SIZE = 4096


def _cached_document_frequency(word: str, mark: int) -> int:
    """``_document_frequency`` cached per (database, word) while ``mark`` (``max(seq)``)
    and this process's intel write generation stay the same."""
    key = (intel_index.db_key(), word)
    version = (mark, intel_index.generation())
    found = _df_cache.get(key)
    if found is not None and found[0] == version:
        return found[1]
    df = _document_frequency(word)
    with _df_lock:
        if len(_df_cache) >= DF_CACHE_SIZE:
            _df_cache.clear()
        _df_cache[key] = (version, df)
    return df


def _document_frequency(word: str) -> int:
    if is_postgres():
        match, pattern = _pg_match(word)
        sql = (
            f"SELECT count(*) FROM (SELECT 1 FROM intel_item WHERE title {match} "
            f"OR content {match} LIMIT %s) AS matches"
        )
        return int(database.execute_sql(sql, (pattern, pattern, DF_CAP)).fetchone()[0])
    sql = "SELECT count(*) FROM (SELECT rowid FROM intel_fts WHERE intel_fts MATCH ? LIMIT ?)"
    return int(database.execute_sql(sql, (quote_fts(word), DF_CAP)).fetchone()[0])


def _bm25(words: list[str], texts: dict[Any, tuple[str, str]]) -> dict[Any, float]:
    """BM25 of each candidate (title occurrences count twice), divided by the best."""
    if not words or not texts:
        return {}
    # max(seq) is an index lookup; it over-counts deleted items, harmless for an idf
    mark = _max_seq()
    total = max(1, mark)
    idf = {}
    for word in words:
        df = min(_cached_document_frequency(word, mark), total)
        idf[word] = math.log(1 + (total - df + 0.5) / (df + 0.5))
    lengths = {item_id: len(t) + len(c) for item_id, (t, c) in texts.items()}
    average = max(1.0, sum(lengths.values()) / len(lengths))
    raw = {}
    for item_id, (title, content) in texts.items():
        title, content = title.casefold(), content.casefold()
        norm = K1 * (1 - B + B * lengths[item_id] / average)
        score = 0.0
        for word in words:
            tf = 2 * title.count(word) + content.count(word)
            if tf:
                score += idf[word] * tf * (K1 + 1) / (tf + norm)
        raw[item_id] = score
    best = max(raw.values(), default=0.0)
    return {i: v / best for i, v in raw.items()} if best > 0 else {}


def _texts(workspace_id: str, seqs: set[int]) -> dict[int, tuple[str, str, str]]:
    """``{seq: (id, title, content)}`` of the workspace's items among ``seqs``, one query."""
    p = database.param
    # By seq only (unique): with a workspace condition SQLite may pick the workspace index
    # and scan every item of the workspace; the workspace is checked on the rows instead.
    sql = "SELECT seq, id, workspace_id, title, content FROM intel_item WHERE seq IN ({})"
    rows = database.execute_sql(sql.format(", ".join([p] * len(seqs))), list(seqs)).fetchall()
    return {
        seq: (i, title or "", content or "")
        for seq, i, ws, title, content in rows
        if ws == workspace_id
    }


def search_intel(
    workspace_id: str, query: Any, *, competitor_id: str | None = None, limit: Any = 10
) -> list[dict[str, Any]]:
    """Items ordered by relevance, each ``intel_to_dict`` + ``relevanceScore`` (0..1).

    400 naming ``query`` for an empty query, ``limit`` outside 1..100."""
    import numpy as np

    text, limit = _check(query, limit)
    provider = intel_index.provider()
    qv = provider.embed_query(text)
    index = intel_index.workspace_index(workspace_id)  # None: built in the background
    allowed = None
    if competitor_id is not None:
        allowed = {
            row[0]
            for row in IntelItem.select(IntelItem.seq)
            .where(IntelItem.workspace == workspace_id, IntelItem.competitor == competitor_id)
            .tuples()
        }
    cosine: dict[int, float] = {}
    if index is not None and (allowed is None or allowed):
        cosine = dict(index.search(qv, max(50, 5 * limit), filter_ids=allowed))

    candidates = set(cosine)
    words = [
        w for w in dict.fromkeys(w.casefold() for w in _WORD.findall(text)) if w not in STOP_WORDS
    ]
    words = sorted(words, key=len, reverse=True)[:MAX_WORDS]
    if len(text) >= 3 and len(text.split()) <= MAX_PHRASE_WORDS:
        candidates.update(_newest_matching(workspace_id, text, competitor_id, max(50, 2 * limit)))
    if len(text) >= 3:
        for word in words:
            candidates.update(_newest_matching(workspace_id, word, competitor_id, max(20, limit)))
    if not candidates:
        return []
    texts = _texts(workspace_id, candidates)
    stale = candidates - set(texts)
    if stale and index is not None:  # deleted, or written by a rolled-back transaction
        index.remove(stale)
    lexical = _bm25(words, {seq: (t, c) for seq, (_, t, c) in texts.items()})
    needle = text.casefold()
    if index is not None and float(np.linalg.norm(qv)):
        cosine.update(index.scores(qv, [i for i in texts if i not in cosine]))
    scored = []
    for seq, (item_id, title, content) in texts.items():
        cosine.setdefault(seq, 0.0)
        base = W_COSINE * max(0.0, cosine[seq]) + W_LEXICAL * lexical.get(seq, 0.0)
        exact = needle in title.casefold() or needle in content.casefold()
        score = 0.5 + 0.5 * base if exact else 0.5 * base
        if score > 0:
            scored.append((round(min(1.0, score), 4), item_id))
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    top = scored[:limit]
    rows = {r.id: r for r in IntelItem.select().where(IntelItem.id.in_([i for _, i in top]))}
    return [{**intel_to_dict(rows[i]), "relevanceScore": score} for score, i in top if i in rows]


def substring_search_rows(
    workspace_id: str, text: str, limit: int = 20, *, version: int | None = None
) -> list[tuple[str, str, str]]:
    """``(id, title, content)`` of the items whose content contains ``text``
    (case-insensitive), newest first, at most ``limit``: one query, or for 2 characters
    the workspace's window of its newest items at data ``version`` (None: read it)."""
    needle = " ".join((text or "").split()) if (text or "").strip() else ""
    if len(needle) < 2 or limit <= 0:
        return []
    if len(needle) < 3:
        # The window's size is in its key: a window of another size is another window.
        kind = f"intel-newest-{SHORT_SCAN_ROWS}"
        recent = search_window.window(workspace_id, kind, version, _load_recent)
        if recent is not None:
            return recent.find(needle, limit)
    if is_postgres():
        match, pattern = _pg_match(needle)
        sql = (
            f"SELECT id, title, content FROM intel_item WHERE workspace_id = %s AND content {match}"
        )
        params: list[Any] = [workspace_id, pattern]
        if len(needle) < 3:  # no trigram to use: the same bounded scan as on SQLite
            sql += (
                " AND seq >= COALESCE((SELECT seq FROM intel_item WHERE workspace_id = %s "
                "ORDER BY seq DESC LIMIT 1 OFFSET %s), 0)"
            )
            params += [workspace_id, SHORT_SCAN_ROWS - 1]
        sql += " ORDER BY seq DESC LIMIT %s"
        params.append(limit)
    elif len(needle) >= 3:
        sql = (
            "SELECT i.id, i.title, i.content FROM intel_fts "
            "JOIN intel_item i ON i.seq = intel_fts.rowid "
            "WHERE intel_fts MATCH ? AND i.workspace_id = ? "
            "ORDER BY intel_fts.rowid DESC LIMIT ?"
        )
        params = ["content : " + quote_fts(needle), workspace_id, limit]
    else:
        # The newest SHORT_SCAN_ROWS items (seq at or above the window's oldest), newest
        # first, stopping at the limit: a common pair is found within a few rows.
        sql = (
            "SELECT id, title, content FROM intel_item WHERE workspace_id = ? "
            "AND seq >= COALESCE((SELECT seq FROM intel_item WHERE workspace_id = ? "
            "ORDER BY seq DESC LIMIT 1 OFFSET ?), 0) "
            "AND content LIKE ? ESCAPE '\\' ORDER BY seq DESC LIMIT ?"
        )
        params = [workspace_id, workspace_id, SHORT_SCAN_ROWS - 1, like_pattern(needle), limit]
    return [
        (row[0], row[1] or "", row[2] or "") for row in database.execute_sql(sql, params).fetchall()
    ]


def _pg_match(needle: str) -> tuple[str, str]:
    """PostgreSQL's "contains ``needle``, case aside": the operator and placeholder to put
    after a column, and the pattern to bind. A case-insensitive regular expression for an
    ASCII needle (its recheck of a row, which the trigram index leaves to every candidate
    and the newest-first walk to every row it passes, costs about half of ILIKE's, which
    lower-cases the whole text first: 2,034 candidates of a rare word at a million items
    took 18 instead of 42 ms), else ILIKE.
    Both fold case by the database's locale; for an ASCII needle they differ only on the
    Kelvin sign and the dotted capital I, which ILIKE lower-cases to ASCII letters."""
    if needle.isascii():
        return "~* %s", regex_literal(needle)
    return "ILIKE %s ESCAPE '\\'", like_pattern(needle)


def _load_recent(workspace_id: str) -> list[tuple[str, tuple[str, str, str]]]:
    """The newest ``SHORT_SCAN_ROWS`` items' content and ``(id, title, content)``."""
    sql = (
        f"SELECT id, title, content FROM intel_item WHERE workspace_id = {database.param} "
        f"ORDER BY seq DESC LIMIT {SHORT_SCAN_ROWS}"
    )
    rows = database.execute_sql(sql, [workspace_id]).fetchall()
    return [(row[2] or "", (row[0], row[1] or "", row[2] or "")) for row in rows]


def substring_search_intel(workspace_id: str, text: str, limit: int = 20) -> list[IntelItem]:
    """Items whose content contains ``text`` (case-insensitive), newest first."""
    ids = [row[0] for row in substring_search_rows(workspace_id, text, limit)]
    if not ids:
        return []
    rows = {r.id: r for r in IntelItem.select().where(IntelItem.id.in_(ids))}
    return [rows[i] for i in ids if i in rows]


# -- reindex ----------------------------------------------------------------------------

BATCH = 256


def _stale_items(workspace_id: str | None, model: str, dimension: int, force: bool):
    query = IntelItem.select(IntelItem.id, IntelItem.workspace, IntelItem.title, IntelItem.content)
    if workspace_id is not None:
        query = query.where(IntelItem.workspace == workspace_id)
    if not force:
        current = IntelEmbedding.select(IntelEmbedding.item).where(
            IntelEmbedding.model == model, IntelEmbedding.dimension == dimension
        )
        query = query.where(IntelItem.id.not_in(current))
    return query.order_by(IntelItem.seq)


def reindex_counts(workspace_id: str | None = None, *, force: bool = False) -> dict[str, Any]:
    """Re-embed with the current provider what another model (or none) embedded.

    ``force``: re-embed everything. One transaction per batch of 256 items and per tree.
    Returns ``{"model", "dimension", "intelItems", "treeNodes", "trees"}``."""
    provider = intel_index.provider()
    model, dimension = provider.name, provider.dimension
    counts: dict[str, Any] = {"model": model, "dimension": dimension}
    items = 0
    last_seq = 0
    while True:
        with transaction():
            batch = list(
                _stale_items(workspace_id, model, dimension, force)
                .where(IntelItem.seq > last_seq)
                .select_extend(IntelItem.seq)
                .limit(BATCH)
            )
            if not batch:
                break
            last_seq = batch[-1].seq
            vectors = provider.embed([intel_index.item_text(r.title, r.content) for r in batch])
            upsert_embeddings(
                [
                    {
                        "item": r.id,
                        "workspace": r.workspace_id,
                        "model": model,
                        "dimension": dimension,
                        "vector": intel_index.to_bytes(v),
                    }
                    for r, v in zip(batch, vectors, strict=True)
                ]
            )
            items += len(batch)
    trees = KnowledgeTree.select()
    if workspace_id is not None:
        trees = trees.where(KnowledgeTree.workspace == workspace_id)
    if not force:
        trees = trees.where(
            (KnowledgeTree.embedding_model.is_null())
            | (KnowledgeTree.embedding_model != model)
            | (KnowledgeTree.embedding_dimension != dimension)
        )
    nodes = tree_count = 0
    for tree in list(trees):
        with transaction():
            rows = list(TreeNode.select(TreeNode.id, TreeNode.text).where(TreeNode.tree == tree))
            vectors = provider.embed([r.text for r in rows]) if rows else []
            for row, vector in zip(rows, vectors, strict=True):
                TreeNode.update(embedding=intel_index.to_bytes(vector)).where(
                    TreeNode.id == row.id
                ).execute()
            KnowledgeTree.update(embedding_model=model, embedding_dimension=dimension).where(
                KnowledgeTree.id == tree.id
            ).execute()
        nodes += len(rows)
        tree_count += 1
    counts.update(intelItems=items, treeNodes=nodes, trees=tree_count)
    with transaction():
        intel_index.after_commit_drop(workspace_id)
    return counts


def reindex(workspace_id: str | None = None, *, force: bool = False) -> int:
    """Re-embed intel items and tree nodes with the current provider; how many were."""
    counts = reindex_counts(workspace_id, force=force)
    return counts["intelItems"] + counts["treeNodes"]
