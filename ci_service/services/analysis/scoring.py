"""Matrix categories and their keywords, and the refiner hook of the feature matrix.

A default category has a fixed keyword list (``DEFAULT_CATEGORIES``). Any other category
(from a product or a competitor) uses the words of its name (3+ letters, minus stop
words), plus the keywords of every default category sharing one of those words
("Security" borrows the "Security & Compliance" list), plus the pipeline's keyword list
(``pipeline/taxonomy.py``) for a category of the same name. Matching is case-insensitive
on word boundaries (a trailing "s" or "es" is allowed). The keywords only decide which
features fall in a category; whether the competitor has ours is decided by meaning
(``services/analysis/matrix_features.py``, ``services/analysis/feature_presence.py``),
never by keywords
found near each other in a page.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ci_service.pipeline import taxonomy

DEFAULT_CATEGORIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("core-features", "Core Features", ("workflow", "automation", "core feature", "platform")),
    (
        "integrations",
        "Integrations",
        ("integration", "api", "webhook", "connector", "plugin", "sdk", "zapier", "salesforce"),
    ),
    (
        "security-compliance",
        "Security & Compliance",
        (
            "security",
            "sso",
            "single sign-on",
            "saml",
            "soc 2",
            "iso 27001",
            "gdpr",
            "hipaa",
            "encryption",
            "compliance",
            "audit log",
            "rbac",
        ),
    ),
    (
        "analytics-reporting",
        "Analytics & Reporting",
        ("analytics", "report", "reporting", "dashboard", "insight", "metric", "kpi"),
    ),
    (
        "pricing-packaging",
        "Pricing & Packaging",
        ("pricing", "price", "per user", "per seat", "free trial", "subscription", "discount"),
    ),
    (
        "support-services",
        "Support & Services",
        ("support", "onboarding", "training", "customer success", "sla", "24/7"),
    ),
    (
        "usability",
        "Usability",
        ("easy to use", "intuitive", "user-friendly", "usability", "drag-and-drop", "no-code"),
    ),
    (
        "scalability-performance",
        "Scalability & Performance",
        ("scalability", "scalable", "scale", "performance", "uptime", "latency", "throughput"),
    ),
)

STOP_WORDS = {"and", "the", "for", "with", "our", "your", "services", "features"}
SCAN_CHARS = 20_000
SNIPPET = 160
_WORDS = re.compile(r"[a-z0-9]+")


_TAXONOMY = {taxonomy.normalize(k): v for k, v in taxonomy.CATEGORY_KEYWORDS.items()}


def default_categories() -> list[dict[str, str]]:
    return [{"id": cid, "name": name} for cid, name, _ in DEFAULT_CATEGORIES]


def _name_words(name: str) -> list[str]:
    return [w for w in _WORDS.findall(name.lower()) if len(w) >= 3 and w not in STOP_WORDS]


def keywords_for(category: dict[str, Any]) -> list[str]:
    """The keywords of a category (see the module docstring, rule 1)."""
    for cid, _name, words in DEFAULT_CATEGORIES:
        if category.get("id") == cid:
            return list(words)
    own = _name_words(str(category.get("name", "")))
    out = list(own)
    # The pipeline's category table (competitor categories are named from it).
    out.extend(_TAXONOMY.get(taxonomy.normalize(str(category.get("name", ""))), ()))
    for _, name, words in DEFAULT_CATEGORIES:
        if set(own) & set(_name_words(name)):
            out.extend(words)
    return list(dict.fromkeys(out))


def matcher(keywords: list[str]) -> re.Pattern | None:
    if not keywords:
        return None
    parts = sorted({re.escape(k.lower()) for k in keywords}, key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(parts) + r")(?:e?s)?(?!\w)", re.IGNORECASE)


def item_text(item: dict[str, Any] | str) -> str:
    if isinstance(item, str):
        return item
    return f"{item.get('name', '')} {item.get('description', '') or ''}".strip()


def item_name(item: dict[str, Any] | str) -> str:
    return item if isinstance(item, str) else str(item.get("name", ""))


@dataclass
class Scored:
    status: str
    summary: list[str]
    evidence_ids: list[str]
    features: dict[str, Any] | None = None  # services/analysis/matrix_features.py


# -- refinement (an LLM, when one is configured) -------------------------------------

Refiner = Callable[[dict[str, Any]], dict[str, Any]]
_refiner: Refiner | None = None
STATUS_ORDER = {"INFERIOR": 0, "MATCH": 1, "SUPERIOR": 2}


def set_refiner(fn: Refiner | None) -> None:
    """Install (or remove with None) a function that may improve each scored cell.

    It receives ``{categoryName, capabilityStatus, summary, evidenceIds, ...}`` and returns
    the same keys; evidence ids it returns that were not offered are dropped."""
    global _refiner
    _refiner = fn


def current_refiner() -> Refiner | None:
    return _refiner


STATUSES = ["SUPERIOR", "MATCH", "INFERIOR", "UNKNOWN"]


def llm_refiner() -> Refiner | None:
    """The configured LLM provider (``pipeline/llm.py``) as a refiner, or None when the
    deterministic provider is in use. It re-judges the status from the cell's bullets; an
    answer that is not exactly one of the four statuses keeps the rule's status."""
    from ci_service.pipeline.llm import get_provider

    provider = get_provider()
    if provider.name == "deterministic":
        return None

    def refine(cell: dict[str, Any]) -> dict[str, Any]:
        text = (
            f"Category: {cell['categoryName']}. How does our product {cell['productName']} "
            f"compare with {cell['competitorName']} here? SUPERIOR = ours is better, MATCH = "
            "parity, INFERIOR = theirs is better, UNKNOWN = not enough evidence. Evidence:\n"
            + "\n".join(f"- {line}" for line in cell["summary"])
        )
        labels = provider.classify(text, STATUSES)
        if len(labels) == 1:
            return {**cell, "capabilityStatus": labels[0]}
        return cell

    return refine
