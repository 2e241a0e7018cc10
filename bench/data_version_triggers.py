"""Write cost of the data-version triggers (issue 16, store/data_version.py).

Times ``services.workspace.deals.create_deal`` (a LOST deal with three arguments: the deal,
its graph nodes and edges, one transaction) ``--deals`` times with the triggers installed and with
them dropped, alternating ``--rounds`` times on one database; prints the median ms per deal
of each and the difference.

Usage: python -m bench.data_version_triggers [--backend sqlite|postgresql]
[--deals 200] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432"


def _drop_triggers(db) -> None:
    from ci_service.store.data_version import workspace_tables

    tables = [*workspace_tables(db), "tree_node"]
    for table in tables:
        for suffix in ("ai", "au", "ad"):
            name = f"{table}_dv_{suffix}"
            on = f' ON "{table}"' if db.backend == "postgresql" else ""
            db.execute_sql(f'DROP TRIGGER IF EXISTS "{name}"{on}')


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.data_version_triggers", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--backend", default="sqlite", choices=("sqlite", "postgresql"))
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    from bench.seed import seed_base
    from ci_service.services.workspace import deals
    from ci_service.store.data_version import install_triggers
    from ci_service.store.db import close_database, connection, open_database, transaction

    tmp = tempfile.mkdtemp()
    drop_db = None
    if args.backend == "sqlite":
        url = f"{tmp}/triggers.db"
    else:
        import psycopg2

        name = "bench_dv_" + uuid.uuid4().hex[:8]
        admin = psycopg2.connect(PG_ADMIN + "/postgres")
        admin.autocommit = True
        admin.cursor().execute(f"CREATE DATABASE {name}")
        url = f"{PG_ADMIN}/{name}"

        def drop_db():
            admin.cursor().execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    db = open_database(url)
    times: dict[str, list[float]] = {"with triggers": [], "without": []}
    try:
        with connection():
            info = seed_base({"competitors": 5})
            competitor = info["competitors"][0][0]
            n = 0
            for _ in range(args.rounds):
                for label in ("with triggers", "without"):
                    with transaction():
                        install_triggers(db) if label == "with triggers" else _drop_triggers(db)
                    started = time.perf_counter()
                    for _ in range(args.deals):
                        n += 1
                        with transaction():
                            deals.create_deal(
                                info["workspace"],
                                {
                                    "prospectCompanyName": f"Prospect {n}",
                                    "outcome": "LOST",
                                    "competitorId": competitor,
                                    "decisionDate": "2026-03-31",
                                    "arguments": [f"price {n}", "integrations", "support"],
                                },
                            )
                    times[label].append((time.perf_counter() - started) * 1000 / args.deals)
            with transaction():
                install_triggers(db)
    finally:
        close_database(db)
        if drop_db:
            drop_db()
    med = {k: round(statistics.median(v), 3) for k, v in times.items()}
    med["difference"] = round(med["with triggers"] - med["without"], 3)
    print(json.dumps({"backend": args.backend, "ms_per_deal": med, "rounds": times}))


if __name__ == "__main__":
    main()
