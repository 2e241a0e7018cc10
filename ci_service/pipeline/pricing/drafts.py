"""A pricing plan as the extractors read it (:class:`PlanDraft`) and the helpers every
pricing rule builds one with: :func:`plans_from_price` (one plan per period) and
:func:`on_request_plan`.

Separate from ``pipeline.pricing.plans`` so the card and table readers (``pricing_html``,
``pricing_tables``) need not import ``pricing``, which imports them to run their rules:
every import runs one way (no cycle). ``pipeline.pricing.plans`` re-exports these names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ci_service.pipeline.evidence import Cite
from ci_service.pipeline.pricing.money import Price

# The most features kept per plan.
MAX_FEATURES = 30


@dataclass
class PlanDraft:
    name: str
    price: float | None
    currency: str | None
    period: str | None  # "month", "year", "one-time" or None
    unit: str | None  # "per user", "per seat", "per end-user", "flat" or None
    on_request: bool = False
    price_text: str | None = None
    features: list[str] = field(default_factory=list)
    cite: Cite | None = None
    page_url: str = ""
    edition: str = ""  # the card group or page label the plan was listed under
    coming_soon: bool = False  # its card or row says it is not sold yet (module rules)


def plans_from_price(
    name: str, found: list[Price], url: str, quote: str | None, **extra: Any
) -> list[PlanDraft]:
    """One plan per period among ``found`` (the first price of a period wins)."""
    plans: dict[str | None, PlanDraft] = {}
    for price in found:
        if price.period not in plans:
            plans[price.period] = PlanDraft(
                name=name,
                price=price.amount,
                currency=price.currency,
                period=price.period,
                unit=price.unit,
                price_text=price.text,
                cite=Cite(url, quote) if quote else None,
                page_url=url,
                **extra,
            )
    return list(plans.values())


def on_request_plan(name: str, line: str, url: str, quote: str | None, **extra: Any) -> PlanDraft:
    """A plan with no price, sold on request ("Contact sales"), cited by ``quote``."""
    cite = Cite(url, quote) if quote else None
    return PlanDraft(name, None, None, None, None, True, line[:200], [], cite, url, **extra)
