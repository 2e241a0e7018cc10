"""Compared facts for a battlecard: what the stored, cited facts say about a competitor set
against one of our products (and our organization).

Each :class:`Claim` is one plain sentence a salesperson could say, with the citations
(``{evidenceId, quote, url}``) that back it; a citation is used only when its quote states
the claim's value (the price, the year, the count, the name, the amount). Claims are built
only from structured facts that carry evidence, never from keyword co-occurrence:

=========================  ==================================================================
topic                      rule (each needs a citation of the competitor's side)
=========================  ==================================================================
feature, integrations,     decided by meaning: see ``services/analysis/feature_claims.py`` and
open-source                ``services/analysis/feature_presence.py``
pricing                    their cheapest paid plan against ours, per month and the same
                           currency and kind of unit: cheaper by 10 % or more wins; a free
                           plan of theirs when we have none is a loss. A plan marked
                           coming soon is neither; a quote must state the plan's price
company                    founding year (3+ years apart) and employee counts (2x apart)
                           against our organization's profile
customers                  two or more named customers of theirs (a loss: their proof)
funding, news              stated as facts (talking points), newest news first
user-entered               ``companyStrengths``/``companyWeaknesses``/``keyMessaging`` with
                           the evidence sentence that shares most of their words
=========================  ==================================================================
"""

from __future__ import annotations

import re
from typing import Any

from ci_service.pipeline.evidence import fragment_url, sentences
from ci_service.pipeline.money_format import format_amount, format_money
from ci_service.services.analysis.claims import (  # noqa: F401 (re-exported)
    Claim,
    Facts,
    is_slogan,
    is_supported_item,
    possessive,
    words,
)
from ci_service.services.analysis.feature_claims import add_feature_claims
from ci_service.services.analysis.feature_presence import Reading, held
from ci_service.store.intel import IntelItem

_MONTHS_PER = {"month": 1.0, "year": 12.0}


def cite_sentence(item: IntelItem, sentence: str) -> dict[str, Any]:
    return {"evidenceId": item.id, "quote": sentence, "url": fragment_url(item.url or "", sentence)}


def _valid(citations: list[dict[str, Any]] | None, known: dict[str, IntelItem]) -> list[dict]:
    """Citations whose evidence item exists (in ``known``) and holds the quote."""
    return [{**citation, "quote": quote} for citation, _, quote in held(citations, known)]


def _monthly(plan: dict[str, Any]) -> float | None:
    price, period = plan.get("price"), plan.get("period")
    if not isinstance(price, int | float) or period not in _MONTHS_PER:
        return None
    return float(price) / _MONTHS_PER[period]


def _unit_kind(plan: dict[str, Any]) -> str:
    unit = (plan.get("unit") or "").lower()
    return "per-person" if re.search(r"user|seat|member|agent|person", unit) else unit or "flat"


def states_amount(quote: str, amount: Any) -> bool:
    """Whether ``quote`` states ``amount`` (its digits, with or without thousands
    separators, or "free" for zero): a price claim's quote must."""
    if not isinstance(amount, int | float):
        return False
    text = quote.replace(",", "").replace("\u00a0", " ")
    if amount == 0 and re.search(r"\bfree\b", text, re.IGNORECASE):
        return True
    number = format_amount(amount).replace(",", "")
    return re.search(rf"(?<![\d.]){re.escape(number)}(?:[.,]0+)?(?!\d)", text) is not None


def price_terms(plan: dict[str, Any]) -> str:
    """A plan's price as people write it: "$19 per agent/month", "on request"."""
    if plan.get("onRequest") or plan.get("price") is None:
        return "price on request"
    money = format_money(plan["price"], plan.get("currency"))
    unit = plan.get("unit") or ""
    unit = "" if unit in ("", "flat") else f" {unit}"
    period = f"/{plan['period']}" if plan.get("period") in ("month", "year") else ""
    return f"{money}{unit}{period}"


