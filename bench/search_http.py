"""Time both searches over HTTP against a real ``serve`` on a seeded database (issue 16).

Starts ``python -m ci_service --database DB serve --threads 8 --no-scheduler`` with the
package from ``--code`` (default: this checkout; point it at an exported older tree to
compare), sends the benchmark's queries one at a time on a keep-alive connection
(``/api/search``: the 8-query mix; ``search_intel`` over ``POST /mcp``: the 5 semantic
queries; both from bench/run.py), prints p50/p95 per endpoint beside ``GET /healthz``
(the server's floor) and serve's VmRSS after the searches. ``serve`` migrates the file,
so give it a copy.

    python -m bench.seed /tmp/s16/bench.db \
        '{"competitors": 50, "battlecards": 1000, "deals": 0, "intel": 100000}'  # prints key
    cp /tmp/s16/bench.db /tmp/s16/http.db
    python -m bench.search_http /tmp/s16/http.db --key svc_live_... --rounds 20
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.run import SEARCH_QUERIES, SEMANTIC_QUERIES  # noqa: E402


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024 / 1e6
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.search_http", description=__doc__.split("\n")[0]
    )
    parser.add_argument("database")
    parser.add_argument("--key", required=True, help="the seeded API key")
    parser.add_argument("--code", default=str(ROOT), help="where ci_service is imported from")
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("CI_SERVICE_")}
    env["PYTHONPATH"] = args.code
    command = [sys.executable, "-m", "ci_service", "--database", args.database, "serve"]
    command += ["--port", str(port), "--threads", "8", "--no-scheduler"]
    server = subprocess.Popen(command, env=env, cwd="/", stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(base + "/healthz").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(server.stderr.read().decode()[-2000:])
            time.sleep(0.05)
        with httpx.Client(base_url=base, headers={"X-API-Key": args.key}) as http:
            requests = [("GET", "/healthz", None, None)]
            requests += [("GET", "/api/search", {"q": q}, None) for q in SEARCH_QUERIES]
            requests += [
                ("POST", "/mcp", None, {"jsonrpc": "2.0", "id": 1, "method": "search_intel",
                                        "params": {"query": q}})
                for q in SEMANTIC_QUERIES
            ]  # fmt: skip
            for method, path, params, body in requests:  # warm-up (loads the index)
                http.request(method, path, params=params, json=body).raise_for_status()
            times: dict[str, list[float]] = {"/healthz": [], "/api/search": [], "/mcp": []}
            for _ in range(args.rounds):
                for method, path, params, body in requests:
                    start = time.perf_counter()
                    answer = http.request(method, path, params=params, json=body)
                    times[path].append((time.perf_counter() - start) * 1000)
                    answer.raise_for_status()
                    if path == "/mcp" and "error" in answer.json():
                        raise SystemExit(answer.text)
        for path, samples in times.items():
            label = "search_intel (/mcp)" if path == "/mcp" else path
            print(
                f"{label:22} p50 {statistics.median(samples):7.2f} ms  "
                f"p95 {p95(samples):7.2f} ms  ({len(samples)} requests)"
            )
        print(f"serve VmRSS after the searches: {rss_mb(server.pid):.0f} MB")
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
