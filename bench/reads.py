"""Measure the REST read path (issue 16): ``GET /api/competitors`` with 50 competitors.

Two parts:

- ``profile`` (in-process, Flask test client, the ``serve`` app with persistent
  connections): ``--requests`` reads, the median wall and thread-CPU ms per request for a
  read with the response cache off (``response_cache_mb=0``), a cache hit, and a 304 for a
  matching ``If-None-Match``. ``--pyinstrument`` prints a profile of the uncached reads
  (``pip install pyinstrument`` first).
- ``serve``: a fresh database seeded by bench/seed.py, ``ci-service serve --no-jobs
  --no-scheduler --threads 4`` and the bare app of bench/baseline_app.py serving the same
  bytes (both ``--threads``), driven by wrk (bench/wrk.py; the Python load generator when
  wrk is absent) with ``--clients`` connections for ``--duration`` s, ``--rounds`` times,
  with the cache on and off; the median req/s, server CPU per request and the ratio to
  the bare app.

Usage: python -m bench.reads [--part profile|serve|all] [--backend sqlite|postgresql]
[--requests 300] [--duration 5] [--rounds 3] [--clients 8] [--threads 4]
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


def _fresh_database(backend: str, work: Path) -> tuple[str, callable]:
    if backend == "sqlite":
        return str(work / "reads.db"), lambda: None
    import psycopg2

    name = "bench_reads_" + uuid.uuid4().hex[:8]
    admin = psycopg2.connect(PG_ADMIN + "/postgres")
    admin.autocommit = True
    admin.cursor().execute(f"CREATE DATABASE {name}")

    def drop():
        admin.cursor().execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.close()

    return f"{PG_ADMIN}/{name}", drop


def _time(client, path, headers, n):
    walls, cpus = [], []
    for _ in range(n):
        c0, w0 = time.thread_time(), time.perf_counter()
        response = client.get(path, headers=headers)
        walls.append((time.perf_counter() - w0) * 1000)
        cpus.append((time.thread_time() - c0) * 1000)
        assert response.status_code in (200, 304), response.status_code
    return statistics.median(walls), statistics.median(cpus), response


def profile(args, database: str) -> dict:
    from bench.seed import seed_base
    from ci_service.store.db import close_database, connection, open_database
    from ci_service.web.app import create_app

    db = open_database(database)
    with connection():
        info = seed_base({"competitors": args.competitors})
    close_database(db)
    out = {}
    for label, mb in (("uncached", 0), ("cached", 32)):
        app = create_app(
            persistent_connections=True, database=database, response_cache_mb=mb, job_workers=0
        )
        client = app.test_client()
        headers = {"X-API-Key": info["key"]}
        _time(client, "/api/competitors", headers, 20)  # warm-up
        if label == "uncached" and args.pyinstrument:
            from pyinstrument import Profiler

            profiler = Profiler(interval=0.0002)
            profiler.start()
            _time(client, "/api/competitors", headers, args.requests)
            profiler.stop()
            print(profiler.output_text(unicode=False, color=False, show_all=False))
        wall, cpu, response = _time(client, "/api/competitors", headers, args.requests)
        out[label] = {
            "wall_ms": round(wall, 3),
            "cpu_ms": round(cpu, 3),
            "bytes": len(response.data),
        }
        etag = response.headers.get("ETag")
        if etag:
            wall, cpu, response = _time(
                client, "/api/competitors", {**headers, "If-None-Match": etag}, args.requests
            )
            assert response.status_code == 304
            out["not_modified"] = {"wall_ms": round(wall, 3), "cpu_ms": round(cpu, 3)}
        from ci_service.web.app import shutdown_app

        shutdown_app(app)
    return out


def serve(args, database: str, work: Path) -> dict:
    import httpx

    from bench import procs
    from bench.wrk import drive, driver

    info = procs.seed(database, {"competitors": args.competitors})
    headers = {"X-API-Key": info["key"]}
    run = {"connections": args.clients, "duration": args.duration, "work": str(work)}
    results: dict = {"cached": [], "uncached": [], "bare": []}
    cpu: dict = {"cached": [], "uncached": [], "bare": []}
    for _ in range(args.rounds):
        for label, mb in (("cached", "32"), ("uncached", "0")):
            env = {"CI_SERVICE_RESPONSE_CACHE_MB": mb}
            server = procs.serve(
                database, threads=args.threads, env=env, extra=("--no-jobs",)
            ).start()
            try:
                url = server.url + "/api/competitors"
                body = httpx.get(url, headers=headers).content
                drive(url, headers=headers, **{**run, "duration": 1})  # warm-up
                ours = drive(url, headers=headers, pid=server.process.pid, **run)
                assert ours["non2xx"] == 0, ours
                results[label].append(ours["rps"])
                cpu[label].append(ours["cpu"] * 1000)
            finally:
                server.stop()
        body_file = work / "competitors.json"
        body_file.write_bytes(body)
        base = procs.baseline(
            threads=args.threads, body_file=body_file, database=database,
            workspace=info["workspace"],
        ).start()  # fmt: skip
        try:
            url = base.url + "/api/competitors"
            drive(url, **{**run, "duration": 1})
            bare = drive(url, pid=base.process.pid, **run)
            results["bare"].append(bare["rps"])
            cpu["bare"].append(bare["cpu"] * 1000)
        finally:
            base.stop()
    med = {k: round(statistics.median(v), 1) for k, v in results.items()}
    return {
        "driver": driver(),
        "rps_median": med,
        "rps_rounds": results,
        "cpu_ms_per_request_median": {k: round(statistics.median(v), 3) for k, v in cpu.items()},
        "ratio_cached": round(med["cached"] / med["bare"], 3),
        "ratio_uncached": round(med["uncached"] / med["bare"], 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.reads", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--part", default="all", choices=("profile", "serve", "all"))
    parser.add_argument("--backend", default="sqlite", choices=("sqlite", "postgresql"))
    parser.add_argument("--competitors", type=int, default=50)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=8, help="connections (wrk) or clients")
    parser.add_argument("--threads", type=int, default=4, help="waitress threads (both)")
    parser.add_argument("--pyinstrument", action="store_true")
    args = parser.parse_args()
    report = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if args.part in ("profile", "all"):
            database, drop = _fresh_database(args.backend, work / "p")
            (work / "p").mkdir()
            try:
                report["profile"] = profile(args, database)
            finally:
                drop()
        if args.part in ("serve", "all"):
            (work / "s").mkdir()
            database, drop = _fresh_database(args.backend, work / "s")
            try:
                report["serve"] = serve(args, database, work)
            finally:
                drop()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
