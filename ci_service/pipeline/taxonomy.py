"""Stable ids and the category keyword table the deterministic extractors share.

Ids of discovered features, categories and capabilities are derived from their names
(``cat-help-desk``, ``cap-single-sign-on``), so re-discovering a site keeps them, and two
competitors' offerings naming the same capability share one CAPABILITY node.
"""

from __future__ import annotations

import hashlib
import re

# A category when one of its keywords occurs (word boundaries, case-insensitive).
CATEGORY_KEYWORDS: dict[str, tuple[str, ...]] = {
    "Security & Compliance": (
        "security", "sso", "single sign-on", "audit", "encryption", "compliance", "soc 2",
        "gdpr", "permissions", "rbac", "two-factor", "2fa", "mfa", "access control",
    ),
    "Analytics & Reporting": (
        "analytics", "dashboard", "dashboards", "report", "reports", "reporting", "metrics",
        "insights", "kpi", "kpis", "visualization",
    ),
    "Automation & Workflow": (
        "automation", "automate", "workflow", "workflows", "triggers", "rules engine",
        "orchestration", "approvals",
    ),
    "Integrations & API": (
        "integration", "integrations", "api", "apis", "webhook", "webhooks", "connector",
        "connectors", "sdk", "zapier",
    ),
    "Collaboration": ("collaboration", "collaborate", "sharing", "comments", "mentions"),
    "Customer Support": (
        "help desk", "helpdesk", "ticket", "tickets", "ticketing", "support", "live chat",
        "knowledge base", "sla", "slas",
    ),
    "Data Management": (
        "data export", "export", "import", "backup", "backups", "storage", "data sync",
        "database", "etl",
    ),
    "Mobile": ("mobile", "ios", "android"),
    "AI & Machine Learning": (
        "ai", "machine learning", "predictive", "forecasting", "llm", "generative",
    ),
    "Billing & Payments": ("billing", "invoice", "invoices", "invoicing", "payments"),
    "Marketing": ("marketing", "campaign", "campaigns", "seo", "newsletter"),
    "Sales & CRM": ("crm", "pipeline", "leads", "deals", "sales"),
}  # fmt: skip

_WORD = re.compile(r"[a-z0-9]+")
_PATTERNS = {
    name: re.compile(r"\b(?:" + "|".join(re.escape(k) for k in words) + r")\b", re.IGNORECASE)
    for name, words in CATEGORY_KEYWORDS.items()
}


def normalize(name: str) -> str:
    """Lower-case words joined by single spaces ("Single Sign-On!" -> "single sign on")."""
    return " ".join(_WORD.findall((name or "").casefold()))


_LETTERS = str.maketrans({"đ": "d", "ł": "l", "ø": "o", "ß": "ss", "æ": "ae", "œ": "oe", "ı": "i"})


def _latin(text: str) -> str:
    """``text`` in plain Latin letters ("Zašto" -> "zasto", "Größe" -> "grosse")."""
    import unicodedata

    decomposed = unicodedata.normalize("NFKD", text.casefold().translate(_LETTERS))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def stable_id(prefix: str, name: str) -> str:
    """``prefix-slug`` (at most 64 characters; long names end in a short hash). Letters
    with accents count as their plain letter, so "Zašto" and "Zadato" stay apart; a name in
    a script without Latin letters is known by a hash of itself."""
    words = _WORD.findall(_latin(name or ""))
    if not words and (name or "").strip():
        words = ["x" + hashlib.sha256(name.strip().encode()).hexdigest()[:12]]
    slug = "-".join(words) or "item"
    full = f"{prefix}-{slug}"
    if len(full) <= 64:
        return full
    digest = hashlib.sha256(slug.encode()).hexdigest()[:8]
    return f"{full[:55]}-{digest}"


def categories_for(text: str) -> list[str]:
    """Category names whose keywords occur in ``text``, in table order."""
    return [name for name, pattern in _PATTERNS.items() if pattern.search(text or "")]


def category_item(name: str, description: str = "") -> dict[str, str]:
    return {"id": stable_id("cat", name), "name": name[:200], "description": description}


def capability_item(name: str, description: str = "") -> dict[str, str]:
    return {"id": stable_id("cap", name), "name": name[:200], "description": description}


def feature_item(name: str, description: str = "") -> dict[str, str]:
    return {"id": stable_id("feat", name), "name": name[:200], "description": description}


def merge_items(current: list[dict], found: list[dict]) -> list[dict]:
    """``current`` items plus ``found`` ones whose name is new; a known name keeps its id,
    gains a description it lacked and takes the newest evidence (``evidenceIds``,
    ``quotes``) when ``found`` has some."""
    by_name = {normalize(i.get("name", "")): dict(i) for i in current or []}
    for item in found:
        key = normalize(item["name"])
        if key in by_name:
            if not by_name[key].get("description") and item.get("description"):
                by_name[key]["description"] = item["description"]
            for extra in ("evidenceIds", "quotes"):
                if item.get(extra):
                    by_name[key][extra] = item[extra]
        else:
            by_name[key] = dict(item)
    ids: set[str] = set()
    out = []
    for item in by_name.values():
        if item["id"] in ids:
            continue
        ids.add(item["id"])
        out.append(item)
    return out
