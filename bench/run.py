"""The benchmark driver: seed, start servers, drive them from load processes, print a table.

Every figure is measured in the same run as its baseline, and reported as a ratio:

- read: ``GET /api/competitors`` (authenticated) vs a bare Flask app answering the same
  bytes on the same waitress settings; requests per second, ``--clients`` threads;
- write: ``POST /api/deals`` with arguments, 8 clients, vs a bare sqlite3 insert of the
  same rows (the deal, its graph nodes and edges, read back after the run) with 8
  threads into a copy of the database taken just before the run;
- ``/api/search`` p50/p95 per intel size vs the same lookups as plain LIKE scans in the
  bare app; ``search_intel`` (POST /mcp) p95 vs a brute-force cosine top-10 in the bare
  app over the same stored vectors;
- first-run pipeline over a generated site of N pages: job wall time per page, minus the
  network (every request the crawl made, replayed one by one on fresh connections);
- serve's VmRSS after the largest seed and its searches vs the bare app's (which holds
  the same vector matrix); start to first 200 on /healthz vs the bare app's start.

``--postgresql [URL]`` first runs the processes section of bench/scale.py (read and write
throughput with one and three ``serve`` processes on PostgreSQL, beside SQLite's one) and
prints it as a second table; ``--scale-out-only`` runs that section alone.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

from bench import procs
from bench.load import percentile
from bench.scale import DEFAULT_URL, render_scale_out, run_scale_out
from bench.site import SiteServer, build_site

ROUND_TRIP = "(bare round trip)"
SEARCH_QUERIES = [
    "vendor0021",  # one competitor: its name, its cards, ~1/competitors of the intel
    "Encryption Audit",  # a phrase that occurs now and then
    "kubernetes",  # a rare word (1 in 500 items)
    "nothing-matches-this",  # no match anywhere: the LIKE scan reads everything
    "VENDOR00",  # mixed case, many competitors
    "platform",  # very common
    "zq",  # 2 characters, no match
    "ap",  # 2 characters, common
]
SEMANTIC_QUERIES = [
    "Vendor0003",
    "pricing changes for enterprise customers",
    "security compliance audit",
    "Vendor0011 acquisition",
    "how fast is their support",
]
QUICK = {
    "competitors": 5,
    "intel": [300],
    "deals": 20,
    "battlecards": 10,
    "pages": [6, 12],
    "duration": 1.0,
    "rounds": 3,
}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    def ints(text: str) -> list[int]:
        return [int(x) for x in text.split(",") if x.strip()]

    parser = argparse.ArgumentParser(
        prog="python -m bench", description="ci-service benchmark suite (see docs/benchmarks.md)"
    )
    parser.add_argument("--competitors", type=int, default=50)
    parser.add_argument("--intel", type=ints, default=[10_000, 100_000], help="e.g. 10000,100000")
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--battlecards", type=int, default=1000)
    parser.add_argument("--pages", type=ints, default=[20, 200], help="fixture site sizes")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per load test")
    parser.add_argument("--clients", type=int, default=8, help="concurrent load clients")
    parser.add_argument("--rounds", type=int, default=20, help="rounds of each search query")
    parser.add_argument("--threads", type=int, default=8, help="waitress threads (both apps)")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--keep", action="store_true", help="keep the temp directory")
    parser.add_argument(
        "--postgresql",
        nargs="?",
        const=DEFAULT_URL,
        default=None,
        metavar="URL",
        help="add read/write throughput of 1 and 3 serve processes on a fresh PostgreSQL "
        "database created on the server at URL (default %(const)s), beside SQLite",
    )
    parser.add_argument(
        "--scale-out-only", action="store_true", help="with --postgresql: only that section"
    )
    args = parser.parse_args(argv)
    if args.scale_out_only and not args.postgresql:
        parser.error("--scale-out-only needs --postgresql")
    if args.quick:
        for key, value in QUICK.items():
            setattr(args, key, value)
    if not args.intel or min(args.intel) < 1 or args.intel != sorted(args.intel):
        parser.error("--intel needs ascending sizes >= 1")
    if not args.pages or min(args.pages) < 6:
        parser.error("--pages needs sizes >= 6")
    if args.competitors < 1:
        parser.error("--competitors must be >= 1")
    return args


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def machine() -> dict:
    mem = ""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpus": os.cpu_count(),
        "cpu": cpu,
        "memory": mem,
        "kernel": platform.release(),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def size_label(n: int) -> str:
    return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else str(n)


class Report:
    def __init__(self) -> None:
        self.rows: list[dict] = []
        self.details: dict = {}

    def add(self, figure, ours, baseline, ratio, ratio_kind, target, met, unit="") -> None:
        self.rows.append(
            {
                "figure": figure,
                "ours": ours,
                "baseline": baseline,
                "ratio": ratio,
                "ratioKind": ratio_kind,
                "target": target,
                "met": met,
                "unit": unit,
            }
        )


def fmt(value, unit: str = "") -> str:
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    if isinstance(value, float) and math.isnan(value):
        return "n/a"
    if unit == "ms":
        return f"{value * 1000:.1f} ms"
    if unit == "s":
        return f"{value:.2f} s"
    if unit == "MB":
        return f"{value:.0f} MB"
    if unit == "/s":
        return f"{value:.0f}/s"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def render(report: Report, meta: dict) -> str:
    head = ["figure", "ours", "baseline", "ratio", "target", "met?"]
    lines = []
    for row in report.rows:
        ratio = row["ratio"]
        ratio_text = "—" if ratio is None else f"{ratio:.2f}× ({row['ratioKind']})"
        met = row["met"]
        lines.append(
            [
                row["figure"],
                fmt(row["ours"], row["unit"]),
                fmt(row["baseline"], row["unit"]),
                ratio_text,
                row["target"],
                "—" if met is None else ("yes" if met else "NO"),
            ]
        )
    widths = [max([len(h), *(len(r[i]) for r in lines)]) for i, h in enumerate(head)]
    out = [
        f"machine: {meta['cpus']} CPUs ({meta['cpu']}), {meta['memory']} RAM, Linux "
        f"{meta['kernel']}, Python {meta['python']}, SQLite {meta['sqlite']}, "
        f"load average at start {meta['loadavg']}, {meta['date']}",
        f"command: {meta['command']}",
        "",
        "| " + " | ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)) + " |",
        "|" + "|".join("-" * (w + 2) for w in widths) + "|",
    ]
    for r in lines:
        out.append("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |")
    return "\n".join(out if lines else out[:2])  # no rows: --scale-out-only


# --- the measurements ---------------------------------------------------------------------


def read_test(args, info, serve: procs.Server, work: Path, report: Report) -> procs.Server:
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
    spec = {"mode": "throughput", "method": "GET", "clients": args.clients,
            "duration": args.duration, "warmup": min(1.0, args.duration / 2)}  # fmt: skip
    log(f"read test: GET /api/competitors ({n_items} items), {args.clients} clients")
    ours = procs.load({**spec, "url": serve.url + "/api/competitors", "headers": headers})
    theirs = procs.load({**spec, "url": base.url + "/api/competitors"})
    ratio = ours["rps"] / theirs["rps"] if theirs["rps"] else float("nan")
    bad = sum(n for code, n in ours["statuses"].items() if code != "200")
    report.add(
        f"REST read GET /api/competitors ({n_items} items, {args.clients} clients; cache hits), "
        "req/s",
        ours["rps"], theirs["rps"], ratio, "ours/base", "≥ 0.5×", ratio >= 0.5 and bad == 0,
        "/s",
    )  # fmt: skip
    report.details["read"] = {"ours": ours, "baseline": theirs, "items": n_items}
    uncached_read(args, info, headers, base, theirs, n_items, report)
    return base


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_per_request(server: procs.Server, spec: dict) -> tuple[float, dict]:
    """Seconds of the server process's CPU (all threads, waitress included) per answered
    request over one load run, and the run's result."""
    before = cpu_seconds(server.process.pid)
    result = procs.load(spec)
    used = cpu_seconds(server.process.pid) - before
    return used / (sum(result["statuses"].values()) or 1), result


