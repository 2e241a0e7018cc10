"""Battlecard content, written deterministically from compared, cited facts.

The facts come from ``services/battlecard_facts.py`` (features, pricing, company size and
age, customers, funding and news, each with the sentence it was read from). The card:

- ``whyWeWin`` / ``whyWeLose``: the winning and losing compared facts, strongest first,
  then the competitor's ``companyWeaknesses`` / ``companyStrengths`` (entered by people)
  that an evidence sentence supports;
- ``objections``: arguments of LOST deals against the competitor (most frequent first)
  and the competitor's claims (``keyMessaging``), each answered by the compared fact that
  shares its topic (pricing words → the pricing comparison, else the fact sharing most
  words, else our strongest win), and, when they have a free plan and we do not, that
  plan as an objection;
- ``talkingPoints``: ATTACK our wins, then their disclosed funding and recent news;
  DEFENSE answers to their strengths (each loss paired with our best win), then news;
- ``killShot``: ATTACK our strongest win; DEFENSE the answer to their strongest point;
- ``landmines``: ATTACK questions that expose our wins; DEFENSE the points they will
  push and how to defuse them;
- ``pricingWedge``: their plans as stated, and the comparison with ours when we have
  pricing.

Every item carries ``evidenceIds`` and ``quotes`` ({evidenceId, quote, url}), the quote
being the exact sentence of the evidence item. An item without evidence is left out: with
fewer facts the card has fewer items, and an empty section is better than a made-up one.
ATTACK and DEFENSE differ in what they lead with, as above. With a language model
configured (``CI_SERVICE_LLM_*``), item texts are rewritten as plain prose (``_prose``);
the evidence and the facts are the rules'.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ci_service.services import scoring
from ci_service.services.battlecard_facts import (
    Claim,
    FactBuilder,
    Facts,
    best_sentence,
    describe_price,
    possessive,
    words,
)
from ci_service.store.competitors import Competitor
from ci_service.store.intel import IntelItem
from ci_service.store.resources import Deal, Offering, Organization

MAX_ITEMS = 6
PRICE_WORDS = re.compile(
    r"\b(?:price|prices|pricing|cost|costs|costly|expensive|cheap|cheaper|budget|licen[cs]e|"
    r"per user|per seat|fee|fees|free)\b",
    re.IGNORECASE,
)


def _words(text: str) -> set[str]:
    return words(text)


def find_evidence(text: str, items: list[IntelItem], k: int = 2) -> list[str]:
    """Ids of the ``k`` intel items sharing most of the words of ``text`` (at least two, or
    the only one), most credible first."""
    wanted = _words(text)
    if not wanted:
        return []
    need = min(2, len(wanted))
    scored = []
    for item in items:
        body = _words(f"{item.title}\n{item.content[: scoring.SCAN_CHARS]}")
        hits = len(wanted & body)
        if hits >= need:
            scored.append((hits, item.credibility_score or 0, item.seq, item.id))
    scored.sort(reverse=True)
    return [row[3] for row in scored[:k]]


def supported(text: str, intel: list[IntelItem]) -> list[dict[str, Any]]:
    """Citations of the evidence sentences that support a person-entered ``text``."""
    by_id = {i.id: i for i in intel}
    out = []
    for item_id in find_evidence(text, intel):
        cited = best_sentence(text, by_id[item_id])
        if cited:
            out.append(cited)
    return out


def _profile_facts(profile: dict[str, Any]) -> dict[str, Any]:
    keys = ("yearFounded", "employeeCount", "revenue", "headquarters", "industry")
    return {k: profile[k] for k in keys if profile.get(k) not in (None, "")}


def _lost_arguments(workspace_id: str, competitor_id: str) -> list[tuple[str, int]]:
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


# Words of an objection's wrapper ("X (reason in 2 lost deals to Rival)") that say
# nothing about its topic; the names of the two sides are dropped too.
_FRAME_WORDS = {"reason", "lost", "deal", "deals", "says", "say", "better", "more", "less"}


def _answer(text: str, facts: Facts, names: set[str]) -> tuple[Claim | None, bool]:
    """The compared fact that answers an objection about ``text``, and whether it is on
    the objection's own topic (else it is our strongest win, to pivot to). ``names``: the
    words of both sides' names, which every claim shares and so decide nothing."""
    if PRICE_WORDS.search(text):
        for claim in facts.wins:
            if claim.topic == "pricing":
                return claim, True
    ignore = names | _FRAME_WORDS
    wanted = _words(text) - ignore

    def shared(claim: Claim) -> int:
        return len(wanted & (_words(f"{claim.title} {claim.description}") - ignore))

    ranked = sorted(facts.wins, key=lambda c: -shared(c))
    if ranked and shared(ranked[0]):
        return ranked[0], True
    return (facts.wins[0], False) if facts.wins else (None, False)


