"""The deterministic category scoring rule behind the feature matrix.

For one competitor, one of our products and one category:

1. **Keywords.** A default category has a fixed keyword list (``DEFAULT_CATEGORIES``). Any
   other category (from a product or a competitor) uses the words of its name (3+ letters,
   minus stop words), plus the keywords of every default category sharing one of those
   words ("Security" borrows the "Security & Compliance" list), plus the pipeline's
   keyword list (``pipeline/taxonomy.py``) for a category of the same name. Matching is
   case-insensitive on word boundaries (a trailing "s" or "es" is allowed).
2. **Our side** (``we``): our product's features, capabilities and value props whose text
   matches, and intel items filed on our product (scope ``offering``) that match.
3. **Their side**: the competitor's offerings' features and capabilities and its
   ``products`` entries that match (``they_have``); the competitor's intel items (newest
   ``INTEL_SCAN`` items, first ``SCAN_CHARS`` characters) that match: an item whose first
   matching sentence reads negative ("no", "not", "lacks", "missing", "without",
   "limited", ...) is negative evidence (``they_weak``), any other is positive
   (``they_have``); ``companyWeaknesses`` entries that match (``they_weak``) and
   ``companyStrengths`` entries that match (``they_strong``).
4. **Status** (SUPERIOR = ours is better):

   =============================  ====================================================
   evidence                       capabilityStatus
   =============================  ====================================================
   we and they_have               SUPERIOR if they_weak and not they_strong;
                                  INFERIOR if they_strong and not they_weak; else MATCH
   we, not they_have              SUPERIOR if they_weak, or if the competitor was
                                  checked (has any intel or offering features: the
                                  cell then cites their most credible sources); else
                                  UNKNOWN
   not we, they_have/they_strong  INFERIOR if our product describes itself at all
                                  (features, capabilities or value props); else UNKNOWN
   anything else                  UNKNOWN
   =============================  ====================================================

``evidenceIds`` are the intel ids that supported the cell (at most ``MAX_EVIDENCE``, most
credible first); the summary bullets quote the evidence briefly.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
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
INTEL_SCAN = 300
SCAN_CHARS = 20_000
MAX_EVIDENCE = 5
SNIPPET = 160
_NEGATIVE = re.compile(
    r"\b(no(?!-)|not|lacks?|lacking|missing|without|doesn't|does not|cannot|can't|"
    r"limited|poor|weak|absent)\b",
    re.IGNORECASE,
)
_SENTENCES = re.compile(r"[^.!?\n]+[.!?]?")
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


def snippet(text: str, pattern: re.Pattern) -> tuple[str, bool] | None:
    """The first matching sentence (trimmed) and whether it reads negative."""
    text = text[:SCAN_CHARS]
    found = pattern.search(text)
    if found is None:
        return None
    sentence = found.group(0)
    for match in _SENTENCES.finditer(text):
        if match.start() <= found.start() < match.end():
            sentence = match.group(0)
            break
    sentence = " ".join(sentence.split())
    if len(sentence) > SNIPPET:
        sentence = sentence[: SNIPPET - 1].rstrip() + "…"
    return sentence, bool(_NEGATIVE.search(sentence))


@dataclass
class Side:
    """What one side shows for a category."""

    names: list[str] = field(default_factory=list)  # matching features/capabilities
    positive: list[tuple[Any, str]] = field(default_factory=list)  # (intel item, quote)
    negative: list[tuple[Any, str]] = field(default_factory=list)
    strengths: list[str] = field(default_factory=list)
    weaknesses: list[str] = field(default_factory=list)


@dataclass
class Scored:
    status: str
    summary: list[str]
    evidence_ids: list[str]


def _ranked(pairs: list[tuple[Any, str]]) -> list[tuple[Any, str]]:
    return sorted(pairs, key=lambda p: (-(p[0].credibility_score or 0), -p[0].seq))


def decide(
    ours: Side,
    theirs: Side,
    *,
    our_profile_known: bool,
    checked_sources: list[Any],
    competitor_name: str,
    category_name: str,
) -> Scored:
    """Apply the status table of the module docstring and write the summary bullets."""
    we = bool(ours.names or ours.positive)
    they_have = bool(theirs.names or theirs.positive)
    they_weak = bool(theirs.negative or theirs.weaknesses)
    they_strong = bool(theirs.strengths)
    absent_checked = False
    if we and they_have:
        if they_weak and not they_strong:
            status = "SUPERIOR"
        elif they_strong and not they_weak:
            status = "INFERIOR"
        else:
            status = "MATCH"
    elif we:
        absent_checked = not they_weak and bool(checked_sources)
        status = "SUPERIOR" if they_weak or checked_sources else "UNKNOWN"
    elif they_have or they_strong:
        status = "INFERIOR" if our_profile_known else "UNKNOWN"
    else:
        status = "UNKNOWN"

    summary: list[str] = []
    if ours.names:
        summary.append("Ours: " + ", ".join(dict.fromkeys(ours.names[:4])))
    if theirs.names:
        summary.append(f"{competitor_name}: " + ", ".join(dict.fromkeys(theirs.names[:4])))
    for label, values in (
        ("Listed strength", theirs.strengths),
        ("Listed weakness", theirs.weaknesses),
    ):
        if values:
            summary.append(f"{label}: {values[0][:SNIPPET]}")
    quoted = (
        _ranked(theirs.negative)[:1] + _ranked(theirs.positive)[:2] + _ranked(ours.positive)[:1]
    )
    for item, quote in quoted:
        title = (item.title or item.url or "source")[:80]
        summary.append(f'"{quote}" ({title})')
    evidence = [item.id for item, _ in quoted]
    if absent_checked:
        sources = checked_sources[:3]
        summary.append(
            f"No mention of {category_name} found in {len(checked_sources)} sources "
            f"collected on {competitor_name}"
        )
        evidence.extend(s.id for s in sources)
    for item, _ in _ranked(theirs.negative + theirs.positive + ours.positive):
        if len(evidence) >= MAX_EVIDENCE:
            break
        evidence.append(item.id)
    if status == "UNKNOWN" and not summary:
        summary.append("Not enough evidence yet")
    return Scored(status, summary[:6], list(dict.fromkeys(evidence))[:MAX_EVIDENCE])


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
