"""Objections of a battlecard, and the answers to them, written from facts.

An objection is what a buyer will raise, in order:

1. the competitor's own claims (``keyMessaging``) and the arguments of deals we lost to
   them (most frequent first), each kept only when a sentence of theirs supports it
   (DEFENSE leads with their claims, ATTACK with the lost deals);
2. their facts a buyer will raise: a lower price, a free plan, their integration count,
   an open-source licence, named customers, a feature we lack, their funding.

Each answer is built from our facts that meet the objection on its own ground (``answer``):
a price objection is answered with our lower price or with the features we have that they
lack; an integration count with the integrations of ours they also list; an open-source
licence with our self-hosting; a funding round with our track record; any other text with
our claim sharing its concepts. Without such a fact the response is empty: a canned
"pivot" is not an answer.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ci_service.services.analysis.claims import Claim, Facts, listing
from ci_service.services.analysis.feature_terms import concepts, feature_terms
from ci_service.store.resources import Deal

PRICE_WORDS = re.compile(
    r"\b(?:price|prices|pricing|cost|costs|costly|expensive|cheap|cheaper|budget|licen[cs]e|"
    r"per user|per seat|fee|fees|free)\b",
    re.IGNORECASE,
)
MAX_QUOTES = 3


def lost_arguments(workspace_id: str, competitor_id: str) -> list[tuple[str, int]]:
    counts: Counter[str] = Counter()
    first: dict[str, str] = {}
    for deal in Deal.select().where(
        Deal.workspace == workspace_id, Deal.competitor == competitor_id, Deal.outcome == "LOST"
    ):
        for argument in deal.arguments or []:
            key = " ".join(str(argument).lower().split())
            if key:
                counts[key] += 1
                first.setdefault(key, " ".join(str(argument).split()))
    return [(first[k], n) for k, n in counts.most_common()]


class Answers:
    """Our facts that answer objections (see the module docstring)."""

    def __init__(self, facts: Facts, name: str, ours: str, our_items: list[dict[str, Any]]):
        self.facts, self.name, self.ours = facts, name, ours
        self.our_items = our_items

    def _feature_wins(self) -> list[Claim]:
        return [w for w in self.facts.wins if w.topic == "feature"]

    def _with(self, win: Claim) -> Claim:
        """A win of ours as an answer, in its own words (not its Why-we-win text again)."""
        return Claim("answer", "", f"Answer with {win.short}.", win.citations[:1], pages=win.pages)

    def for_price(self) -> Claim | None:
        priced = next((w for w in self.facts.wins if w.topic == "pricing"), None)
        if priced is not None:
            return self._with(priced)
        wins = self._feature_wins()
        if not wins:
            return None
        labels = [w.extra.get("feature", "") for w in wins]
        return Claim(
            "answer",
            "",
            f"{self.ours} includes {listing(labels)}, which {self.name} does not offer "
            "at any price.",
            [c for w in wins[:2] for c in w.citations[:1]],
            pages=[p for w in wins[:2] for p in w.pages],
        )

    def for_integrations(self) -> Claim | None:
        shared = [
            (ours, theirs, cited)
            for ours, theirs, cited in self.facts.matched
            if feature_terms(ours).all & {"integration", "api"}
        ]
        if not shared:
            return None
        return Claim(
            "answer",
            "",
            f"{self.ours} covers {listing([o for o, _, _ in shared])} as well; ask which of "
            f"the other {self.name} integrations the prospect needs.",
            [c for _, _, cited in shared[:2] for c in cited[:1]],
        )

    def for_open_source(self) -> Claim | None:
        for item in self.our_items:
            if "self-host" in concepts(f"{item['name']} {item.get('description') or ''}"):
                return Claim(
                    "answer",
                    "",
                    f"{self.ours} runs on your own servers too ({item['name']}), with a vendor "
                    "behind it.",
                )
        return None

    def for_funding(self) -> Claim | None:
        record = next((w for w in self.facts.wins if w.topic == "company"), None)
        if record is None:
            return None
        return Claim(
            "answer",
            "",
            f"Our own record answers it: {record.short}.",
            record.citations[:1],
            pages=record.pages,
        )

    def by_concepts(self, text: str) -> Claim | None:
        """Our win that shares a concept with ``text`` (price words: a price answer)."""
        if PRICE_WORDS.search(text):
            return self.for_price()
        wanted = concepts(text)
        for win in self.facts.wins:
            if win.about and win.about & wanted:
                return self._with(win)
        return None

    def answer(self, claim: Claim) -> Claim | None:
        if claim.topic == "pricing":
            return self.for_price()
        if claim.topic == "integrations":
            return self.for_integrations()
        if claim.topic == "open-source":
            return self.for_open_source()
        if claim.topic in ("funding", "company"):
            return self.for_funding()
        if claim.topic == "feature":
            return None  # a feature we lack: no fact of ours answers it
        return self.by_concepts(claim.title)


def _features_we_lack(facts: Facts, name: str, ours: str) -> list[Claim]:
    """Their features we lack as one objection (a buyer asks once, not once per feature)."""
    lacking = [c for c in facts.losses if c.topic == "feature"]
    if len(lacking) < 2:
        return lacking
    names = [c.extra.get("feature", "") for c in lacking]
    return [
        Claim(
            "feature",
            f"{name} has features {ours} lacks",
            "",
            [c.citations[0] for c in lacking[:MAX_QUOTES] if c.citations],
            short=listing(names),
            extra={"state": "WE_LACK", "names": names},
        )
    ]


def _raised(claim: Claim, name: str, ours: str) -> str:
    """The objection as a buyer raises it."""
    if claim.topic == "pricing":
        return f"Why pay for {ours} when {name} offers {claim.short}?"
    if claim.topic == "integrations":
        return f"{name} connects to more: {claim.short}."
    if claim.topic == "open-source":
        return f"{name} offers open-source software; why buy {ours}?"
    if claim.topic == "customers":
        return f"{name} has {claim.short}."
    if claim.topic == "feature":
        features = listing(claim.extra.get("names") or [claim.extra.get("feature", "")])
        return f"{name} has {features}; does {ours}?"
    if claim.topic == "funding":
        return f"{name} is well funded: {claim.short.removeprefix('its ')}."
    return f"{name} has {claim.short}."


def _item(objection: str, answer: Claim | None, raised: Claim | None = None, citations=()):
    """An objection item. Its quotes state the objection (the answer is ours: its evidence
    ids are listed, its quotes are the answer claim's own)."""
    citations = list(raised.citations if raised is not None else citations)
    ids = [c["evidenceId"] for c in citations] + (raised.pages if raised is not None else [])
    if answer is not None:
        ids += answer.evidence_ids
    return {
        "objection": objection,
        "response": answer.description if answer is not None else "",
        "evidenceIds": list(dict.fromkeys(ids)),
        "quotes": citations[:MAX_QUOTES],
        **(raised.extra if raised is not None else {}),
    }


Said = list[tuple[str, list[dict[str, Any]]]]


def objections(facts: Facts, answers: Answers, claims: Said, lost: Said, mode: str) -> list:
    """The objection items: ``claims`` (theirs) and ``lost`` (arguments of lost deals) are
    (text, supporting citations), first: what buyers said and what they claim (DEFENSE
    leads with their claims, ATTACK with what lost us deals); then the facts of theirs a
    buyer raises."""
    name, ours = answers.name, answers.ours
    said = claims + lost if mode == "DEFENSE" else lost + claims
    from_words = [
        _item(text, answers.by_concepts(text), citations=cited) for text, cited in said if cited
    ]
    raised = [c for c in facts.losses if c.topic not in ("entered", "feature")]
    raised += _features_we_lack(facts, name, ours)
    raised += [p for p in facts.points if p.topic == "funding"]
    from_facts = [
        _item(_raised(claim, name, ours), answers.answer(claim), claim) for claim in raised
    ]
    return from_words + from_facts
