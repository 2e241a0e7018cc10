"""Text views of a job for the CLI: ``describe`` (jobs show) and ``watch`` (jobs watch)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import click

from ci_service.services.workspace.jobs import get_job, job_to_dict
from ci_service.store.db import connection

BAR_WIDTH = 30
STEP_MARKS = {"pending": " ", "running": ">", "completed": "x", "failed": "!"}


def describe(job: dict[str, Any]) -> str:
    lines = [
        f"{job['displayTitle']}  ({job['type']}, {job['id']})",
        f"status:    {job['status']}",
        f"progress:  {job['progress']}%",
        f"step:      {job['currentStep']}",
        f"attempt:   {job['attempt']} of {job['maxAttempts']}",
        f"started:   {job['startedAt']}",
        f"completed: {job['completedAt'] or '-'}",
    ]
    if job.get("retryAt"):
        lines.append(f"retry at:  {job['retryAt']}")
    if job.get("competitorId"):
        lines.append(f"competitor: {job['competitorId']}")
    if job.get("error"):
        lines.append(f"error:     {job['error']}")
    lines.append("steps:")
    for step in job["steps"]:
        mark = STEP_MARKS.get(step["status"], "?")
        lines.append(f"  [{mark}] {step['name']} ({step['status']})")
    return "\n".join(lines)


def progress_line(job: dict[str, Any]) -> str:
    progress = float(job["progress"] or 0)
    filled = int(round(BAR_WIDTH * min(max(progress, 0), 100) / 100))
    steps = job["steps"]
    done = sum(1 for s in steps if s["status"] == "completed")
    position = f" ({min(done + 1, len(steps))}/{len(steps)})" if job["status"] == "running" else ""
    bar = "#" * filled + "-" * (BAR_WIDTH - filled)
    return f"[{bar}] {progress:5.1f}%  {job['currentStep']}{position}"


def watch(
    job_id: str,
    *,
    interval: float = 0.5,
    timeout: float | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Follow a job until it ends: 0 completed, 1 failed, 2 timed out.

    On a terminal the bar is redrawn in place; otherwise a line is printed per change, so
    logs and pipes stay readable.
    """
    tty = sys.stdout.isatty()
    deadline = None if timeout is None else time.monotonic() + timeout
    reported: dict[str, str] = {}
    last_line = None
    first = True
    while True:
        with connection():
            job = job_to_dict(get_job(job_id, None))
        if first:
            click.echo(f"{job['displayTitle']} ({job['type']} {job['id']})")
            first = False
        finished_steps = [s for s in job["steps"] if s["status"] in ("completed", "failed")]
        for step in finished_steps:
            if reported.get(step["id"]) != step["status"]:
                reported[step["id"]] = step["status"]
                prefix = "\r\x1b[K" if tty and last_line else ""
                click.echo(f"{prefix}  [{STEP_MARKS[step['status']]}] {step['name']}")
                last_line = None
        line = progress_line(job)
        if tty:
            click.echo(f"\r\x1b[K{line}", nl=False)
            last_line = line
        elif line != last_line:
            click.echo(line)
            last_line = line
        if job["status"] != "running":
            if tty:
                click.echo()
            if job["status"] == "completed":
                click.echo("Job completed")
                return 0
            click.echo(f"Job failed: {job.get('error') or job['currentStep']}", err=True)
            return 1
        if deadline is not None and time.monotonic() >= deadline:
            if tty:
                click.echo()
            click.echo(f"Timed out; the job is still running ({job['currentStep']})", err=True)
            return 2
        sleep(interval)
