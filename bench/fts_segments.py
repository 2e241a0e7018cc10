"""The /api/search intel queries on an FTS index of many segments, then merged into one.

Usage: python -m bench.fts_segments DB [--rounds 40]

DB is a ci-service SQLite database with intel items (the benchmark's, e.g. from
``python -m bench --keep``); it is copied first, the original is not changed. One
connection with serve's 4 MB page cache runs the query mix in turn (as a serve thread
does), p50 per query, on the copy as it is and after ``optimize_indexes()`` (what the
scheduler's daily upkeep and ``ci-service optimize-index`` do).
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import tempfile
import time
from pathlib import Path

QUERIES = ['"kubernetes"', '"Encryption Audit"', '"vendor0021"', '"platform"', '"VENDOR00"']
SQL = (
    "SELECT i.id, i.title, i.content FROM intel_fts JOIN intel_item i ON i.seq = intel_fts.rowid "
    "WHERE intel_fts MATCH ? ORDER BY intel_fts.rowid DESC LIMIT 20"
)


def measure(path: Path, rounds: int) -> dict[str, float]:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA cache_size=-4000")
    samples: dict[str, list[float]] = {q: [] for q in QUERIES}
    for round_no in range(rounds):
        for query in QUERIES:
            began = time.perf_counter()
            conn.execute(SQL, ("content : " + query,)).fetchall()
            if round_no >= 3:  # warm-up rounds
                samples[query].append(time.perf_counter() - began)
    segments = conn.execute("SELECT count(DISTINCT segid) FROM intel_fts_idx").fetchone()[0]
    conn.close()
    result = {q: sorted(s)[len(s) // 2] * 1000 for q, s in samples.items()}
    result["segments"] = segments
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.fts_segments", description=__doc__.splitlines()[0]
    )
    parser.add_argument("db", type=Path)
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        copy = Path(work) / "copy.db"
        shutil.copyfile(args.db, copy)
        before = measure(copy, args.rounds)

        from ci_service.services.search.upkeep import optimize_indexes
        from ci_service.store.db import close_database, connection, open_database

        open_database(str(copy))
        with connection():
            report = optimize_indexes()
        close_database()
        after = measure(copy, args.rounds)
    merged = report["intel_fts"]
    print(f"segments: {before['segments']} -> {after['segments']} "
          f"({merged['steps']} merge steps, {merged['seconds']} s)")  # fmt: skip
    print(f"{'query':24} {'p50 ms before':>14} {'p50 ms after':>13}")
    for query in QUERIES:
        print(f"{query:24} {before[query]:14.3f} {after[query]:13.3f}")


if __name__ == "__main__":
    main()