def _objection(
    text: str, facts: Facts, names: set[str], intel: list[IntelItem]
) -> dict[str, Any] | None:
    answer, on_topic = _answer(text, facts, names)
    own = supported(text, intel)
    citations = own + (answer.citations if answer else [])
    if not citations:
        return None
    if answer is None:
        response = "Ask for proof and references on this point."
    elif on_topic:
        response = answer.description
    else:  # nothing on the objection's own topic: pivot to our strongest compared fact
        response = f"Acknowledge it, then pivot: {answer.description}"
    return {
        "objection": text,
        "response": response,
        "evidenceIds": list(dict.fromkeys(c["evidenceId"] for c in citations)),
        "quotes": citations[:3],
    }


def _entered(texts: list[str] | None, label: str, intel) -> list[Claim]:
    """Person-entered strengths/weaknesses that an evidence sentence supports."""
    out = []
    for text in texts or []:
        citations = supported(text, intel)
        if citations:
            # The team's own words, then the sentence of the site that bears them out.
            said = f"{text.strip().rstrip('.')}; their own site says: “{citations[0]['quote']}”"
            out.append(Claim("entered", f"{label}: {text}", said, citations, weight=0.9))
    return out


def generate_content(
    workspace_id: str,
    competitor: Competitor,
    product: Offering,
    mode: str,
    offerings: list[Offering],
    intel: list[IntelItem],
) -> dict[str, Any]:
    """The card's ``content`` (see the module docstring); every cited id is in ``intel``."""
    org = Organization.get_or_none(Organization.workspace == workspace_id)
    facts = FactBuilder(competitor, product, offerings, org, intel).build()
    name = competitor.name
    names = _words(f"{name} {product.name}")
    wins = facts.wins + _entered(competitor.company_weaknesses, f"{name} weakness", intel)
    losses = facts.losses + _entered(competitor.company_strengths, f"{name} strength", intel)

    claims = []
    for claim in competitor.key_messaging or []:
        found = _objection(f'{name} says: "{claim}"', facts, names, intel)
        if found:
            claims.append(found)
    lost = []
    for argument, count in _lost_arguments(workspace_id, competitor.id):
        deals = "deal" if count == 1 else "deals"
        found = _objection(
            f"{argument} (reason in {count} lost {deals} to {name})", facts, names, intel
        )
        if found:
            lost.append(found)
    free = next((c for c in facts.losses if c.topic == "pricing" and "free plan" in c.title), None)
    if free is not None:
        answer = facts.wins[0] if facts.wins else None
        lost.append(
            {
                "objection": f"{name} is free to start: {free.description}",
                "response": answer.description
                if answer
                else f"Compare the total cost of the plan the prospect needs with {product.name}.",
                "evidenceIds": free.item()["evidenceIds"]
                + (answer.item()["evidenceIds"] if answer else []),
                "quotes": free.citations[:1] + (answer.citations[:1] if answer else []),
            }
        )
    objections = claims + lost if mode == "DEFENSE" else lost + claims

    if mode == "ATTACK":
        talking = [{**w.item(), "title": f"Lead with: {w.title}"} for w in wins] + [
            p.item() for p in facts.points
        ]
        landmines = [_question(name, w) for w in wins]
        kill = wins[0] if wins else None
        kill_shot = kill.description if kill else ""
        kill_citations = kill.citations if kill else []
    else:
        best = wins[0] if wins else None
        talking = []
        for loss in losses:
            item = loss.item()
            if best is not None:
                item = {
                    "title": f"Answer: {loss.title}",
                    "description": f"{loss.description} Answer: {best.description}",
                    "evidenceIds": list(
                        dict.fromkeys(item["evidenceIds"] + best.item()["evidenceIds"])
                    ),
                    "quotes": (loss.citations[:2] + best.citations[:1]),
                }
            talking.append(item)
        talking += [p.item() for p in facts.points if p.topic == "news"]
        landmines = [
            f"{name} will push this: {loss.description} Raise it first and reframe around "
            f"{possessive(product.name)} strengths."
            for loss in losses
        ]
        strongest = losses[0] if losses else None
        point = _point(strongest, name) if strongest is not None else ""
        if strongest is not None and best is not None:
            kill_shot = f"When {name} leads with {point}, answer: {best.description}"
            kill_citations = strongest.citations[:1] + best.citations[:1]
        elif strongest is not None:
            kill_shot = f"When {name} leads with {point}, ask for proof and references."
            kill_citations = strongest.citations[:1]
        else:
            kill_shot, kill_citations = "", []

    wedge, wedge_citations = _pricing(name, product, facts)
    return {
        "whyWeWin": _prose([w.item() for w in wins][:MAX_ITEMS], "description"),
        "whyWeLose": _prose([loss.item() for loss in losses][:MAX_ITEMS], "description"),
        "objections": _prose(objections[:MAX_ITEMS], "response"),
        "talkingPoints": _prose(talking[:MAX_ITEMS], "description"),
        "killShot": kill_shot,
        "landmines": landmines[:MAX_ITEMS],
        "pricingWedge": wedge,
        "pricingEvidenceIds": _ids(wedge_citations),
        "pricingWedgeQuotes": wedge_citations,
        "killShotEvidenceIds": _ids(kill_citations),
        "killShotQuotes": kill_citations,
        "profile": _profiles(workspace_id, competitor),
    }


