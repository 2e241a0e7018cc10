"""Whether a competitor has one of our features: HAS, LACKS, SOON or UNSURE, by meaning.

Everything stored for the competitor is read once into a :class:`Reading`:

- *statements* that can show a capability: their offerings' features, capabilities and
  integrations, their price plans and plan features, and the sentences of their
  capability pages (``page_kind_names.CAPABILITY_KINDS``: home, product, pricing, customer and
  unclassified pages, plus documents and notes without a page kind). A statement's quote
  must come from such a page: a blog post, a person's bio or a legal page never shows a
  capability;
- the concepts of *every* page of theirs (blog posts included), which can only make an
  absence claim unsafe. A concept on ``DOMAIN_SHARE`` of their pages names their market
  ("quiz" on a quiz maker's site): it is weak in every feature name, never decisive.

:func:`presence` decides, for one feature name (``feature_terms`` explains concepts):

========  =================================================================================
HAS       a statement names every strong concept of the feature (a page sentence also one
          of its weak concepts: "PostgreSQL" alone is not a "PostgreSQL connector"), is
          not negated and not marked coming soon
SOON      the only such statements say "coming soon", "beta", "roadmap"... (or a plan
          flagged ``comingSoon``): neither has nor lacks
LACKS     a capability sentence says they do not offer it ("does not support SAML"); or,
          only when the reading is complete (at least one product page, or the home page
          of a site without one, and one pricing page read), no page of theirs names any
          strong concept of it and no capability statement is near its name in meaning
          (embedding cosine under ``NEAR``, their market's words left out)
UNSURE    anything else: a partial mention, a near statement, a reading too thin, or
          statements that both affirm and deny it. No claim is made.
========  =================================================================================
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import Any

from ci_service.pipeline.evidence import fragment_url, quote_in, sentences
from ci_service.pipeline.page_kind_names import CAPABILITY_KINDS
from ci_service.services.analysis.feature_terms import (
    SOON,
    Terms,
    concepts,
    concepts_of_words,
    covers,
    feature_terms,
    tokens,
    touches,
)

HAS, LACKS, SOON_STATE, UNSURE = "HAS", "LACKS", "SOON", "UNSURE"
# Cosine at or above which a capability statement is "near" a feature in meaning (the
# shipped static model, ``meaning_model``, puts "mobile apps" and "responsive web apps" at
# 0.62, unrelated product lines under 0.2): near enough that an absence claim would be a
# guess.
NEAR = 0.6
MAX_SENTENCE = 300
# "does not support X", "X is not available", "lacks X": a statement of absence. Looser
# negations ("without writing code") are not.
DENIAL = re.compile(
    r"\b(?:does not|doesn't|do not|don't|cannot|can't|will not|won't)\s+(?:yet\s+)?"
    r"(?:support|offer|include|provide|have|allow)\b|\blacks?\b|\bunsupported\b|"
    r"\bnot\s+(?:yet\s+)?(?:supported|available|included|offered|possible)\b",
    re.IGNORECASE,
)
_ROADMAP = re.compile(r"\broad\s*map\b", re.IGNORECASE)


@dataclass
class Statement:
    """One thing of theirs that can show a capability."""

    label: str  # their feature's name, the plan's name, or the sentence
    text: str  # what is matched (name and description, or the sentence)
    citations: list[dict[str, Any]]  # [{evidenceId, quote, url}], each on a capability page
    source: str  # "feature", "plan" or "page"
    soon: bool = False
    denied: bool = False

    @cached_property
    def concepts(self) -> frozenset[str]:
        return concepts(self.text)


@dataclass
class Presence:
    state: str
    terms: Terms
    matches: list[Statement] = field(default_factory=list)
    read: str = ""  # for LACKS by absence: what was read
    pages: list[Any] = field(default_factory=list)  # for LACKS by absence: pages read


def meaning_model():
    """The embedding model ``NEAR`` was set with: the static model shipped in the package,
    whatever search is configured to use (a remote model's cosines sit on another scale,
    and a card must not send every sentence of a competitor's site over the network)."""
    from ci_service.embeddings import EmbeddingConfig, get_provider

    return get_provider(EmbeddingConfig(provider="static"))


def held(citations: list[dict[str, Any]] | None, known: dict[str, Any]) -> list[tuple]:
    """(citation, item, quote) of each citation whose item is in ``known`` and holds its
    quote (whitespace collapsed)."""
    out = []
    for citation in citations or []:
        item = known.get(str(citation.get("evidenceId")))
        quote = " ".join(str(citation.get("quote", "")).split())
        if item is not None and quote_in(item.content, quote):
            out.append((citation, item, quote))
    return out


def cite(item: Any, sentence: str) -> dict[str, Any]:
    return {"evidenceId": item.id, "quote": sentence, "url": fragment_url(item.url or "", sentence)}


def is_capability_page(item: Any) -> bool:
    """A page that can show what they offer (not a post, bio, legal or careers page)."""
    if getattr(item, "source_type", None) == "NEWS":
        return False
    kind = getattr(item, "page_kind", None)
    return kind is None or kind in CAPABILITY_KINDS


class Reading:
    """What was read about one competitor (see the module docstring)."""

    def __init__(self, offerings: list[Any], intel: list[Any]):
        self.intel = intel
        self.known = {i.id: i for i in intel}
        self.statements: list[Statement] = []
        # (evidence id, plan line) of every plan statement: the page's own copy of a plan
        # line is that plan's ("Coming soon" is on the plan's card, not on the line).
        self.plan_lines: set[tuple[str, str]] = set()
        for offering in offerings:
            self._offering(offering)
        for item in intel:
            if is_capability_page(item):
                self._page(item)
        self.everything = [concepts_of_words(tokens(f"{i.title}\n{i.content}")) for i in intel]
        for offering in offerings:
            self.everything.append(
                concepts(" ".join(f.get("name", "") for f in _features(offering)))
            )
        kinds = [getattr(i, "page_kind", None) for i in intel]
        self.product_pages = [i for i, k in zip(intel, kinds, strict=True) if k == "product"]
        # A one-product site describes its product on the home page.
        self.product_pages = self.product_pages or [
            i for i, k in zip(intel, kinds, strict=True) if k == "home"
        ]
        self.pricing_pages = [i for i, k in zip(intel, kinds, strict=True) if k == "pricing"]
        self.pages_read = sum(1 for i in intel if getattr(i, "source_type", "") == "WEB_PAGE")
        self.domain = _domain_words(self.everything)

    # -- statements ----------------------------------------------------------------------

    def valid(self, citations: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
        """Citations whose item is known, is a capability page and holds the quote."""
        return [
            cite(item, quote)
            for _, item, quote in held(citations, self.known)
            if is_capability_page(item)
        ]

    def _offering(self, offering: Any) -> None:
        for feature in _features(offering):
            name = str(feature.get("name") or "")
            cited = self.valid(feature.get("quotes"))
            if name and cited:
                text = f"{name} {feature.get('description') or ''}"
                soon = bool(SOON.search(text)) or any(SOON.search(c["quote"]) for c in cited)
                self.statements.append(Statement(name, text, cited, "feature", soon=soon))
        for plan in getattr(offering, "pricing", None) or []:
            cited = self.valid(plan.get("quotes"))
            if not cited or not plan.get("name"):
                continue
            soon = bool(plan.get("comingSoon")) or bool(SOON.search(str(plan.get("name"))))
            for text in [str(plan["name"])] + [str(f) for f in plan.get("features") or []]:
                self.statements.append(Statement(text, text, cited, "plan", soon=soon))
                self.plan_lines.update((c["evidenceId"], _line_key(text)) for c in cited)

    def _page(self, item: Any) -> None:
        roadmap = bool(_ROADMAP.search(item.title or "")) or "roadmap" in (item.url or "")
        lines = [line.strip() for line in (item.content or "").splitlines() if line.strip()]
        for index, line in enumerate(lines):
            # A table row's cell after the feature ("SSO" | "Coming soon") marks it too.
            after = lines[index + 1] if index + 1 < len(lines) else ""
            marked = len(after) <= 40 and bool(SOON.fullmatch(after.strip(" .!:()")))
            for sentence in sentences(line):
                if len(sentence) > MAX_SENTENCE or len(sentence) < 4:
                    continue
                if (item.id, _line_key(sentence)) in self.plan_lines:
                    continue
                self.statements.append(
                    Statement(
                        sentence,
                        sentence,
                        [cite(item, sentence)],
                        "page",
                        soon=roadmap or marked or bool(SOON.search(sentence)),
                        denied=bool(DENIAL.search(sentence)),
                    )
                )

    # -- what was read ---------------------------------------------------------------------

    @property
    def complete(self) -> bool:
        """Enough read for an absence claim: a product page and a pricing page at least."""
        return bool(self.product_pages) and bool(self.pricing_pages)

    def read_note(self) -> str:
        pages = "page" if self.pages_read == 1 else "pages"
        return f"not on their product or pricing pages, {self.pages_read} {pages} read"

    def mentions(self, terms: Terms) -> bool:
        """Whether any page or feature of theirs names a strong concept of ``terms``."""
        return any(touches(terms, found) for found in self.everything)

    @cached_property
    def _vectors(self):
        texts = [s.text for s in self.statements if s.source != "plan" or s.text == s.label]
        return texts, meaning_model().embed(texts) if texts else None

    def nearest(self, text: str) -> float:
        """The highest cosine between ``text`` and a capability statement (0 without)."""
        texts, vectors = self._vectors
        if vectors is None or not text.strip():
            return 0.0
        return float((vectors @ meaning_model().embed_query(text)).max())


DOMAIN_SHARE = 0.3
DOMAIN_MIN_PAGES = 5


def _domain_words(pages: list[frozenset[str]]) -> frozenset[str]:
    """Concepts on at least ``DOMAIN_SHARE`` of their pages ("quiz" on a quiz maker's
    site): they name the market, not a feature, so they never decide a match alone."""
    if len(pages) < DOMAIN_MIN_PAGES:
        return frozenset()
    counts: dict[str, int] = {}
    for found in pages:
        for concept in found:
            counts[concept] = counts.get(concept, 0) + 1
    return frozenset(c for c, n in counts.items() if n >= DOMAIN_SHARE * len(pages))


def _without(name: str, domain: frozenset[str]) -> str:
    """The feature's name minus their market's words: "quiz leaderboards" is near every
    sentence of a quiz maker's site by "quiz" alone. (The description is left out for the
    same reason: it is written in the market's words.)"""
    kept = [w for w in re.findall(r"[\w'-]+", name) if not concepts(w) <= domain]
    return " ".join(kept) or name


def _line_key(text: str) -> str:
    """A plan line as compared with a page line: letters and digits only ("✓ SSO")."""
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def _features(offering: Any) -> list[dict[str, Any]]:
    items = list(getattr(offering, "features", None) or [])
    items += list(getattr(offering, "capabilities", None) or [])
    return [i for i in items if isinstance(i, dict)]


def presence(name: str, description: str, reading: Reading) -> Presence:
    """Whether the competitor read in ``reading`` has our feature ``name`` (module
    docstring). HAS and SOON matches carry only quotes that name the feature."""
    terms = feature_terms(name)
    if terms.strong - reading.domain:
        terms = Terms(terms.strong - reading.domain, terms.weak | (terms.strong & reading.domain))
    if not terms.strong:
        return Presence(UNSURE, terms)
    have, soon, denied = [], [], []
    for statement in reading.statements:
        if not covers(terms, statement.concepts, need_weak=statement.source == "page"):
            continue
        supported = supporting(statement, terms, reading)
        if supported is None:
            continue
        if statement.denied:
            denied.append(supported)
        elif statement.soon:
            soon.append(supported)
        else:
            have.append(supported)
    if have and not denied:
        return Presence(HAS, terms, _ranked(have, terms))
    if soon and not have and not denied:
        return Presence(SOON_STATE, terms, _ranked(soon, terms))
    if denied and not have and not soon:
        return Presence(LACKS, terms, denied[:1])
    if have or soon or denied or not reading.complete or reading.mentions(terms):
        return Presence(UNSURE, terms)
    if reading.nearest(_without(name, reading.domain)) >= NEAR:
        return Presence(UNSURE, terms)
    pages = reading.product_pages[:3] + reading.pricing_pages[:2]
    return Presence(LACKS, terms, read=reading.read_note(), pages=pages)


def supporting(statement: Statement, terms: Terms, reading: Reading) -> Statement | None:
    """``statement`` with only the quotes that name the feature (a feature's stored quote
    may be its heading's neighbour: then the sentence of the same page that names it),
    or None when no quote does."""
    kept = [c for c in statement.citations if quote_names(c["quote"], terms)]
    if not kept:
        for citation in statement.citations:
            item = reading.known.get(citation["evidenceId"])
            sentence = _naming_sentence(item, terms) if item is not None else None
            if sentence:
                kept.append(cite(item, sentence))
                break
    return replace(statement, citations=kept) if kept else None


def quote_names(quote: str, terms: Terms) -> bool:
    """Whether a quote states the feature: it names every strong concept."""
    return covers(terms, concepts(quote), need_weak=False)


def _naming_sentence(item: Any, terms: Terms) -> str | None:
    for sentence in sentences(item.content or ""):
        if len(sentence) <= MAX_SENTENCE and quote_names(sentence, terms):
            return sentence
    return None


def _ranked(statements: list[Statement], terms: Terms) -> list[Statement]:
    """Those whose name says it ("PostgreSQL" rather than "Delay" described with the
    feature's word), then their named features and plans before page sentences, then
    shorter labels."""
    order = {"feature": 0, "plan": 1, "page": 2}

    def key(s: Statement) -> tuple[bool, int, int]:
        named = covers(terms, concepts(s.label), need_weak=False)
        return (not named, order[s.source], len(s.label))

    return sorted(statements, key=key)


def they_offer_ours(label: str, description: str, our_items: list[dict[str, Any]]) -> bool:
    """Whether one of our features may be their feature ``label``: a strong concept
    shared either way, or near in meaning. Then "we lack it" would be a guess."""
    theirs = feature_terms(label)
    if not theirs.strong:
        return True
    texts = []
    for item in our_items:
        text = f"{item.get('name', '')} {item.get('description') or ''}".strip()
        ours = feature_terms(str(item.get("name", "")))
        if touches(theirs, concepts(text)) or touches(ours, concepts(f"{label} {description}")):
            return True
        texts.append(text)
    if not texts:
        return False
    query = meaning_model().embed_query(f"{label}. {description}".strip())
    return float((_embedded(tuple(texts)) @ query).max()) >= NEAR


@lru_cache(maxsize=64)
def _embedded(texts: tuple[str, ...]):
    """Our features' texts embedded once: ``they_offer_ours`` asks for every feature of
    theirs (and the matrix once per category) with the same list."""
    return meaning_model().embed(list(texts))


INTEL_READ = 500


def _cited_ids(competitor: Any, offerings: list[Any]) -> set[str]:
    """Evidence ids the competitor's structured facts cite (profile, features, pricing)."""
    ids: set[str] = set()
    profile = competitor.company_profile or {}
    for citations in (profile.get("quotes") or {}).values():
        ids.update(c.get("evidenceId") for c in citations or [] if isinstance(c, dict))
    for key in ("funding", "customers", "partners"):
        for entry in profile.get(key) or []:
            ids.update(entry.get("evidenceIds") or [] if isinstance(entry, dict) else [])
    for offering in offerings:
        items = _features(offering) + list(getattr(offering, "pricing", None) or [])
        for item in items:
            ids.update(item.get("evidenceIds") or [] if isinstance(item, dict) else [])
    ids.discard(None)
    return ids


def load(workspace_id: str, competitor: Any) -> tuple[list[Any], list[Any]]:
    """The competitor's offerings and intel items for a reading: the newest
    ``INTEL_READ`` items and every older one a stored fact cites."""
    from ci_service.store.intel import IntelItem
    from ci_service.store.resources import Offering

    intel = list(
        IntelItem.select()
        .where(IntelItem.workspace == workspace_id, IntelItem.competitor == competitor.id)
        .order_by(IntelItem.seq.desc())
        .limit(INTEL_READ)
    )
    # A retired product (``isActive`` false: a collect no longer finds it) is not what
    # they sell now: no claim is made from it.
    offerings = list(
        Offering.select()
        .where(
            Offering.workspace == workspace_id,
            Offering.competitor == competitor.id,
            Offering.is_active == True,  # noqa: E712 (SQL, not Python)
        )
        .order_by(Offering.created_at, Offering.id)
    )
    cited = _cited_ids(competitor, offerings) - {i.id for i in intel}
    if cited:  # facts citing items outside the newest ones
        intel += list(
            IntelItem.select().where(
                IntelItem.workspace == workspace_id, IntelItem.id.in_(list(cited))
            )
        )
    return offerings, intel
