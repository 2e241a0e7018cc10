"""What a battlecard is made of: :class:`Claim` (one fact a salesperson can say, with the
quotes that state it) and :class:`Facts` (the compared claims of one competitor and one of
our products), plus the small text helpers the fact builders share."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

MAX_CITATIONS = 3
_TOKEN = re.compile(r"[a-z0-9]+")
_STOP = {"and", "the", "for", "with", "your", "you", "our", "of", "to", "a", "an", "in", "on"}


@dataclass
class Claim:
    """One fact. ``title`` and ``description`` are its Why-we-win/lose wording; ``pitch``
    is how a talking point says it and ``short`` the phrase a kill shot or an objection
    uses, so no section repeats another verbatim. ``pages`` are evidence ids of what was
    read for an absence claim (no sentence states an absence); ``extra`` goes into the item
    as is (``feature``, ``state``, ``matched``, ``read``, ``pagesRead``)."""

    topic: str
    title: str
    description: str
    citations: list[dict[str, Any]] = field(default_factory=list)
    weight: float = 1.0
    pitch: str = ""
    short: str = ""
    pages: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    # The concepts of what the claim is about (feature_terms): objections are answered
    # by the claim of ours that shares them.
    about: frozenset[str] = frozenset()

    @property
    def evidence_ids(self) -> list[str]:
        return list(dict.fromkeys([c["evidenceId"] for c in self.citations] + self.pages))

    @property
    def backed(self) -> bool:
        return bool(self.citations or self.pages)

    def item(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "description": self.description,
            "evidenceIds": self.evidence_ids,
            "quotes": self.citations[:MAX_CITATIONS],
            **self.extra,
        }


@dataclass
class Facts:
    """The compared facts of one (competitor, product) pair."""

    wins: list[Claim] = field(default_factory=list)
    losses: list[Claim] = field(default_factory=list)
    points: list[Claim] = field(default_factory=list)  # funding, news: facts to mention
    their_plans: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    our_plans: list[dict[str, Any]] = field(default_factory=list)
    # Our features they also have: (our feature name, their label, citations).
    matched: list[tuple[str, str, list[dict[str, Any]]]] = field(default_factory=list)


# Words that praise without stating what a product does: a feature named only with them
# ("Easy to use", "Fast & Secure", "Powerful") is a slogan, not a fact to argue from.
SLOGAN_WORDS = frozenset(
    "easy easier simple simpler fast faster quick quicker powerful flexible scalable secure "
    "reliable robust modern beautiful intuitive seamless seamlessly best better smart smarter "
    "effortless friendly great awesome amazing lightning blazing affordable use to is it "
    "really truly incredibly super highly fully built made designed love".split()
)


def is_slogan(name: str) -> bool:
    """Whether a feature name is praise only (every word in :data:`SLOGAN_WORDS`)."""
    found = [w for w in _TOKEN.findall(name.lower()) if w not in _STOP]
    return bool(found) and all(w in SLOGAN_WORDS for w in found)


# How pipeline.products.integrations describes what it files as features: "Integration", or the
# heading of a supported-platform list ("Linux mP reference devices", "Supported hardware").
SUPPORTED_KIND = re.compile(
    r"\b(?:integrations?|connectors?|supported|hardware|devices?|boards?|platforms?|"
    r"compatib\w*|works with)\b",
    re.IGNORECASE,
)


def is_supported_item(feature: dict[str, Any]) -> bool:
    """An integration or supported platform (a named thing it connects to or runs on)."""
    description = feature.get("description") or ""
    return (
        len(description) <= 200
        and bool(SUPPORTED_KIND.search(description))
        and (len(description.split()) <= 8)
    )


def possessive(name: str) -> str:
    """``Acme's``; ``Acme Apps'`` (a name ending in s takes the apostrophe alone)."""
    return f"{name}'" if name.endswith(("s", "S")) else f"{name}'s"


def words(text: str) -> set[str]:
    out = set()
    for token in _TOKEN.findall(text.lower()):
        if token in _STOP or len(token) < 2:
            continue
        out.add(token[:-1] if len(token) > 4 and token.endswith("s") else token)
    return out


def listing(names: list[str], limit: int = 4) -> str:
    """ "A, B and C"; "A, B, C, D and 3 more"."""
    names = list(dict.fromkeys(names))
    if len(names) <= 1:
        return "".join(names)
    if len(names) > limit:
        return f"{', '.join(names[:limit])} and {len(names) - limit} more"
    return f"{', '.join(names[:-1])} and {names[-1]}"
