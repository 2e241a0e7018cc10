"""A 2-character /api/search lookup: SQL on a warm and a cold page cache, and the window.

Usage: python -m bench.search_window DB [--query zq] [--rounds 30]

The last lines compare the battlecard window's ``find`` for ``--query`` as a scan of the
whole window and through its row trigrams (``RowGrams``, what a window searched for 3
characters and more builds after a few searches), and the trigrams' build time.

DB is a ci-service SQLite database (the benchmark's, e.g. from ``python -m bench --keep``;
it is only read). The SQL is what ``/api/search`` ran before its windows: ``LIKE`` over the
newest 1,000 intel items and over the workspace's battlecard texts. "cold" is each round on
a new connection (what a serve thread meets after any commit in the process: SQLite drops
a connection's page cache when the database changed); "window" is
``services/search/window.py``'s ``find`` on the same rows, built once.
"""

from __future__ import annotations

import argparse
import sqlite3
import time

INTEL = (
    "SELECT id, title, content FROM intel_item WHERE workspace_id = ? AND seq >= "
    "COALESCE((SELECT seq FROM intel_item WHERE workspace_id = ? ORDER BY seq DESC "
    "LIMIT 1 OFFSET 999), 0) AND content LIKE ? ESCAPE '\\' ORDER BY seq DESC LIMIT 20"
)
CARDS = (
    "SELECT ref_id FROM search_doc WHERE workspace_id = ? AND kind = 'battlecard' "
    "AND text LIKE ? ESCAPE '\\' ORDER BY doc_id DESC LIMIT 20"
)


def connect(path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA cache_size=-4000")  # serve's
    return conn


def sql_lookup(conn: sqlite3.Connection, workspace: str, query: str) -> None:
    pattern = f"%{query}%"
    conn.execute(INTEL, (workspace, workspace, pattern)).fetchall()
    conn.execute(CARDS, (workspace, pattern)).fetchall()


def median_ms(samples: list[float]) -> float:
    return sorted(samples)[len(samples) // 2] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.search_window", description=__doc__.splitlines()[0]
    )
    parser.add_argument("db")
    parser.add_argument("--query", default="zq")
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    import numpy  # noqa: F401  (imported by the first window; not part of its build time)

    from ci_service.services.search.window import TextWindow

    warm = connect(args.db)
    (workspace,) = warm.execute(
        "SELECT workspace_id FROM intel_item GROUP BY workspace_id ORDER BY count(*) DESC LIMIT 1"
    ).fetchone()
    sql_lookup(warm, workspace, args.query)
    timings: dict[str, list[float]] = {"warm": [], "cold": [], "window": []}
    for _ in range(args.rounds):
        began = time.perf_counter()
        sql_lookup(warm, workspace, args.query)
        timings["warm"].append(time.perf_counter() - began)
    for _ in range(args.rounds):
        cold = connect(args.db)
        cold.execute("SELECT 1").fetchall()
        began = time.perf_counter()
        sql_lookup(cold, workspace, args.query)
        timings["cold"].append(time.perf_counter() - began)
        cold.close()
    intel = warm.execute(
        "SELECT id, content FROM intel_item WHERE workspace_id = ? ORDER BY seq DESC LIMIT 1000",
        (workspace,),
    ).fetchall()
    cards = warm.execute(
        "SELECT ref_id, text FROM search_doc WHERE workspace_id = ? AND kind = 'battlecard' "
        "ORDER BY doc_id DESC",
        (workspace,),
    ).fetchall()
    began = time.perf_counter()
    windows = [TextWindow((text, (rid,)) for rid, text in rows) for rows in (intel, cards)]
    built = time.perf_counter() - began
    for _ in range(args.rounds):
        began = time.perf_counter()
        for window in windows:
            window.find(args.query, 20)
        timings["window"].append(time.perf_counter() - began)
    print(f"query {args.query!r}: {len(intel)} intel items, {len(cards)} battlecards")
    for name, samples in timings.items():
        print(f"  {name:7} p50 {median_ms(samples):8.3f} ms")
    print(f"  windows built once in {built * 1000:.1f} ms")
    if len(args.query) >= 3:
        compare_trigrams(cards, args.query, args.rounds)


def compare_trigrams(cards: list, query: str, rounds: int) -> None:
    from ci_service.services.search import window as search_window

    pairs = [(text, (rid,)) for rid, text in cards]
    scan = search_window.TextWindow(pairs)
    grams = search_window.TextWindow(pairs, grams=True)
    began = time.perf_counter()
    for _ in range(search_window.GRAMS_AFTER_SCANS):
        grams.find(query, 20)  # the searches after which the trigrams are built
    built = time.perf_counter() - began
    if grams.grams is None:
        print("  (no row trigrams: a small window, or a pair of the query in no card)")
        return
    assert grams.find(query, -1) == scan.find(query, -1)
    for name, window in (("scan", scan), ("trigrams", grams)):
        samples = []
        for _ in range(rounds):
            began = time.perf_counter()
            window.find(query, 20)
            samples.append(time.perf_counter() - began)
        print(f"  cards {name:8} p50 {median_ms(samples):8.3f} ms")
    scans = search_window.GRAMS_AFTER_SCANS
    print(f"  row trigrams built in {built * 1000:.1f} ms (with {scans} scans)")


if __name__ == "__main__":
    main()
