"""The REST figures of ``python -m bench``, measured as a client sees them (issue 31).

Each figure is ``--load-rounds`` alternating rounds of ``--duration`` seconds: every round
drives each server in turn (``ci-service serve``, then the bare app; more participants
where a figure has them), so all of them meet the same machine noise. A run is ``wrk``
with ``--connections`` connections when wrk is installed, else the Python load generator
(bench/wrk.py; the output says which). Both servers run ``--threads`` waitress threads.

Per participant: the median req/s and latency percentiles of its rounds, and its server's
CPU per answered request (the process's user + system time over its rounds, from
``/proc/PID/stat``, divided by the requests they answered).

- read: ``GET /api/competitors`` with the benchmark's key (rate limit 1,000,000 an hour,
  counted on every request), the same key every request; with the response cache (the
  default) and without it (``CI_SERVICE_RESPONSE_CACHE_MB=0``, a second ``serve``), beside
  the bare app answering the same bytes from memory;
- write: ``POST /api/deals`` (LOST, three arguments, every prospect and first argument
  new), beside the bare app's one ``INSERT`` per request; and the very rows ``serve``
  wrote inserted by plain sqlite3 (no HTTP) into a copy of the database taken before.
  ``serve`` writes a deal's graph nodes after the deal (services/graph/projection.py):
  each of its rounds ends when no deal waits for them, and that wait is part of the
  round (its time in the rate, its CPU in the CPU per request);
- search: ``GET /api/search`` cycling through the 8 queries, beside the bare app's
  ``/healthz`` (the HTTP floor: a round trip through Flask and waitress under the same
  load) and its plain ``LIKE`` scans of the same lookups.
"""

from __future__ import annotations

import math
import sqlite3
import statistics
import threading
import time
from pathlib import Path

import httpx

from bench import procs
from bench.wrk import drive, main_thread_cpu, server_cpu

READ_TARGET = 0.7  # ours/bare req/s, issue 31
WRITE_TARGET = 0.5
SEARCH_FLOOR_TARGET = 2.0  # ours p95 / the bare round trip's p95


def alternate(args, participants: list[tuple[str, procs.Server, dict]], work: Path) -> dict:
    """``--load-rounds`` rounds; in each, one run per participant, in order.

    A spec's ``settle`` (optional) is called after each of its runs and returns once the
    server has finished the work the run left it (a deal's graph nodes, written after the
    deal): the wait counts as part of the run, in its rate and in its CPU, so that work
    is neither left out nor done during the next participant's run."""
    runs: dict[str, list[dict]] = {name: [] for name, _, _ in participants}
    for _ in range(args.load_rounds):
        for name, server, spec in participants:
            spec = dict(spec)
            settle = spec.pop("settle", None)
            pid = server.process.pid
            result = drive(
                **spec,
                connections=args.clients,
                duration=args.duration,
                pid=pid,
                use=args.driver,
                work=str(work),
            )
            if settle is not None:
                _count_settling(result, settle, pid)
            runs[name].append(result)
    return {name: summarize(rounds) for name, rounds in runs.items()}


def _count_settling(result: dict, settle, pid: int) -> None:
    cpu, loop, began = server_cpu(pid), main_thread_cpu(pid), time.perf_counter()
    settle()
    waited = time.perf_counter() - began
    ran = result["requests"] / result["rps"] if result["rps"] else 0.0
    result["settle_s"] = waited
    result["rps"] = result["requests"] / (ran + waited) if ran + waited else 0.0
    result["cpu_seconds"] += server_cpu(pid) - cpu
    result["cpu_loop_seconds"] += main_thread_cpu(pid) - loop
    result["cpu"] = result["cpu_seconds"] / max(1, result["requests"])


def graph_settled(db: str, timeout: float = 60.0):
    """A ``settle`` for the write runs: until no deal of the SQLite file at ``db`` waits for
    its graph nodes (services/graph/projection.py), polled every 5 ms."""

    def settle() -> None:
        deadline = time.perf_counter() + timeout
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
        try:
            while conn.execute("SELECT COUNT(*) FROM deal WHERE graph_pending = TRUE").fetchone()[
                0
            ]:
                if time.perf_counter() > deadline:
                    raise procs.BenchError(f"deals still wait for their graph after {timeout} s")
                time.sleep(0.005)
        finally:
            conn.close()

    return settle


