"""Job types, registered by name with their ordered steps.

A new job type is a registration here (or in the module that implements it), never a change
to the engine: the spec says further types may be added over time.

- ``register(name, title=, steps=, competitor=, analysis=, hooks=, fetch_steps=)`` declares
  a type. ``fetch_steps`` names the steps that mostly wait on websites: they run outside
  the processing lane (``ci_service.jobs.lanes``), so many of them can run at once.
- ``handles(type_name, step_id)`` attaches the function that does a step's work:
  ``fn(ctx)`` (see ``ci_service.jobs.types.JobContext``).
- A step with no handler is a bookkeeping step: the engine marks it running, then completed,
  and moves on. The pipeline issue fills the competitor types' steps in; until then they do
  their bookkeeping only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ci_service.jobs.hooks import CompetitorAnalysis, JobHooks, RequiresCompetitor


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
    hooks: tuple[JobHooks, ...] = ()
    competitor: bool = False  # runs on one competitor (competitor_id required)
    analysis: bool = False  # the competitor's status follows this job
    fetch_steps: frozenset[str] = frozenset()  # step ids that run in the fetch lane


REGISTRY: dict[str, JobType] = {}


def register(
    name: str,
    *,
    title: str,
    steps: list[tuple[str, str]],
    competitor: bool = False,
    analysis: bool = False,
    hooks: tuple[JobHooks, ...] = (),
    fetch_steps: tuple[str, ...] = (),
) -> JobType:
    """Declare (or replace) job type ``name``; ``analysis`` implies ``competitor``."""
    ids = [step_id for step_id, _ in steps]
    if len(set(ids)) != len(ids):
        raise ValueError(f"job type '{name}' has duplicate step ids")
    if set(fetch_steps) - set(ids):
        raise ValueError(f"job type '{name}' has no step {sorted(set(fetch_steps) - set(ids))}")
    competitor = competitor or analysis
    builtin: tuple[JobHooks, ...] = ()
    if analysis:
        builtin = (CompetitorAnalysis(),)
    elif competitor:
        builtin = (RequiresCompetitor(),)
    job_type = JobType(
        name,
        title,
        tuple(StepDef(i, n) for i, n in steps),
        hooks=builtin + tuple(hooks),
        competitor=competitor,
        analysis=analysis,
        fetch_steps=frozenset(fetch_steps),
    )
    REGISTRY[name] = job_type
    return job_type


def unregister(name: str) -> None:
    REGISTRY.pop(name, None)


def get_type(name: str) -> JobType:
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown job type '{name}'") from None


def handles(type_name: str, step_id: str):
    """Decorator: ``fn(ctx)`` does the work of step ``step_id`` of job type ``type_name``."""

    def attach(fn: Callable) -> Callable:
        job_type = get_type(type_name)
        if step_id not in {s.id for s in job_type.steps}:
            raise ValueError(f"job type '{type_name}' has no step '{step_id}'")
        job_type.handlers[step_id] = fn
        return fn

    return attach


_WIRED = False


def mark_wired() -> None:
    """Called by ``ci_service.services`` once it has attached its step handlers and hooks."""
    global _WIRED
    _WIRED = True


def wired() -> bool:
    """Have the services attached their step handlers? (They do when ``ci_service.services``
    loads; a runner started before that would run every step as bookkeeping only.)"""
    return _WIRED


# --- The spec's competitor job types. Step ids and names of collect are part of the contract.
COLLECT = "collect"
register(
    COLLECT,
    title="Analyzing {competitorName}",
    steps=[
        ("collect", "Collecting Intel"),
        ("ingest", "Processing Intel"),
        ("build-matrix", "Building Competitor Matrix"),
        ("build-battlecard", "Generating Battle Card"),
    ],
    analysis=True,
    fetch_steps=("collect",),
)
register(
    "discover-products",
    title="Discovering products of {competitorName}",
    steps=[
        ("fetch-site", "Fetching Website"),
        ("extract-products", "Extracting Products"),
        ("save-products", "Saving Products"),
    ],
    competitor=True,
    fetch_steps=("fetch-site",),
)
register(
    "discover-profile",
    title="Discovering the profile of {competitorName}",
    steps=[
        ("fetch-site", "Fetching Website"),
        ("extract-profile", "Extracting Company Profile"),
        ("save-profile", "Saving Company Profile"),
    ],
    competitor=True,
    fetch_steps=("fetch-site",),
)
register(
    "analyze-product-capabilities",
    title="Analyzing product capabilities of {competitorName}",
    steps=[
        ("load-products", "Loading Products"),
        ("map-capabilities", "Mapping Capabilities"),
        ("save-capabilities", "Saving Capabilities"),
    ],
    competitor=True,
)

# --- Workspace-level organization jobs (POST /api/organizations/refresh, news/refresh and
# the daily news refresh of the scheduler).
# Registered by services/battlecards/jobs.py; named here so the services that queue it need not
# import the module that runs it.
GENERATE_BATTLECARD = "generate-battlecard"
ORGANIZATION_REFRESH = "refresh-organization"
ORGANIZATION_NEWS = "refresh-organization-news"
register(
    ORGANIZATION_REFRESH,
    title="Refreshing organization profile and news",
    steps=[("refresh-profile", "Refreshing Company Profile"), ("refresh-news", "Refreshing News")],
)
register(
    ORGANIZATION_NEWS,
    title="Refreshing organization news",
    steps=[("refresh-news", "Refreshing News")],
)
