"""Benchmark /api/search: the search service against a plain LIKE scan of the same data.

Seeds one workspace in a fresh SQLite file with 1,000 competitors, 1,000 battlecards and
intel items (about 1,000 characters each), all with bulk inserts through the real tables,
so the same SQLite triggers the service relies on fill ``search_doc``, its FTS tables and
``intel_fts``. Measures at 10,000 and then (after seeding the rest) 100,000 intel items,
in one run:

- ``service``: ``ci_service.services.search.unified.search`` (what GET /api/search runs: FTS5
  trigram phrase queries, the 2-character fallbacks, loading the result rows);
- ``LIKE``: the same three lookups as plain ``LIKE '%q%'`` scans with the same order and
  limits (competitor names, battlecard text, intel content newest first, 20 in total).

Query mix (cycled): a competitor name fragment, a phrase from the intel vocabulary, a
rare word, a string that matches nothing, mixed case, and 2-character queries.

Usage: python -m bench.search [--items 100000] [--runs 60] [--database PATH]
"""

from __future__ import annotations

import argparse
import platform
import random
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
QUERIES = [
    "vendor0421",  # one competitor, its card, ~100 intel items
    "Encryption Audit",  # a phrase that occurs now and then
    "kubernetes",  # a rare word (1 in 500 items)
    "nothing-matches-this",  # no match anywhere: the LIKE scan reads everything
    "VENDOR09",  # mixed case, 10 competitors
    "platform",  # very common
    "zq",  # 2 characters, no match
    "ap",  # 2 characters, common
]
N_COMPETITORS = 1000


def text_for(rng: random.Random, vendor: str) -> str:
    sentences = []
    while sum(len(s) for s in sentences) < 1000:
        words = rng.sample(WORDS, 9)
        sentences.append(f"{vendor} {' '.join(words)}.")
    if rng.random() < 0.002:
        sentences.append("Runs on kubernetes.")
    return " ".join(sentences)


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def like_search(database, workspace_id: str, q: str, *, stop_early: bool = False) -> list[str]:
    """The spec's search as plain LIKE scans (ASCII case-insensitive, like the index).

    ``stop_early`` False: intel newest first by ``created_at`` (no index on it), so every
    item of the workspace is read: the plain scan. True: by ``seq`` through the
    (workspace, seq) index, so the scan stops after the 20th match (fast for common
    strings, a full scan for rare ones)."""
    needle = "%" + q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    ids = [
        r[0]
        for r in database.execute_sql(
            "SELECT id FROM competitor WHERE workspace_id = ? AND name LIKE ? ESCAPE '\\' "
            "ORDER BY lower(name), id LIMIT 20",
            (workspace_id, needle),
        ).fetchall()
    ]
    ids += [
        r[0]
        for r in database.execute_sql(
            "SELECT id FROM battlecard WHERE workspace_id = ? AND search_text LIKE ? "
            "ESCAPE '\\' ORDER BY updated_at DESC, id LIMIT ?",
            (workspace_id, needle, 20 - len(ids)),
        ).fetchall()
    ]
    order = "seq DESC" if stop_early else "created_at DESC, id"
    if len(ids) < 20:
        ids += [
            r[0]
            for r in database.execute_sql(
                "SELECT id FROM intel_item WHERE workspace_id = ? AND content LIKE ? "
                f"ESCAPE '\\' ORDER BY {order} LIMIT ?",
                (workspace_id, needle, 20 - len(ids)),
            ).fetchall()
        ]
    return ids


