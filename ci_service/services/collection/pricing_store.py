"""Saving pricing plans on a competitor's offerings and recording price changes (the rules
are in :mod:`ci_service.pipeline.pricing.plans`'s docstring, "Saving").

A change record, newest first in the offering's ``pricingChanges`` (at most 100)::

    {"detectedAt": "2024-05-01T10:00:00.000000Z", "change": "price_changed",
     "plan": "Pro", "old": {"price": 49.0, "currency": "USD", "period": "month",
     "unit": "per user", "onRequest": false}, "new": {...}, "evidenceIds": ["..."]}

``old`` is null for ``plan_added`` and ``new`` for ``plan_removed``; ``evidenceIds`` are the
new plan's evidence (for a removal: the pricing page as read now, which no longer lists it).
Each change record is also a ``competitor.price_changed`` event (``services.alerts.changes``),
written in the same transaction, with the plan's quote (the new plan's; a removed plan's
old one) as where the change was read.

A stored plan carries ``"comingSoon": true`` when its card or row says it is not sold yet
(``pricing`` rules). The flag is no price term: a plan gaining or losing it is stored
again, with no change record.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from ci_service.pipeline.evidence import EvidenceMap

log = logging.getLogger("ci_service.pipeline")

MAX_CHANGES = 100
TERMS = ("price", "currency", "period", "unit", "onRequest")
# Plan-tier words say nothing about which product a plan belongs to.
TIER_WORDS = {
    "plan", "plans", "pro", "free", "enterprise", "standard", "basic", "business", "team",
    "teams", "personal", "starter", "plus", "premium", "professional", "edition", "pricing",
    "cloud", "self", "host", "hosted", "the", "and", "for", "per", "month", "year",
}  # fmt: skip


def _tokens(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", (text or "").casefold()) if len(w) >= 3}


def _source(plan: dict[str, Any]) -> str:
    quotes = plan.get("quotes") or []
    url = quotes[0].get("url", "") if quotes and isinstance(quotes[0], dict) else ""
    return url.split("#:~:", 1)[0]


def _citation(plan: dict[str, Any]) -> dict[str, Any] | None:
    quotes = plan.get("quotes") or []
    return quotes[0] if quotes and isinstance(quotes[0], dict) else None


def _terms(plan: dict[str, Any]) -> dict[str, Any]:
    return {k: plan.get(k, False if k == "onRequest" else None) for k in TERMS}


def _key(plan: dict[str, Any]) -> tuple[str, str | None]:
    return (str(plan.get("name", "")).casefold(), plan.get("period"))


def _owner(plan: Any, offerings: list[Any], company_name: str) -> Any:
    """The offering the plan (or its page) names by a word no other offering has; else the
    one named like the company; else the first."""
    company = _tokens(company_name)
    names = {o.id: _tokens(o.name) - company - TIER_WORDS for o in offerings}
    distinct = {
        o.id: names[o.id] - set().union(*(names[x.id] for x in offerings if x.id != o.id))
        for o in offerings
    }
    path = re.sub(r"^[a-z]+://[^/]+", "", plan.page_url or "")
    for words in (_tokens(f"{plan.name} {plan.edition}"), _tokens(path)):
        for offering in offerings:
            if distinct[offering.id] & words:
                return offering
    for offering in offerings:
        if company and _tokens(offering.name) == company:
            return offering
    return offerings[0]


def _plan_dict(plan: Any, citation: dict[str, Any]) -> dict[str, Any]:
    # "comingSoon" only on a plan its card or row marks: the stored shape of every other
    # plan (and so the comparison with the last collection) stays as it was.
    soon = {"comingSoon": True} if getattr(plan, "coming_soon", False) else {}
    return {
        "name": plan.name[:200],
        "price": None if plan.on_request else plan.price,
        "currency": plan.currency,
        "period": plan.period,
        "unit": plan.unit,
        "onRequest": bool(plan.on_request),
        "priceText": (plan.price_text or None) and plan.price_text[:500],
        "features": [str(f)[:500] for f in plan.features][:30],
        "evidenceIds": [citation["evidenceId"]],
        "quotes": [citation],
        **soon,
    }


def diff_plans(
    old: dict[tuple, tuple[str, dict]],
    new: dict[tuple, tuple[str, dict]],
    evidence: EvidenceMap,
    detected_at: str,
) -> list[tuple[str, dict[str, Any], dict[str, Any] | None]]:
    """(offering id, change record, the plan's citation) for each difference between
    ``old`` and ``new`` (both keyed by plan name and period, valued (offering id, plan)).
    The citation is the new plan's quote, a removed plan's old one (for the event)."""
    changes: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = []

    def record(kind: str, owner: str, before: dict | None, after: dict | None) -> None:
        plan = after or before or {}
        ids = list((after or {}).get("evidenceIds") or [])
        if after is None:
            page_id = evidence.evidence_id(_source(plan))
            ids = [page_id] if page_id else list(plan.get("evidenceIds") or [])
        entry = {
            "detectedAt": detected_at,
            "change": kind,
            "plan": plan.get("name", ""),
            "old": _terms(before) if before is not None else None,
            "new": _terms(after) if after is not None else None,
            "evidenceIds": ids,
        }
        changes.append((owner, entry, _citation(plan)))

    added = [k for k in new if k not in old]
    removed = [k for k in old if k not in new]
    for key, (owner, plan) in new.items():
        if key in old and _terms(old[key][1]) != _terms(plan):
            record("price_changed", owner, old[key][1], plan)
    for key in list(added):
        # Same name, another period (on request -> priced, monthly -> yearly): one change.
        twins = [r for r in removed if r[0] == key[0]]
        if len(twins) == 1 and len([a for a in added if a[0] == key[0]]) == 1:
            removed.remove(twins[0])
            added.remove(key)
            record("price_changed", new[key][0], old[twins[0]][1], new[key][1])
    for key in added:
        record("plan_added", new[key][0], None, new[key][1])
    for key in removed:
        record("plan_removed", old[key][0], old[key][1], None)
    return changes


def save_pricing(
    workspace_id: str,
    competitor_id: str,
    plans: list[Any],
    evidence: EvidenceMap,
    company_name: str = "",
) -> dict[str, int]:
    """Store ``plans`` (``pricing.PlanDraft``) on the competitor's offerings and record the
    price changes since the last collection; returns counts."""
    from ci_service.services.alerts import changes as change_events
    from ci_service.services.workspace.competitors import get_competitor
    from ci_service.services.workspace.offerings import create_offering
    from ci_service.store.db import transaction
    from ci_service.store.resources import Offering
    from ci_service.timeutil import iso, utcnow

    counts = {"plans": 0, "dropped": 0, "changes": 0}
    resolved = []
    for plan in plans:
        citation = evidence.resolve(plan.cite)
        if citation is None:
            counts["dropped"] += 1
        else:
            resolved.append((plan, citation))
    if counts["dropped"]:
        log.info(
            "pricing of %s: %d plan(s) without evidence dropped", competitor_id, counts["dropped"]
        )
    if not resolved:
        return counts  # nothing read (or the page failed): the stored pricing stands

    def offerings() -> list[Any]:
        return list(
            Offering.select()
            .where(Offering.workspace == workspace_id, Offering.competitor == competitor_id)
            .order_by(Offering.created_at, Offering.id)
        )

    company_name = company_name or get_competitor(workspace_id, competitor_id).name
    rows = offerings()
    if not rows:
        data = {"name": company_name[:200] or "Product", "description": "", "audience": ""}
        with transaction():
            if not offerings():  # still none under the write lock: another run made none
                create_offering(workspace_id, data, competitor_id=competitor_id, view="product")
        rows = offerings()
    new: dict[tuple, tuple[str, dict]] = {}
    for plan, citation in resolved:
        item = _plan_dict(plan, citation)
        new.setdefault(_key(item), (_owner(plan, rows, company_name).id, item))
    with transaction():
        rows = offerings()
        old: dict[tuple, tuple[str, dict]] = {}
        for row in rows:
            for item in row.pricing or []:
                if isinstance(item, dict):
                    old.setdefault(_key(item), (row.id, item))
        carried = {
            key: value
            for key, value in old.items()
            if key not in new and _source(value[1]) not in evidence
        }
        baseline = bool(old)
        for key in carried:
            del old[key]
        changes = diff_plans(old, new, evidence, iso(utcnow())) if baseline else []
        for row in rows:
            pricing = [
                p for owner, p in list(new.values()) + list(carried.values()) if owner == row.id
            ]
            mine = [c for owner, c, _cite in changes if owner == row.id]
            if pricing == (row.pricing or []) and not mine:
                continue
            row.pricing = pricing
            if mine:
                row.pricing_changes = (mine + list(row.pricing_changes or []))[:MAX_CHANGES]
            row.updated_at = utcnow()
            row.save()
        # Each change record is an event, in the transaction that stores it.
        by_id = {row.id: row for row in rows}
        for owner, entry, citation in changes:
            change_events.price_changed(
                workspace_id, competitor_id, by_id.get(owner), entry, citation
            )
    counts["plans"], counts["changes"] = len(new), len(changes)
    return counts
