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
from pathlib import Path

import ci_service.services  # noqa: F401  (loading it attaches the step handlers wrapped here)
from ci_service.jobs.registry import COLLECT, REGISTRY
from ci_service.jobs.types import StepError
from tests.waiting import wait_for

GATE_ENV = "CI_SERVICE_TEST_GATE"
_build_matrix = REGISTRY[COLLECT].handlers["build-matrix"]


def held_build_matrix(ctx):
    folder = os.environ.get(GATE_ENV)
    if folder and ctx.job.attempt == 1 and (Path(folder) / "arm").exists():
        note = Path(folder) / "held.part"
        note.write_text(f"{os.getpid()} {ctx.job.id}")
        note.replace(Path(folder) / "held")  # whole or absent, never half written

        def cancelled() -> bool:
            ctx.check_cancelled()  # raises when the job is cancelled or the worker stops
            return False

        try:
            wait_for(cancelled, 60, message="the test to kill this worker")
        except AssertionError:
            raise StepError("the test never killed this worker") from None
    return _build_matrix(ctx)


REGISTRY[COLLECT].handlers["build-matrix"] = held_build_matrix
