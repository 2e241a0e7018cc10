"""Fixtures for the job tests: test job types and runners (``pytest_plugins``)."""

from __future__ import annotations

import pytest

from ci_service.jobs.registry import REGISTRY, register
from ci_service.jobs.runner import JobRunner


@pytest.fixture
def runner(app):
    """A runner without threads: the test steps it with ``run_once()``."""
    instance = JobRunner(0)
    yield instance
    instance.stop(5)


@pytest.fixture
def threaded_runner(app):
    """make(workers) -> a started runner; all are stopped (threads joined) at teardown."""
    made = []

    def make(workers=1, **options):
        instance = JobRunner(workers, **options)
        made.append(instance)
        instance.start()
        return instance

    yield make
    for instance in made:
        assert instance.stop(10), "job worker threads did not stop"


@pytest.fixture
def job_type(app):
    """make(name, steps, handlers={step_id: fn}, **register options) -> JobType.

    The registry (types and their handlers) is restored after the test.
    """
    saved_types = dict(REGISTRY)
    saved_handlers = {name: dict(t.handlers) for name, t in REGISTRY.items()}

    def make(name, steps, handlers=None, title="Test {competitorName}", **options):
        definition = register(name, title=title, steps=steps, **options)
        definition.handlers.update(handlers or {})
        return definition

    yield make
    REGISTRY.clear()
    REGISTRY.update(saved_types)
    for name, handlers in saved_handlers.items():
        REGISTRY[name].handlers.clear()
        REGISTRY[name].handlers.update(handlers)


@pytest.fixture
def offline_collect(job_type):
    """The collect type with its pipeline handlers detached (restored by ``job_type``):
    engine tests check status and step bookkeeping without crawling a real site."""
    REGISTRY["collect"].handlers.clear()