def describe_price(plan: dict[str, Any]) -> str:
    soon = " (coming soon)" if plan.get("comingSoon") else ""
    if plan.get("onRequest") or plan.get("price") is None:
        return f"{plan['name']} (price on request){soon}"
    return f"{plan['name']} {price_terms(plan)}{soon}"


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
            claims[:] = [c for c in claims if c.backed]
            claims.sort(key=lambda c: -c.weight)
        return self.facts

    # -- features (services/analysis/feature_claims.py) ---------------------------------

    def _features(self) -> None:
        self.reading = Reading(self.offerings, self.intel)
        add_feature_claims(self.facts, self.competitor, self.product, self.reading)

    # -- pricing ------------------------------------------------------------------------

    def _pricing(self) -> None:
        for offering in self.offerings:
            for plan in getattr(offering, "pricing", None) or []:
                cited = [
                    c
                    for c in self.reading.valid(plan.get("quotes"))
                    if plan.get("onRequest") or states_amount(c["quote"], plan.get("price"))
                ]
                if cited:
                    self.facts.their_plans.append((offering.name, {**plan, "quotes": cited}))
        self.facts.our_plans = list(getattr(self.product, "pricing", None) or [])
        # A plan marked "coming soon" is not one they sell: never their cheapest or free.
        theirs = [p for _, p in self.facts.their_plans if not p.get("comingSoon")]
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
                    pitch=f"Expect {name} to offer its free plan ({free['name']}) to get in.",
                    short=f"a free plan ({free['name']})",
                    about=frozenset({"free-plan", "price"}),
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
        terms = f"{price_terms(mine)} against {price_terms(their)}"
        if m <= t * 0.9:
            self.facts.wins.append(
                Claim(
                    "pricing",
                    f"{ours} costs less",
                    sentence,
                    their["quotes"][:1],
                    weight=2.5,
                    pitch=f"Put the prices side by side: {terms}.",
                    short=f"a lower price ({terms})",
                    about=frozenset({"price"}),
                )
            )
        elif t <= m * 0.9:
            self.facts.losses.append(
                Claim(
                    "pricing",
                    f"{name} costs less",
                    sentence,
                    their["quotes"][:1],
                    weight=2.5,
                    pitch=f"Expect {name} to compete on price: {price_terms(their)} against "
                    f"our {price_terms(mine)}.",
                    short=f"a lower price ({price_terms(their)} against {price_terms(mine)})",
                    about=frozenset({"price"}),
                )
            )

    # -- company ------------------------------------------------------------------------

    def _profile_citations(self, field_name: str, value: Any) -> list[dict[str, Any]]:
        """The profile field's citations whose quote states ``value``."""
        profile = self.competitor.company_profile or {}
        cited = _valid((profile.get("quotes") or {}).get(field_name), self.known)
        return [c for c in cited if _states(c["quote"], value)]

    def _company(self) -> None:
        theirs = self.competitor.company_profile or {}
        ours = (self.org.company_profile or {}) if self.org is not None else {}
        us = (self.org.name if self.org is not None and self.org.name else "") or "We"
        name = self.competitor.name
        year = theirs.get("yearFounded")
        cited = self._profile_citations("yearFounded", year) if isinstance(year, int) else []
        if cited:
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
                        pitch=f"Point to our track record: in business since {our_year}, "
                        f"{name} since {year}.",
                        short=f"{year - our_year} more years in business",
                        about=frozenset({"company"}),
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
                        pitch=f"Expect {name} to stress its history since {year}.",
                        short=f"its longer history (founded {year})",
                        about=frozenset({"company"}),
                    )
                )
            else:
                self.facts.points.append(
                    Claim(
                        "company",
                        f"{name} was founded in {year}",
                        cited[0]["quote"],
                        cited,
                        pitch=f"{name} was founded in {year}.",
                    )
                )
        stated = theirs.get("employeeCount")
        their_size, our_size = _count(stated), _count(ours.get("employeeCount"))
        cited = self._profile_citations("employeeCount", their_size) if their_size else []
        if cited and their_size and our_size:
            if our_size >= 2 * their_size:
                self.facts.wins.append(
                    Claim(
                        "company",
                        f"{us} is the larger team",
                        f"{us} has about {our_size:,} employees; {name} states {stated}.",
                        cited,
                        weight=1,
                        pitch=f"Point to the team behind the product: about {our_size:,} people.",
                        short="a larger team",
                        about=frozenset({"company"}),
                    )
                )
            elif their_size >= 2 * our_size:
                self.facts.losses.append(
                    Claim(
                        "company",
                        f"{name} is the larger team",
                        f"{name} states {stated} employees; {us} has about {our_size:,}.",
                        cited,
                        weight=1,
                        pitch=f"Expect {name} to stress its size ({stated} employees).",
                        short=f"its larger team ({stated} employees)",
                        about=frozenset({"company"}),
                    )
                )
        place = theirs.get("headquarters")
        cited = self._profile_citations("headquarters", place) if place else []
        if cited:
            self.facts.points.append(
                Claim(
                    "company",
                    f"{name} is based in {place}",
                    cited[0]["quote"],
                    cited,
                    weight=0.5,
                    pitch=f"Know where they sit: {place}.",
                )
            )

    def _customers(self) -> None:
        profile = self.competitor.company_profile or {}
        named = []
        for customer in profile.get("customers") or []:
            who = customer.get("name")
            cited = _valid(customer.get("quotes"), self.known)
            cited = [c for c in cited if _states(c["quote"], who)]
            if cited and who:
                named.append((who, cited))
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
                    pitch=f"Expect {self.competitor.name} to cite {listed} as references.",
                    short=f"customers such as {listed}",
                    about=frozenset({"customer", "reference"}),
                )
            )

    def _funding(self) -> None:
        profile = self.competitor.company_profile or {}
        for entry in profile.get("funding") or []:
            amount = entry.get("amount")
            cited = _valid(entry.get("quotes"), self.known)
            if isinstance(amount, int | float):
                cited = [c for c in cited if states_amount(c["quote"], amount) or _big(c, amount)]
            if not cited:
                continue
            parts = [entry.get("round") or "funding"]
            if isinstance(amount, int | float):
                parts.append(f"of {format_money(amount, entry.get('currency'))}")
            when = entry.get("dateText") or entry.get("date")
            if when:
                parts.append(f"({when})")
            if entry.get("investors"):
                parts.append("from " + ", ".join(entry["investors"][:3]))
            said = " ".join(parts)
            self.facts.points.append(
                Claim(
                    "funding",
                    f"{possessive(self.competitor.name)} disclosed funding",
                    f"{self.competitor.name} disclosed {said}.",
                    cited,
                    weight=1.1,
                    pitch=f"{self.competitor.name} raised {said}: ask about its runway.",
                    short=f"its {said}",
                    about=frozenset({"funding", "investor"}),
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
                    pitch=f"Be ready for questions on their news: “{title}”{when}.",
                )
            )


def _states(quote: str, value: Any) -> bool:
    """Whether a quote states a profile value: a number's digits or a name's words."""
    if isinstance(value, int | float):
        return states_amount(quote, value)
    wanted = words(str(value or ""))
    return bool(wanted) and wanted <= words(quote)


def _big(citation: dict[str, Any], amount: float) -> bool:
    """A large amount written in words ("GBP 1.5 million", "$2M"): the quote states its
    leading digits and a scale word."""
    quote = citation["quote"].lower()
    for scale, word in ((1e9, r"b(?:illion|n)?"), (1e6, r"m(?:illion|m)?"), (1e3, r"k")):
        if amount >= scale:
            lead = format_amount(amount / scale).replace(",", "")
            return re.search(rf"{re.escape(lead)}\s*{word}\b", quote) is not None
    return False


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