def seed_intel(ws_id, competitors, rng, start_seq, count):
    from ci_service.store.db import new_id, transaction
    from ci_service.store.intel import IntelItem

    batch = 2000
    for offset in range(0, count, batch):
        rows = []
        for n in range(min(batch, count - offset)):
            seq = start_seq + offset + n + 1
            cid, vendor = competitors[rng.randrange(len(competitors))]
            rows.append(
                {
                    "id": new_id(),
                    "seq": seq,
                    "workspace": ws_id,
                    "competitor": cid,
                    "scope": "competitor",
                    "type": "EVIDENCE",
                    "source_type": "WEB_PAGE",
                    "url": f"https://{vendor}.example/{seq}",
                    "title": f"{vendor} page {seq}",
                    "content": text_for(rng, vendor),
                    "content_hash": "x",
                    "credibility_score": 0.75,
                    "metadata": {},
                }
            )
        with transaction():
            IntelItem.insert_many(rows).execute()


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure(label: str, ws_id: str, runs: int) -> None:
    from ci_service.services.search.unified import search
    from ci_service.store.db import database

    for q in QUERIES:  # warm-up: steady state, not the first read from disk
        search(ws_id, q)
        like_search(database, ws_id, q, stop_early=True)
    samples: dict[str, dict[str, list[float]]] = {q: {} for q in QUERIES}
    for i in range(runs):
        q = QUERIES[i % len(QUERIES)]
        row = samples[q]
        row.setdefault("service", []).append(timed(lambda q=q: search(ws_id, q)))
        row.setdefault("scan", []).append(timed(lambda q=q: like_search(database, ws_id, q)))
        row.setdefault("stop", []).append(
            timed(lambda q=q: like_search(database, ws_id, q, stop_early=True))
        )
    print(f"--- {label} intel items ({runs} searches, queries cycled)")
    print(f"{'':26} {'service':>17} {'LIKE full scan':>17} {'LIKE stop@20':>17} "
          f"{'x full':>13} {'x stop':>13}")  # fmt: skip
    print(f"{'':26}" + "   p50ms   p95ms" * 3 + "   p50   p95" * 2)
    classes = {
        "all queries": QUERIES,
        "3+ characters": [q for q in QUERIES if len(q) >= 3],
        "2 characters": [q for q in QUERIES if len(q) < 3],
    }
    rows = [(name, qs) for name, qs in classes.items()] + [(repr(q), [q]) for q in QUERIES]
    for name, qs in rows:
        stats = {}
        for kind in ("service", "scan", "stop"):
            stats[kind] = percentiles([t for q in qs for t in samples[q][kind]])
        (s50, s95), (f50, f95), (e50, e95) = stats["service"], stats["scan"], stats["stop"]
        print(
            f"{name:>26} {s50 * 1e3:7.2f} {s95 * 1e3:7.2f} {f50 * 1e3:7.2f} {f95 * 1e3:7.2f}"
            f" {e50 * 1e3:7.2f} {e95 * 1e3:7.2f} {f50 / s50:5.1f} {f95 / s95:5.1f}"
            f" {e50 / s50:5.1f} {e95 / s95:5.1f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.search", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=80)
    parser.add_argument("--database", default=None)
    args = parser.parse_args()

    from ci_service.services.battlecards.content import search_text
    from ci_service.services.workspace.workspaces import create_workspace
    from ci_service.store.analysis import Battlecard
    from ci_service.store.competitors import Competitor
    from ci_service.store.db import connection, new_id, open_database, transaction
    from ci_service.store.resources import Offering

    path = args.database or str(Path(tempfile.mkdtemp()) / "bench-search.db")
    open_database(path)
    rng = random.Random(11)
    print(
        f"machine: {platform.machine()} {platform.processor() or ''} "
        f"python {platform.python_version()}, sqlite {__import__('sqlite3').sqlite_version}"
    )
    with connection():
        ws = create_workspace(f"bench-{new_id()[:6]}", "ENTERPRISE")
        start = time.perf_counter()
        product = Offering.create(workspace=ws.id, name="Acme Cloud")
        competitors = [(new_id(), f"Vendor{n:04d}") for n in range(N_COMPETITORS)]
        with transaction():
            Competitor.insert_many(
                [
                    {"id": cid, "workspace": ws.id, "name": name,
                     "website_url": f"https://{name.lower()}.example"}
                    for cid, name in competitors
                ]
            ).execute()  # fmt: skip
            cards = []
            for cid, name in competitors:
                content = {
                    "killShot": f"Acme Cloud beats {name} on security: SSO on every plan",
                    "landmines": [f"Ask {name} to demonstrate {w}" for w in rng.sample(WORDS, 3)],
                    "pricingWedge": f"{name} pricing: ${rng.randint(10, 99)} per user per month",
                    "whyWeWin": [
                        {"title": f"{w.capitalize()}: Acme Cloud is stronger",
                         "description": " ".join(rng.sample(WORDS, 12)), "evidenceIds": []}
                        for w in rng.sample(WORDS, 3)
                    ],
                    "whyWeLose": [
                        {"title": f"{w.capitalize()}: {name} is stronger",
                         "description": " ".join(rng.sample(WORDS, 12)), "evidenceIds": []}
                        for w in rng.sample(WORDS, 2)
                    ],
                }  # fmt: skip
                cards.append(
                    {
                        "id": new_id(),
                        "workspace": ws.id,
                        "competitor": cid,
                        "my_product": product.id,
                        "mode": "ATTACK",
                        "status": "READY",
                        "content": content,
                        "evidence_ids": [],
                        "search_text": search_text(content),
                    }
                )
            Battlecard.insert_many(cards).execute()
        first = min(10_000, args.items)
        seed_intel(ws.id, competitors, rng, 0, first)
        print(f"seeded 1000 competitors, 1000 battlecards, {first} intel items "
              f"in {time.perf_counter() - start:.1f} s")  # fmt: skip
        measure(f"{first:,}", ws.id, args.runs)
        if args.items > first:
            start = time.perf_counter()
            seed_intel(ws.id, competitors, rng, first, args.items - first)
            print(f"seeded {args.items - first} more intel items in "
                  f"{time.perf_counter() - start:.1f} s")  # fmt: skip
            measure(f"{args.items:,}", ws.id, args.runs)
    print(f"database file: {Path(path).stat().st_size / 1e6:.0f} MB ({path})")


if __name__ == "__main__":
    main()
