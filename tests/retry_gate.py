"""Loaded by the live retry test's processes (``CI_SERVICE_JOB_MODULES=tests.retry_gate``,
the hook deployments use to add job code): holds the first run of a collect at the start
of its build-matrix step, once the intel is processed and the changes it found are events,
so that the test kills its worker mid-job at a known point.

It holds only while the file ``arm`` exists in the folder env ``CI_SERVICE_TEST_GATE``
names, and writes ``held`` there ("<pid> <job id>") when it does; a run after the first
(the retry) passes straight through.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ci_service.jobs.registry import COLLECT, REGISTRY
from ci_service.jobs.types import StepError

GATE_ENV = "CI_SERVICE_TEST_GATE"
_build_matrix = REGISTRY[COLLECT].handlers["build-matrix"]


def held_build_matrix(ctx):
    folder = os.environ.get(GATE_ENV)
    if folder and ctx.job.attempt == 1 and (Path(folder) / "arm").exists():
        note = Path(folder) / "held.part"
        note.write_text(f"{os.getpid()} {ctx.job.id}")
        note.replace(Path(folder) / "held")  # whole or absent, never half written
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            ctx.check_cancelled()
            time.sleep(0.05)
        raise StepError("the test never killed this worker")
    return _build_matrix(ctx)


REGISTRY[COLLECT].handlers["build-matrix"] = held_build_matrix
