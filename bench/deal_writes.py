"""Measure the deal write path (issue 16): statements per deal, and deals/s on a real serve.

Two parts, each on SQLite and on PostgreSQL (``--backends``), and a third on SQLite:

- ``profile`` (in-process, Flask test client, connections kept as ``serve`` keeps them):
  ``POST /api/deals`` with the benchmark's body (LOST, three arguments, bench/run.py
  ``write_test``), ``--requests`` times; counts the SQL
  statements of the whole request and of ``services.workspace.deals.create_deal`` alone (by wrapping
  the database's ``execute_sql``), and the median wall and CPU time per request.
- ``serve``: a fresh database seeded by bench/seed.py, ``ci-service serve --no-jobs
  --no-scheduler --threads 4``, 8 connections of wrk (bench/wrk.py; the Python load
  generator when wrk is absent) for ``--duration`` seconds, ``--rounds`` times; the median
  deals/s, server CPU per deal, errors and "database is locked" counts.
  On SQLite, the bare sqlite3 insert of the same rows (bench/rest.py ``replay_inserts``,
  into a copy of the database taken before the run) is measured after each round, and
  the ratio printed (issue 31 measures against the bare app's one insert per request instead:
  bench/rest.py; target >= 0.5x there).
- ``split`` (only when asked for; in process, one thread): ``create_deal`` with and
  without its event, and the deals' graph nodes written one deal at a time and a round's
  deals at once, ``--deals`` deals a round, ``--rounds`` alternating rounds; the median
  CPU per deal of each (see ``split``).

Usage: python -m bench.deal_writes [--part profile|serve|split|all] [--backends
sqlite,postgresql] [--duration 10] [--rounds 3] [--requests 200] [--deals 300]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432"
CLIENTS = 8
THREADS = 4  # waitress threads, as bench/run.py's


def body(competitor_id: str, n: int | str) -> dict:
    return {
        "prospectCompanyName": f"Load Prospect {n}",
        "outcome": "LOST",
        "competitorId": competitor_id,
        "decisionDate": "2026-03-31",
        "dealSize": "50000",
        "arguments": [f"price {n}", "integrations", "support response time"],
    }


def workspace_with_rival():
    """A new ENTERPRISE workspace and its one competitor, "Rival" (in a connection)."""
    import secrets

    from ci_service.services.workspace.competitors import create_competitor
    from ci_service.services.workspace.workspaces import create_workspace

    ws = create_workspace(f"ws-{secrets.token_hex(3)}", "ENTERPRISE")
    rival, _ = create_competitor(ws.id, {"name": "Rival", "websiteUrl": "https://r.example"})
    return ws, rival


class Counter:
    """Counts the statements of the bound database while ``on``."""

    def __init__(self, db):
        self.on = False
        self.statements: list[str] = []
        original = db.execute_sql

        def execute_sql(sql, params=None, *args, **kwargs):
            if self.on:
                self.statements.append(sql)
            return original(sql, params, *args, **kwargs)

        db.execute_sql = execute_sql


def profile(backend: str, database: str, requests: int) -> dict:

    from ci_service.services.identity import api_keys as apikeys
    from ci_service.services.workspace import deals
    from ci_service.settings import load_settings
    from ci_service.store.db import connection
    from ci_service.store.db import database as proxy
    from ci_service.web.app import create_app, shutdown_app

    settings = load_settings(environ={}, database=database, job_workers=0, scheduler=False)
    # As serve runs it: connections kept open, SQLite writes on the one writer connection
    # (without, each request opened a connection, set its pragmas and closed it: 2.3 ms).
    app = create_app(settings, persistent_connections=True)
    try:
        with connection():
            ws, rival = workspace_with_rival()
            user = apikeys.ensure_user(ws, None, "OWNER")
            _, key = apikeys.create_key(user, name="bench", rate_limit=1_000_000)
        counter = Counter(proxy.obj)
        inner: list[int] = []
        original = deals.create_deal

        def counted(*args, **kwargs):
            before = len(counter.statements)
            try:
                return original(*args, **kwargs)
            finally:
                inner.append(len(counter.statements) - before)

        deals.create_deal = counted
        client = app.test_client()
        headers = {"X-API-Key": key}
        whole, times, cpu = [], [], []
        try:
            for n in range(requests):
                counter.statements.clear()
                counter.on = True
                began, began_cpu = time.perf_counter(), time.process_time()
                answer = client.post("/api/deals", json=body(rival.id, n), headers=headers)
                times.append(time.perf_counter() - began)
                cpu.append(time.process_time() - began_cpu)
                counter.on = False
                assert answer.status_code == 200, answer.get_data(as_text=True)
                whole.append(len(counter.statements))
            last = list(counter.statements)
        finally:
            deals.create_deal = original
    finally:
        shutdown_app(app)
    return {
        "backend": backend,
        "requests": requests,
        "statements_per_request": statistics.median(whole),
        "statements_in_create_deal": statistics.median(inner),
        "ms_per_request_median": round(statistics.median(times[5:] or times) * 1000, 2),
        # This process's CPU (the client, Flask, the service; SQLite's work, not PG's).
        "cpu_ms_per_request_median": round(statistics.median(cpu[5:] or cpu) * 1000, 2),
        "last_request_statements": last,
    }


SPLIT_MODES = (
    "create_deal",
    "create_deal without the event",
    "graph, each deal on its own",
    "graph, the round's deals at once",
)


def split(database: str, deals_per_round: int, rounds: int) -> dict:
    """Where a deal's CPU goes, in process on one thread (SQLite), alternating ``rounds``
    times: ``services.workspace.deals.create_deal`` (what a request runs), the same with
    the ``deal.recorded`` event left out, and the deal's graph nodes
    (``services.graph.projection.project_pending``), written after each deal as if it
    were alone, and for all the round's deals at once, as serve's projector does under
    load. The event and the nodes are what the spec asks of every deal (a DEAL node, one
    ARGUMENT node per argument and their relationships; the change feed): a measure, not
    an option."""
    from unittest import mock

    from ci_service.services.graph import projection
    from ci_service.services.workspace import deals
    from ci_service.settings import load_settings
    from ci_service.store.db import connection
    from ci_service.web.app import create_app, shutdown_app

    settings = load_settings(environ={}, database=database, job_workers=0, scheduler=False)
    app = create_app(settings, persistent_connections=True)
    try:
        with connection():
            ws, rival = workspace_with_rival()
        counter = iter(range(10**9))

        def create(n: int) -> float:
            began = time.process_time()
            for _ in range(n):
                deals.create_deal(ws.id, body(rival.id, next(counter)))
            return time.process_time() - began

        def run(mode: str, n: int) -> float:
            with connection():
                if mode == "create_deal":
                    spent = create(n)
                elif mode == "create_deal without the event":
                    with mock.patch.object(deals.change_events, "deal_recorded", lambda *a: None):
                        spent = create(n)
                elif mode == "graph, each deal on its own":
                    spent = 0.0
                    for _ in range(n):
                        create(1)
                        began = time.process_time()
                        projection.project_pending(ws.id)
                        spent += time.process_time() - began
                else:
                    create(n)
                    began = time.process_time()
                    while projection.project_pending(ws.id):
                        pass
                    spent = time.process_time() - began
                while projection.project_pending(ws.id):  # none left for the next mode
                    pass
            return spent * 1000 / n

        run("create_deal", 100)  # warm: first statements, caches
        times: dict[str, list[float]] = {mode: [] for mode in SPLIT_MODES}
        for _ in range(rounds):
            for mode in SPLIT_MODES:
                times[mode].append(run(mode, deals_per_round))
    finally:
        shutdown_app(app)
    return {
        "ms_per_deal": {mode: round(statistics.median(v), 3) for mode, v in times.items()},
        "rounds": {mode: [round(x, 3) for x in v] for mode, v in times.items()},
    }


def serve_round(backend: str, database: str, duration: float, env: dict) -> dict:
    from bench import procs
    from bench.rest import replay_inserts
    from bench.wrk import drive

    info = procs.seed(database, {"competitors": 50, "battlecards": 0, "deals": 0, "intel": 0},
                      env=env)  # fmt: skip
    copy = None
    if backend == "sqlite":
        copy = database + ".copy"
        src, dst = sqlite3.connect(database), sqlite3.connect(copy)
        src.backup(dst)
        src.close()
        dst.close()
    server = procs.serve(database, threads=THREADS, env=env, extra=("--no-jobs",))
    server.start()
    try:
        ours = drive(
            server.url + "/api/deals",
            method="POST",
            headers={"X-API-Key": info["key"]},
            body=body(info["competitors"][0][0], "{n}"),
            connections=CLIENTS,
            duration=duration,
            pid=server.process.pid,
        )
    finally:
        server.stop()
    ids = []
    if backend == "sqlite":
        conn = sqlite3.connect(database)
        ids = [r[0] for r in conn.execute(
            "SELECT id FROM deal WHERE prospect_company_name LIKE 'Load Prospect %'")]  # fmt: skip
        conn.close()
    result = {
        "driver": ours["driver"],
        "rps": round(ours["rps"], 1),
        "cpu_ms_per_request": round(ours["cpu"] * 1000, 3),
        "errors": ours["server_errors"] + ours["socket"],
        "locked": ours["locked"],
        "non_2xx": ours["non2xx"],
        "p95_ms": round(ours["p95"] * 1000, 1),
    }
    if copy is not None:
        base = replay_inserts(database, copy, ids, CLIENTS)
        result["bare_rps"] = round(base["rps"], 1)
        result["ratio"] = round(ours["rps"] / base["rps"], 3) if base["rps"] else None
    return result


def serve_part(backend: str, work: Path, duration: float, rounds: int) -> dict:
    from bench.scale import PostgresServer

    env = {"CI_SERVICE_SECRET_KEY_FILE": str(work / "secret.key")}
    results = []
    for r in range(rounds):
        if backend == "sqlite":
            results.append(serve_round(backend, str(work / f"round-{r}.db"), duration, env))
        else:
            server = PostgresServer(PG_ADMIN)
            url = server.create()
            try:
                results.append(serve_round(backend, url, duration, env))
            finally:
                server.drop()
        print(f"  {backend} round {r + 1}: {results[-1]}", file=sys.stderr, flush=True)
    summary = {"backend": backend, "rounds": results,
               "median_rps": statistics.median(r["rps"] for r in results)}  # fmt: skip
    if backend == "sqlite":
        summary["median_ratio"] = statistics.median(r["ratio"] for r in results)
    return summary


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.deal_writes", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--part", choices=("profile", "serve", "split", "all"), default="all")
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--show-sql", action="store_true", help="print one request's SQL")
    parser.add_argument("--deals", type=int, default=300, help="deals per round of --part split")
    args = parser.parse_args(argv)
    backends = [b for b in args.backends.split(",") if b]
    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        # The in-process parts' alerts key file (serve_part gives its servers their own).
        os.environ["CI_SERVICE_SECRET_KEY_FILE"] = str(work / "secret.key")
        if args.part in ("profile", "all"):
            from bench.scale import PostgresServer

            for backend in backends:
                if backend == "sqlite":
                    got = profile(backend, str(work / "profile.db"), args.requests)
                else:
                    server = PostgresServer(PG_ADMIN)
                    url = server.create()
                    try:
                        got = profile(backend, url, args.requests)
                    finally:
                        from ci_service.store.db import close_database

                        close_database()
                        server.drop()
                sql = got.pop("last_request_statements")
                if args.show_sql:
                    print(f"-- {backend}: one request", file=sys.stderr)
                    for s in sql:
                        print("  " + s[:200], file=sys.stderr)
                out[f"profile-{backend}"] = got
                print(json.dumps(got), file=sys.stderr, flush=True)
        if args.part == "split":  # SQLite, in process: not part of "all"
            out["split-sqlite"] = split(str(work / "split.db"), args.deals, args.rounds)
        if args.part in ("serve", "all"):
            for backend in backends:
                out[f"serve-{backend}"] = serve_part(backend, work, args.duration, args.rounds)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
