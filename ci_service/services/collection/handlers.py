"""Registrations: the pipeline's job types and the step handlers of every pipeline job.

Imported by ``ci_service.services`` when it loads (so serve, the CLI and the tests see the
handlers); the job engine never imports it. Only the registry is imported here; each handler
imports its implementation when it runs, which keeps ``ci-service --help`` and start-up
fast.

The collect job's build-matrix and build-battlecard steps are the analysis module's.
"""

from __future__ import annotations

from datetime import datetime
from importlib import import_module

from ci_service.jobs.hooks import JobHooks
from ci_service.jobs.registry import COLLECT, ORGANIZATION_NEWS, ORGANIZATION_REFRESH, handles
from ci_service.jobs.registry import register as register_type
from ci_service.store.jobs import Job

ENRICH = "enrich-offerings"
DOCUMENT = "analyze-offering-document"
REANALYZE = "reanalyze-offering"

register_type(
    ENRICH,
    title="Enriching offerings",
    steps=[("load-evidence", "Loading Evidence"), ("enrich", "Enriching Offerings")],
)


class SpooledUpload(JobHooks):
    """The uploaded file waits until its job ends, whichever way, so a run of the job after
    an interruption reads it again (``offering_jobs.read_upload``)."""

    def on_success(self, job: Job, now: datetime) -> None:
        _discard(job)

    def on_failure(self, job: Job, now: datetime) -> None:
        _discard(job)


def _discard(job: Job) -> None:
    import_module("ci_service.services.collection.offering_jobs").discard_upload(job.payload or {})


register_type(
    DOCUMENT,
    title="Analyzing an uploaded document",
    steps=[
        ("extract-document", "Extracting Document"),
        ("map-capabilities", "Mapping Capabilities"),
    ],
    hooks=(SpooledUpload(),),
)
register_type(
    REANALYZE,
    title="Re-analyzing an offering",
    steps=[
        ("load-evidence", "Loading Evidence"),
        ("map-capabilities", "Mapping Capabilities"),
        ("rebuild-tree", "Rebuilding Knowledge Tree"),
    ],
)


def _lazy(module: str, function: str):
    """A handler that imports ``ci_service.services.collection.<module>`` when the step runs."""

    def handler(ctx):
        return getattr(import_module(f"ci_service.services.collection.{module}"), function)(ctx)

    handler.__name__ = handler.__qualname__ = function
    return handler


HANDLERS = {
    (COLLECT, "collect"): ("competitor_jobs", "collect_step"),
    (COLLECT, "ingest"): ("competitor_jobs", "ingest_step"),
    ("discover-profile", "fetch-site"): ("competitor_jobs", "profile_fetch"),
    ("discover-profile", "extract-profile"): ("competitor_jobs", "profile_extract"),
    ("discover-profile", "save-profile"): ("competitor_jobs", "profile_save"),
    ("discover-products", "fetch-site"): ("competitor_jobs", "products_fetch"),
    ("discover-products", "extract-products"): ("competitor_jobs", "products_extract"),
    ("discover-products", "save-products"): ("competitor_jobs", "products_save"),
    ("analyze-product-capabilities", "load-products"): ("competitor_jobs", "capabilities_load"),
    ("analyze-product-capabilities", "map-capabilities"): ("competitor_jobs", "capabilities_map"),
    ("analyze-product-capabilities", "save-capabilities"): (
        "competitor_jobs",
        "capabilities_save",
    ),
    (ORGANIZATION_REFRESH, "refresh-profile"): ("organization_jobs", "refresh_profile"),
    (ORGANIZATION_REFRESH, "refresh-news"): ("organization_jobs", "refresh_news"),
    (ORGANIZATION_NEWS, "refresh-news"): ("organization_jobs", "refresh_news"),
    (ENRICH, "load-evidence"): ("offering_jobs", "enrich_load"),
    (ENRICH, "enrich"): ("offering_jobs", "enrich_run"),
    (DOCUMENT, "extract-document"): ("offering_jobs", "document_extract"),
    (DOCUMENT, "map-capabilities"): ("offering_jobs", "document_map"),
    (REANALYZE, "load-evidence"): ("offering_jobs", "reanalyze_load"),
    (REANALYZE, "map-capabilities"): ("offering_jobs", "reanalyze_map"),
    (REANALYZE, "rebuild-tree"): ("offering_jobs", "reanalyze_tree"),
}


def attach() -> None:
    """(Re)attach every pipeline handler to its job type's step."""
    for (job_type, step), (module, function) in HANDLERS.items():
        handles(job_type, step)(_lazy(module, function))


attach()
