"""Helpers for the job tests (fixtures are in jobs_fixtures.py, loaded with pytest_plugins)."""

from __future__ import annotations

from datetime import timedelta

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


def fetch(job_id: str) -> Job:
    with connection():
        return Job.get_by_id(job_id)


def competitor(workspace, name="Acme", **fields) -> Competitor:
    with connection():
        return Competitor.create(
            workspace=workspace, name=name, website_url="https://acme.example", **fields
        )
