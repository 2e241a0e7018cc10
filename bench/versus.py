"""Side by side: ``serve`` of another commit, ``serve`` of this checkout and the bare app.

Issue 31's figures move with the machine from one hour to the next, so a change is judged
by running the code before it beside the code after it: three servers, each on its own
database seeded alike (bench/seed.py: 50 competitors, 200 deals), driven in alternating
rounds by the same load generator as ``python -m bench`` (bench/rest.py ``alternate``: wrk,
8 connections, 4 waitress threads each). For writes, this checkout's rounds end when no
deal waits for its graph nodes (``graph_settled``), as in ``python -m bench``; the other
commit's do too when it has the column.

``--what search``: each database also holds 1,000 battlecards and 10,000 intel items (its
index merged, as ``python -m bench`` does), both servers answer ``GET /api/search`` over
``python -m bench``'s 8-query mix, and the bare app its ``/healthz`` (the HTTP floor);
adds the p50/p95 latencies and each server's p95 over the floor's.

``--what start``: no load; each server started ``--rounds`` times in turn on a database of
10,000 intel items, from spawn to its first 200 on ``/healthz``: the medians, the best and
every start, and this checkout's median over the other commit's and the bare app's.

Usage: python -m bench.versus COMMIT [--what read|write|search|start] [--rounds 5]
[--duration 5]. Prints the median req/s, server CPU per request and the ratios as JSON.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx

from bench import procs, rest


def worktree(commit: str, into: Path) -> Path:
    path = into / "other"
    subprocess.run(
        ["git", "-C", str(procs.ROOT), "worktree", "add", "--detach", str(path), commit],
        check=True,
        capture_output=True,
    )
    return path


def other_serve(root: Path, database: str, threads: int) -> procs.Server:
    """``serve`` of the checkout at ``root`` (its own modules and bytecode cache), started."""
    return _started(lambda: procs.serve(database, threads=threads), root, root / ".bench-pycache")


def _started(make, root: Path, cache: Path) -> procs.Server:
    """``make()``'s server, made and started from the checkout at ``root`` (the child's
    working directory and PYTHONPATH), its bytecode cache in ``cache``."""
    saved = procs.ROOT
    procs.ROOT = root
    try:
        server = make()
        server.env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed service has bytecode
        server.env["PYTHONPYCACHEPREFIX"] = str(cache)
        return server.start()
    finally:
        procs.ROOT = saved


def compare_starts(args, roots: dict[str, Path], infos: dict, work: Path) -> dict:
    """``--what start``: spawn to the first 200 on ``/healthz`` of the other commit's
    ``serve``, this checkout's and the bare app, ``--rounds`` times each, in turn (the
    order reversed every other round), after one unmeasured start each that writes the
    bytecode caches. Each on its own database (10,000 intel items)."""
    makers = {
        "other": lambda: procs.serve(infos["other"]["db"], threads=args.threads),
        "this": lambda: procs.serve(infos["this"]["db"], threads=args.threads),
        "bare": lambda: procs.baseline(
            threads=args.threads, database=infos["bare"]["db"],
            workspace=infos["bare"]["workspace"],
        ),
    }  # fmt: skip
    seconds: dict[str, list[float]] = {name: [] for name in makers}
    for round_ in range(args.rounds + 1):
        for name in list(makers) if round_ % 2 else list(makers)[::-1]:
            server = _started(makers[name], roots[name], work / f"pycache-{name}")
            server.stop()
            if round_:
                seconds[name].append(round(server.start_seconds, 3))
    medians = {name: statistics.median(runs) for name, runs in seconds.items()}
    return {
        **{
            name: {"median_s": round(medians[name], 3), "best_s": min(runs), "starts": runs}
            for name, runs in seconds.items()
        },
        "this/other": round(medians["this"] / medians["other"], 3),
        "this/bare": round(medians["this"] / medians["bare"], 3),
    }


def _has_pending_column(database: str) -> bool:
    with sqlite3.connect(database) as conn:
        return any(row[1] == "graph_pending" for row in conn.execute("PRAGMA table_info(deal)"))


def spec(what: str, info: dict, server: procs.Server, *, bare: bool) -> dict:
    headers = {} if bare else {"X-API-Key": info["key"]}
    if what == "search":
        if bare:
            return {"urls": server.url + "/healthz"}
        from bench.run import SEARCH_QUERIES

        paths = [str(httpx.URL("/api/search", params={"q": q})) for q in SEARCH_QUERIES]
        return {"urls": [server.url + p for p in paths], "headers": headers}
    if what == "read":
        return {"urls": server.url + "/api/competitors", "headers": headers}
    body = procs.deal_body(info["competitors"][0][0], "Load")
    out = {"urls": server.url + "/api/deals", "method": "POST", "headers": headers, "body": body}
    if not bare and _has_pending_column(info["db"]):
        out["settle"] = rest.graph_settled(info["db"])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.versus", description=__doc__)
    parser.add_argument("commit")
    parser.add_argument("--what", choices=("read", "write", "search", "start"), default="write")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--clients", type=int, default=8)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="ci-versus-"))
    other_root = worktree(args.commit, work)
    servers: list[procs.Server] = []
    try:
        infos = {}
        for name in ("other", "this", "bare"):
            db = str(work / f"{name}.db")
            size = {"competitors": 50, "deals": 200, "intel": 0}
            if args.what in ("search", "start"):
                size.update(battlecards=1000, intel=10_000)
            infos[name] = {**procs.seed(db, size), "db": db}
            if args.what in ("search", "start"):
                procs.optimize_index(db)
        if args.what == "start":
            roots = {"other": other_root, "this": procs.ROOT, "bare": procs.ROOT}
            out = {
                "commit": args.commit,
                "what": "start",
                **compare_starts(args, roots, infos, work),
            }
            print(json.dumps(out, indent=1))
            return 0
        other = other_serve(other_root, infos["other"]["db"], args.threads)
        servers.append(other)
        this = procs.serve(infos["this"]["db"], threads=args.threads).start()
        servers.append(this)
        body_file = None
        if args.what == "read":  # the bare app answers this checkout's bytes from memory
            answer = httpx.get(
                this.url + "/api/competitors", headers={"X-API-Key": infos["this"]["key"]}
            )
            body_file = work / "competitors.json"
            body_file.write_text(answer.text)
        bare = procs.baseline(
            threads=args.threads, body_file=body_file,
            database=infos["bare"]["db"], workspace=infos["bare"]["workspace"],
        ).start()  # fmt: skip
        servers.append(bare)
        load = argparse.Namespace(
            load_rounds=args.rounds, clients=args.clients, duration=args.duration,
            driver="auto", quick=False,
        )  # fmt: skip
        participants = [
            (name, server, spec(args.what, infos[name], server, bare=name == "bare"))
            for name, server in (("other", other), ("this", this), ("bare", bare))
        ]
        if args.what == "search":  # the windows and the page cache, as python -m bench
            rest.warm_up(load, participants, work)
        got = rest.alternate(load, participants, work)
    finally:
        for server in servers:
            server.stop()
        subprocess.run(
            ["git", "-C", str(procs.ROOT), "worktree", "remove", "--force", str(other_root)],
            capture_output=True,
        )
    out = {
        "commit": args.commit,
        "what": args.what,
        **{
            name: {
                "rps": round(got[name]["rps"], 1),
                "rps_rounds": got[name]["rps_rounds"],
                "cpu_ms": round(got[name]["cpu"] * 1000, 3),
                "non2xx": got[name]["non2xx"],
                **({"settle_s": got[name]["settle_s"]} if "settle_s" in got[name] else {}),
                "p50_ms": round(got[name]["p50"] * 1000, 2),
                "p95_ms": round(got[name]["p95"] * 1000, 2),
            }
            for name in ("other", "this", "bare")
        },
        "other/bare": round(got["other"]["rps"] / got["bare"]["rps"], 3),
        "this/bare": round(got["this"]["rps"] / got["bare"]["rps"], 3),
        "this/other": round(got["this"]["rps"] / got["other"]["rps"], 3),
    }
    if args.what == "search":
        floor = got["bare"]["p95"]
        out["other p95/floor"] = round(got["other"]["p95"] / floor, 3)
        out["this p95/floor"] = round(got["this"]["p95"] / floor, 3)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
