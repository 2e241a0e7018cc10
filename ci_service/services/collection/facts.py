"""What a competitor's site says, in structured form: the fact extractors, run in order.

After a snapshot is recorded as evidence (``ingest.ingest_snapshot``, which also links
PERSON and MARKET_EVENT nodes), :func:`learn_competitor` runs, on every collect:

1. the company profile (``profile.extract_profile``: founding year, headquarters, team
   size, funding, customers, links and news feed, each with ``sources``/``quotes``);
2. products and their features (``products.extract_products`` / ``save_products``);
3. pricing plans on those products, recording price changes against the last collect
   (``pricing.extract_pricing`` / ``save_pricing``), and the integrations and supported
   platforms the site lists, as cited features (``integrations``);
4. with a language model configured, the facts it finds whose quote is verbatim in the
   page (``llm_facts``), filling what the rules missed;
5. the capability mapping of the products (``capabilities.analyze_competitor``).

Every fact is cited through the snapshot's :class:`~ci_service.pipeline.evidence.EvidenceMap`;
a fact whose sentence is not in the stored evidence is dropped.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from ci_service.pipeline import llm_facts
from ci_service.pipeline.evidence import EvidenceMap
from ci_service.pipeline.pricing import plans as pricing
from ci_service.pipeline.products import extract as products
from ci_service.pipeline.products import integrations as integrations
from ci_service.pipeline.profile import extract as profile
from ci_service.pipeline.site import SiteSnapshot
from ci_service.services.collection import capability_store, pricing_store, product_store
from ci_service.services.workspace.competitors import update_competitor

log = logging.getLogger("ci_service.pipeline")

Progress = Callable[[float, str], None]


def learn_competitor(
    workspace_id: str,
    competitor: Any,
    snapshot: SiteSnapshot,
    evidence: EvidenceMap,
    progress: Progress | None = None,
    check_cancelled: Callable[[], None] | None = None,
) -> dict[str, int]:
    """Profile, products, pricing (and LLM facts) of ``competitor`` from ``snapshot``."""

    def step(fraction: float, message: str) -> None:
        if check_cancelled is not None:
            check_cancelled()
        if progress is not None:
            progress(fraction, message)

    counts: dict[str, int] = {}
    step(0.0, "Reading the company profile")
    found = profile.extract_profile(
        snapshot, competitor.company_profile or {}, evidence, company_name=competitor.name
    )
    step(0.2, "Discovering products")
    drafts = products.extract_products(snapshot, company_name=competitor.name)
    plans = pricing.extract_pricing(snapshot)
    learned = llm_facts.learn(snapshot, evidence, company_name=competitor.name)
    if learned is not None:
        step(0.4, "Merging the language model's grounded facts")
        found = llm_facts.merge_profile(found, learned)
        drafts = llm_facts.merge_products(drafts, learned)
        plans = llm_facts.merge_plans(plans, learned)
    save_competitor_profile(workspace_id, competitor.id, found)
    counts["profileFields"] = len([k for k in found if k not in ("sources", "quotes")])
    step(0.5, "Saving products")
    rows = product_store.save_products(workspace_id, competitor.id, drafts, evidence)
    counts["products"] = len(rows)
    step(0.7, "Reading pricing")
    saved = pricing_store.save_pricing(
        workspace_id, competitor.id, plans, evidence, company_name=competitor.name
    )
    counts.update({f"pricing.{k}": v for k, v in (saved or {}).items() if isinstance(v, int)})
    step(0.8, "Reading integrations and supported platforms")
    supported = integrations.extract_supported(snapshot, competitor.name)
    counts["integrations"] = product_store.save_supported(
        workspace_id, competitor.id, supported, evidence
    )
    step(0.85, "Mapping capabilities")
    capability_store.analyze_competitor(workspace_id, competitor.id)
    log.info("learned about competitor %s: %s", competitor.id, counts)
    return counts


def save_competitor_profile(workspace_id: str, competitor_id: str, profile: dict) -> Any:
    """Merge ``profile`` into the competitor's companyProfile through the resource service."""
    if not profile:
        return None
    return update_competitor(workspace_id, competitor_id, {"companyProfile": profile})
