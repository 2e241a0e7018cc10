"""The benchmark's PostgreSQL mode (``python -m bench --postgresql [URL]``, issue 15): read
and write throughput with one and with three ``serve`` processes on one PostgreSQL
database, side by side with SQLite's one process.

- A fresh database is created on the PostgreSQL server at URL (default
  ``postgresql://postgres@127.0.0.1:5432``; any database of that server works as the
  admin connection) and dropped afterwards; a fresh SQLite file sits beside it. Both get
  the same seed (``--competitors`` competitors, as the main run's) through bench/seed.py.
- Every column runs web-only servers (``serve --no-jobs --no-scheduler --threads
  --threads``) and the same client load from ``python -m bench.load``: ``--clients``
  threads, ``--duration`` seconds, reads after ``min(1, duration / 2)`` s of warm-up. Reads
  are ``GET /api/competitors``; writes ``POST /api/deals`` (the main write test's body).
  With three processes every client sends its requests round-robin over the three.
- SQLite supports one process per database file, so its three-process column is "n/a".
"""

from __future__ import annotations

import secrets
import threading
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from bench import procs
from ci_service.store.db import redact_url

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432"
SQLITE_THREE = "n/a (one process per file)"
COLUMNS = (
    ("SQLite, 1 process", "sqlite", 1),
    ("SQLite, 3 processes", "sqlite", 3),
    ("PostgreSQL, 1 process", "postgresql", 1),
    ("PostgreSQL, 3 processes", "postgresql", 3),
)


class PostgresServer:
    """Creates (``create()``) and drops (``drop()``) one database on the server at ``url``."""

    def __init__(self, url: str):
        if urlsplit(url).scheme not in ("postgresql", "postgres"):
            scheme = urlsplit(url).scheme or "no scheme"  # not the URL: it may hold a password
            raise procs.BenchError(f"--postgresql needs a postgresql:// URL ({scheme} given)")
        self.url = url
        self.name = f"ci_bench_{secrets.token_hex(4)}"
        self.version = ""

    def _execute(self, statement: str) -> None:
        try:
            import psycopg2
        except ImportError as exc:  # pragma: no cover - a dependency of the service
            raise procs.BenchError(f"PostgreSQL mode needs psycopg2: {exc}") from None
        try:
            conn = psycopg2.connect(self.url, connect_timeout=5)
        except psycopg2.Error as exc:
            raise procs.BenchError(
                f"PostgreSQL at {redact_url(self.url)} is not reachable: {str(exc).strip()}"
            ) from None
        try:
            conn.autocommit = True
            with conn.cursor() as cursor:
                cursor.execute(statement)
                cursor.execute("SHOW server_version")
                self.version = cursor.fetchone()[0]
        except psycopg2.Error as exc:
            raise procs.BenchError(f"PostgreSQL: {statement}: {str(exc).strip()}") from None
        finally:
            conn.close()

    def create(self) -> str:
        self._execute(f'CREATE DATABASE "{self.name}"')
        return urlunsplit(urlsplit(self.url)._replace(path="/" + self.name))

    def drop(self) -> None:
        self._execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


def start_all(servers: list[procs.Server]) -> None:
    """Start the servers in parallel; on any failure stop them all and raise the first."""
    errors: list[BaseException] = []

    def start(server: procs.Server) -> None:
        try:
            server.start()
        except BaseException as exc:  # re-raised below, in the calling thread
            errors.append(exc)

    threads = [threading.Thread(target=start, args=(s,)) for s in servers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        for server in servers:
            server.stop()
        raise errors[0]


def measure(args, database: str, count: int, info: dict, env: dict, log) -> dict:
    """Read and write throughput with ``count`` web-only servers on ``database``."""
    servers = [
        procs.serve(database, threads=args.threads, env=env, extra=("--no-jobs",))
        for _ in range(count)
    ]
    start_all(servers)
    try:
        urls = [server.url for server in servers]
        headers = {"X-API-Key": info["key"]}
        common = {"mode": "throughput", "headers": headers, "clients": args.clients,
                  "duration": args.duration}  # fmt: skip
        log(f"  read: GET /api/competitors, {args.clients} clients, {count} process(es)")
        read = procs.load({**common, "method": "GET", "warmup": min(1.0, args.duration / 2),
                           "urls": [u + "/api/competitors" for u in urls]})  # fmt: skip
        body = procs.deal_body(info["competitors"][0][0], "Scale")
        log(f"  write: POST /api/deals, {args.clients} clients, {count} process(es)")
        write = procs.load({**common, "method": "POST", "warmup": 0.0, "body": body,
                            "urls": [u + "/api/deals" for u in urls]})  # fmt: skip
    finally:
        for server in servers:
            server.stop()
    for result in (read, write):
        result.pop("created_ids", None)
        result["non_200"] = sum(n for code, n in result["statuses"].items() if code != "200")
    return {"read": read, "write": write}


def run_scale_out(args, work: Path, log) -> dict:
    """Seed both backends, measure every column; the result for ``render_scale_out``."""
    server = PostgresServer(args.postgresql)
    pg_url = server.create()
    log(f"PostgreSQL mode: database {server.name} on {redact_url(args.postgresql)}")
    # On PostgreSQL the alerts key file would default to the working directory (the repo).
    env = {"CI_SERVICE_SECRET_KEY_FILE": str(work / "scale-secret.key")}
    spec = {"competitors": args.competitors, "battlecards": 0, "deals": 0, "intel": 0}
    results: dict = {}
    try:
        for backend, database in (("sqlite", str(work / "scale.db")), ("postgresql", pg_url)):
            log(f"seeding {args.competitors} competitors ({backend})")
            info = procs.seed(database, spec, env=env)
            for _, kind, count in COLUMNS:
                if kind == backend and not (kind == "sqlite" and count > 1):
                    log(f"{backend}, {count} process(es)")
                    results[f"{kind}-{count}"] = measure(args, database, count, info, env, log)
    finally:
        server.drop()
    return {
        "postgresql": server.version,
        "database": server.name,
        "clients": args.clients,
        "duration": args.duration,
        "competitors": args.competitors,
        "results": results,
    }


def _cells(result: dict | None, part: str) -> list[str]:
    if result is None:
        return [SQLITE_THREE] * 3
    r = result[part]
    return [
        f"{r['rps']:.0f}/s",
        f"{r['p50'] * 1000:.1f} / {r['p95'] * 1000:.1f} ms",
        f"{r['errors']} / {r['non_200']}",
    ]


def render_scale_out(section: dict) -> str:
    results = section["results"]
    head = ["figure", *(label for label, _, _ in COLUMNS)]
    rows = []
    for part, what in (("read", "read GET /api/competitors"), ("write", "write POST /api/deals")):
        columns = [_cells(results.get(f"{kind}-{count}"), part) for _, kind, count in COLUMNS]
        for index, label in enumerate(("req/s", "p50 / p95", "errors: 5xx or failed / non-200")):
            rows.append([f"{what}, {label}", *(c[index] for c in columns)])
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    out = [
        f"processes on one database: PostgreSQL {section['postgresql']} vs SQLite, "
        f"{section['competitors']} competitors, {section['clients']} clients, "
        f"{section['duration']:g} s per figure; web-only `serve --no-jobs --no-scheduler`, "
        "three processes take the requests round-robin",
        "",
        "| " + " | ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)) + " |",
        "|" + "|".join("-" * (w + 2) for w in widths) + "|",
    ]
    for row in rows:
        out.append("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |")
    return "\n".join(out)
