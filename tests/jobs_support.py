"""Helpers for the job tests (fixtures are in jobs_fixtures.py, loaded with pytest_plugins)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest

from ci_service.store.competitors import Competitor
from ci_service.store.db import connection
from ci_service.store.jobs import Job
from ci_service.timeutil import utcnow


class Clock:
    """An injected clock the test moves by hand."""

    def __init__(self):
        self.now = utcnow()

    def __call__(self):
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def wait_for(condition, timeout=10.0, interval=0.02, message="condition"):
    """Poll ``condition()`` until it is truthy; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            pytest.fail(f"timed out after {timeout}s waiting for {message}")
        time.sleep(interval)


def fetch(job_id: str) -> Job:
    with connection():
        return Job.get_by_id(job_id)


def competitor(workspace, name="Acme", **fields) -> Competitor:
    with connection():
        return Competitor.create(
            workspace=workspace, name=name, website_url="https://acme.example", **fields
        )