def uncached_read(args, info, headers, base, theirs, n_items, report: Report) -> None:
    """The same read with the response cache off: server CPU per request (all threads,
    waitress included, from /proc over the load), beside the bare app's under that load."""
    spec = {"mode": "throughput", "method": "GET", "clients": args.clients,
            "duration": args.duration, "warmup": 0}  # fmt: skip
    log(f"read test, response cache off: GET /api/competitors ({n_items} items)")
    cache_off = {"CI_SERVICE_RESPONSE_CACHE_MB": "0"}
    with procs.serve(info["db"], threads=args.threads, env=cache_off) as cold:
        url = cold.url + "/api/competitors"
        procs.load({**spec, "duration": min(1.0, args.duration), "url": url, "headers": headers})
        ours_cpu, ours = cpu_per_request(cold, {**spec, "url": url, "headers": headers})
    base_cpu, _ = cpu_per_request(base, {**spec, "url": base.url + "/api/competitors"})
    report.add(
        f"REST read GET /api/competitors, cache off: server CPU per request ({n_items} items)",
        ours_cpu, base_cpu, ours_cpu / base_cpu if base_cpu else float("nan"), "ours/base",
        "≤ 1.5 ms", ours_cpu <= 0.0015, "ms",
    )  # fmt: skip
    ratio = ours["rps"] / theirs["rps"] if theirs["rps"] else float("nan")
    report.add(
        f"REST read GET /api/competitors, cache off ({args.clients} clients), req/s",
        ours["rps"], theirs["rps"], ratio, "ours/base", "— (reported)", None, "/s",
    )  # fmt: skip
    report.details["read_uncached"] = {"ours": ours, "cpu_per_request": ours_cpu,
                                       "base_cpu_per_request": base_cpu}  # fmt: skip


