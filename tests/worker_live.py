"""Run a real ``ci-service worker`` (or any long-running ci-service command) for tests.

``WorkerProcess(database, "--workers", "1", env={...}).start()`` waits for the ready line
on stderr; ``wait_for_line(pattern)`` waits for a later one; ``kill()`` is the crash path
(SIGKILL), ``stop()`` the graceful one (SIGTERM). The test job types of
``tests/jobs_plugin.py`` are loaded in the process (``CI_SERVICE_JOB_MODULES``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.live import ChildProcess
from tests.waiting import wait_for

REPO = Path(__file__).resolve().parent.parent
READY = re.compile(r"worker ready: (\d+) threads.*\(pid (\d+)\)")


class WorkerProcess(ChildProcess):
    stop_timeout = 20
    kill_when_stop_times_out = True

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
        self._seen = 0  # lines already searched by wait_for_line

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self, timeout: float = 30) -> WorkerProcess:
        self._spawn(self.command, self.lines.append, cwd=str(REPO))
        self.wait_for_line(READY, timeout)
        return self

    def wait_for_line(self, pattern: str | re.Pattern, timeout: float = 20) -> re.Match:
        """The first line (not matched by an earlier wait) that matches ``pattern``."""
        pattern = re.compile(pattern) if isinstance(pattern, str) else pattern

        def next_match() -> re.Match | None:
            # Every line is in self.lines once the process ended and its pipe was read.
            ended = self.process.poll() is not None and not self._pump.is_alive()
            while self._seen < len(self.lines):
                match = pattern.search(self.lines[self._seen])
                self._seen += 1
                if match:
                    return match
            if ended:
                raise AssertionError(f"the process ended ({self.process.returncode})")
            return None

        try:
            return wait_for(next_match, timeout, 0.02, f"a line matching {pattern.pattern!r}")
        except AssertionError as exc:
            self.kill()
            raise AssertionError(f"{exc}:\n" + "".join(self.lines)) from None

    def count(self, pattern: str) -> int:
        return sum(1 for line in list(self.lines) if re.search(pattern, line))
