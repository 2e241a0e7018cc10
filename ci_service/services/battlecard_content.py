"""Battlecard content, written deterministically from the matrix and the evidence.

Sources, for one competitor and one of our products:

- the category cells of the pair (stored by build-matrix, or scored on the spot when the
  pair has none yet): SUPERIOR cells become ``whyWeWin``, INFERIOR cells ``whyWeLose``;
- arguments of LOST deals against the competitor (most frequent first) and the
  competitor's claims (``keyMessaging``) become ``objections`` with responses drawn from
  the cells and our value props;
- our value props set against the competitor's weaknesses (listed ones and SUPERIOR
  cells) become ``talkingPoints``;
- pricing evidence (intel matching pricing words, the pricing cell, ``pricingLinks``)
  becomes ``pricingWedge``; company profiles (size, founding, revenue) go to ``profile``.

Evidence: every item's ``evidenceIds`` are intel ids of the workspace that exist when the
card is written (cells' evidence, or intel items sharing the claim's words, see
``find_evidence``); an item is empty only when no evidence exists for it.

Modes: ATTACK (competitive selling) leads with our superiority and their weaknesses:
talking points from our wins, landmines are questions to plant with the prospect, the
kill shot is our strongest win. DEFENSE (answering their pitch) leads with their claims
and our responses: talking points answer their messaging, landmines are the traps their
pitch sets and how to defuse them, the kill shot answers their strongest claim.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ci_service.services import scoring
from ci_service.store.competitors import Competitor
from ci_service.store.intel import IntelItem
from ci_service.store.resources import Deal, Offering, Organization

MAX_ITEMS = 6
_WORD = re.compile(r"[a-z0-9][a-z0-9\-]{3,}")
PRICING = scoring.matcher(
    ["pricing", "price", "per user", "per seat", "per month", "free trial", "discount"]
)
_COMMON = {"that", "this", "with", "from", "they", "their", "have", "more", "than", "into"}


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _COMMON}


def find_evidence(text: str, items: list[IntelItem], k: int = 2) -> list[str]:
    """Ids of the ``k`` intel items sharing most of the words of ``text`` (at least two, or
    the only one), most credible first."""
    words = _words(text)
    if not words:
        return []
    need = min(2, len(words))
    scored = []
    for item in items:
        body = f"{item.title}\n{item.content[: scoring.SCAN_CHARS]}".lower()
        hits = sum(1 for w in words if w in body)
        if hits >= need:
            scored.append((hits, item.credibility_score or 0, item.seq, item.id))
    scored.sort(reverse=True)
    return [row[3] for row in scored[:k]]


def _matching_cells(text: str, cells: list[dict[str, Any]], statuses: tuple[str, ...]):
    out = []
    for cell in cells:
        if cell["capabilityStatus"] not in statuses:
            continue
        pattern = scoring.matcher(
            scoring.keywords_for({"id": cell["categoryId"], "name": cell["categoryName"]})
        )
        if pattern is not None and pattern.search(text):
            out.append(cell)
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


def _response(
    text: str, cells: list[dict[str, Any]], product: Offering, competitor_name: str
) -> tuple[str, list[str]]:
    wins = _matching_cells(text, cells, ("SUPERIOR", "MATCH"))
    if wins:
        cell = wins[0]
        verb = "leads" if cell["capabilityStatus"] == "SUPERIOR" else "matches them"
        detail = "; ".join(cell["summary"][:2])
        return (
            f"On {cell['categoryName']}, {product.name} {verb}: {detail}",
            list(cell["evidenceIds"]),
        )
    props = [p for p in product.value_props or [] if _words(p) & _words(text)]
    if props:
        return f"{product.name}: {props[0]}", []
    superior = [c for c in cells if c["capabilityStatus"] == "SUPERIOR"]
    if superior:
        cell = superior[0]
        return (
            f"Acknowledge it, then move to {cell['categoryName']}, where {product.name} "
            f"is stronger than {competitor_name}: {'; '.join(cell['summary'][:1])}",
            list(cell["evidenceIds"]),
        )
    return (f"Acknowledge it and ask what the prospect weighs most against {product.name}.", [])


def generate_content(
    workspace_id: str,
    competitor: Competitor,
    product: Offering,
    mode: str,
    cells: list[dict[str, Any]],
    intel: list[IntelItem],
) -> dict[str, Any]:
    """The card's ``content`` (see the module docstring); evidence ids all in ``intel``."""
    known = {i.id for i in intel}

    def ev(ids) -> list[str]:
        return [i for i in dict.fromkeys(ids) if i in known]

    name = competitor.name
    wins = [c for c in cells if c["capabilityStatus"] == "SUPERIOR"]
    losses = [c for c in cells if c["capabilityStatus"] == "INFERIOR"]
    wins.sort(key=lambda c: -len(ev(c["evidenceIds"])))
    losses.sort(key=lambda c: -len(ev(c["evidenceIds"])))

    def reasons(matched: list[dict], stronger: str, traits: list[str], trait: str) -> list:
        """The ``matched`` cells, then the competitor's listed ``traits`` that some intel
        supports: the items of whyWeWin or whyWeLose."""
        items = [
            {
                "title": f"{c['categoryName']}: {stronger} is stronger",
                "description": "; ".join(c["summary"][:3]),
                "evidenceIds": ev(c["evidenceIds"]),
            }
            for c in matched
        ]
        for text in traits or []:
            ids = ev(find_evidence(text, intel))
            if ids:
                items.append({"title": f"{name} {trait}", "description": text, "evidenceIds": ids})
        return items

    why_win = reasons(wins, product.name, competitor.company_weaknesses, "weakness")
    why_lose = reasons(losses, name, competitor.company_strengths, "strength")

    objections = []
    for argument, count in _lost_arguments(workspace_id, competitor.id):
        response, ids = _response(argument, cells, product, name)
        deals = "deal" if count == 1 else "deals"
        objections.append(
            {
                "objection": f"{argument} (reason in {count} lost {deals} to {name})",
                "response": response,
                "evidenceIds": ev(ids + find_evidence(argument, intel)),
            }
        )
    claims = []
    for claim in competitor.key_messaging or []:
        response, ids = _response(claim, cells, product, name)
        claims.append(
            {
                "objection": f'{name} says: "{claim}"',
                "response": response,
                "evidenceIds": ev(find_evidence(claim, intel) + ids),
            }
        )
    objections = claims + objections if mode == "DEFENSE" else objections + claims

    value_points = []
    for prop in product.value_props or []:
        hit = _matching_cells(prop, cells, ("SUPERIOR",))
        if hit:
            value_points.append(
                {
                    "title": prop,
                    "description": f"Where {name} falls short: {'; '.join(hit[0]['summary'][:2])}",
                    "evidenceIds": ev(hit[0]["evidenceIds"]),
                }
            )
    weakness_points = [
        {
            "title": f"Probe: {weakness}",
            "description": f"Ask how {name} handles this; {product.name} does not share it.",
            "evidenceIds": ev(find_evidence(weakness, intel)),
        }
        for weakness in competitor.company_weaknesses or []
    ]
    defense_points = [
        {
            "title": f"Answer: {c['objection']}",
            "description": c["response"],
            "evidenceIds": c["evidenceIds"],
        }
        for c in claims
    ] + [
        {
            "title": f"Parity on {c['categoryName']}",
            "description": "; ".join(c["summary"][:2]),
            "evidenceIds": ev(c["evidenceIds"]),
        }
        for c in cells
        if c["capabilityStatus"] == "MATCH" and ev(c["evidenceIds"])
    ]
    if mode == "ATTACK":
        talking = value_points + weakness_points
        landmines = [
            f"Ask {name} to demonstrate {c['categoryName'].lower()} live: "
            f"{'; '.join(c['summary'][:1])}"
            for c in wins
        ] + [f"Ask {name} how they address: {w}" for w in competitor.company_weaknesses or []]
        kill_shot = (
            f"{product.name} beats {name} on {wins[0]['categoryName']}: "
            f"{'; '.join(wins[0]['summary'][:2])}"
            if wins
            else ""
        )
    else:
        talking = defense_points + value_points
        landmines = [
            f"{name} will push {c['categoryName'].lower()}; defuse it by reframing "
            f"around {product.name}'s strengths before they raise it"
            for c in losses
        ] + [
            f'{name} will claim "{claim}"; ask for proof and references'
            for claim in competitor.key_messaging or []
        ]
        kill_shot = (
            f'When {name} says "{claims[0]["objection"].split(": ", 1)[-1].strip(chr(34))}", '
            f"answer: {claims[0]['response']}"
            if claims
            else (
                f"When {name} leads with {losses[0]['categoryName']}, move the conversation "
                f"to where {product.name} wins"
                if losses
                else ""
            )
        )

    pricing_wedge, pricing_ids = _pricing(competitor, cells, intel, product)
    evidence_by_item = {"pricingWedge": ev(pricing_ids)}
    return {
        "whyWeWin": why_win[:MAX_ITEMS],
        "whyWeLose": why_lose[:MAX_ITEMS],
        "objections": objections[:MAX_ITEMS],
        "talkingPoints": talking[:MAX_ITEMS],
        "killShot": kill_shot,
        "landmines": landmines[:MAX_ITEMS],
        "pricingWedge": pricing_wedge,
        "pricingEvidenceIds": evidence_by_item["pricingWedge"],
        "killShotEvidenceIds": ev(
            (wins[0]["evidenceIds"] if mode == "ATTACK" and wins else [])
            + (claims[0]["evidenceIds"] if mode == "DEFENSE" and claims else [])
        ),
        "profile": _profiles(workspace_id, competitor),
    }


def _pricing(competitor, cells, intel, product) -> tuple[str, list[str]]:
    quotes = []
    for item in intel:
        found = scoring.snippet(item.content or "", PRICING) if PRICING else None
        if found is not None:
            quotes.append((item.credibility_score or 0, item.seq, item.id, found[0]))
    quotes.sort(reverse=True)
    pricing_cells = _matching_cells("pricing price", cells, ("SUPERIOR", "MATCH", "INFERIOR"))
    parts, ids = [], []
    if quotes:
        parts.append(f'{competitor.name} pricing: "{quotes[0][3]}"')
        ids.append(quotes[0][2])
    if pricing_cells:
        cell = pricing_cells[0]
        parts.append(f"Pricing & packaging vs {product.name}: {cell['capabilityStatus']}")
        ids.extend(cell["evidenceIds"])
    links = (competitor.company_profile or {}).get("pricingLinks") or []
    if links and isinstance(links[0], dict) and links[0].get("url"):
        parts.append(f"Their pricing page: {links[0]['url']}")
    return " — ".join(parts), ids


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