def write_test(
    args, info, serve: procs.Server, bare: procs.Server, work: Path, report: Report
) -> None:
    """``POST /api/deals`` from 8 clients: beside the bare app's one insert per request on
    the same waitress (issue 16's baseline and target), and beside the very rows the run
    wrote inserted with plain sqlite3 and no HTTP at all (reported)."""
    copy_path = work / "write-baseline.db"
    src = sqlite3.connect(info["db"])
    dst = sqlite3.connect(copy_path)
    src.backup(dst)  # the database as it is before the write run
    src.close()
    dst.close()
    body = procs.deal_body(info["competitors"][0][0], "Load")
    clients = 8
    spec = {"mode": "throughput", "method": "POST", "body": body, "clients": clients,
            "duration": args.duration, "warmup": 0.0}  # fmt: skip
    log(f"write test: POST /api/deals, {clients} clients")
    ours = procs.load(
        {
            **spec,
            "url": serve.url + "/api/deals",
            "headers": {"X-API-Key": info["key"]},
            "collect_ids": "deal",
        }  # fmt: skip
    )
    ids = ours.pop("created_ids")
    replay = replay_inserts(info["db"], str(copy_path), ids, clients)
    copy_path.unlink(missing_ok=True)
    log("write test: the bare app's POST /api/deals (one insert per request)")
    theirs = procs.load({**spec, "body": procs.deal_body(info["competitors"][0][0], "Bare"),
                         "url": bare.url + "/api/deals"})  # fmt: skip
    ratio = ours["rps"] / theirs["rps"] if theirs["rps"] else float("nan")
    report.add(
        f"REST write POST /api/deals (3 arguments, graph nodes; {clients} clients), deals/s",
        ours["rps"], theirs["rps"], ratio, "ours/base", "≥ 0.3×", ratio >= 0.3, "/s",
    )  # fmt: skip
    ratio = ours["rps"] / replay["rps"] if replay["rps"] else float("nan")
    report.add(
        "REST write, beside the same rows inserted by plain sqlite3 (no HTTP), deals/s",
        ours["rps"], replay["rps"], ratio, "ours/base", "— (reported)", None, "/s",
    )  # fmt: skip
    non_200 = sum(n for code, n in ours["statuses"].items() if code != "200")
    bare_bad = theirs["errors"] + sum(n for c, n in theirs["statuses"].items() if c != "200")
    report.add(
        "REST write errors: 5xx / 'database is locked' / other non-200",
        f"{ours['errors'] - ours['locked']} / {ours['locked']} / {non_200}",
        f"{bare_bad + replay['errors']} errors",
        None,
        "",
        "0 / 0",
        ours["errors"] == 0,
    )
    report.details["write"] = {"ours": ours, "baseline": theirs, "replay": replay,
                               "deals": len(ids)}  # fmt: skip


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


