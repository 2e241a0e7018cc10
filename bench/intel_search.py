"""Benchmark intel search: search_intel (semantic + BM25) and substring search.

Seeds N synthetic intel items (about 1,000 characters each) into a fresh SQLite file with
bulk inserts (the FTS triggers and the stored vectors are the real ones), then prints
p50/p95 of ``search_intel``, of ``substring_search_intel`` (3+ characters: trigram index;
2 characters: bounded LIKE scan) and, for comparison, of a plain ``LIKE`` scan over all
items. Also the first-search index load time and the process RSS.

Usage: python -m bench.intel_search --items 10000 [--database /tmp/bench.db]
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import tempfile
import time
from pathlib import Path

WORDS = (
    "platform analytics pricing enterprise security cloud integration workflow customer "
    "dashboard automation compliance onboarding api partner revenue growth retention "
    "network identity access encryption audit report forecast pipeline marketing sales "
    "support billing invoice subscription migration latency uptime region storage backup "
    "observability alerting incident roadmap release feature beta launch acquisition"
).split()
NAMES = ["Zorblax", "Quantiva", "Helixor", "Nimbra", "Orbitel", "Veltrix", "Kandor", "Lumio"]


def fake_text(rng: random.Random) -> tuple[str, str]:
    name = rng.choice(NAMES)
    sentences = []
    while sum(len(s) for s in sentences) < 1000:
        words = rng.sample(WORDS, 9)
        sentences.append(f"{name} {' '.join(words)}.".capitalize())
    return f"{name} {rng.choice(WORDS)} update", " ".join(sentences)


def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p50 = statistics.median(ordered)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"p50 {p50 * 1000:7.2f} ms   p95 {p95 * 1000:7.2f} ms"


def timed(fn, runs: int) -> list[float]:
    out = []
    for i in range(runs):
        start = time.perf_counter()
        fn(i)
        out.append(time.perf_counter() - start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.intel_search", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--database", default=None)
    args = parser.parse_args()

    from ci_service.services.intel import index as intel_index
    from ci_service.services.search import intel_search
    from ci_service.services.workspace.workspaces import create_workspace
    from ci_service.store.db import connection, database, new_id, open_database, transaction
    from ci_service.store.intel import IntelEmbedding, IntelItem

    path = args.database or str(Path(tempfile.mkdtemp()) / "bench.db")
    open_database(path)
    rng = random.Random(7)
    provider = intel_index.provider()
    with connection():
        ws = create_workspace(f"bench-{new_id()[:6]}", "ENTERPRISE")
        start = time.perf_counter()
        seq = IntelItem.select().count()
        batch = 1000
        for offset in range(0, args.items, batch):
            rows = []
            for _ in range(min(batch, args.items - offset)):
                seq += 1
                title, content = fake_text(rng)
                rows.append(
                    {
                        "id": new_id(),
                        "seq": seq,
                        "workspace": ws.id,
                        "scope": "organization",
                        "type": "EVIDENCE",
                        "source_type": "WEB_PAGE",
                        "url": f"https://example.com/{seq}",
                        "title": title,
                        "content": content,
                        "content_hash": "x",
                        "credibility_score": 0.75,
                        "metadata": {},
                    }
                )
            vectors = provider.embed([f"{r['title']}\n{r['content']}" for r in rows])
            with transaction():
                IntelItem.insert_many(rows).execute()
                IntelEmbedding.insert_many(
                    [
                        {
                            "item": r["id"],
                            "workspace": ws.id,
                            "model": provider.name,
                            "dimension": provider.dimension,
                            "vector": intel_index.to_bytes(v),
                        }
                        for r, v in zip(rows, vectors, strict=True)
                    ]
                ).execute()
        print(f"seeded {args.items} items in {time.perf_counter() - start:.1f} s ({path})")
        size = Path(path).stat().st_size / 1e6
        print(f"database file: {size:.0f} MB")

        start = time.perf_counter()
        intel_index.workspace_index(ws.id)
        print(f"index load (first search): {(time.perf_counter() - start) * 1000:.0f} ms")

        queries = [
            "Zorblax",
            "pricing changes for enterprise customers",
            "security compliance audit",
            "Quantiva acquisition",
            "how fast is their support",
        ]
        runs = args.runs
        hits = timed(lambda i: intel_search.search_intel(ws.id, queries[i % len(queries)]), runs)
        print(f"search_intel (limit 10)          {percentiles(hits)}")
        subs = ["zorblax", "encryption audit", "Lumio roadmap", "nothing-matches-this"]
        hits = timed(
            lambda i: intel_search.substring_search_intel(ws.id, subs[i % len(subs)], 20), runs
        )
        print(f"substring 3+ chars (trigram FTS) {percentiles(hits)}")
        twos = ["ap", "zq", "qx", "ro"]
        hits = timed(
            lambda i: intel_search.substring_search_intel(ws.id, twos[i % len(twos)], 20), runs
        )
        print(f"substring 2 chars (bounded LIKE) {percentiles(hits)}")

        def like(i: int) -> None:
            needle = subs[i % len(subs)]
            database.execute_sql(
                "SELECT id FROM intel_item WHERE workspace_id = ? AND content LIKE ? "
                "ORDER BY seq DESC LIMIT 20",
                (ws.id, f"%{needle}%"),
            ).fetchall()

        hits = timed(like, max(5, runs // 5))
        print(f"plain LIKE scan (comparison)     {percentiles(hits)}")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of this process: {rss:.0f} MB")


if __name__ == "__main__":
    main()
