"""Win/loss statistics over a workspace's deals (the deals page).

Rules (every deal of the workspace, not one page of the list):

- Overall: ``winRate = won / (won + lost)``; None when there is no deal.
- Per competitor: a LOST deal names the competitor it was lost to (``competitorId``); a WON
  deal names none (the API forbids it), so a WON deal counts as won against a competitor
  when one of its arguments names that competitor (its name as a whole word, ignoring
  case; names shorter than 2 characters are never matched). ``winRate = won / (won +
  lost)`` over those deals; competitors with no such deal are left out. Sorted by number of
  deals, then name.
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


def _deals(workspace_id: str) -> list[tuple[str, str | None, list[str]]]:
    query = (
        Deal.select(Deal.outcome, Deal.competitor, Deal.arguments)
        .where(Deal.workspace == workspace_id)
        .order_by(Deal.created_at, Deal.id)
    )
    return [(outcome, cid, list(args or [])) for outcome, cid, args in query.tuples()]


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
    won = sum(1 for outcome, _, _ in deals if outcome == "WON")
    lost = sum(1 for outcome, _, _ in deals if outcome == "LOST")
    rows = []
    for competitor_id, name in competitors:
        pattern = _name_pattern(name or "")
        lost_to = sum(1 for o, cid, _ in deals if o == "LOST" and cid == competitor_id)
        won_against = 0
        if pattern is not None:
            won_against = sum(
                1 for o, _, args in deals if o == "WON" and any(pattern.search(a) for a in args)
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


def loss_reasons(
    deals: list[tuple[str, str | None, list[str]]], limit: int = TOP_REASONS
) -> list[dict[str, Any]]:
    counted: dict[str, dict[str, Any]] = {}
    for outcome, competitor_id, arguments in deals:
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