def latency_pair(args, info, serve, base, requests, what: str) -> dict:
    """Latency samples of ``requests`` against ``serve`` (with the key) and the bare app,
    each request going to both in turn."""
    result = procs.load(
        {
            "mode": "latency",
            "rounds": args.rounds,
            "warmup_rounds": 1,
            "requests": requests,
            "targets": [
                {"name": "ours", "base": serve.url, "headers": {"X-API-Key": info["key"]}},
                {"name": "base", "base": base.url},
            ],
        }
    )
    if result["failures"]:
        raise procs.BenchError(f"{what} requests failed: {result['failures']}")
    return result["samples"]


def search_tests(args, info, n_items, serve, base, report: Report, largest: bool) -> None:
    label = size_label(n_items)
    log(f"search at {label} intel items: /api/search and search_intel, {args.rounds} rounds")
    requests = [{"label": q, "path": "/api/search", "q": q} for q in SEARCH_QUERIES]
    for r in requests:
        r["path"] = str(httpx.URL(r.pop("path"), params={"q": r.pop("q")}))
    # The floor: a bare round trip (the bare app's /healthz, interleaved with the rest).
    requests.append({"label": ROUND_TRIP, "path": "/healthz"})
    result = {"samples": latency_pair(args, info, serve, base, requests, "search")}
    floor95 = percentile(result["samples"]["base"][ROUND_TRIP], 95)
    ours_all = [t for q in SEARCH_QUERIES for t in result["samples"]["ours"][q]]
    base_all = [t for q in SEARCH_QUERIES for t in result["samples"]["base"][q]]
    o50, o95 = percentile(ours_all, 50), percentile(ours_all, 95)
    b50, b95 = percentile(base_all, 50), percentile(base_all, 95)
    report.add(f"/api/search p50 @{label} (8-query mix)", o50, b50, b50 / o50, "base/ours",
               "—", None, "ms")  # fmt: skip
    speed = b95 / o95
    report.add(f"bare round trip p95 @{label} (bare app /healthz, same rounds)", floor95, None,
               None, "", "—", None, "ms")  # fmt: skip
    if n_items >= 100_000:
        target = f"≤ 4× round trip ({4 * floor95 * 1000:.1f} ms) and ≥ 20×"
        met = o95 <= 4 * floor95 and speed >= 20
    else:
        target, met = "—", None
    report.add(f"/api/search p95 @{label} (8-query mix)", o95, b95, speed, "base/ours",
               target, met, "ms")  # fmt: skip
    long_q = [q for q in SEARCH_QUERIES if len(q) >= 3]
    o3 = percentile([t for q in long_q for t in result["samples"]["ours"][q]], 95)
    b3 = percentile([t for q in long_q for t in result["samples"]["base"][q]], 95)
    report.add(f"/api/search p95 @{label}, 3+ character queries only", o3, b3, b3 / o3,
               "base/ours", "—", None, "ms")  # fmt: skip
    per_query = {
        q: {
            "ours_p50": percentile(result["samples"]["ours"][q], 50),
            "ours_p95": percentile(result["samples"]["ours"][q], 95),
            "base_p50": percentile(result["samples"]["base"][q], 50),
            "base_p95": percentile(result["samples"]["base"][q], 95),
        }
        for q in SEARCH_QUERIES
    }
    report.details.setdefault("search", {})[label] = per_query

    requests = [
        {"label": q, "method": "POST", "path": "/mcp",
         "json": {"jsonrpc": "2.0", "id": 1, "method": "search_intel", "params": {"query": q}}}
        for q in SEMANTIC_QUERIES
    ]  # fmt: skip
    result = {"samples": latency_pair(args, info, serve, base, requests, "search_intel")}
    ours_all = [t for q in SEMANTIC_QUERIES for t in result["samples"]["ours"][q]]
    base_all = [t for q in SEMANTIC_QUERIES for t in result["samples"]["base"][q]]
    o95, b95 = percentile(ours_all, 95), percentile(base_all, 95)
    report.add(
        f"search_intel p95 @{label} (POST /mcp, limit 10)", o95, b95, o95 / b95, "ours/base",
        "≤ 30 ms" if n_items >= 100_000 else "—",
        (o95 <= 0.030) if n_items >= 100_000 else None, "ms",
    )  # fmt: skip
    report.details.setdefault("search_intel", {})[label] = {
        "ours_p50": percentile(ours_all, 50),
        "ours_p95": o95,
        "base_p50": percentile(base_all, 50),
        "base_p95": b95,
    }