def warm_up(args, participants, work: Path) -> None:
    """One unmeasured second of load per participant (none with ``--quick``)."""
    if args.quick:
        return
    for _, _server, spec in participants:
        drive(**spec, connections=args.clients, duration=1, use=args.driver, work=str(work))


def summarize(rounds: list[dict]) -> dict:
    def median(key):
        values = [r[key] for r in rounds if not math.isnan(r.get(key, math.nan))]
        return statistics.median(values) if values else math.nan

    requests = sum(r["requests"] for r in rounds)
    return {
        "driver": rounds[0]["driver"],
        "rps": median("rps"),
        "rps_rounds": [round(r["rps"], 1) for r in rounds],
        **(
            {"settle_s": [round(r["settle_s"], 3) for r in rounds]}
            if "settle_s" in rounds[0]
            else {}
        ),
        "requests": requests,
        "cpu": sum(r["cpu_seconds"] for r in rounds) / max(1, requests),
        "cpu_loop": sum(r["cpu_loop_seconds"] for r in rounds) / max(1, requests),
        **{p: median(p) for p in ("p50", "p90", "p95", "p99")},
        **{k: sum(r[k] for r in rounds) for k in ("non2xx", "socket", "server_errors", "locked")},
    }


def _ratio(a: float, b: float) -> float:
    return a / b if b else math.nan


def read_test(args, info, serve: procs.Server, work: Path, report, log) -> procs.Server:
    """The read figures; returns the bare app (started here, on the captured bytes)."""
    headers = {"X-API-Key": info["key"]}
    response = httpx.get(serve.url + "/api/competitors", headers=headers, timeout=30)
    if response.status_code != 200:
        raise procs.BenchError(f"GET /api/competitors answered {response.status_code}")
    n_items = len(response.json()["competitors"])
    body_file = work / "competitors.json"
    body_file.write_bytes(response.content)
    base = procs.baseline(
        threads=args.threads, body_file=body_file, database=info["db"], workspace=info["workspace"]
    ).start()
    cache_off = {"CI_SERVICE_RESPONSE_CACHE_MB": "0"}
    cold = procs.serve(info["db"], threads=args.threads, env=cache_off).start()
    try:
        read = {"urls": "/api/competitors", "headers": headers}
        participants = [
            ("ours", serve, {**read, "urls": serve.url + read["urls"]}),
            ("uncached", cold, {**read, "urls": cold.url + read["urls"]}),
            ("bare", base, {"urls": base.url + "/api/competitors"}),
        ]
        warm_up(args, participants, work)  # first requests, imports, the cache
        log(f"read test: GET /api/competitors ({n_items} items), {args.clients} "
            f"connections, {args.load_rounds} × {args.duration:g} s rounds")  # fmt: skip
        got = alternate(args, participants, work)
    finally:
        cold.stop()
    ours, cold_run, bare = got["ours"], got["uncached"], got["bare"]
    ratio = _ratio(ours["rps"], bare["rps"])
    label = f"REST read GET /api/competitors ({n_items} items, same key; cache hits)"
    report.add(f"{label}, req/s", ours["rps"], bare["rps"], ratio, "ours/base",
               f"≥ {READ_TARGET}×",
               ratio >= READ_TARGET and ours["non2xx"] == bare["non2xx"] == 0,
               "/s")  # fmt: skip
    report.add(f"{label}, server CPU per request", ours["cpu"], bare["cpu"],
               _ratio(ours["cpu"], bare["cpu"]), "ours/base", "— (reported)", None,
               "ms")  # fmt: skip
    _add_split(report, label, ours, bare)
    report.add(f"{label}, p50 / p99 latency", _pair(ours), _pair(bare), None, "",
               "— (reported)", None)  # fmt: skip
    ratio = _ratio(cold_run["rps"], bare["rps"])
    report.add(f"REST read GET /api/competitors, cache off ({n_items} items), req/s",
               cold_run["rps"], bare["rps"], ratio, "ours/base", "— (reported)", None,
               "/s")  # fmt: skip
    report.add("REST read GET /api/competitors, cache off, server CPU per request",
               cold_run["cpu"], bare["cpu"], _ratio(cold_run["cpu"], bare["cpu"]),
               "ours/base", "≤ 1.5 ms", cold_run["cpu"] <= 0.0015, "ms")  # fmt: skip
    report.details["read"] = {"items": n_items, **got}
    return base


