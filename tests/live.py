"""Run a real ``ci-service serve`` process for tests: free port, wait until it answers."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from typing import Self

import httpx

from tests.waiting import wait_for

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
        command = ci_service_command(
            self.database, "serve", "--port", "0", *self.serve_args, program=self.program
        )
        self._spawn(command, self.stderr_lines.append)

        def answering() -> bool:
            if not self.url:
                found = SERVING.search("".join(self.stderr_lines))
                if found is None:
                    if self.process.poll() is not None:
                        raise RuntimeError("serve exited")
                    return False
                self.url = found.group(1)
            return responds(self.url + "/healthz")

        try:
            wait_for(answering, timeout, message="serve to start and answer /healthz")
        except (AssertionError, RuntimeError) as exc:
            self.kill()
            stderr = "".join(self.stderr_lines)
            raise RuntimeError(f"serve did not start ({exc}):\n{stderr}") from exc
        return self


def responds(url: str) -> bool:
    """``url`` answers, with anything but a server error."""
    try:
        return httpx.get(url, timeout=2).status_code < 500
    except httpx.HTTPError:
        return False


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