def pipeline_test(args, work: Path, pages: int, report: Report) -> dict:
    db = str(work / f"pipeline-{pages}.db")
    info = procs.seed(db, {"competitors": 0, "battlecards": 0, "deals": 0, "intel": 0})
    env = {
        "CI_SERVICE_ALLOW_PRIVATE_URLS": "1",
        "CI_SERVICE_CRAWL_DELAY_SECONDS": "0",
        "CI_SERVICE_CRAWL_MAX_PAGES": str(pages + 10),
        "CI_SERVICE_FETCH_DEADLINE_SECONDS": "30",
    }
    log(f"pipeline: first run over a {pages}-page site")
    with SiteServer(build_site(pages)) as site, procs.serve(db, env=env) as serve:
        headers = {"X-API-Key": info["key"]}
        with httpx.Client(base_url=serve.url, headers=headers, timeout=30) as http:
            began = time.perf_counter()
            response = http.post(
                "/api/competitors",
                json={
                    "name": "Globex",
                    "websiteUrl": site.base + "/",
                    "isFirstRun": True,
                    "relevantProductIds": info["products"],
                },  # fmt: skip
            )
            if response.status_code != 200:
                raise procs.BenchError(f"POST /api/competitors: {response.status_code}")
            job_id = response.json()["jobId"]
            deadline = began + max(120, pages * 3)
            while True:
                job = http.get(f"/api/jobs/{job_id}").json()["job"]
                if job["status"] != "running":
                    break
                if time.perf_counter() > deadline:
                    raise procs.BenchError(f"pipeline job still running: {job}")
                time.sleep(0.1)  # light polling: serve's CPU goes to the job
            wall = time.perf_counter() - began
            if job["status"] != "completed":
                raise procs.BenchError(f"pipeline job failed: {job.get('error')}")
            intel = http.get("/api/intel", params={"limit": 1000}).json()["intelItems"]
        fetched = list(site.paths)
        # The network part: every request the crawl made, replayed one at a time on a kept
        # connection, as the crawler's fetcher keeps its connections (intel/fetch.py).
        with httpx.Client(timeout=30) as fetch:
            net_began = time.perf_counter()
            for path in fetched:
                fetch.get(site.base + path)
            network = time.perf_counter() - net_began
    html_fetched = sum(1 for p in fetched if not p.endswith((".xml", ".txt")))
    return {
        "pages": pages,
        "html_fetched": html_fetched,
        "requests": len(fetched),
        "wall": wall,
        "network": network,
        "per_page": (wall - network) / pages,
        "network_per_page": network / pages,
        "intel_items": len(intel),
        "steps": [s["status"] for s in job["steps"]],
    }


