"""Time the two searches in-process on an existing benchmark database (issue 16).

Seed once with the benchmark's own seeder, then run this as often as needed:

    python -m bench.seed /tmp/s16/bench.db \
        '{"competitors": 50, "battlecards": 1000, "deals": 0, "intel": 100000}'
    python -m bench.search_hot /tmp/s16/bench.db --rounds 20

Prints p50/p95 per query of ``search.search`` (what GET /api/search runs) over the
benchmark's 8-query mix and of ``search_intel`` over its 5 semantic queries, the first
``search_intel`` (index load) time and the process's VmRSS afterwards, after the same
searches have also run once on each of ``--threads`` threads (a connection and an SQLite
page cache each, as ``serve --threads 8`` has). ``--profile``
runs each query once more under pyinstrument (``pip install pyinstrument``) and prints
the call tree. Only reads: the database is not changed (nor migrated).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

# The benchmark's own query mixes, so these figures compare with `python -m bench` (the
# repository root on the path: this file also runs as `python bench/search_hot.py`).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.run import SEARCH_QUERIES, SEMANTIC_QUERIES  # noqa: E402


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def timed(fn, queries, rounds):
    per = {q: [] for q in queries}
    for _ in range(rounds):
        for q in queries:
            start = time.perf_counter()
            fn(q)
            per[q].append((time.perf_counter() - start) * 1000)
    return per


def report(title, per) -> None:
    print(title)
    every = [t for samples in per.values() for t in samples]
    for q, samples in per.items():
        print(f"  {q!r:45} p50 {statistics.median(samples):7.2f} ms  p95 {p95(samples):7.2f} ms")
    print(f"  {'(all)':45} p50 {statistics.median(every):7.2f} ms  p95 {p95(every):7.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.search_hot", description=__doc__.split("\n")[0]
    )
    parser.add_argument("database")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()

    from ci_service.services.search.intel_search import search_intel
    from ci_service.services.search.unified import search
    from ci_service.store.db import connection, database, make_database

    # No migrations: the seeded file is read as it is (and is never changed).
    database.initialize(make_database(args.database))
    with connection():
        (ws,) = database.execute_sql("SELECT id FROM workspace LIMIT 1").fetchone()
        print(f"RSS before searches: {rss_mb():.0f} MB")
        start = time.perf_counter()
        search_intel(ws, "warm up the index")
        print(f"first search_intel (loads the index): {time.perf_counter() - start:.2f} s")
        for q in SEARCH_QUERIES:  # warm the page cache
            search(ws, q)
        report(
            "/api/search service call", timed(lambda q: search(ws, q), SEARCH_QUERIES, args.rounds)
        )
        report(
            "search_intel service call",
            timed(lambda q: search_intel(ws, q), SEMANTIC_QUERIES, args.rounds),
        )

    def each_thread() -> None:
        # Left open, as a server thread's connection is (closing it would free its cache).
        database.connect(reuse_if_open=True)
        for _ in range(2):
            for q in SEARCH_QUERIES:
                search(ws, q)
            for q in SEMANTIC_QUERIES:
                search_intel(ws, q)

    for _ in range(args.threads):  # one after another: one connection (and cache) each
        worker = threading.Thread(target=each_thread)
        worker.start()
        worker.join()
    print(f"RSS after searches on {args.threads} threads: {rss_mb():.0f} MB")
    with connection():
        if args.profile:
            from pyinstrument import Profiler

            for fn, queries in ((search, SEARCH_QUERIES), (search_intel, SEMANTIC_QUERIES)):
                profiler = Profiler(interval=0.0005)
                profiler.start()
                for _ in range(5):
                    for q in queries:
                        fn(ws, q)
                profiler.stop()
                print(profiler.output_text(unicode=False, color=False, show_all=False))


if __name__ == "__main__":
    main()
