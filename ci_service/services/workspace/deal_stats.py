"""Win/loss statistics over a workspace's deals (the deals page).

Rules (every deal of the workspace, not one page of the list):

- Overall: ``winRate = won / (won + lost)``; None when there is no deal.
- Per competitor, over the deals that competitor was in (issue 28: a deal's
  ``competitorIds``, beyond the contract, lists every competitor in it, a LOST deal's
  ``competitorId`` first):

  - A WON deal counts as won against each competitor in its ``competitorIds``. A WON deal
    without any (recorded before the list existed, or left empty) keeps the older rule: won
    against a competitor when one of its arguments names it (its name as a whole word,
    ignoring case; names shorter than 2 characters are never matched).
  - A LOST deal counts as lost against its ``competitorId`` AND against every other
    competitor in its ``competitorIds``: they were in the deal we lost, so the figure is
    our win rate in the deals each competitor was in, the same question for WON and LOST.
    (The loss reasons below still name only the competitor it was lost to.)

  ``winRate = won / (won + lost)`` over those deals; competitors with no such deal are left
  out. Sorted by number of deals, then name.
- Top loss reasons: the arguments of LOST deals, compared ignoring case, spacing and
  trailing punctuation, most frequent first (ties: the reason seen first, oldest deal
  first); each with its count and the competitors it was lost to, shown with the wording
  first seen.
"""

from __future__ import annotations

import re
from typing import Any

from ci_service.store.competitors import Competitor
from ci_service.store.resources import Deal

TOP_REASONS = 10


def _rate(won: int, lost: int) -> float | None:
    return won / (won + lost) if won + lost else None


DealRow = tuple[str, str | None, list[str], list[str]]  # outcome, competitorId, args, in deal


def _deals(workspace_id: str) -> list[DealRow]:
    query = (
        Deal.select(Deal.outcome, Deal.competitor, Deal.arguments, Deal.competitor_ids)
        .where(Deal.workspace == workspace_id)
        .order_by(Deal.created_at, Deal.id)
    )
    rows = []
    for outcome, cid, args, listed in query.tuples():
        listed = list(listed or [])
        if outcome == "LOST" and cid and cid not in listed:
            listed.insert(0, cid)
        rows.append((outcome, cid, list(args or []), listed))
    return rows


def _name_pattern(name: str) -> re.Pattern[str] | None:
    name = " ".join(name.split())
    if len(name) < 2:
        return None
    return re.compile(r"(?<!\w)" + re.escape(name) + r"(?!\w)", re.IGNORECASE)


def reason_key(text: str) -> str:
    return " ".join(str(text).split()).strip(" .;:!,").casefold()


def deal_stats(workspace_id: str) -> dict[str, Any]:
    """``{overall: {won, lost, total, winRate}, competitors: [{competitorId, name, won,
    lost, total, winRate}], lossReasons: [{reason, count, competitorIds}]}``."""
    deals = _deals(workspace_id)
    competitors = list(
        Competitor.select(Competitor.id, Competitor.name)
        .where(Competitor.workspace == workspace_id)
        .order_by(Competitor.created_at, Competitor.id)
        .tuples()
    )
    won = sum(1 for deal in deals if deal[0] == "WON")
    lost = sum(1 for deal in deals if deal[0] == "LOST")
    rows = []
    for competitor_id, name in competitors:
        pattern = _name_pattern(name or "")
        lost_to = sum(1 for o, _, _, listed in deals if o == "LOST" and competitor_id in listed)
        won_against = sum(
            1
            for o, _, args, listed in deals
            if o == "WON" and _won_against(competitor_id, pattern, args, listed)
        )
        if won_against + lost_to:
            rows.append(
                {
                    "competitorId": competitor_id,
                    "name": name,
                    "won": won_against,
                    "lost": lost_to,
                    "total": won_against + lost_to,
                    "winRate": _rate(won_against, lost_to),
                }
            )
    rows.sort(key=lambda r: (-r["total"], r["name"].casefold()))
    return {
        "overall": {"won": won, "lost": lost, "total": won + lost, "winRate": _rate(won, lost)},
        "competitors": rows,
        "lossReasons": loss_reasons(deals),
    }


def _won_against(
    competitor_id: str, pattern: re.Pattern[str] | None, arguments: list[str], listed: list[str]
) -> bool:
    if listed:
        return competitor_id in listed
    return pattern is not None and any(pattern.search(a) for a in arguments)


def loss_reasons(deals: list[DealRow], limit: int = TOP_REASONS) -> list[dict[str, Any]]:
    counted: dict[str, dict[str, Any]] = {}
    for outcome, competitor_id, arguments, _ in deals:
        if outcome != "LOST":
            continue
        seen: set[str] = set()  # a deal counts once per reason
        for argument in arguments:
            key = reason_key(argument)
            if not key or key in seen:
                continue
            seen.add(key)
            entry = counted.setdefault(
                key,
                {"reason": " ".join(argument.split()), "count": 0, "competitorIds": []},
            )
            entry["count"] += 1
            if competitor_id and competitor_id not in entry["competitorIds"]:
                entry["competitorIds"].append(competitor_id)
    ranked = sorted(counted.values(), key=lambda e: -e["count"])  # stable: first seen first
    return ranked[:limit]