def run(args) -> tuple[Report, dict]:
    report = Report()
    meta = machine()
    meta["command"] = "python -m bench " + " ".join(sys.argv[1:]) if sys.argv[1:] else ""
    meta["command"] = meta["command"] or "python -m bench"
    work = Path(tempfile.mkdtemp(prefix="ci-bench-"))
    meta["workdir"] = str(work)
    starts, rss = [], None
    try:
        if args.postgresql:
            report.details["scaleOut"] = run_scale_out(args, work, log)
        if args.scale_out_only:
            return report, meta
        db = str(work / "bench.db")
        first = args.intel[0]
        log(f"seeding {args.competitors} competitors, {args.battlecards} battlecards, "
            f"{args.deals} deals, {first} intel items into {db}")  # fmt: skip
        info = procs.seed(
            db,
            {
                "competitors": args.competitors,
                "battlecards": args.battlecards,
                "deals": args.deals,
                "intel": first,
            },  # fmt: skip
        )
        info["db"] = db
        log(f"seeded in {info['seconds']} s")
        report.details["seed"] = {"base_seconds": info["seconds"]}
        for index, n_items in enumerate(args.intel):
            largest = index == len(args.intel) - 1
            if index > 0:
                more = n_items - args.intel[index - 1]
                log(f"seeding {more} more intel items")
                done = procs.seed(
                    db,
                    {"add_intel": more, "start": args.intel[index - 1],
                     "workspace": info["workspace"], "competitors": info["competitors"]},
                )  # fmt: skip
                log(f"seeded in {done['seconds']} s")
                report.details["seed"][f"add_{size_label(n_items)}_seconds"] = done["seconds"]
            # A served database has had the scheduler's daily upkeep (full-text indexes
            # merged into one segment); a freshly seeded one has not, so run it here.
            upkeep = procs.optimize_index(db)
            steps = sum(row["steps"] for row in upkeep.values())
            log(f"index upkeep: {steps} merge steps, "
                f"{sum(row['seconds'] for row in upkeep.values()):.1f} s")  # fmt: skip
            report.details["seed"][f"upkeep_{size_label(n_items)}"] = upkeep
            serve = procs.serve(db, threads=args.threads).start()
            base = None
            try:
                log(f"serve started in {serve.start_seconds:.2f} s ({size_label(n_items)} items)")
                if index == 0:
                    base = read_test(args, info, serve, work, report)
                    write_test(args, info, serve, base, work, report)
                else:
                    base = procs.baseline(
                        threads=args.threads, body_file=work / "competitors.json",
                        database=db, workspace=info["workspace"],
                    ).start()  # fmt: skip
                starts.append((n_items, serve.start_seconds, base.start_seconds))
                search_tests(args, info, n_items, serve, base, report, largest)
                if largest:
                    rss = (n_items, serve.rss_mb(), base.rss_mb())
            finally:
                if base is not None:
                    base.stop()
                serve.stop()
        n_items, ours, theirs = rss
        report.add(
            f"serve RSS @{size_label(n_items)} intel items, after searches (VmRSS)",
            ours, theirs, ours / theirs, "ours/base", "< 250 MB", ours < 250, "MB",
        )  # fmt: skip
        for n_items, ours, theirs in starts:
            report.add(
                f"start → first 200 on /healthz ({size_label(n_items)} intel items in db)",
                ours, theirs, ours / theirs, "ours/base", "< 1 s", ours < 1.0, "s",
            )  # fmt: skip
        runs = [pipeline_test(args, work, pages, report) for pages in args.pages]
        for r in runs:
            report.add(
                f"first-run pipeline, {r['pages']}-page site: ms per page excl. network",
                r["per_page"], r["network_per_page"], r["per_page"] / r["network_per_page"],
                "ours/network", "< 100 ms", r["per_page"] < 0.100, "ms",
            )  # fmt: skip
        if len(runs) >= 2:
            small, big = runs[0], runs[-1]
            marginal = ((big["wall"] - big["network"]) - (small["wall"] - small["network"])) / (
                big["pages"] - small["pages"]
            )
            net = (big["network"] - small["network"]) / (big["pages"] - small["pages"])
            report.add(
                f"pipeline marginal cost per extra page ({small['pages']}→{big['pages']}), "
                "excl. network",
                marginal, net, marginal / net if net > 0 else float("nan"), "ours/network",
                "< 100 ms", marginal < 0.100, "ms",
            )  # fmt: skip
            growth = runs[-1]["per_page"] / runs[0]["per_page"]
            report.add(
                f"pipeline per-page cost, {runs[-1]['pages']} vs {runs[0]['pages']} pages",
                f"{growth:.2f}× per page", "1.00× (linear)", growth, "ours/linear",
                "≤ 1.5× (linear)", growth <= 1.5,
            )  # fmt: skip
        report.details["pipeline"] = runs
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return report, meta


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    try:
        report, meta = run(args)
    except (procs.BenchError, subprocess.TimeoutExpired) as exc:
        print(f"benchmark failed: {exc}", file=sys.stderr)
        return 1
    meta["seconds"] = round(time.perf_counter() - started, 1)
    table = render(report, meta)
    scale_out = report.details.get("scaleOut")
    if scale_out is not None:
        table += "\n\n" + render_scale_out(scale_out)
    if args.json:
        out = {"machine": meta, "rows": report.rows, "details": report.details, "table": table}
        print(json.dumps(out, indent=2, default=str))
    else:
        print(table)
        print(f"\n(total {meta['seconds']} s; details with --json)")
    return 0