def _split(run: dict) -> str:
    """A run's server CPU per request: in waitress's loop thread / in every other thread
    (the request threads, and background threads such as the deals' graph projector)."""
    loop = run["cpu_loop"]
    return f"{loop * 1000:.2f} / {(run['cpu'] - loop) * 1000:.2f} ms"


def _add_split(report, label: str, ours: dict, bare: dict) -> None:
    report.add(f"{label}, server CPU per request: waitress's loop thread / other threads",
               _split(ours), _split(bare), None, "", "— (reported)", None)  # fmt: skip


def _pair(run: dict) -> str:
    return f"{run['p50'] * 1000:.2f} / {run['p99'] * 1000:.2f} ms"


def write_test(args, info, serve: procs.Server, bare: procs.Server, work: Path, report, log):
    """``POST /api/deals`` beside the bare app's one insert per request (issue 31's
    baseline and target), and beside the very rows the run wrote inserted with plain
    sqlite3 and no HTTP at all (reported)."""
    copy_path = work / "write-baseline.db"
    src = sqlite3.connect(info["db"])
    dst = sqlite3.connect(copy_path)
    src.backup(dst)  # the database as it is before the write runs
    src.close()
    dst.close()
    headers = {"X-API-Key": info["key"]}
    competitor = info["competitors"][0][0]
    participants = [
        ("ours", serve, {"urls": serve.url + "/api/deals", "method": "POST",
                         "headers": headers, "body": procs.deal_body(competitor, "Load"),
                         "settle": graph_settled(info["db"])}),
        ("bare", bare, {"urls": bare.url + "/api/deals", "method": "POST",
                        "body": procs.deal_body(competitor, "Bare")}),
    ]  # fmt: skip
    log(f"write test: POST /api/deals, {args.clients} connections, "
        f"{args.load_rounds} × {args.duration:g} s rounds")  # fmt: skip
    got = alternate(args, participants, work)
    ours, theirs = got["ours"], got["bare"]
    conn = sqlite3.connect(info["db"])
    ids = [r[0] for r in conn.execute(
        "SELECT id FROM deal WHERE prospect_company_name LIKE 'Load Prospect %'")]  # fmt: skip
    conn.close()
    replay = replay_inserts(info["db"], str(copy_path), ids, args.clients)
    copy_path.unlink(missing_ok=True)
    ratio = _ratio(ours["rps"], theirs["rps"])
    label = f"REST write POST /api/deals (3 arguments, graph nodes; {args.clients} clients)"
    report.add(f"{label}, deals/s", ours["rps"], theirs["rps"], ratio, "ours/base",
               f"≥ {WRITE_TARGET}×",
               ratio >= WRITE_TARGET and ours["non2xx"] == theirs["non2xx"] == 0, "/s")  # fmt: skip
    report.add(f"{label}, server CPU per request", ours["cpu"], theirs["cpu"],
               _ratio(ours["cpu"], theirs["cpu"]), "ours/base", "— (reported)", None,
               "ms")  # fmt: skip
    _add_split(report, label, ours, theirs)
    ratio = _ratio(ours["rps"], replay["rps"])
    report.add("REST write, beside the same rows inserted by plain sqlite3 (no HTTP), deals/s",
               ours["rps"], replay["rps"], ratio, "ours/base", "— (reported)", None,
               "/s")  # fmt: skip
    other = ours["non2xx"] - ours["server_errors"]
    bare_bad = theirs["non2xx"] + theirs["socket"] + replay["errors"]
    report.add(
        "REST write errors: 5xx / 'database is locked' / other non-2xx / socket",
        f"{ours['server_errors']} / {ours['locked']} / {other} / {ours['socket']}",
        f"{bare_bad} errors", None, "", "0 / 0 / 0 / 0",
        ours["non2xx"] == 0 and ours["socket"] == 0,
    )  # fmt: skip
    report.details["write"] = {**got, "replay": replay, "deals": len(ids)}