def _prose(items: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """With a language model configured, each item's ``key`` text rewritten as plain sales
    prose from the item and its quotes (``LLMProvider.rewrite`` refuses an answer that
    states a number the item and quotes do not, and keeps the rule's text then). The
    evidence stays the item's own; without a model the rule's text is kept as written."""
    from ci_service.pipeline.llm import DeterministicProvider, get_provider

    provider = get_provider()
    if isinstance(provider, DeterministicProvider):
        return items
    for item in items:
        quotes = [q["quote"] for q in item.get("quotes") or []]
        if item.get(key) and quotes:
            item[key] = provider.rewrite(item[key], quotes)
    return items


def _point(claim: Claim, name: str) -> str:
    """A losing claim as the point they make: "strong analytics dashboards"."""
    title = re.sub(rf"^{re.escape(name)} (?:strength|weakness): ", "", claim.title)
    return title[:1].lower() + title[1:]


def _ids(citations: list[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(c["evidenceId"] for c in citations))


def _question(name: str, win: Claim) -> str:
    if win.topic == "feature":
        feature = win.title.split(";")[0].split(":")[0].replace(" has ", " — ")
        return f"Ask {name} to show this live: {feature.split(' — ')[-1]}."
    if win.topic == "pricing":
        return f"Ask {name} for the full yearly price at the prospect's team size, all add-ons in."
    if win.topic == "company":
        return f"Ask {name} how many years of support and roadmap they commit to in writing."
    if win.topic == "entered":
        return f"Ask {name} how they address this: {win.description}"
    return f"Ask {name} about this: {win.title}."


def _pricing(name: str, product: Offering, facts: Facts) -> tuple[str, list[dict[str, Any]]]:
    """Their plans as stated, then the comparison with ours."""
    if not facts.their_plans:
        return "", []
    listed = [describe_price(plan) for _, plan in facts.their_plans[:6]]
    citations = [plan["quotes"][0] for _, plan in facts.their_plans[:6] if plan.get("quotes")]
    text = f"{name} pricing: {'; '.join(listed)}."
    comparison = next((c for c in facts.wins + facts.losses if c.topic == "pricing"), None)
    if comparison is not None:
        text += f" {comparison.description}"
    elif facts.our_plans:
        ours = "; ".join(describe_price(p) for p in facts.our_plans[:3])
        text += f" {product.name}: {ours}."
    unique = list({(c["evidenceId"], c["quote"]): c for c in citations}.values())
    return text, unique


def _profiles(workspace_id: str, competitor: Competitor) -> dict[str, Any]:
    org = Organization.get_or_none(Organization.workspace == workspace_id)
    ours: dict[str, Any] = {}
    if org is not None:
        ours = {
            **_profile_facts(org.company_profile or {}),
            "strengths": list(org.company_strengths or [])[:MAX_ITEMS],
        }
        if org.name:
            ours["name"] = org.name
    return {
        "competitor": {
            "name": competitor.name,
            **_profile_facts(competitor.company_profile or {}),
            "strengths": list(competitor.company_strengths or [])[:MAX_ITEMS],
            "weaknesses": list(competitor.company_weaknesses or [])[:MAX_ITEMS],
        },
        "organization": ours,
    }


def search_text(content: dict[str, Any]) -> str:
    """What /api/search matches on a card: kill shot, landmines, pricing wedge, why-we-win
    and why-we-lose titles and descriptions (one per line)."""
    lines = [content.get("killShot") or "", *(content.get("landmines") or [])]
    lines.append(content.get("pricingWedge") or "")
    for key in ("whyWeWin", "whyWeLose"):
        for item in content.get(key) or []:
            lines.append(f"{item.get('title', '')}\n{item.get('description', '')}")
    return "\n".join(line for line in lines if line)


def all_evidence_ids(content: dict[str, Any]) -> list[str]:
    ids: list[str] = []
    for key in ("whyWeWin", "whyWeLose", "objections", "talkingPoints"):
        for item in content.get(key) or []:
            ids.extend(item.get("evidenceIds") or [])
    ids.extend(content.get("pricingEvidenceIds") or [])
    ids.extend(content.get("killShotEvidenceIds") or [])
    return list(dict.fromkeys(ids))


def quotes_by_evidence(content: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """evidence id -> the distinct citations ({quote, url}) the card makes from it."""
    citations: list[dict[str, Any]] = []
    for key in ("whyWeWin", "whyWeLose", "objections", "talkingPoints"):
        for item in content.get(key) or []:
            citations.extend(item.get("quotes") or [])
    citations += (content.get("pricingWedgeQuotes") or []) + (content.get("killShotQuotes") or [])
    out: dict[str, list[dict[str, Any]]] = {}
    for citation in citations:
        if not isinstance(citation, dict) or not citation.get("evidenceId"):
            continue
        entry = {"quote": citation.get("quote", ""), "url": citation.get("url", "")}
        bucket = out.setdefault(citation["evidenceId"], [])
        if entry not in bucket:
            bucket.append(entry)
    return out
