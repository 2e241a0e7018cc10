"""A corpus site's facts file as checks over the structured records ``bench.quality`` reads.

Each listed fact becomes a :class:`bench.quality_facts.Fact` (a place and patterns a record's
text must match). Besides the facts found, a site scores its **wrong values**: a stored
headquarters or founding year that is not the one the site states (these two are always
listed when the site states them, so any other stored value is wrong), a stored record of a
kind the facts file lists completely (``complete``) that is none of the listed items, a news
item whose date is not its post's, and any value named under ``wrong``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.quality_facts import Fact

# Where each kind of fact is stored (the prefixes of ``bench.quality.Record.place``).
PLACES: dict[str, tuple[str, ...]] = {
    "products": ("offering",),
    "features": ("feature", "offering"),
    "integrations": ("feature", "offering", "node", "profile"),
    "partners": ("feature", "offering", "node", "profile"),
    "prices": ("plan",),
    "people": ("person",),
    "customers": ("profile.customers", "node"),
    "funding": ("profile.funding", "node", "event"),
    "awards": ("profile", "offering", "feature", "node", "event"),
    "news": ("event",),
}
SINGLE_PROFILE_FIELDS = ("headquarters", "yearFounded")
# The kinds a facts file can declare complete, and the records they then cover.
COMPLETE_PLACES = {"prices": "plan", "people": "person", "products": "offering"}


def number(amount: str) -> float:
    """A price as a page writes it: "1,000", "1.000" (thousands), "9,90" or "9.90"."""
    text = re.sub(r"[^\d.,]", "", amount)
    if "," in text and "." in text:
        decimal = "," if text.rfind(",") > text.rfind(".") else "."
        text = text.replace("." if decimal == "," else ",", "").replace(decimal, ".")
    elif re.fullmatch(r"\d{1,3}(?:[.,]\d{3})+", text):
        text = re.sub(r"[.,]", "", text)
    else:
        text = text.replace(",", ".")
    return float(text)


def price_pattern(amount: str) -> str:
    value = number(amount)
    shown = str(int(value)) if value.is_integer() else repr(value)
    return rf'"price": {re.escape(shown)}(?:\.0+)?[,}}]'


def _patterns(fact: dict[str, Any], default: str) -> tuple[str, ...]:
    match = fact.get("match")
    if match is None:
        return (re.escape(default),)
    return tuple(match) if isinstance(match, list) else (match,)


def to_fact(fact: dict[str, Any]) -> Fact:
    kind = fact["kind"]
    if kind == "profile":
        name = fact["field"]
        patterns = _patterns(fact, str(fact["value"]))
        return Fact("profile", f"{name}: {fact['value']}", (f"profile.{name}",), patterns)
    if kind == "prices":
        return _price_fact(fact)
    if kind == "people":
        # A team grid without titles: the name alone is the fact.
        title = fact.get("titleMatch") or (re.escape(fact["title"]) if fact.get("title") else "")
        patterns = (*_patterns(fact, fact["name"]), *([title] if title else []))
        shown = f"{fact['name']} ({fact.get('title') or 'no title'})"
        return Fact("people", shown, PLACES["people"], patterns)
    if kind == "products":
        (pattern, *rest) = _patterns(fact, fact["name"])
        # The offering's name, not its description (the record is "name — description").
        patterns = (rf"^[^—]*?(?:{pattern})", *rest)
        return Fact("products", f"product: {fact['name']}", PLACES["products"], patterns)
    if kind == "news":
        patterns = _patterns(fact, fact["title"])
        return Fact("news", f'news: "{fact["title"]}"', PLACES["news"], patterns)
    name = fact.get("name") or fact.get("text") or ""
    return Fact(kind, f"{kind}: {name}", PLACES[kind], _patterns(fact, name))


def _price_fact(fact: dict[str, Any]) -> Fact:
    # "Professional (billed monthly)": the name before a writer's qualifier in brackets.
    name = fact.get("planMatch") or re.escape(fact["plan"].split(" (")[0].strip())
    patterns = [rf'"name": "[^"]*?(?:{name})']
    if fact.get("match") and not fact.get("planMatch"):
        # The README's ``match``: what the stored plan's text must contain, for a plan the
        # page names in other words ("Small (50 minutes)" stored as "50 minutes").
        patterns = list(_patterns(fact, fact["plan"]))
    if fact.get("onRequest"):
        patterns.append(r'"onRequest": true')
        shown = "on request"
    elif fact.get("free") or fact.get("amount") in ("0", 0):
        patterns.append(r'"price": 0(?:\.0+)?[,}]')
        shown = "free"
    else:
        patterns.append(price_pattern(str(fact["amount"])))
        if fact.get("currency"):
            patterns.append(rf'"currency": "{fact["currency"]}"')
        shown = f"{fact.get('currency', '')} {fact['amount']}".strip()
    if fact.get("period"):
        if fact["period"] == "once":  # a price with no period stated is paid once
            patterns.append(r'"period": (?:"one-time"|null)')
        elif fact["period"] in ("day", "night", "hour", "week"):
            # A rate per stretch of time is a unit: plan periods are months, years, once.
            patterns.append(rf'"unit": "per {fact["period"]}"')
        else:
            patterns.append(rf'"period": "{fact["period"]}"')
        shown += f"/{fact['period']}"
    return Fact("prices", f"{fact['plan']} {shown}", PLACES["prices"], tuple(patterns))


def trap_patterns(trap: dict[str, Any]) -> tuple[str, ...]:
    """What a stored record holding a known wrong value contains (every pattern): its
    ``match``, else a price's amount, else the name, title or value the trap names."""
    if trap.get("match"):
        match = trap["match"]
        return tuple(match) if isinstance(match, list) else (match,)
    if trap["kind"] == "prices" and trap.get("amount") not in (None, ""):
        return (price_pattern(str(trap["amount"])),)
    for key in ("value", "name", "plan", "title", "text"):
        if trap.get(key) not in (None, ""):
            return (re.escape(str(trap[key])),)
    raise ValueError(f"a wrong value names nothing to look for: {trap}")


