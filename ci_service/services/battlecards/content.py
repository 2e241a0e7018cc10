"""Battlecard content, written deterministically from compared, cited facts.

The facts come from ``services/battlecards/facts.py`` (features decided by meaning,
pricing, company size and age, customers, funding and news, each with the sentence it was
read from). Every section is drawn from the same ranked facts, each saying it its own way
(``Claim.description``, ``pitch``, ``short``), so no item repeats another verbatim:

- ``whyWeWin`` / ``whyWeLose``: the winning and losing compared facts, strongest first,
  then the competitor's ``companyWeaknesses`` / ``companyStrengths`` (entered by people)
  that an evidence sentence supports. Feature items carry ``feature``, ``state``
  (THEY_LACK, COMING_SOON, WE_LACK), ``matched`` and, for an absence, ``read`` and
  ``pagesRead``;
- ``objections``: what a buyer raises and the answer our facts give, or none
  (``services/battlecards/objections.py``);
- ``talkingPoints``: ATTACK leads with our wins, then their funding and news; DEFENSE
  leads with what they will attack us on, each with its answer when we have one;
- ``killShot``: ATTACK our strongest win; DEFENSE their strongest point and our answer;
- ``landmines``: ATTACK questions that expose our wins; DEFENSE the points they will
  push and how to meet them;
- ``pricingWedge``: their plans as stated (coming-soon plans marked), and the comparison
  with ours when we have pricing.

Every item carries ``evidenceIds`` and ``quotes`` ({evidenceId, quote, url}), the quote
being the exact sentence of the evidence item that states the item's fact. An item
without evidence is left out: an empty section is better than a made-up one. With a
language model configured (``CI_SERVICE_LLM_*``), item texts are rewritten as plain prose
(``_prose``); the evidence and the facts are the rules'.
"""

from __future__ import annotations

from typing import Any

from ci_service.services.analysis import scoring
from ci_service.services.analysis.claims import Claim, Facts, words
from ci_service.services.analysis.feature_claims import our_items
from ci_service.services.battlecards.facts import FactBuilder, best_sentence, describe_price
from ci_service.services.battlecards.objections import Answers, lost_arguments, objections
from ci_service.store.competitors import Competitor
from ci_service.store.intel import IntelItem
from ci_service.store.resources import Offering, Organization

MAX_ITEMS = 6


def find_evidence(text: str, items: list[IntelItem], k: int = 2) -> list[str]:
    """Ids of the ``k`` intel items sharing most of the words of ``text`` (at least two, or
    the only one), most credible first."""
    wanted = words(text)
    if not wanted:
        return []
    need = min(2, len(wanted))
    scored = []
    for item in items:
        body = words(f"{item.title}\n{item.content[: scoring.SCAN_CHARS]}")
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


def _entered(texts: list[str] | None, label: str, intel) -> list[Claim]:
    """Person-entered strengths/weaknesses that an evidence sentence supports."""
    out = []
    for text in texts or []:
        citations = supported(text, intel)
        if citations:
            # The team's own words, then the sentence of the site that bears them out.
            said = f"{text.strip().rstrip('.')}; their own site says: “{citations[0]['quote']}”"
            phrase = text.strip().rstrip(".")
            phrase = phrase[:1].lower() + phrase[1:]
            if label.endswith("weakness"):  # said by us of them: "their weak point, ..."
                phrase = f"their weak point, {phrase}"
            out.append(
                Claim(
                    "entered",
                    f"{label}: {text}",
                    said,
                    citations,
                    weight=0.9,
                    pitch=f"{label}: {text.strip().rstrip('.')}.",
                    short=phrase,
                )
            )
    return out


def _said(workspace_id: str, competitor: Competitor, intel) -> tuple[list, list]:
    """Their claims and the arguments of lost deals, with the sentences that support them."""
    name = competitor.name
    claims = [(f'{name} says: "{c}"', supported(c, intel)) for c in competitor.key_messaging or []]
    lost = []
    for argument, count in lost_arguments(workspace_id, competitor.id):
        deals = "deal" if count == 1 else "deals"
        text = f"{argument} (reason in {count} lost {deals} to {name})"
        lost.append((text, supported(argument, intel)))
    return claims, lost


def _point(claim: Claim, **extra: Any) -> dict[str, Any]:
    return {**claim.item(), **extra}


Kill = tuple[str, list[dict[str, Any]], list[str]]  # text, quotes, evidence ids


def _attack(name: str, wins: list[Claim], facts: Facts) -> tuple[list, list, Kill]:
    talking = [_point(w, title=f"Lead with: {w.title}", description=w.pitch) for w in wins]
    talking += [_point(p, description=p.pitch) for p in facts.points if p.pitch]
    landmines = [_question(name, w) for w in wins]
    kill = wins[0] if wins else None
    if kill is None:
        return talking, landmines, ("", [], [])
    return talking, landmines, (f"Close on {kill.short}.", kill.citations, kill.evidence_ids)


