"""Job types, registered by name with their ordered steps.

A new job type is a registration here (or in the module that implements it), never a change
to the engine: the spec says further types may be added over time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class StepDef:
    id: str
    name: str


@dataclass(frozen=True)
class JobType:
    name: str
    title: str  # str.format template over the job's metadata, e.g. "Analyzing {competitorName}"
    steps: tuple[StepDef, ...]
    handlers: dict[str, Callable] = field(default_factory=dict)  # step id -> callable


REGISTRY: dict[str, JobType] = {}


def register(name: str, *, title: str, steps: list[tuple[str, str]]) -> JobType:
    job_type = JobType(name, title, tuple(StepDef(i, n) for i, n in steps))
    REGISTRY[name] = job_type
    return job_type


def get_type(name: str) -> JobType:
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown job type '{name}'") from None


# The spec's collect job: these ids and names are part of the contract.
register(
    "collect",
    title="Analyzing {competitorName}",
    steps=[
        ("collect", "Collecting Intel"),
        ("ingest", "Processing Intel"),
        ("build-matrix", "Building Competitor Matrix"),
        ("build-battlecard", "Generating Battle Card"),
    ],
)