_TITLE_FILLER = {"of", "and", "the", "for", "de", "du", "der", "und", "y", "e", "och", "og"}


def _title_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[^\W\d_]+", text.casefold()) if w not in _TITLE_FILLER}


def _titles_agree(stored: str, listed: str) -> bool:
    """Two titles of one person that say the same job: a shared word, or one the other's
    initials ("CEO" and "Chief Executive Officer"); no title on either side agrees."""
    ours, theirs = _title_words(stored), _title_words(listed)
    if not ours or not theirs or ours & theirs:
        return True
    initials = "".join(w[0] for w in re.findall(r"[^\W\d_]+", listed.casefold()))
    backwards = "".join(w[0] for w in re.findall(r"[^\W\d_]+", stored.casefold()))
    return any(w in initials for w in ours if len(w) > 1) or any(
        w in backwards for w in theirs if len(w) > 1
    )


@dataclass
class SiteFacts:
    site: str
    company: str
    facts: list[Fact]
    raw: list[dict[str, Any]]
    complete: tuple[str, ...] = ()
    wrong: list[dict[str, Any]] = field(default_factory=list)
    offers: list[dict[str, Any]] = field(default_factory=list)
    lacks: list[dict[str, Any]] = field(default_factory=list)

    def _listed_person(self, text: str) -> bool:
        """A person record naming a listed person with no title, or with a title that
        does not contradict the listed one ("O.D. — Founder" for "O.D., Founder", "CEO" for
        "Chief Executive Officer"): missing its exact form, not a wrong value."""
        flat = " ".join(text.split()).casefold()
        for raw in self.raw:
            if raw["kind"] != "people" or raw["name"].casefold() not in flat:
                continue
            rest = flat.replace(raw["name"].casefold(), " ")
            if _titles_agree(rest, str(raw.get("title") or "")):
                return True
        return False

    def wrong_values(self, records: list[Any]) -> list[str]:
        """Stored values the site does not state (see the module's docstring)."""
        out = []
        for name in SINGLE_PROFILE_FIELDS:
            listed = [
                f for f, r in zip(self.facts, self.raw, strict=True) if r.get("field") == name
            ]
            for record in records:
                if record.place == f"profile.{name}" and not any(f.matches(record) for f in listed):
                    out.append(f"{name} {record.text!r} is not what the site states")
        for kind in self.complete:
            place = COMPLETE_PLACES.get(kind)
            listed = [f for f in self.facts if f.kind == kind]
            for record in records:
                if record.place != place or any(f.matches(record) for f in listed):
                    continue
                if kind == "people" and self._listed_person(record.text):
                    continue  # a listed person, their title missing or in other words
                out.append(f"{kind}: {record.text[:120]!r} is none of the site's")
        for fact, raw in zip(self.facts, self.raw, strict=True):
            if fact.kind == "news" and raw.get("date"):
                for record in records:
                    if fact.matches(record) and re.search(r"\d{4}-\d{2}-\d{2}", record.text):
                        if raw["date"] not in record.text:
                            out.append(f"news {record.text!r}: the post's date is {raw['date']}")
        for trap in self.wrong:
            kind = trap["kind"]
            places = (f"profile.{trap['field']}",) if kind == "profile" else PLACES.get(kind, ())
            patterns = trap_patterns(trap)
            for record in records:
                if record.place.startswith(places) and all(
                    re.search(p, record.text, re.I) for p in patterns
                ):
                    out.append(f"{kind} {record.text[:120]!r}: {trap.get('why', 'a known trap')}")
        return sorted(set(out))


def load_facts(path: Path) -> SiteFacts:
    data = json.loads(path.read_text(encoding="utf-8"))
    raw = list(data.get("facts") or [])
    return SiteFacts(
        site=data["site"],
        company=data.get("company", ""),
        facts=[to_fact(f) for f in raw],
        raw=raw,
        complete=tuple(k for k in data.get("complete") or [] if k in COMPLETE_PLACES),
        wrong=list(data.get("wrong") or []),
        offers=list(data.get("offers") or []),
        lacks=list(data.get("lacks") or []),
    )
