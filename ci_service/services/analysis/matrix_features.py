"""A matrix cell by meaning: our features in a category against theirs.

For one category (its keywords: ``scoring.keywords_for``), our features and their named
features (from capability pages, ``feature_presence.Reading``) that fall in it are
compared by meaning:

- **matched**: a feature of ours they have (``presence`` HAS), with what of theirs
  matched it and its quote;
- **soon**: a feature of ours they mark coming soon, beta or on the roadmap;
- **oursOnly**: a feature of ours they lack (their site says so, or a complete reading
  found nothing near it: the ``read`` note says what was read);
- **theirsOnly**: a named feature of theirs that no feature of ours may be.

A feature of ours they may or may not have (UNSURE) is in no list. Status (SUPERIOR = ours
is better):

==========================================  =============================================
they have nothing in the category           UNKNOWN; SUPERIOR only when their own site
(no matched, soon or theirsOnly feature)    says they lack a feature of ours in it
ours alone more than theirs alone           SUPERIOR
theirs alone more than ours alone           INFERIOR (UNKNOWN when our product lists no
                                            features at all)
as many                                     MATCH; a listed weakness of theirs in the
                                            category tips it to SUPERIOR, a listed
                                            strength to INFERIOR
==========================================  =============================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ci_service.services.analysis import scoring
from ci_service.services.analysis.claims import listing
from ci_service.services.analysis.feature_presence import (
    HAS,
    LACKS,
    SOON_STATE,
    Presence,
    Reading,
    they_offer_ours,
)

MAX_LISTED = 8
MAX_EVIDENCE = 8


@dataclass
class Comparison:
    matched: list[dict[str, Any]] = field(default_factory=list)
    soon: list[dict[str, Any]] = field(default_factory=list)
    ours_only: list[dict[str, Any]] = field(default_factory=list)
    theirs_only: list[dict[str, Any]] = field(default_factory=list)
    denied: bool = False  # an ours-only feature their own site says they lack
    pages: list[str] = field(default_factory=list)  # pages read for absence claims

    def features(self) -> dict[str, Any]:
        return {
            "matched": self.matched[:MAX_LISTED],
            "theirsOnly": self.theirs_only[:MAX_LISTED],
            "oursOnly": self.ours_only[:MAX_LISTED],
            "soon": self.soon[:MAX_LISTED],
        }

    def evidence_ids(self) -> list[str]:
        ids = [
            q["evidenceId"]
            for rows in (self.matched, self.soon, self.ours_only, self.theirs_only)
            for row in rows
            for q in row.get("quotes") or []
        ]
        return list(dict.fromkeys(ids + self.pages))[:MAX_EVIDENCE]


def _name(item: dict[str, Any]) -> str:
    return str(item.get("name") or "").strip()


def compare(
    category: dict[str, str],
    our_items: list[dict[str, Any]],
    presences: dict[str, Presence],
    reading: Reading,
) -> Comparison:
    """Our features of ``category`` against theirs (``presences``: our feature name ->
    its presence at the competitor, computed once per product)."""
    out = Comparison()
    pattern = scoring.matcher(scoring.keywords_for(category))
    if pattern is None:
        return out
    ours = [i for i in our_items if _name(i) and pattern.search(scoring.item_text(i))]
    matched_theirs: set[str] = set()
    for item in ours:
        name = _name(item)
        found = presences.get(name)
        if found is None:
            continue
        if found.state in (HAS, SOON_STATE):
            first = found.matches[0]
            matched_theirs.add(first.label.casefold())
            row = {"ours": name, "theirs": first.label[:200], "quotes": first.citations[:1]}
            (out.matched if found.state == HAS else out.soon).append(row)
        elif found.state == LACKS and found.matches:
            out.denied = True
            out.ours_only.append(
                {
                    "name": name,
                    "read": "their site says they do not offer it",
                    "quotes": found.matches[0].citations[:1],
                }
            )
        elif found.state == LACKS:
            out.ours_only.append({"name": name, "read": found.read, "quotes": []})
            out.pages.extend(p.id for p in found.pages[:2])
    seen: set[str] = set()
    for statement in reading.statements:
        label = statement.label.strip()
        key = label.casefold()
        if statement.source != "feature" or statement.soon or key in seen:
            continue
        seen.add(key)
        if key in matched_theirs or not pattern.search(statement.text):
            continue
        description = statement.text[len(label) :].strip()
        if they_offer_ours(label, description, our_items):
            continue
        out.theirs_only.append({"name": label[:200], "quotes": statement.citations[:1]})
    return out


def status(comparison: Comparison, *, our_features: bool, strong: bool, weak: bool) -> str:
    """The cell's status from a comparison (table of the module docstring)."""
    theirs = comparison.matched or comparison.soon or comparison.theirs_only
    if not theirs:
        return "SUPERIOR" if comparison.denied else "UNKNOWN"
    mine, them = len(comparison.ours_only), len(comparison.theirs_only)
    if mine > them:
        return "SUPERIOR"
    if them > mine:
        return "INFERIOR" if our_features else "UNKNOWN"
    if weak and not strong:
        return "SUPERIOR"
    if strong and not weak:
        return "INFERIOR"
    return "MATCH"


def summary(comparison: Comparison, competitor: str, product: str) -> list[str]:
    """The cell's bullets: what matched, what is theirs alone, ours alone, coming soon."""
    lines = []
    if comparison.matched:
        pairs = [f"{m['ours']} ↔ {m['theirs'][:60]}" for m in comparison.matched]
        lines.append("Both: " + listing(pairs, 3))
    if comparison.theirs_only:
        lines.append(f"Only {competitor}: " + listing([t["name"] for t in comparison.theirs_only]))
    for row in comparison.ours_only[:3]:
        lines.append(f"Only {product}: {row['name']} ({row['read']})")
    if comparison.soon:
        names = [f"{s['ours']} ({s['theirs'][:60]})" for s in comparison.soon]
        lines.append(f"Coming soon at {competitor}: " + listing(names, 3))
    return lines
