"""Processes the benchmark starts: ``ci-service serve``, the baseline app, the load
generator and the seeding process. Every one is a child of the benchmark, stopped by its
own pid."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent


class BenchError(RuntimeError):
    """A step of the benchmark could not run (the message says which and why)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def child_env(extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CI_SERVICE_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.update(extra or {})
    return env


def rss_mb(pid: int) -> float:
    """VmRSS of ``pid`` from /proc, in MB (10^6 bytes)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024 / 1e6
    raise BenchError(f"no VmRSS for pid {pid}")


class Server:
    """A server process on a fixed free port; ``start()`` measures the time from spawn
    to the first 200 on ``/healthz`` (polled every 5 ms, a new connection each time)."""

    def __init__(self, name: str, args: list[str], env: dict | None = None, timeout=60.0):
        self.name = name
        self.port = free_port()
        self.args = [a.replace("{port}", str(self.port)) for a in args]
        self.env = child_env(env)
        self.timeout = timeout
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None
        self.log = tempfile.TemporaryFile(mode="w+")
        self.start_seconds = float("nan")

    def start(self) -> Server:
        poll = httpx.Client(limits=httpx.Limits(max_keepalive_connections=0), timeout=2)
        began = time.perf_counter()
        self.process = subprocess.Popen(
            [sys.executable, *self.args],
            stdout=subprocess.DEVNULL,
            stderr=self.log,
            env=self.env,
            cwd=ROOT,
        )
        deadline = began + self.timeout
        while True:
            if self.process.poll() is not None:
                raise BenchError(
                    f"{self.name} exited with status {self.process.returncode} before "
                    f"answering /healthz:\n{self.stderr_tail()}"
                )
            try:
                if poll.get(self.url + "/healthz").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.perf_counter() > deadline:
                poll.close()
                self.stop()
                raise BenchError(
                    f"{self.name} did not answer /healthz within {self.timeout:.0f} s:\n"
                    f"{self.stderr_tail()}"
                )
            time.sleep(0.005)
        self.start_seconds = time.perf_counter() - began
        poll.close()
        return self

    def stderr_tail(self, lines: int = 30) -> str:
        self.log.seek(0)
        return "".join(self.log.readlines()[-lines:]) or "(no output)"

    def rss_mb(self) -> float:
        return rss_mb(self.process.pid)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.log.close()

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def deal_body(competitor_id: str, prospect: str) -> dict:
    """The write figures' request: a LOST deal with three arguments (``{n}``: the load
    generator's request number, so every prospect and first argument is new)."""
    return {
        "prospectCompanyName": f"{prospect} Prospect {{n}}",
        "outcome": "LOST",
        "competitorId": competitor_id,
        "decisionDate": "2026-03-31",
        "dealSize": "50000",
        "arguments": ["price {n}", "integrations", "support response time"],
    }


def serve(
    database: str, *, threads: int = 8, env: dict | None = None, extra: tuple[str, ...] = ()
) -> Server:
    """``ci-service serve --no-scheduler`` (plus ``extra`` options, e.g. ``--no-jobs``)."""
    return Server(
        "ci-service serve",
        [
            "-m",
            "ci_service",
            "--database",
            database,
            "serve",
            "--port",
            "{port}",
            "--threads",
            str(threads),
            "--no-scheduler",
            *extra,
        ],  # fmt: skip
        env=env,
    )


def baseline(*, threads: int = 8, body_file=None, database=None, workspace=None) -> Server:
    args = ["-m", "bench.baseline_app", "--port", "{port}", "--threads", str(threads)]
    if body_file:
        args += ["--competitors-json", str(body_file)]
    if database:
        args += ["--database", database, "--workspace", workspace]
    return Server("baseline app", args)


def run_module(
    module: str, args: list[str], stdin: dict | None = None, timeout=3600, env: dict | None = None
) -> str:
    """Run ``python -m module args`` in its own process; its stdout."""
    done = subprocess.run(
        [sys.executable, "-m", module, *args],
        input=json.dumps(stdin) if stdin is not None else None,
        capture_output=True,
        text=True,
        env=child_env(env),
        cwd=ROOT,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise BenchError(f"{module} failed (status {done.returncode}):\n{done.stderr[-3000:]}")
    return done.stdout


def run_json(
    module: str, args: list[str], stdin: dict | None = None, timeout=3600, env: dict | None = None
) -> dict:
    """Run ``python -m module args`` in its own process; the last line of its stdout is
    one JSON value."""
    return json.loads(run_module(module, args, stdin, timeout, env).strip().splitlines()[-1])


def load(spec: dict) -> dict:
    return run_json("bench.load", [], stdin=spec)


def seed(database: str, spec: dict, env: dict | None = None) -> dict:
    return run_json("bench.seed", [database, json.dumps(spec)], env=env)


def optimize_index(database: str) -> dict:
    """``ci-service optimize-index --json``: the scheduler's daily index upkeep, now (its
    JSON is indented, so the whole stdout is parsed)."""
    return json.loads(
        run_module("ci_service", ["--database", database, "optimize-index", "--json"])
    )
