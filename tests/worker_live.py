"""Run a real ``ci-service worker`` (or any long-running ci-service command) for tests.

``WorkerProcess(database, "--workers", "1", env={...}).start()`` waits for the ready line
on stderr; ``wait_for_line(pattern)`` waits for a later one; ``kill()`` is the crash path
(SIGKILL), ``stop()`` the graceful one (SIGTERM). The test job types of
``tests/jobs_plugin.py`` are loaded in the process (``CI_SERVICE_JOB_MODULES``).
"""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
READY = re.compile(r"worker ready: (\d+) threads.*\(pid (\d+)\)")


class WorkerProcess:
    def __init__(self, database: str, *args: str, env: dict[str, str] | None = None):
        self.command = [sys.executable, "-m", "ci_service", "--database", database, "worker"]
        self.command += list(args)
        self.env = {
            **os.environ,
            "CI_SERVICE_JOB_MODULES": "tests.jobs_plugin",
            "PYTHONPATH": str(REPO),
            **(env or {}),
        }
        self.process: subprocess.Popen | None = None
        self.lines: list[str] = []
        self._new: queue.Queue[str] = queue.Queue()
        self._seen = 0  # lines already searched by wait_for_line

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self, timeout: float = 30) -> WorkerProcess:
        self.process = subprocess.Popen(
            self.command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=self.env,
            cwd=str(REPO),
        )
        self._pump = threading.Thread(target=self._read, daemon=True)
        self._pump.start()
        self.wait_for_line(READY, timeout)
        return self

    def _read(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)
            self._new.put(line)

    def wait_for_line(self, pattern: str | re.Pattern, timeout: float = 20) -> re.Match:
        """The first line (not matched by an earlier wait) that matches ``pattern``."""
        pattern = re.compile(pattern) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + timeout
        while True:
            while self._seen < len(self.lines):
                match = pattern.search(self.lines[self._seen])
                self._seen += 1
                if match:
                    return match
            remaining = deadline - time.monotonic()
            if remaining <= 0 or (self.process.poll() is not None and self._new.empty()):
                self.kill()
                raise AssertionError(
                    f"no line matching {pattern.pattern!r} within {timeout}s:\n"
                    + "".join(self.lines)
                )
            try:
                self._new.get(timeout=min(remaining, 0.2))
            except queue.Empty:
                continue

    def count(self, pattern: str) -> int:
        return sum(1 for line in list(self.lines) if re.search(pattern, line))

    def stop(self, timeout: float = 20) -> int:
        """SIGTERM and wait: the graceful path; returns the exit code."""
        if self.process is None:
            return 0
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        self._close()
        return self.process.returncode

    def kill(self) -> None:
        """SIGKILL: the crash path (no cleanup at all)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=15)
        self._close()

    def _close(self) -> None:
        if self.process is not None and self.process.stderr and not self.process.stderr.closed:
            self._pump.join(timeout=5)
            self.process.stderr.close()

    def __enter__(self) -> WorkerProcess:
        return self.start()

    def __exit__(self, *exc) -> None:
        try:
            self.stop()
        finally:
            self.kill()
