"""The load generator: run as its own process (``python -m bench.load``), never in serve.

Reads one JSON spec on stdin, writes one JSON result on stdout. Client threads each hold
one keep-alive ``httpx.Client``.

- ``{"mode": "throughput", "url", "method", "headers", "body"?, "clients", "duration",
  "warmup"}``: every client sends requests back to back for ``warmup`` + ``duration``
  seconds; only requests that start after the warm-up count. String values of ``body``
  containing ``{n}`` get a counter unique within the run (so every POST is a new row).
  Result: requests, requests per second, status counts, errors (5xx, exceptions, bodies
  mentioning "database is locked"), latency p50/p90/p95/p99. ``"urls": [...]`` instead of ``"url"``
  spreads the requests round-robin over several servers (each client takes the next URL
  for each request, starting at its own offset; one keep-alive connection per server).
- ``{"mode": "latency", "targets": [{"name", "base", "headers"}], "requests": [{"label",
  "method", "path", "json"?}], "rounds", "warmup_rounds"}``: one client per target; each
  round sends every request to every target in turn (side by side, so both see the same
  machine noise). Result: per target, per label, the list of seconds.
"""

from __future__ import annotations

import itertools
import json
import statistics
import sys
import threading
import time
from typing import Any

import httpx


def _fill(value: Any, n: int) -> Any:
    if isinstance(value, str) and "{n}" in value:
        return value.replace("{n}", str(n))
    if isinstance(value, dict):
        return {k: _fill(v, n) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, n) for v in value]
    return value


def percentile(samples: list[float], q: float) -> float:
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    if q == 50:
        return statistics.median(ordered)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q / 100))]


def throughput(spec: dict) -> dict:
    counter = itertools.count(spec.get("first_n", 0))
    lock = threading.Lock()
    statuses: dict[str, int] = {}
    errors: list[str] = []
    latencies: list[float] = []
    created: list[str] = []
    start = time.perf_counter()
    measure_from = start + spec.get("warmup", 1.0)
    stop_at = measure_from + spec["duration"]
    body = spec.get("body")
    collect_ids = spec.get("collect_ids")
    urls = spec.get("urls") or [spec["url"]]

    def client(index: int) -> None:
        local_lat, local_status, local_err, local_ids = [], {}, [], []
        turn = itertools.count(index)
        with httpx.Client(headers=spec.get("headers") or {}, timeout=30) as http:
            while True:
                begun = time.perf_counter()
                if begun >= stop_at:
                    break
                counted = begun >= measure_from
                url = urls[next(turn) % len(urls)]
                try:
                    if body is None:
                        response = http.request(spec["method"], url)
                    else:
                        response = http.request(
                            spec["method"], url, json=_fill(body, next(counter))
                        )
                except httpx.HTTPError as exc:
                    if counted:
                        local_err.append(f"{type(exc).__name__}: {exc}")
                    continue
                elapsed = time.perf_counter() - begun
                if collect_ids and response.status_code == 200:
                    local_ids.append(response.json()[collect_ids]["id"])
                if not counted:
                    continue
                local_lat.append(elapsed)
                code = str(response.status_code)
                local_status[code] = local_status.get(code, 0) + 1
                if response.status_code >= 500 or b"database is locked" in response.content:
                    local_err.append(f"HTTP {code}: {response.text[:200]}")
        with lock:
            latencies.extend(local_lat)
            errors.extend(local_err)
            created.extend(local_ids)
            for code, n in local_status.items():
                statuses[code] = statuses.get(code, 0) + n

    threads = [threading.Thread(target=client, args=(i,)) for i in range(spec["clients"])]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    measured = time.perf_counter() - measure_from
    return {
        "requests": len(latencies),
        "seconds": round(measured, 3),
        "rps": len(latencies) / measured if measured > 0 else 0.0,
        "statuses": statuses,
        "errors": len(errors),
        "locked": sum("database is locked" in e for e in errors),
        "error_samples": errors[:5],
        "p50": percentile(latencies, 50),
        "p90": percentile(latencies, 90),
        "p95": percentile(latencies, 95),
        "p99": percentile(latencies, 99),
        "created_ids": created,
    }


def latency(spec: dict) -> dict:
    clients = {
        t["name"]: httpx.Client(base_url=t["base"], headers=t.get("headers") or {}, timeout=60)
        for t in spec["targets"]
    }
    out: dict[str, dict[str, list[float]]] = {t["name"]: {} for t in spec["targets"]}
    failures: list[str] = []
    try:
        rounds = spec.get("warmup_rounds", 1) + spec["rounds"]
        for round_no in range(rounds):
            for request in spec["requests"]:
                for target in spec["targets"]:
                    http = clients[target["name"]]
                    begun = time.perf_counter()
                    response = http.request(
                        request.get("method", "GET"), request["path"], json=request.get("json")
                    )
                    elapsed = time.perf_counter() - begun
                    if response.status_code != 200:
                        code = response.status_code
                        failures.append(f"{target['name']} {request['path']}: {code}")
                    if round_no >= spec.get("warmup_rounds", 1):
                        out[target["name"]].setdefault(request["label"], []).append(elapsed)
    finally:
        for http in clients.values():
            http.close()
    return {"samples": out, "failures": failures[:10]}


def main() -> None:
    spec = json.load(sys.stdin)
    result = throughput(spec) if spec["mode"] == "throughput" else latency(spec)
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