def search_test(args, info, label: str, queries, serve, base, work: Path, report, log) -> None:
    """``/api/search`` under load (the queries cycled on every connection) beside the HTTP
    floor (the bare app's /healthz) and the bare app's LIKE scans."""
    paths = [str(httpx.URL("/api/search", params={"q": q})) for q in queries]
    participants = [
        ("ours", serve, {"urls": [serve.url + p for p in paths],
                         "headers": {"X-API-Key": info["key"]}}),
        ("floor", base, {"urls": base.url + "/healthz"}),
        ("like", base, {"urls": [base.url + p for p in paths]}),
    ]  # fmt: skip
    warm_up(args, participants[::2], work)  # the search windows, the page cache
    log(f"search at {label} intel items: /api/search under load, {args.clients} "
        f"connections, {args.load_rounds} × {args.duration:g} s rounds")  # fmt: skip
    got = alternate(args, participants, work)
    ours, floor, like = got["ours"], got["floor"], got["like"]
    report.add(f"/api/search p50 @{label} (8-query mix, under load)", ours["p50"],
               like["p50"], _ratio(like["p50"], ours["p50"]), "base/ours", "—", None,
               "ms")  # fmt: skip
    report.add(f"HTTP floor p95 @{label} (bare app /healthz, same load)", floor["p95"], None,
               None, "", "—", None, "ms")  # fmt: skip
    over_floor = _ratio(ours["p95"], floor["p95"])
    report.add(f"/api/search p95 @{label} (8-query mix, under load) over the HTTP floor",
               ours["p95"], floor["p95"], over_floor, "ours/floor",
               f"≤ {SEARCH_FLOOR_TARGET:g}× floor",
               over_floor <= SEARCH_FLOOR_TARGET and ours["non2xx"] == 0, "ms")  # fmt: skip
    report.add(f"/api/search p95 @{label} (8-query mix, under load) against LIKE scans",
               ours["p95"], like["p95"], _ratio(like["p95"], ours["p95"]), "base/ours",
               "—", None, "ms")  # fmt: skip
    report.add(f"/api/search @{label}, req/s and server CPU per request",
               f"{ours['rps']:.0f}/s, {ours['cpu'] * 1000:.2f} ms",
               f"{like['rps']:.0f}/s, {like['cpu'] * 1000:.2f} ms (LIKE)", None, "", "—",
               None)  # fmt: skip
    _add_split(report, f"/api/search @{label} beside the floor's /healthz", ours, floor)
    report.details.setdefault("search_load", {})[label] = got


def replay_inserts(source: str, target: str, deal_ids: list[str], threads: int) -> dict:
    """Insert the rows the write run created (deal, its nodes, its edges) into ``target``
    with plain sqlite3: ``threads`` threads, one transaction per deal, same pragmas."""
    src = sqlite3.connect(source)
    src.row_factory = sqlite3.Row
    units = []
    for deal_id in deal_ids:
        deal = src.execute("SELECT * FROM deal WHERE id = ?", (deal_id,)).fetchone()
        nodes = src.execute(
            "SELECT * FROM graph_node WHERE ref_type = 'deal' AND ref_id = ?", (deal_id,)
        ).fetchall()
        node_ids = [n["id"] for n in nodes]
        marks = ",".join("?" * len(node_ids))
        edges = src.execute(
            f"SELECT * FROM graph_edge WHERE source_id IN ({marks})", node_ids
        ).fetchall()
        targets = {e["target_id"] for e in edges} - set(node_ids)
        extra = src.execute(
            f"SELECT * FROM graph_node WHERE id IN ({','.join('?' * len(targets))})",
            list(targets),
        ).fetchall()
        units.append([("deal", deal), *[("graph_node", n) for n in [*extra, *nodes]],
                      *[("graph_edge", e) for e in edges]])  # fmt: skip
    src.close()
    work = list(units)
    lock = threading.Lock()
    errors: list[str] = []

    def worker() -> None:
        conn = sqlite3.connect(target, timeout=10, isolation_level=None)
        for pragma in ("journal_mode=wal", "foreign_keys=1", "busy_timeout=10000",
                       "synchronous=normal"):  # fmt: skip
            conn.execute(f"PRAGMA {pragma}")
        while True:
            with lock:
                if not work:
                    break
                unit = work.pop()
            try:
                conn.execute("BEGIN IMMEDIATE")
                for table, row in unit:
                    keys = row.keys()
                    conn.execute(
                        f"INSERT OR IGNORE INTO {table} ({','.join(keys)}) "
                        f"VALUES ({','.join('?' * len(keys))})",
                        tuple(row),
                    )
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                errors.append(str(exc))
                conn.execute("ROLLBACK")
        conn.close()

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    began = time.perf_counter()
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    elapsed = time.perf_counter() - began
    return {
        "rows": sum(len(u) for u in units),
        "deals": len(units),
        "seconds": round(elapsed, 3),
        "rps": len(units) / elapsed if elapsed > 0 else 0.0,
        "errors": len(errors),
        "error_samples": errors[:5],
    }
