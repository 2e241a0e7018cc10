"""Step handlers of the competitor job types (attached in ``collection.handlers``).

``collect`` (the analysis job; its build-matrix and build-battlecard steps belong to the
analysis module):

1. collect, "Collecting Intel": crawl the competitor's site (robots.txt, sitemaps, up to
   ``crawl_max_pages`` pages), its feeds and its PDF/DOCX files.
2. ingest, "Processing Intel": evidence items, the competitor's knowledge tree and graph
   nodes (documents, people, news); then, on every collect, the structured facts
   (``collection.facts.learn_competitor``: profile, products, pricing with price changes,
   grounded LLM facts when configured, capabilities), on the same crawl, so the matrix
   and battlecard builders that follow find them.

The standalone ``discover-profile``, ``discover-products`` and
``analyze-product-capabilities`` jobs run the same functions on a fresh crawl.
``discover-products`` crawls ``payload.websiteUrl`` when given (POST /api/offerings/discover)
instead of the competitor's website.

Steps of one job share the crawl through a small in-process stash keyed by job id and
attempt (``stash``/``take``); a step that finds nothing there (another process, a restart)
crawls again. A job run again after an interruption (issue 25) starts from its first step
and never sees what an earlier attempt stashed.

Every step is safe to repeat: evidence is recorded by source and content hash, the tree is
replaced, graph nodes and offerings are upserted by their natural keys (re-checked inside
the write transaction, so even two runs at once create one), and each change event is
written in the transaction of the change it reports, against what is stored then, so a
re-run finds nothing new to announce.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import Any

from ci_service.jobs.runner import on_job_finished
from ci_service.jobs.types import JobContext, StepError

log = logging.getLogger("ci_service.pipeline")

_STASH: OrderedDict[tuple[str, int, str], Any] = OrderedDict()
_STASH_LOCK = threading.Lock()
# Entries a crawl step leaves for its job's next step. Many crawls run at once and the
# steps that read them wait for a processing slot, so the stash must hold one per job
# that can be running (``crawl_concurrency``), or a job would crawl its site twice; the
# memory of what it holds is capped where sites are read (``crawl_memory_mb``).
STASH_MIN = 16
STASH_PER_JOB = 3  # the site, then what a step extracted from it, with room to spare


def _stash_size() -> int:
    from ci_service.pipeline.context import settings

    return max(STASH_MIN, STASH_PER_JOB * int(settings().crawl_concurrency))


def _stash_key(ctx: JobContext, key: str) -> tuple[str, int, str]:
    return (ctx.job.id, ctx.job.attempt, key)


def stash(ctx: JobContext, key: str, value: Any) -> None:
    size = _stash_size()
    with _STASH_LOCK:
        _STASH[_stash_key(ctx, key)] = value
        while len(_STASH) > size:
            _STASH.popitem(last=False)


def take(ctx: JobContext, key: str) -> Any:
    with _STASH_LOCK:
        return _STASH.pop(_stash_key(ctx, key), None)


def drop_job(job_id: str) -> None:
    """Forget what a job stashed: it has stopped running here (done, failed, cancelled or
    stopped), and a crawled site must not sit in memory until newer entries push it out."""
    with _STASH_LOCK:
        for key in [k for k in _STASH if k[0] == job_id]:
            del _STASH[key]


on_job_finished(drop_job)


def _competitor(ctx: JobContext) -> Any:
    from ci_service.services.workspace.competitors import get_competitor

    return get_competitor(ctx.workspace_id, ctx.competitor_id)


def _target(ctx: JobContext) -> Any:
    from ci_service.services.collection.ingest import Target

    return Target(ctx.workspace_id, "competitor", ctx.competitor_id)


def _tick(ctx: JobContext, low: float, high: float):
    def tick(fraction: float, message: str) -> None:
        ctx.progress(low + (high - low) * min(max(fraction, 0.0), 1.0), message[:300])

    return tick


def _site(ctx: JobContext, url: str | None = None, **options: Any) -> Any:
    from ci_service.pipeline.site import read_site

    snapshot = take(ctx, "site")
    if snapshot is None:
        snapshot = read_site(ctx, url or _competitor(ctx).website_url, **options)
    return snapshot


def _summary(snapshot: Any) -> str:
    from ci_service.pipeline.site import snapshot_counts

    counts = snapshot_counts(snapshot)
    return (
        f"Fetched {counts['pages']} page(s), {counts['documents']} document(s), "
        f"{counts['newsItems']} news item(s); {counts['skipped']} skipped"
    )


# -- collect ---------------------------------------------------------------------------------


def collect_step(ctx: JobContext) -> None:
    from ci_service.pipeline.site import read_site

    snapshot = read_site(ctx, _competitor(ctx).website_url)
    stash(ctx, "site", snapshot)
    ctx.progress(1.0, _summary(snapshot))


def ingest_step(ctx: JobContext) -> None:
    from ci_service.services.collection.facts import learn_competitor
    from ci_service.services.collection.ingest import ingest_snapshot

    snapshot = _site(ctx)
    competitor = _competitor(ctx)
    result = ingest_snapshot(_target(ctx), snapshot, tick=_tick(ctx, 0.0, 0.6))
    ctx.check_cancelled()
    # Every collect (not only the first) reads the structured facts again: the site is
    # the source, and a price or product that changed must be seen as a change.
    learn_competitor(
        ctx.workspace_id,
        competitor,
        snapshot,
        result["sources"],
        progress=_tick(ctx, 0.6, 0.99),
        check_cancelled=ctx.check_cancelled,
    )
    ctx.progress(1.0, "Processed intel")


# -- discover-profile ------------------------------------------------------------------------


def profile_fetch(ctx: JobContext) -> None:
    from ci_service.pipeline.site import read_site

    snapshot = read_site(ctx, _competitor(ctx).website_url, documents=False)
    stash(ctx, "site", snapshot)
    ctx.progress(1.0, _summary(snapshot))


def _profile(ctx: JobContext, snapshot: Any) -> dict[str, Any]:
    from ci_service.pipeline.evidence import EvidenceMap
    from ci_service.pipeline.profile.extract import extract_profile

    # This job records no evidence: values are cited from the competitor's stored evidence
    # (an earlier collect); with none stored yet they are kept without sources.
    competitor = _competitor(ctx)
    evidence = EvidenceMap.for_owner(ctx.workspace_id, competitor_id=ctx.competitor_id)
    return extract_profile(
        snapshot,
        competitor.company_profile or {},
        evidence if len(evidence) else None,
        company_name=competitor.name,
    )


def profile_extract(ctx: JobContext) -> None:
    snapshot = _site(ctx, documents=False)
    stash(ctx, "profile", _profile(ctx, snapshot))


def profile_save(ctx: JobContext) -> None:
    from ci_service.services.collection.facts import save_competitor_profile

    found = take(ctx, "profile")
    if found is None:
        found = _profile(ctx, _site(ctx, documents=False))
    save_competitor_profile(ctx.workspace_id, ctx.competitor_id, found)
    ctx.progress(1.0, f"Saved {len(found)} profile field(s)")


# -- discover-products -----------------------------------------------------------------------


def _products_url(ctx: JobContext) -> str:
    return ctx.payload.get("websiteUrl") or _competitor(ctx).website_url


def products_fetch(ctx: JobContext) -> None:
    from ci_service.pipeline.site import read_site

    snapshot = read_site(ctx, _products_url(ctx), documents=False, feeds=False)
    stash(ctx, "site", snapshot)
    ctx.progress(1.0, _summary(snapshot))


def products_extract(ctx: JobContext) -> None:
    from ci_service.pipeline.products.extract import extract_products

    snapshot = _site(ctx, _products_url(ctx), documents=False, feeds=False)
    stash(ctx, "site", snapshot)  # the save step records the product pages as evidence
    drafts = extract_products(snapshot, company_name=_competitor(ctx).name)
    stash(ctx, "products", drafts)
    ctx.progress(1.0, f"Found {len(drafts)} product(s)")


def products_save(ctx: JobContext) -> None:
    from ci_service.pipeline.products.extract import extract_products, product_page_urls
    from ci_service.pipeline.site import SiteSnapshot
    from ci_service.services.collection.ingest import record_snapshot
    from ci_service.services.collection.product_store import save_products

    snapshot = _site(ctx, _products_url(ctx), documents=False, feeds=False)
    drafts = take(ctx, "products")
    if drafts is None:
        drafts = extract_products(snapshot, company_name=_competitor(ctx).name)
    # The pages the products and features were read from become evidence, so each
    # feature keeps the id of the page and the sentence it came from.
    urls = product_page_urls(drafts)
    pages = [p for p in snapshot.pages if p.url in urls]
    stats = record_snapshot(_target(ctx), SiteSnapshot(snapshot.start_url, pages=pages))
    rows = save_products(ctx.workspace_id, ctx.competitor_id, drafts, stats.evidence)
    ctx.progress(1.0, f"Saved {len(rows)} product(s)")


# -- analyze-product-capabilities ------------------------------------------------------------


def capabilities_load(ctx: JobContext) -> None:
    from ci_service.services.collection.product_store import competitor_offerings

    offerings = competitor_offerings(ctx.workspace_id, _competitor(ctx).id)
    if not offerings:
        raise StepError(
            "the competitor has no products yet; run discover-products (or a collect job "
            "with isFirstRun true) first"
        )
    ctx.progress(1.0, f"Loaded {len(offerings)} product(s)")


def capabilities_map(ctx: JobContext) -> None:
    from ci_service.pipeline.capabilities import map_offering, own_capability_ids
    from ci_service.pipeline.llm import get_provider
    from ci_service.services.collection.product_store import competitor_offerings

    provider = get_provider()
    own_ids = own_capability_ids(ctx.workspace_id)
    own_categories = own_capability_ids(ctx.workspace_id, "categories")
    offerings = competitor_offerings(ctx.workspace_id, ctx.competitor_id)
    mapped = []
    for number, offering in enumerate(offerings, start=1):
        mapped.append((offering.id, *map_offering(offering, own_ids, provider, own_categories)))
        ctx.progress(number / len(offerings), f"Mapped {offering.name}")
    stash(ctx, "capabilities", mapped)


def capabilities_save(ctx: JobContext) -> None:
    from ci_service.errors import NotFound
    from ci_service.services.collection.capability_store import analyze_competitor
    from ci_service.services.collection.product_store import (
        save_offering_fields,
        sync_competitor_lists,
    )
    from ci_service.services.workspace.offerings import get_offering

    mapped = take(ctx, "capabilities")
    if mapped is None:
        analyze_competitor(ctx.workspace_id, ctx.competitor_id)
        return
    for offering_id, capabilities, categories in mapped:
        try:
            row = get_offering(ctx.workspace_id, offering_id)
        except NotFound:  # deleted meanwhile
            continue
        save_offering_fields(
            ctx.workspace_id, row, {"capabilities": capabilities, "categories": categories}
        )
    sync_competitor_lists(ctx.workspace_id, ctx.competitor_id)
    ctx.progress(1.0, f"Saved capabilities of {len(mapped)} product(s)")
