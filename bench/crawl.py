"""First analysis of many competitors at once: ``python -m bench.crawl``.

``--sites N`` generated sites of ``--pages`` HTML pages each (bench/site.py: home, about,
pricing, contact, products, news with an RSS feed, blog; robots.txt and a sitemap), each
on its own loopback host (``127.0.1.1``, ``127.0.1.2`` ... on one port), served by a
separate process that notes when every request arrives. A real ``ci-service serve`` (the
default job settings: 2 job workers, ``crawl_concurrency`` jobs at once) on a fresh
SQLite file, with ``--delay`` seconds of politeness, gets N ``POST /api/competitors``
with ``isFirstRun: true`` at once, as a bulk import makes them. Reported: wall time from
the first POST until no job is running (polled every second), serve's CPU seconds
over that time (``/proc/PID/stat``), the jobs that failed, pages served, and the
shortest gap between two requests to one host as the site server saw them, which must
not be below the delay.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

from bench import procs
from bench.site import build_site, send_file

HOST_PREFIX = "127.0.1."


def host_address(number: int) -> str:
    """The loopback address of site ``number`` (0-based): 127.0.1.1 ... 127.0.4.254."""
    third, fourth = divmod(number, 254)
    return f"127.0.{1 + third}.{1 + fourth}"


def _serve_sites(count: int, pages: int, pipe) -> None:
    """Child process: one ThreadingHTTPServer per site address, all on one port."""
    files = build_site(pages)
    arrivals: dict[str, list[float]] = {}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def do_GET(self):  # noqa: N802 (http.server's naming)
            moment = time.monotonic()
            host = self.server.server_address[0]
            with lock:
                arrivals.setdefault(host, []).append(moment)
            send_file(self, self.server.files)

        def log_message(self, *args):
            pass

    servers = []
    port = 0
    for number in range(count):
        address = host_address(number)
        server = ThreadingHTTPServer((address, port), Handler)
        server.daemon_threads = True
        port = server.server_address[1]
        base = f"http://{address}:{port}".encode()
        server.files = {
            path: (body.replace(b"{base}", base), kind) for path, (body, kind) in files.items()
        }
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
    pipe.send(port)
    pipe.recv()  # "stop"
    for server in servers:
        server.shutdown()
    with lock:
        gaps = []
        for times in arrivals.values():
            times.sort()
            gaps += [b - a for a, b in zip(times, times[1:], strict=False)]
        pipe.send(
            {
                "requests": sum(len(t) for t in arrivals.values()),
                "hosts": len(arrivals),
                "min_gap": min(gaps) if gaps else None,
            }
        )


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(sites: int, pages: int, delay: float, timeout: float) -> dict:
    parent, child = multiprocessing.Pipe()
    server = multiprocessing.Process(target=_serve_sites, args=(sites, pages, child), daemon=True)
    server.start()
    port = parent.recv()
    work = Path(tempfile.mkdtemp(prefix="ci-bench-crawl-"))
    db = str(work / "crawl.db")
    info = procs.seed(db, {"competitors": 0, "battlecards": 0, "deals": 0, "intel": 0})
    env = {
        "CI_SERVICE_ALLOW_PRIVATE_URLS": "1",
        "CI_SERVICE_CRAWL_DELAY_SECONDS": str(delay),
        "CI_SERVICE_CRAWL_MAX_PAGES": str(pages),
    }
    try:
        with procs.serve(db, env=env) as serve:
            pid = serve.process.pid
            headers = {"X-API-Key": info["key"]}
            with httpx.Client(base_url=serve.url, headers=headers, timeout=60) as http:
                cpu_began, began = cpu_seconds(pid), time.perf_counter()
                jobs = []
                for number in range(sites):
                    answer = http.post(
                        "/api/competitors",
                        json={
                            "name": f"Site {number:03d}",
                            "websiteUrl": f"http://{host_address(number)}:{port}/",
                            "isFirstRun": True,
                            "relevantProductIds": info["products"],
                        },
                    )
                    if answer.status_code != 200:
                        raise procs.BenchError(f"POST /api/competitors: {answer.text[:300]}")
                    jobs.append(answer.json()["jobId"])
                posted = time.perf_counter() - began
                # One light request a second (the running jobs' list), so the polling
                # does not take serve's CPU from the jobs.
                while True:
                    running = http.get("/api/jobs", params={"status": "running", "limit": 1})
                    if not running.json()["jobs"]:
                        break
                    if time.perf_counter() - began > timeout:
                        raise procs.BenchError(f"jobs still running after {timeout:.0f} s")
                    time.sleep(1.0)
                wall = time.perf_counter() - began
                cpu = cpu_seconds(pid) - cpu_began
                rss = serve.rss_mb()
                done = {j: http.get(f"/api/jobs/{j}").json()["job"] for j in jobs}
    finally:
        parent.send("stop")
        served = parent.recv()
        server.join(10)
        shutil.rmtree(work, ignore_errors=True)
    failed = [j for j in done.values() if j["status"] != "completed"]
    return {
        "sites": sites,
        "pages": pages,
        "delay": delay,
        "wall_seconds": round(wall, 1),
        "post_seconds": round(posted, 2),
        "serve_cpu_seconds": round(cpu, 1),
        "serve_rss_mb": round(rss, 1),
        "completed": len(done) - len(failed),
        "failed": [(j["id"], j.get("error")) for j in failed][:5],
        "requests_served": served["requests"],
        "hosts_seen": served["hosts"],
        "min_gap_seconds": None if served["min_gap"] is None else round(served["min_gap"], 3),
        "polite": served["min_gap"] is None or served["min_gap"] >= delay,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.crawl", description=__doc__)
    parser.add_argument("--sites", type=int, nargs="+", default=[20, 200])
    parser.add_argument("--pages", type=int, default=30)
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = []
    for count in args.sites:
        print(
            f"crawl: {count} sites of {args.pages} pages, {args.delay:g} s delay", file=sys.stderr
        )
        rows.append(run(count, args.pages, args.delay, args.timeout))
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(
        "| sites | pages each | wall | serve CPU | RSS | completed | requests | min gap | polite |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['sites']} | {r['pages']} | {r['wall_seconds']} s | "
            f"{r['serve_cpu_seconds']} s | {r['serve_rss_mb']} MB | "
            f"{r['completed']}/{r['sites']} | {r['requests_served']} | "
            f"{r['min_gap_seconds']} s | {'yes' if r['polite'] else 'NO'} |"
        )
        for job_id, error in r["failed"]:
            print(f"  failed {job_id}: {error}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
