"""Feature claims of a battlecard, decided by meaning (``services/analysis/feature_presence.py``).

For each feature of ours (features and capabilities of our product):

========== ============================================================================
LACKS      a win. Stated by them ("does not support SAML"): that sentence is the quote.
           By absence (a complete reading and nothing near it): "not on their product or
           pricing pages, N pages read", with the pages read as evidence and no quote
           (no sentence states an absence)
SOON       a win: we have it today, their page marks it coming soon (that sentence)
HAS        no claim: a match, kept in ``Facts.matched`` for the matrix and objections
UNSURE     no claim
========== ============================================================================

For each of their named features (capability pages only) that no feature of ours may be
(``they_offer_ours``: no strong concept shared either way, not near in meaning): a loss,
"they offer X, we have no matching feature", quoting the sentence that names X. Only when
our product lists features: one that lists none says nothing of what we lack. Their
integrations and supported platforms that we may not have become one counted loss. An
open-source licence they state is a loss a buyer will raise.
"""

from __future__ import annotations

import re
from typing import Any

from ci_service.services.analysis.claims import (
    Claim,
    Facts,
    is_slogan,
    is_supported_item,
    listing,
    possessive,
)
from ci_service.services.analysis.feature_presence import (
    HAS,
    LACKS,
    SOON_STATE,
    Reading,
    Statement,
    feature_terms,
    presence,
    supporting,
    they_offer_ours,
)
from ci_service.services.analysis.feature_terms import concepts, covers

MIN_INTEGRATIONS = 3
MAX_QUOTES = 3


def our_items(product: Any) -> list[dict[str, Any]]:
    items = list(product.features or []) + list(product.capabilities or [])
    return [i for i in items if isinstance(i, dict) and str(i.get("name") or "").strip()]


def _pages(presence_pages: list[Any]) -> list[dict[str, Any]]:
    return [
        {"evidenceId": p.id, "title": p.title or p.url, "url": p.url, "pageKind": p.page_kind}
        for p in presence_pages
    ]


def _matched(ours: str, statements: list[Statement]) -> list[dict[str, Any]]:
    return [{"ours": ours, "theirs": s.label[:200], "quotes": s.citations[:1]} for s in statements]


def add_feature_claims(facts: Facts, competitor: Any, product: Any, reading: Reading) -> None:
    """Wins, losses and matches of the features of ``product`` against ``competitor``."""
    name, ours = competitor.name, product.name
    mine = our_items(product)
    for feature in mine:
        label = str(feature["name"]).strip()
        found = presence(label, str(feature.get("description") or ""), reading)
        about = found.terms.all
        if found.state == HAS:
            first = found.matches[0]
            facts.matched.append((label, first.label, first.citations[:1]))
        elif found.state == SOON_STATE:
            quote = found.matches[0].citations[0]["quote"]
            facts.wins.append(
                Claim(
                    "feature",
                    f"{label}: {ours} has it today",
                    f"{ours} includes {label} today; {name} marks it as not yet available: "
                    f"“{quote}”",
                    found.matches[0].citations[:1],
                    weight=2,
                    pitch=f"Lead with {label}, ready today: {name} has it only as coming soon.",
                    short=f"{label} works today, while {name} still lists it as coming",
                    extra={
                        "feature": label,
                        "state": "COMING_SOON",
                        "matched": _matched(label, found.matches[:2]),
                    },
                    about=about,
                )
            )
        elif found.state == LACKS and found.matches:
            sentence = found.matches[0].citations[0]["quote"]
            facts.wins.append(
                Claim(
                    "feature",
                    f"{ours} has {label}; {name} does not",
                    f"{ours} includes {label}. {possessive(name)} own site says: “{sentence}”",
                    found.matches[0].citations[:1],
                    weight=3,
                    pitch=f"Lead with {label}: {name} states it does not offer it.",
                    short=f"{label}, which {name} says it does not offer",
                    extra={"feature": label, "state": "THEY_LACK"},
                    about=about,
                )
            )
        elif found.state == LACKS:
            facts.wins.append(
                Claim(
                    "feature",
                    f"{label}: only {ours} offers it",
                    f"{ours} includes {label}; {name} does not offer it ({found.read}).",
                    [],
                    weight=1.5,
                    pitch=f"Lead with {label}: none of the {name} product or pricing pages "
                    "offers it.",
                    short=f"{label}, which {name} does not offer",
                    pages=[p.id for p in found.pages],
                    extra={
                        "feature": label,
                        "state": "THEY_LACK",
                        "read": found.read,
                        "pagesRead": _pages(found.pages),
                    },
                    about=about,
                )
            )
    if mine:  # a product that lists no features says nothing of what we lack
        _their_features(facts, competitor, product, reading, mine)


