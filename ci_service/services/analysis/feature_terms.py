"""Feature names as concepts: the words that decide whether two texts name the same thing.

A feature name ("PostgreSQL connector", "Single sign-on") and a sentence of a competitor's
page ("Connect to your Postgres database") are compared as sets of *concepts*: each word
is lowercased and lightly stemmed ("connectors" -> "connector", "self-hosted" ->
"self host"), and the phrases of a small synonym table become one concept each
("connector", "integration", "data source" -> ``integration``; "SSO", "single sign-on",
"SAML" -> ``sso``). Words not in the table are concepts of their own.

Concepts are *strong* or *weak*. Weak ones say what kind of thing a feature is
("integration", "api", "app") or are generic ("support", "management"): "PostgreSQL
connector" is the strong ``postgresql`` plus the weak ``integration``. A match needs every
strong concept; see ``services/analysis/feature_presence.py`` for how weak ones are used.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from functools import lru_cache

# Concept -> the phrases that name it (lowercase; matched on stemmed words, so "plugins"
# and "plug-in" need no entry of their own). Kept small: meaning beyond this table comes
# from the embedding model, which only ever blocks a claim (feature_presence.py).
SYNONYMS: dict[str, tuple[str, ...]] = {
    "integration": (
        "integration",
        "integrate",
        "connector",
        "connect",
        "connection",
        "data source",
        "datasource",
        "plugin",
        "plug in",
        "add on",
        "extension",
    ),
    "sso": ("sso", "single sign on", "single sign in", "saml", "oidc", "openid connect"),
    "self-host": (
        "self host",
        "self hosting",
        "on premise",
        "on premises",
        "on prem",
        "your own server",
        "your own infrastructure",
        "own server",
        "own infrastructure",
        "private cloud",
    ),
    "api": ("api", "graphql"),
    "audit": ("audit", "audit log", "audit trail", "activity log", "change history"),
    "permission": (
        "rbac",
        "role based access",
        "role based access control",
        "access control",
        "permission",
        "user role",
    ),
    "mobile": ("mobile", "ios", "android", "iphone", "smartphone"),
    "ota": ("ota", "over the air", "remote update", "firmware update", "software update"),
    "analytics": ("analytics", "report", "reporting", "dashboard", "insight", "metric", "kpi"),
    "automation": ("automation", "automate", "workflow"),
    "encryption": ("encrypt", "encryption", "encrypted", "cryptograph"),
    "mfa": ("2fa", "mfa", "two factor", "multi factor", "two step"),
    "branding": ("white label", "custom branding", "branding", "rebrand", "custom domain"),
    "embed": ("embed", "embeddable", "widget"),
    "backup": ("backup", "back up", "restore", "snapshot"),
    "monitoring": ("monitoring", "monitor", "alerting", "observability"),
    "container": ("docker", "container", "kubernetes", "k8"),
    "postgresql": ("postgresql", "postgres"),
    "mongodb": ("mongodb", "mongo"),
    "template": ("template",),
    "open-source": ("open source", "opensource", "source available"),
    "free-plan": ("free plan", "free tier", "free forever"),
    "ab-test": ("a b test", "split test", "ab test"),
    "lead": ("lead capture", "lead generation", "email capture", "lead gen"),
    "compliance": ("compliance", "compliant", "soc 2", "iso 27001", "hipaa", "gdpr"),
}

# Concepts and words that say what kind of thing a feature is, or nothing specific.
WEAK = frozenset(
    {
        "integration",
        "api",
        "app",
        "application",
        "support",
        "supported",
        "tool",
        "platform",
        "software",
        "solution",
        "service",
        "system",
        "management",
        "manager",
        "builder",
        "feature",
        "option",
        "capability",
        "built",
        "custom",
        "advanced",
        "full",
        "easy",
        "simple",
        "powerful",
        "new",
        "data",
        "user",
        "team",
        "online",
        "cloud",
        "web",
        "product",
        "module",
        "unlimited",
        "enterprise",
        "pro",
        "plan",
    }
)

STOP = frozenset(
    "a an and or the of for to in on at by with from your you our we it its is are be can "
    "all any every more most via into out up as that this these those their them they has "
    "have will than then so not no own".split()
)

# "Coming soon", "beta", "on the roadmap": neither has nor lacks. Searched in whole
# sentences, unlike the status lines of a plan card (``pipeline.pricing.money``), so a word
# that is a status only on its own ("Planned") is left out: "planned maintenance windows".
SOON = re.compile(
    r"\b(?:coming soon|soon available|available soon|in beta|beta|public beta|private beta|"
    r"early access|on (?:the|our) roadmap|roadmap|in development|under development|"
    r"not yet available|waitlist|wait list)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z0-9]+(?:[.+#][a-z0-9]+)*")


def stem(word: str) -> str:
    """A light English stem: "connectors" -> "connector", "hosting" -> "host"."""
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 5 and word.endswith("ed") and not word.endswith("eed"):
        return word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def tokens(text: str) -> list[str]:
    """Stemmed words of ``text`` ("Self-hosted" -> ["self", "host"])."""
    text = html.unescape(text or "").lower().replace("’", "'")
    return [stem(w) for w in _WORD.findall(text)]


@lru_cache(maxsize=1)
def _phrases() -> dict[str, list[tuple[tuple[str, ...], str]]]:
    """First stemmed word -> [(stemmed phrase, concept)], longest phrase first."""
    out: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for concept, phrases in SYNONYMS.items():
        for phrase in phrases:
            words = tuple(tokens(phrase))
            out.setdefault(words[0], []).append((words, concept))
    for rows in out.values():
        rows.sort(key=lambda row: -len(row[0]))
    return out


def concepts_of_words(words: list[str]) -> frozenset[str]:
    """The concepts of stemmed ``words``: synonym-table phrases (longest first, left to
    right) as their concept, other words as themselves (stop words dropped)."""
    table = _phrases()
    found: set[str] = set()
    i = 0
    while i < len(words):
        for phrase, concept in table.get(words[i], ()):
            if tuple(words[i : i + len(phrase)]) == phrase:
                found.add(concept)
                i += len(phrase)
                break
        else:
            if words[i] not in STOP and len(words[i]) > 1:
                found.add(words[i])
            i += 1
    return frozenset(found)


@lru_cache(maxsize=8192)
def concepts(text: str) -> frozenset[str]:
    """The concepts of ``text`` (see :func:`concepts_of_words`)."""
    return concepts_of_words(tokens(text))


@dataclass(frozen=True)
class Terms:
    """What a feature name means: the strong concepts every match needs, and the weak
    ones that say what kind of thing it is."""

    strong: frozenset[str]
    weak: frozenset[str]

    @property
    def all(self) -> frozenset[str]:
        return self.strong | self.weak


def feature_terms(name: str) -> Terms:
    """The terms of a feature's *name* (its description is context, not identity). A name
    made only of weak words ("REST API", "Integrations") keeps them as strong."""
    found = concepts(name)
    strong = frozenset(c for c in found if c not in WEAK)
    weak = frozenset(found - strong)
    if not strong:
        strong, weak = weak, frozenset()
    return Terms(strong, weak)


def covers(terms: Terms, text_concepts: frozenset[str], *, need_weak: bool) -> bool:
    """Whether a text with ``text_concepts`` names the feature: every strong concept, and
    (``need_weak``) at least one of its weak ones when it has any."""
    if not terms.strong or not terms.strong <= text_concepts:
        return False
    return not need_weak or not terms.weak or bool(terms.weak & text_concepts)


def touches(terms: Terms, text_concepts: frozenset[str]) -> bool:
    """Whether a text names any strong concept of the feature (a partial match: enough to
    make an absence claim unsafe)."""
    return bool(terms.strong & text_concepts)
