"""Compared facts for a battlecard: what the stored, cited facts say about a competitor set
against one of our products (and our organization).

Each :class:`Claim` is one plain sentence a salesperson could say, with the citations
(``{evidenceId, quote, url}``) that back it. Claims are built only from structured facts
that carry evidence, never from keyword co-occurrence:

=========================  ==================================================================
topic                      rule (each needs a citation of the competitor's side)
=========================  ==================================================================
feature (win)              a feature of ours that their site explicitly lacks (a sentence
                           with the feature's name and a negation: "does not support SAML
                           single sign-on"); else, when their cited feature list has at
                           least ``MIN_THEIR_FEATURES`` entries and no page of theirs
                           mentions the feature at all, "their product pages list N
                           features and none is X" citing that list
feature (loss)             a cited feature of theirs that matches none of our features or
                           capabilities (by normalised name words); praise-only names
                           ("Easy to use") are slogans and never count
pricing                    their cheapest paid plan against ours, per month and the same
                           currency and kind of unit: cheaper by 10 % or more wins; a free
                           plan of theirs when we have none is a loss
company                    founding year (3+ years apart) and employee counts (2x apart)
                           against our organization's profile
integrations               their cited integrations and supported platforms that ours do
                           not name, three or more: one loss listing them
customers                  two or more named customers of theirs (a loss: their proof)
funding, news              stated as facts (talking points), newest news first
user-entered               ``companyStrengths``/``companyWeaknesses``/``keyMessaging`` with
                           the evidence sentence that shares most of their words
=========================  ==================================================================
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ci_service.pipeline.evidence import fragment_url, quote_in, sentences
from ci_service.store.intel import IntelItem

MIN_THEIR_FEATURES = 3
MAX_CITATIONS = 3
NEGATION = re.compile(
    r"\b(?:no|not|never|lacks?|lacking|without|missing|unsupported|isn't|doesn't|don't|"
    r"cannot|can't|unavailable)\b",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[a-z0-9]+")
_STOP = {"and", "the", "for", "with", "your", "you", "our", "of", "to", "a", "an", "in", "on"}
_MONTHS_PER = {"month": 1.0, "year": 12.0}


@dataclass
class Claim:
    topic: str
    title: str
    description: str
    citations: list[dict[str, Any]] = field(default_factory=list)
    weight: float = 1.0

    def item(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "description": self.description,
            "evidenceIds": list(dict.fromkeys(c["evidenceId"] for c in self.citations)),
            "quotes": self.citations[:MAX_CITATIONS],
        }


@dataclass
class Facts:
    """The compared facts of one (competitor, product) pair."""

    wins: list[Claim] = field(default_factory=list)
    losses: list[Claim] = field(default_factory=list)
    points: list[Claim] = field(default_factory=list)  # funding, news: facts to mention
    their_plans: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    our_plans: list[dict[str, Any]] = field(default_factory=list)


# Words that praise without stating what a product does: a feature named only with them
# ("Easy to use", "Fast & Secure", "Powerful") is a slogan, not a fact to argue from.
SLOGAN_WORDS = frozenset(
    "easy easier simple simpler fast faster quick quicker powerful flexible scalable secure "
    "reliable robust modern beautiful intuitive seamless seamlessly best better smart smarter "
    "effortless friendly great awesome amazing lightning blazing affordable use to is it "
    "really truly incredibly super highly fully built made designed love".split()
)


def is_slogan(name: str) -> bool:
    """Whether a feature name is praise only (every word in :data:`SLOGAN_WORDS`)."""
    found = [w for w in _TOKEN.findall(name.lower()) if w not in _STOP]
    return bool(found) and all(w in SLOGAN_WORDS for w in found)


# How pipeline.integrations describes what it files as features: "Integration", or the
# heading of a supported-platform list ("Linux mP reference devices", "Supported hardware").
SUPPORTED_KIND = re.compile(
    r"\b(?:integrations?|connectors?|supported|hardware|devices?|boards?|platforms?|"
    r"compatib\w*|works with)\b",
    re.IGNORECASE,
)
MIN_INTEGRATIONS = 3


def is_supported_item(feature: dict[str, Any]) -> bool:
    """An integration or supported platform (a named thing it connects to or runs on)."""
    description = feature.get("description") or ""
    return (
        len(description) <= 200
        and bool(SUPPORTED_KIND.search(description))
        and (len(description.split()) <= 8)
    )


def possessive(name: str) -> str:
    """``Acme's``; ``Acme Apps'`` (a name ending in s takes the apostrophe alone)."""
    return f"{name}'" if name.endswith(("s", "S")) else f"{name}'s"


def words(text: str) -> set[str]:
    out = set()
    for token in _TOKEN.findall(text.lower()):
        if token in _STOP or len(token) < 2:
            continue
        out.add(token[:-1] if len(token) > 4 and token.endswith("s") else token)
    return out


def same_feature(a: str, b: str) -> bool:
    """Whether two feature names name the same thing (most of the shorter one's words)."""
    wa, wb = words(a), words(b)
    if not wa or not wb:
        return False
    shared = len(wa & wb)
    return shared >= max(1, round(min(len(wa), len(wb)) * 0.6))


def _mentions(name: str, text: str) -> bool:
    phrase = r"\W+".join(re.escape(w) for w in name.lower().split() if w)
    return bool(phrase) and re.search(rf"\b{phrase}", text.lower()) is not None


def cite_sentence(item: IntelItem, sentence: str) -> dict[str, Any]:
    return {"evidenceId": item.id, "quote": sentence, "url": fragment_url(item.url or "", sentence)}


def _valid(citations: list[dict[str, Any]] | None, known: dict[str, IntelItem]) -> list[dict]:
    """Citations whose evidence item exists (in ``known``) and holds the quote."""
    out = []
    for citation in citations or []:
        item = known.get(str(citation.get("evidenceId")))
        quote = " ".join(str(citation.get("quote", "")).split())
        if item is not None and quote_in(item.content, quote):
            out.append({**citation, "quote": quote})
    return out


def _negated_sentence(name: str, intel: list[IntelItem]) -> tuple[IntelItem, str] | None:
    for item in intel:
        if not _mentions(name, item.content):
            continue
        for sentence in sentences(item.content):
            if _mentions(name, sentence) and NEGATION.search(sentence) and len(sentence) <= 300:
                return item, sentence
    return None


def _monthly(plan: dict[str, Any]) -> float | None:
    price, period = plan.get("price"), plan.get("period")
    if not isinstance(price, int | float) or period not in _MONTHS_PER:
        return None
    return float(price) / _MONTHS_PER[period]


def _unit_kind(plan: dict[str, Any]) -> str:
    unit = (plan.get("unit") or "").lower()
    return "per-person" if re.search(r"user|seat|member|agent|person", unit) else unit or "flat"


def format_amount(amount: float) -> str:
    """An amount with the precision it was stated with: "1,000", "19.99", "0.005" (never
    a sub-cent price rounded to "0.00")."""
    value = float(amount)
    if value.is_integer():
        return f"{value:,.0f}"
    if abs(value) >= 0.01 and round(value, 2) == value:
        return f"{value:,.2f}"
    return f"{value:,.6f}".rstrip("0")


def price_terms(plan: dict[str, Any]) -> str:
    """A plan's price as people write it: "$19 per agent/month", "on request"."""
    if plan.get("onRequest") or plan.get("price") is None:
        return "price on request"
    amount = plan["price"]
    number = format_amount(amount)
    symbol = {"USD": "$", "GBP": "£", "EUR": "€"}.get(plan.get("currency") or "", "")
    money = f"{symbol}{number}" if symbol else f"{number} {plan.get('currency') or ''}".strip()
    unit = plan.get("unit") or ""
    unit = "" if unit in ("", "flat") else f" {unit}"
    period = f"/{plan['period']}" if plan.get("period") in ("month", "year") else ""
    return f"{money}{unit}{period}"


def describe_price(plan: dict[str, Any]) -> str:
    if plan.get("onRequest") or plan.get("price") is None:
        return f"{plan['name']} (price on request)"
    return f"{plan['name']} {price_terms(plan)}"


class FactBuilder:
    """Builds :class:`Facts` for one card; ``known`` maps evidence ids to intel items."""

    def __init__(self, competitor: Any, product: Any, offerings: list[Any], org: Any, intel):
        self.competitor, self.product, self.offerings, self.org = (
            competitor,
            product,
            offerings,
            org,
        )
        self.intel: list[IntelItem] = intel
        self.known = {i.id: i for i in intel}
        self.facts = Facts()

    def build(self) -> Facts:
        self._features()
        self._pricing()
        self._company()
        self._customers()
        self._funding()
        self._news()
        for claims in (self.facts.wins, self.facts.losses, self.facts.points):
            claims[:] = [c for c in claims if c.citations]
            claims.sort(key=lambda c: -c.weight)
        return self.facts

    # -- features ------------------------------------------------------------------------

    def _their_features(self) -> list[tuple[str, dict[str, Any], list[dict]]]:
        out = []
        for offering in self.offerings:
            for feature in list(offering.features or []) + list(offering.capabilities or []):
                cited = _valid(feature.get("quotes"), self.known)
                if cited:
                    out.append((offering.name, feature, cited))
        return out

    def _features(self) -> None:
        name, ours = self.competitor.name, self.product
        our_items = list(ours.features or []) + list(ours.capabilities or [])
        found = self._their_features()
        supported = [t for t in found if is_supported_item(t[1])]
        # What their product does: not integrations (one claim below), not slogans.
        theirs = [t for t in found if t not in supported and not is_slogan(t[1].get("name", ""))]
        self._integrations(supported, our_items)
        for feature in our_items:
            label = feature.get("name", "")
            if not label or any(same_feature(label, f["name"]) for _, f, _ in theirs):
                continue
            negated = _negated_sentence(label, self.intel)
            if negated is not None:
                item, sentence = negated
                self.facts.wins.append(
                    Claim(
                        "feature",
                        f"{ours.name} has {label}; {name} does not",
                        f"{ours.name} includes {label}. "
                        f"{possessive(name)} own site says: “{sentence}”",
                        [cite_sentence(item, sentence)],
                        weight=3,
                    )
                )
            elif len(theirs) >= MIN_THEIR_FEATURES and not any(
                _mentions(label, i.content) for i in self.intel
            ):
                listed = ", ".join(f["name"] for _, f, _ in theirs[:4])
                self.facts.wins.append(
                    Claim(
                        "feature",
                        f"{label}: only {ours.name} offers it",
                        f"{ours.name} includes {label}. {possessive(name)} product pages list "
                        f"{len(theirs)} features ({listed}, …) and none of their pages "
                        f"mentions {label.lower()}.",
                        [c for _, _, cited in theirs[:2] for c in cited[:1]],
                        weight=1.5,
                    )
                )
        argued: set[str] = set()
        for offering_name, feature, cited in theirs:
            label = feature.get("name", "")
            if any(same_feature(label, f.get("name", "")) for f in our_items):
                continue
            if label.casefold() in argued:  # two of their products list it: one claim
                continue
            argued.add(label.casefold())
            detail = (feature.get("description") or "").strip()
            detail = f": {detail.rstrip('.')}." if detail else "."
            self.facts.losses.append(
                Claim(
                    "feature",
                    f"{name} offers {label}",
                    f"{offering_name} offers {label}{detail} {ours.name} has no matching feature.",
                    cited[:1],
                    weight=1 + (0.5 if feature.get("description") else 0),
                )
            )

    def _integrations(self, supported: list, our_items: list[dict[str, Any]]) -> None:
        """Their integrations and supported platforms that we do not list, as one claim."""
        missing, seen = [], set()
        for _, feature, cited in supported:
            label = feature.get("name", "")
            if label.casefold() in seen:  # listed for two of their products: one name
                continue
            seen.add(label.casefold())
            if not any(same_feature(label, f.get("name", "")) for f in our_items):
                missing.append((feature, cited))
        if len(missing) < MIN_INTEGRATIONS:
            return
        names = [feature["name"] for feature, _ in missing]
        listed = ", ".join(names[:5]) + (", …" if len(names) > 5 else "")
        self.facts.losses.append(
            Claim(
                "integrations",
                f"{self.competitor.name} lists {len(names)} integrations and supported platforms",
                f"{self.competitor.name} lists {len(names)} integrations and supported "
                f"platforms that {self.product.name} does not name, among them {listed}.",
                [cited[0] for _, cited in missing[:MAX_CITATIONS]],
                weight=1.8,  # a concrete, countable fact: ahead of single features
            )
        )

    # -- pricing ------------------------------------------------------------------------

    def _pricing(self) -> None:
        for offering in self.offerings:
            for plan in getattr(offering, "pricing", None) or []:
                cited = _valid(plan.get("quotes"), self.known)
                if cited:
                    self.facts.their_plans.append((offering.name, {**plan, "quotes": cited}))
        self.facts.our_plans = list(getattr(self.product, "pricing", None) or [])
        theirs = [p for _, p in self.facts.their_plans]
        name, ours = self.competitor.name, self.product.name
        free = next((p for p in theirs if p.get("price") == 0), None)
        our_free = any(p.get("price") == 0 for p in self.facts.our_plans)
        if free is not None and self.facts.our_plans and not our_free:
            self.facts.losses.append(
                Claim(
                    "pricing",
                    f"{name} has a free plan",
                    f"{name} offers {describe_price(free)}; {ours} has no free plan.",
                    free["quotes"][:1],
                    weight=2.5,
                )
            )
        paid = [(p, _monthly(p)) for p in theirs if (p.get("price") or 0) > 0]
        our_paid = [(p, _monthly(p)) for p in self.facts.our_plans if (p.get("price") or 0) > 0]
        pairs = [
            (mine, m, their, t)
            for mine, m in our_paid
            for their, t in paid
            if m is not None
            and t is not None
            and (mine.get("currency") or "USD") == (their.get("currency") or "USD")
            and _unit_kind(mine) == _unit_kind(their)
        ]
        if not pairs:
            return
        mine, m, their, t = min(pairs, key=lambda row: (row[1], row[3]))
        cheapest_theirs = min((row for row in pairs if row[0] is mine), key=lambda r: r[3])
        their, t = cheapest_theirs[2], cheapest_theirs[3]
        sentence = (
            f"{possessive(ours)} entry plan is {describe_price(mine)}; "
            f"{possessive(name)} cheapest comparable paid plan is {describe_price(their)}."
        )
        if m <= t * 0.9:
            self.facts.wins.append(
                Claim("pricing", f"{ours} costs less", sentence, their["quotes"][:1], weight=2.5)
            )
        elif t <= m * 0.9:
            self.facts.losses.append(
                Claim("pricing", f"{name} costs less", sentence, their["quotes"][:1], weight=2.5)
            )

    # -- company ------------------------------------------------------------------------

    def _profile_citations(self, field_name: str) -> list[dict[str, Any]]:
        profile = self.competitor.company_profile or {}
        return _valid((profile.get("quotes") or {}).get(field_name), self.known)

    def _company(self) -> None:
        theirs = self.competitor.company_profile or {}
        ours = (self.org.company_profile or {}) if self.org is not None else {}
        us = (self.org.name if self.org is not None and self.org.name else "") or "We"
        name = self.competitor.name
        cited = self._profile_citations("yearFounded")
        if cited and isinstance(theirs.get("yearFounded"), int):
            year = theirs["yearFounded"]
            our_year = ours.get("yearFounded") if isinstance(ours.get("yearFounded"), int) else None
            if our_year and year - our_year >= 3:
                self.facts.wins.append(
                    Claim(
                        "company",
                        f"{us} has a longer track record",
                        f"{us} has been in business since {our_year}; {name} was founded "
                        f"in {year}, {year - our_year} years later.",
                        cited,
                        weight=1.2,
                    )
                )
            elif our_year and our_year - year >= 3:
                self.facts.losses.append(
                    Claim(
                        "company",
                        f"{name} has a longer track record",
                        f"{name} was founded in {year}; {us} in {our_year}.",
                        cited,
                        weight=1.2,
                    )
                )
            else:
                self.facts.points.append(
                    Claim("company", f"{name} was founded in {year}", cited[0]["quote"], cited)
                )
        cited = self._profile_citations("employeeCount")
        their_size, our_size = (
            _count(theirs.get("employeeCount")),
            _count(ours.get("employeeCount")),
        )
        if cited and their_size and our_size:
            if our_size >= 2 * their_size:
                self.facts.wins.append(
                    Claim(
                        "company",
                        f"{us} is the larger team",
                        f"{us} has about {our_size:,} employees; {name} states "
                        f"{theirs['employeeCount']}.",
                        cited,
                        weight=1,
                    )
                )
            elif their_size >= 2 * our_size:
                self.facts.losses.append(
                    Claim(
                        "company",
                        f"{name} is the larger team",
                        f"{name} states {theirs['employeeCount']} employees; {us} has about "
                        f"{our_size:,}.",
                        cited,
                        weight=1,
                    )
                )
        cited = self._profile_citations("headquarters")
        if cited and theirs.get("headquarters"):
            self.facts.points.append(
                Claim(
                    "company",
                    f"{name} is based in {theirs['headquarters']}",
                    cited[0]["quote"],
                    cited,
                    weight=0.5,
                )
            )

    def _customers(self) -> None:
        profile = self.competitor.company_profile or {}
        named = []
        for customer in profile.get("customers") or []:
            cited = _valid(customer.get("quotes"), self.known)
            if cited and customer.get("name"):
                named.append((customer["name"], cited))
        if len(named) >= 2:
            names = [n for n, _ in named[:5]]
            listed = ", ".join(names[:-1]) + f" and {names[-1]}"
            self.facts.losses.append(
                Claim(
                    "customers",
                    f"{self.competitor.name} names well-known users",
                    f"{self.competitor.name} names {listed} among its users: expect them "
                    "as references.",
                    [c for _, cited in named[:3] for c in cited[:1]],
                    weight=1.3,
                )
            )

    def _funding(self) -> None:
        profile = self.competitor.company_profile or {}
        for entry in profile.get("funding") or []:
            cited = _valid(entry.get("quotes"), self.known)
            if not cited:
                continue
            parts = [entry.get("round") or "funding"]
            if isinstance(entry.get("amount"), int | float):
                symbol = {"USD": "$", "GBP": "£", "EUR": "€"}.get(entry.get("currency") or "", "")
                amount = f"{symbol}{entry['amount']:,.0f}" if symbol else f"{entry['amount']:,.0f}"
                if not symbol and entry.get("currency"):
                    amount += f" {entry['currency']}"
                parts.append(f"of {amount}")
            if entry.get("date"):
                parts.append(f"({entry['date']})")
            if entry.get("investors"):
                parts.append("from " + ", ".join(entry["investors"][:3]))
            self.facts.points.append(
                Claim(
                    "funding",
                    f"{possessive(self.competitor.name)} disclosed funding",
                    f"{self.competitor.name} disclosed {' '.join(parts)}.",
                    cited,
                    weight=1.1,
                )
            )

    def _news(self) -> None:
        news = [i for i in self.intel if i.source_type == "NEWS" and i.title]
        news.sort(key=lambda i: (i.published_at is not None, i.published_at or 0), reverse=True)
        for item in news[:3]:
            title = " ".join(item.title.split())
            if title.casefold() not in " ".join(item.content.split()).casefold():
                continue
            when = f" ({item.published_at.date().isoformat()})" if item.published_at else ""
            self.facts.points.append(
                Claim(
                    "news",
                    f"Recent news: {title}",
                    f"{self.competitor.name} published “{title}”{when}.",
                    [cite_sentence(item, title)],
                    weight=0.8,
                )
            )


def _count(value: Any) -> int | None:
    match = re.search(r"\d[\d,]*", str(value or ""))
    if not match:
        return None
    try:
        return int(match.group(0).replace(",", ""))
    except ValueError:
        return None


def best_sentence(text: str, item: IntelItem) -> dict[str, Any] | None:
    """The sentence of ``item`` sharing most words with ``text`` (two at least), cited."""
    wanted = words(text)
    best, best_hits = None, 1
    for sentence in sentences(item.content):
        if len(sentence) > 300:
            continue
        hits = len(wanted & words(sentence))
        if hits > best_hits:
            best, best_hits = sentence, hits
    return cite_sentence(item, best) if best else None