def _their_features(
    facts: Facts, competitor: Any, product: Any, reading: Reading, mine: list[dict[str, Any]]
) -> None:
    name, ours = competitor.name, product.name
    matched_labels = {theirs.casefold() for _, theirs, _ in facts.matched}
    integrations: list[Statement] = []
    seen: set[str] = set()
    for statement in reading.statements:
        if statement.source != "feature" or statement.soon:
            continue
        label = statement.label.strip()
        key = label.casefold()
        if key in seen or key in matched_labels or is_slogan(label):
            continue
        seen.add(key)
        description = statement.text[len(label) :].strip()
        if they_offer_ours(label, description, mine):
            continue
        terms = feature_terms(label)
        if not terms.strong or not covers(terms, concepts(statement.text), need_weak=False):
            continue
        cited = supporting(statement, terms, reading)
        if cited is None:
            continue
        if is_supported_item({"description": description}):
            integrations.append(cited)
            continue
        detail = f": {description.rstrip('.')}." if description else "."
        facts.losses.append(
            Claim(
                "feature",
                f"{name} offers {label}",
                f"{name} offers {label}{detail} {ours} has no matching feature.",
                cited.citations[:1],
                weight=1 + (0.5 if description else 0),
                pitch=f"Expect {name} to show {label}; {ours} has no matching feature.",
                short=f"{label}, which {ours} does not offer",
                extra={"feature": label, "state": "WE_LACK"},
                about=terms.all,
            )
        )
    if len(integrations) >= MIN_INTEGRATIONS:
        names = [s.label for s in integrations]
        facts.losses.append(
            Claim(
                "integrations",
                f"{name} lists {len(names)} integrations and supported platforms",
                f"{name} lists {len(names)} integrations and supported platforms that "
                f"{ours} does not name, among them {listing(names, 5)}.",
                [s.citations[0] for s in integrations[:MAX_QUOTES]],
                weight=1.8,  # a concrete, countable fact: ahead of single features
                pitch=f"Expect {name} to count its {len(names)} integrations.",
                short=f"its {len(names)} integrations",
                extra={"state": "WE_LACK", "feature": "integrations", "names": names[:20]},
                about=frozenset({"integration"}),
            )
        )
    _open_source(facts, competitor, product, reading, mine)


def _open_source(
    facts: Facts, competitor: Any, product: Any, reading: Reading, mine: list[dict[str, Any]]
) -> None:
    """Their open-source licence, stated on a capability page: a buyer will raise it."""
    terms = feature_terms("open source")
    texts = [f"{i['name']} {i.get('description') or ''}" for i in mine]
    if any(covers(terms, concepts(text), need_weak=False) for text in texts):
        return
    name = competitor.name
    own = re.compile(rf"\b(?:{re.escape(name)}|we|our)\b", re.IGNORECASE)
    for statement in reading.statements:
        if statement.source == "page" and not statement.denied and not statement.soon:
            if covers(terms, statement.concepts, need_weak=False) and own.search(statement.label):
                facts.losses.append(
                    Claim(
                        "open-source",
                        f"{name} offers open-source software",
                        f"{name} offers open-source software, in its own words: "
                        f"“{statement.label}”",
                        statement.citations[:1],
                        weight=1.6,
                        pitch=f"Expect {name} to lead with its open-source software.",
                        short="its open-source software",
                        about=terms.all,
                    )
                )
                return