def _defend(
    name: str, losses: list[Claim], wins: list[Claim], facts: Facts, answers: Answers
) -> tuple[list, list, Kill]:
    talking, landmines = [], []
    for loss in losses:
        answer = answers.answer(loss)
        said = f"{loss.pitch} Answer: {answer.description}" if answer else loss.pitch
        citations = loss.citations[:3]  # they state the point; the answer is ours
        talking.append(
            {
                **loss.item(),
                "title": f"They will say: {loss.title}",
                "description": said,
                "evidenceIds": list(
                    dict.fromkeys(loss.evidence_ids + (answer.evidence_ids if answer else []))
                ),
                "quotes": citations,
            }
        )
        landmines.append(
            f"{name} will push {loss.short}: raise it first"
            + (
                f" and answer that {answer.description[:1].lower()}{answer.description[1:]}"
                if answer
                else ", and do not dispute what their own pages state."
            )
        )
    talking += [_point(p, description=p.pitch) for p in facts.points if p.topic == "news"]
    strongest = losses[0] if losses else None
    if strongest is None:
        return talking, landmines, ("", [], [])
    answer = answers.answer(strongest)
    kill = f"Their strongest point: {strongest.short}."
    citations, ids = strongest.citations[:1], strongest.evidence_ids
    closing = answer if answer is not None else (wins[0] if wins else None)
    if closing is not None:
        kill += f" Answer: {answer.description}" if answer else f" Then close on {closing.short}."
        citations += closing.citations[:1]
        ids = ids + closing.evidence_ids
    return talking, landmines, (kill, citations, list(dict.fromkeys(ids)))


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
    wins = facts.wins + _entered(competitor.company_weaknesses, f"{name} weakness", intel)
    losses = facts.losses + _entered(competitor.company_strengths, f"{name} strength", intel)
    answers = Answers(facts, name, product.name, our_items(product))
    raised = objections(facts, answers, *_said(workspace_id, competitor, intel), mode)
    if mode == "ATTACK":
        talking, landmines, kill = _attack(name, wins, facts)
    else:
        talking, landmines, kill = _defend(name, losses, wins, facts, answers)
    wedge, wedge_citations = _pricing(name, product, facts)
    content = {
        "whyWeWin": [w.item() for w in wins],
        "whyWeLose": [loss.item() for loss in losses],
        "objections": raised,
        "talkingPoints": talking,
    }
    content = {
        key: _prose(_distinct(items)[:MAX_ITEMS], _TEXT[key]) for key, items in content.items()
    }
    return {
        **content,
        "killShot": kill[0],
        "landmines": list(dict.fromkeys(landmines))[:MAX_ITEMS],
        "pricingWedge": wedge,
        "pricingEvidenceIds": _ids(wedge_citations),
        "pricingWedgeQuotes": wedge_citations,
        "killShotEvidenceIds": kill[2],
        "killShotQuotes": kill[1],
        "profile": _profiles(workspace_id, competitor),
    }


_TEXT = {
    "whyWeWin": "description",
    "whyWeLose": "description",
    "objections": "response",
    "talkingPoints": "description",
}


def _distinct(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Items minus any whose title/objection or description/response repeats an earlier
    one's (two of their products listing one feature make one item)."""
    seen: set[str] = set()
    out = []
    for item in items:
        keys = [
            " ".join(str(item.get(k) or "").casefold().split())
            for k in ("title", "objection", "description")
        ]
        keys = [k for k in keys if k]
        if any(k in seen for k in keys):
            continue
        seen.update(keys)
        out.append(item)
    return out


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


def _ids(citations: list[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(c["evidenceId"] for c in citations))


def _question(name: str, win: Claim) -> str:
    state = win.extra.get("state")
    feature = win.extra.get("feature", "")
    if state == "COMING_SOON":
        return f"Ask {name} for the date {feature} ships, in writing."
    if win.topic == "feature":
        return f"Ask {name} to show {feature} live, on the plan the prospect would buy."
    if win.topic == "pricing":
        return f"Ask {name} for the full yearly price at the prospect's team size, all add-ons in."
    if win.topic == "company":
        return f"Ask {name} how many years of support and roadmap they commit to in writing."
    if win.topic == "entered":
        return f"Ask {name} how they address this: {win.short}."
    return f"Ask {name} about this: {win.title}."


def _pricing(name: str, product: Offering, facts: Facts) -> tuple[str, list[dict[str, Any]]]:
    """Their plans as stated, then the comparison with ours."""
    if not facts.their_plans:
        return "", []
    listed = [describe_price(plan) for _, plan in facts.their_plans[:6]]
    # The compared plans exclude coming-soon ones (battlecard_facts); the wedge lists
    # every plan as stated, marked.
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
