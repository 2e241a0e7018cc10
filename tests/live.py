"""Run a real ``ci-service serve`` process for tests: free port, wait until it answers."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import Self

import httpx

SERVING = re.compile(r"serving on (http://\S+)")


def ci_service_command(
    database: str, *args: str, program: Sequence[str] | None = None
) -> list[str]:
    """``program`` runs another install's ci-service (tests/test_package.py: a wheel's console
    script in a fresh venv); by default this interpreter's, which is the source tree's."""
    program = list(program) if program else [sys.executable, "-m", "ci_service"]
    return [*program, "--database", database, *args]


def run_cli(
    database: str,
    *args: str,
    env: dict | None = None,
    program: Sequence[str] | None = None,
    input: str | None = None,
) -> subprocess.CompletedProcess:
    return subprocess.run(
        ci_service_command(database, *args, program=program),
        input=input,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def seed_owner(database: str, email: str, password: str, workspace: str = "acme") -> str:
    """An ENTERPRISE ``workspace`` whose OWNER ``email`` signs in with ``password``, through
    the CLI as an operator would; returns an API key of theirs."""
    made = run_cli(database, "workspaces", "create", workspace, "--plan", "ENTERPRISE")
    assert made.returncode == 0, made.stderr
    made = run_cli(
        database, "users", "create", "--workspace", workspace, "--email", email,
        "--role", "OWNER", "--password-stdin", input=password + "\n",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    made = run_cli(database, "keys", "create", "--workspace", workspace, "--name", "seed")
    assert made.returncode == 0, made.stderr
    return made.stdout.strip().splitlines()[-1]


class ChildProcess:
    """A ci-service child process whose stderr a thread reads. ``stop()`` is the graceful
    path (SIGTERM, then wait), ``kill()`` the crash path (SIGKILL); ``with`` starts it and
    ends it either way. A subclass sets ``self.env`` and ``self.process`` (None until
    started) and starts the process with ``_spawn``."""

    stop_timeout: float = 15
    kill_when_stop_times_out = False  # else stop() raises subprocess.TimeoutExpired
    env: dict
    process: subprocess.Popen | None

    def start(self, timeout: float = 30) -> Self:
        raise NotImplementedError

    def _spawn(self, command: list[str], on_line, **popen_options) -> None:
        """Start ``command`` and a thread that calls ``on_line`` with each stderr line."""
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=self.env,
            **popen_options,
        )

        def pump():
            for line in self.process.stderr:
                on_line(line)

        self._pump = threading.Thread(target=pump, daemon=True)
        self._pump.start()

    def stop(self, timeout: float | None = None) -> int:
        """SIGTERM and wait (``stop_timeout`` by default): the graceful path; the exit code."""
        if self.process is None:
            return 0
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=self.stop_timeout if timeout is None else timeout)
            except subprocess.TimeoutExpired:
                if not self.kill_when_stop_times_out:
                    raise
                self.kill()
        self._close_pipe()
        return self.process.returncode

    def kill(self) -> None:
        """SIGKILL: the crash path (no cleanup at all)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=15)
        self._close_pipe()

    def _close_pipe(self) -> None:
        if self.process is not None and self.process.stderr and not self.process.stderr.closed:
            self._pump.join(timeout=5)  # the pipe ends when the process does
            self.process.stderr.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc) -> None:
        try:
            self.stop()
        finally:
            self.kill()


class LiveServer(ChildProcess):
    """``with LiveServer(db) as server: httpx.get(server.url + "/healthz")``"""

    def __init__(
        self,
        database: str,
        *serve_args: str,
        env: dict | None = None,
        program: Sequence[str] | None = None,
    ):
        self.database = database
        self.program = program
        self.serve_args = serve_args or ("--no-scheduler",)
        self.env = {**os.environ, **(env or {})}
        self.process: subprocess.Popen | None = None
        self.url = ""
        self.stderr_lines: list[str] = []

    def start(self, timeout: float = 30) -> LiveServer:
        lines: queue.Queue[str] = queue.Queue()

        def on_line(line: str) -> None:
            self.stderr_lines.append(line)
            lines.put(line)

        command = ci_service_command(
            self.database, "serve", "--port", "0", *self.serve_args, program=self.program
        )
        self._spawn(command, on_line)
        deadline = time.monotonic() + timeout
        while not self.url:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self.process.poll() is not None:
                self.kill()
                raise RuntimeError("serve did not start:\n" + "".join(self.stderr_lines))
            try:
                match = SERVING.search(lines.get(timeout=min(remaining, 0.5)))
            except queue.Empty:
                continue
            if match:
                self.url = match.group(1)
        wait_until_responds(self.url + "/healthz", timeout=deadline - time.monotonic())
        return self


def wait_until_responds(url: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + max(timeout, 0.1)
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=2).status_code < 500:
                return
        except httpx.HTTPError as exc:
            last_error = exc
        time.sleep(0.05)
    raise RuntimeError(f"{url} did not respond in time: {last_error}")


def wait_for(predicate, timeout: float = 10, interval: float = 0.05):
    """Poll ``predicate`` until it returns a truthy value or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"condition not met within {timeout}s")
        time.sleep(interval)


def create_our_product(url: str, key: str) -> dict:
    """``POST /api/products`` on a live server: one product of ours with one category, what
    the MCP SDK tests call tools about."""
    answer = httpx.post(
        url + "/api/products",
        headers={"X-API-Key": key},
        json={
            "name": "Our CRM",
            "description": "CRM",
            "audience": "Sales",
            "categories": [{"name": "Analytics"}],
        },
    )
    assert answer.status_code == 200, answer.text
    return answer.json()["product"]


def solution_arguments(name: str, product: dict) -> dict:
    """``create_solution``'s arguments: one solution over ``product``'s first category."""
    mapping = {"categoryId": product["categories"][0]["id"], "productId": product["id"],
               "weight": 0.5}  # fmt: skip
    return {"name": name, "productIds": [product["id"]], "categoryMappings": [mapping]}
