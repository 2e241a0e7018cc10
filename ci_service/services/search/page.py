"""The search page's results: grouped by kind, ranked by how well they match, highlighted.

REST ``GET /api/search`` keeps the contract's plain substring rule (services/search/unified.py);
this module only reads that service (and the intel semantic search of the ``search_intel``
tool) and re-ranks for people reading the page:

* **word** matches: the query occurs as a whole word or phrase ("SSO", not "proceSSOr"), or
  one of its synonyms does (the feature synonym table: "SSO" also finds "single sign-on"
  and "SAML"). Synonym phrases are looked up with the same search service;
* **meaning** matches: intel items the semantic search ranks at ``SEMANTIC_MIN`` or above
  that do not contain the query at all (a related wording);
* **prefix** matches: the query starts a word ("glob" typed for "Globex"), after those;
* **partial** matches: the query only occurs inside a longer word. They go in a separate,
  last group, "Partial word matches", so "SSO" never puts "processor" above "SSO".

Every result says which competitor it belongs to, and its text is entity-decoded
("&amp;" -> "&") and cut to a snippet around the first match. Highlighting escapes the
text first and wraps the matched spans in ``<mark>`` (``markupsafe``), so crawled text is
never markup.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup, escape

from ci_service.intel.feeds import decode_entities
from ci_service.services.analysis.feature_terms import SYNONYMS, concepts
from ci_service.services.search import intel_search
from ci_service.services.search import unified as search_service
from ci_service.store.analysis import Battlecard
from ci_service.store.competitors import Competitor
from ci_service.store.intel import IntelItem

log = logging.getLogger(__name__)

SEMANTIC_LIMIT = 10
# search_intel's score of an item without the query in it is 0.5 * (0.65 cos + 0.35 bm25):
# 0.25 keeps items close in meaning and drops the long tail of weak neighbours.
SEMANTIC_MIN = 0.25
MAX_SYNONYM_SEARCHES = 8
SNIPPET = 180
KINDS = (("competitor", "Competitors"), ("battlecard", "Battlecards"), ("intel", "Intel"))
PARTIAL_LABEL = "Partial word matches"
TIERS = {"word": 0, "meaning": 1, "prefix": 2}


@dataclass
class Result:
    kind: str
    id: str
    url: str
    title: Markup
    snippet: Markup
    match: str  # "word", "meaning", "prefix" (starts a word) or "partial"
    competitor: dict[str, str] | None = None
    score: float = 0.0


@dataclass
class Page:
    query: str
    groups: list[tuple[str, list[Result]]] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(len(results) for _, results in self.groups)


def _phrase_pattern(term: str) -> re.Pattern[str]:
    """``term`` as a whole word or phrase; a space in it also matches a hyphen
    ("single sign on" finds "single sign-on")."""
    words = [w for w in re.split(r"[\s\-]+", term.strip()) if w]
    body = r"[\s\-]+".join(re.escape(w) for w in words)
    return re.compile(rf"(?<!\w){body}(?!\w)", re.IGNORECASE)


def synonyms(needle: str) -> list[str]:
    """The other names of what ``needle`` names, when it names exactly one concept of the
    synonym table ("SSO" -> "single sign on", "saml", ...); else none."""
    found = concepts(needle)
    if len(found) != 1:
        return []
    (concept,) = found
    folded = " ".join(re.split(r"[\s\-]+", needle.casefold()))
    return [p for p in SYNONYMS.get(concept, ()) if p != folded]


def _spans(text: str, patterns: list[re.Pattern[str]]) -> list[tuple[int, int]]:
    spans = sorted(m.span() for p in patterns for m in p.finditer(text) if m.end() > m.start())
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def highlight(text: str, patterns: list[re.Pattern[str]]) -> Markup:
    """``text`` escaped, with every match of ``patterns`` in ``<mark>``: the pieces are
    escaped one by one and only our own tags are added, so nothing in ``text`` is markup."""
    out: list[str] = []
    at = 0
    for start, end in _spans(text, patterns):
        out.append(str(escape(text[at:start])))
        out.append(f"<mark>{escape(text[start:end])}</mark>")
        at = end
    out.append(str(escape(text[at:])))
    return Markup("".join(out))


def clean(text: str | None) -> str:
    """Entity-decoded text on one line."""
    return " ".join(decode_entities(text or "").split())


def snippet(text: str, patterns: list[re.Pattern[str]], width: int = SNIPPET) -> str:
    """About ``width`` characters of ``text`` around its first match, cut between words."""
    if len(text) <= width:
        return text
    spans = _spans(text, patterns)
    at = spans[0][0] if spans else 0
    start = max(0, at - width // 3)
    if start:
        space = text.find(" ", start)
        start = space + 1 if 0 <= space < at else start
    end = min(len(text), start + width)
    if end < len(text):
        space = text.rfind(" ", start, end)
        end = space if space > (spans[0][1] if spans else start) else end
    return ("… " if start else "") + text[start:end].strip() + (" …" if end < len(text) else "")


def _contains(text: str, needle: str) -> bool:
    return needle.casefold() in text.casefold()


def _semantic(workspace_id: str, needle: str) -> list[dict[str, Any]]:
    try:
        return intel_search.search_intel(workspace_id, needle, limit=SEMANTIC_LIMIT)
    except Exception:  # an embedding provider that is down: the page still shows the rest
        log.warning("semantic search failed for the search page", exc_info=True)
        return []


def _candidates(workspace_id: str, needle: str, others: list[str]) -> dict[tuple, dict]:
    """(kind, id) -> a /api/search result, for the query and for its synonyms."""
    found: dict[tuple, dict] = {}
    queries = [needle]
    for term in others:
        queries.append(term)
        if " " in term:  # "single sign on" is usually written "single sign-on"
            head, _, last = term.rpartition(" ")
            queries.append(f"{head}-{last}")
    for query in queries[: 1 + MAX_SYNONYM_SEARCHES]:
        if len(query) < search_service.MIN_QUERY:
            continue
        for result in search_service.search(workspace_id, query):
            found.setdefault((result["type"], result["id"]), result)
    return found


def build(workspace_id: str, q: Any) -> Page:
    """The search page for ``q``; raises ``ValidationFailed`` as /api/search does for a
    query shorter than 2 characters."""
    needle = search_service.check_query(q)
    others = synonyms(needle)
    word_patterns = [_phrase_pattern(needle)] + [_phrase_pattern(t) for t in others]
    prefix_pattern = [re.compile(rf"(?<!\w){re.escape(needle)}", re.IGNORECASE)]
    partial_pattern = [re.compile(re.escape(needle), re.IGNORECASE)]
    found = _candidates(workspace_id, needle, others)
    scores: dict[str, float] = {}
    for item in _semantic(workspace_id, needle):
        scores[item["id"]] = item["relevanceScore"]
        found.setdefault(("intel", item["id"]), {"type": "intel", "id": item["id"]})

    texts, owners = _texts(workspace_id, found)
    names = _competitor_names(workspace_id, set(owners.values()))
    by_kind: dict[str, list[Result]] = {kind: [] for kind, _ in KINDS}
    partial: list[Result] = []
    for (kind, record_id), result in found.items():
        if (kind, record_id) not in texts:
            continue  # deleted since the search, or another workspace's (never shown)
        title, body = texts[(kind, record_id)]
        if not title:
            title = clean(result.get("title")) or snippet(body, partial_pattern, 80)
        whole = f"{title}\n{body}"
        score = scores.get(record_id, 0.0) if kind == "intel" else 0.0
        if any(p.search(whole) for p in word_patterns):
            match, patterns = "word", word_patterns
        elif kind == "intel" and score >= SEMANTIC_MIN and not _contains(whole, needle):
            match, patterns = "meaning", word_patterns
        elif any(p.search(whole) for p in prefix_pattern):
            match, patterns = "prefix", prefix_pattern  # "glob" typed for "Globex"
        elif _contains(whole, needle):
            match, patterns = "partial", partial_pattern
        else:
            continue  # a synonym search's hit on part of a word, or a weak neighbour
        owner = owners.get((kind, record_id))
        entry = Result(
            kind=kind,
            id=record_id,
            url=result.get("url") or f"/intel/{record_id}",  # a semantic-only intel item
            title=highlight(title, patterns),
            snippet=highlight(snippet(body, patterns), patterns) if body else Markup(""),
            match=match,
            competitor={"name": names[owner], "url": f"/competitors/{owner}"}
            if owner in names and kind != "competitor"
            else None,
            score=score,
        )
        (partial if match == "partial" else by_kind[kind]).append(entry)
    page = Page(query=needle)
    for kind, label in KINDS:
        # whole words, then by meaning (best first), then word starts; else the service's order
        rows = sorted(by_kind[kind], key=lambda r: (TIERS[r.match], -r.score))
        if rows:
            page.groups.append((label, rows))
    if partial:
        page.groups.append((PARTIAL_LABEL, partial))
    return page


def _texts(
    workspace_id: str, found: dict[tuple, dict]
) -> tuple[dict[tuple, tuple[str, str]], dict[tuple, str]]:
    """(kind, id) -> (title, full text) decoded, and (kind, id) -> competitor id: one
    query per kind, by id within the workspace."""
    ids = {kind: [i for k, i in found if k == kind] for kind, _ in KINDS}
    texts: dict[tuple, tuple[str, str]] = {}
    owners: dict[tuple, str] = {}
    if ids["competitor"]:
        rows = Competitor.select(Competitor.id, Competitor.name, Competitor.website_url).where(
            Competitor.workspace == workspace_id, Competitor.id.in_(ids["competitor"])
        )
        for cid, name, website in rows.tuples():
            texts[("competitor", cid)] = (clean(name), website or "")
            owners[("competitor", cid)] = cid
    if ids["battlecard"]:
        rows = Battlecard.select(
            Battlecard.id, Battlecard.competitor, Battlecard.search_text
        ).where(Battlecard.workspace == workspace_id, Battlecard.id.in_(ids["battlecard"]))
        for bid, cid, text in rows.tuples():
            texts[("battlecard", bid)] = ("", clean(text))
            owners[("battlecard", bid)] = cid
    if ids["intel"]:
        rows = IntelItem.select(
            IntelItem.id, IntelItem.competitor, IntelItem.title, IntelItem.content
        ).where(IntelItem.workspace == workspace_id, IntelItem.id.in_(ids["intel"]))
        for item_id, cid, title, content in rows.tuples():
            texts[("intel", item_id)] = (clean(title), clean(content))
            if cid:
                owners[("intel", item_id)] = cid
    return texts, owners


def _competitor_names(workspace_id: str, ids: set[str]) -> dict[str, str]:
    if not ids:
        return {}
    rows = Competitor.select(Competitor.id, Competitor.name).where(
        Competitor.workspace == workspace_id, Competitor.id.in_(list(ids))
    )
    return {cid: clean(name) or "(unnamed)" for cid, name in rows.tuples()}
