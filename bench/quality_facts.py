"""The facts a person learns from reading each benchmark site (``../shared/realsites``'s
README, and the project's fixture site), as checks over structured records.

A :class:`Fact` matches a record when the record sits in one of the fact's ``places``
(prefixes such as ``profile.headquarters``, ``plan``, ``person``) and its text matches every
pattern (case-insensitive regular expressions). Patterns are loose on form ("$6", "6.0",
"6 USD") and strict on substance (the number, the name, the period).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Fact:
    kind: str
    text: str
    places: tuple[str, ...]
    patterns: tuple[str, ...]

    def matches(self, record) -> bool:
        if not any(record.place.startswith(place) for place in self.places):
            return False
        return all(re.search(p, record.text, re.IGNORECASE) for p in self.patterns)


PROFILE_HQ = ("profile.headquarters",)
PLAN = ("plan",)
PERSON = ("person",)
EVENT = ("event",)
PRODUCT = ("offering",)
FUNDING = ("profile.funding",)
ANY = ("profile", "offering", "feature", "plan", "person", "event", "node", "battlecard")


def price(amount: str) -> str:
    """A price as the record may write it: 6, 6.0, "$6", 1000 or 1,000."""
    digits = amount.replace(",", "")
    return rf"(?<![\d.]){digits}(?:\.0+)?(?![\d])|\b{re.escape(amount)}\b"


def plan(text: str, name: str, amount: str | None, period: str | None = "month", *extra: str):
    patterns = [rf"\b{name}\b"]
    if amount is None:
        patterns.append(r'"onRequest": true')
    else:
        patterns.append(price(amount))
    if period:
        patterns.append(rf'"period": "{period}"')
    return Fact("prices", text, PLAN, (*patterns, *extra))


def person(name: str, title: str) -> Fact:
    return Fact("people", f"{name} ({title})", PERSON, (re.escape(name), re.escape(title)))


def event(title: str) -> Fact:
    return Fact("news", f'news: "{title}"', EVENT, (re.escape(title),))


BUDIBASE = [
    Fact("profile", "headquarters: Belfast, Northern Ireland", PROFILE_HQ, (r"Belfast",)),
    Fact(
        "products",
        "product: Budibase, open-source low-code platform for internal tools",
        PRODUCT,
        (r"^Budibase\b", r"low.code|internal tools"),
    ),
    plan("cloud Free $0/month", "Free", "0"),
    plan("cloud Standard $6 per end-user/month", "Standard", "6", "month", r"end.user"),
    plan("cloud Plus $12 per end-user/month", "Plus", "12", "month", r"end.user"),
    plan("cloud Enterprise on request", "Enterprise", None, None),
    plan("self-host Standard $5 per end-user/month", "Standard", "5", "month"),
    plan("self-host Pro $10 per end-user/month", "Pro", "10", "month"),
    person("Mike Shanks", "CEO"),
    person("Joe Johnston", "CGO"),
    person("Martin McKeaveney", "CTO"),
    Fact(
        "funding",
        "pre-seed £300,000, December 2019, Techstart Ventures",
        FUNDING,
        (r"pre.seed", r"300,?000", r"GBP|£", r"Techstart"),
    ),
    Fact("funding", "over 15,000 signups", ANY, (r"15,?000",)),
    *[
        Fact("integrations", f"integration: {name}", ANY, (rf"\b{name}\b",))
        for name in ("Airtable", "ArangoDB", "CouchDB", "DynamoDB", "Elasticsearch", "MongoDB")
    ],
    event("Budibase is in Public Beta!"),
    event("The 5 best open source form builder apps"),
]

FOUNDRIES = [
    Fact("profile", "headquarters: Cambridge, UK", PROFILE_HQ, (r"Cambridge",)),
    Fact("profile", "US subsidiary: Boulder, CO", ANY, (r"Boulder",)),
    Fact("funding", "funded by Linaro Ltd", ("profile.funding",), (r"Linaro",)),
    person("Ian Drew", "Chairman"),
    person("George Grey", "CEO"),
    person("Robert Booth", "COO"),
    person("Alan Bennett", "VP Engineering"),
    Fact("products", "product: Linux microPlatform", PRODUCT, (r"^Linux microPlatform",)),
    Fact("products", "product: Zephyr microPlatform", PRODUCT, (r"^Zephyr microPlatform",)),
    plan("evaluation $10/month", r"evaluation|personal", "10", "month"),
    plan("evaluation $89/year", r"evaluation|personal", "89", "year"),
    plan("Zephyr $1,000/month", "Zephyr", "1000", "month"),
    plan("Zephyr $10,000/year", "Zephyr", "10000", "year"),
    plan("Linux $2,500/month", "Linux", "2500", "month"),
    plan("Linux $25,000/year", "Linux", "25000", "year"),
    *[
        Fact("hardware", f"supported hardware: {name}", ANY, (pattern,))
        for name, pattern in (
            ("Raspberry Pi 3", r"Raspberry Pi 3"),
            ("Toradex Colibri iMX7", r"Colibri iMX7"),
            ("NXP Freedom K64F", r"K64F"),
        )
    ],
    event("microPlatform update 0.25"),
    event("Zephyr Logging Survival Guide, Part 1"),
    event("Securing OTA Community Edition"),
]

FIXTURE = [
    Fact("profile", "founded 2011", ("profile.yearFounded",), (r"2011",)),
    Fact("profile", "headquarters: Austin", PROFILE_HQ, (r"Austin",)),
    Fact("profile", "250 employees", ("profile.employeeCount",), (r"250",)),
    Fact("products", "product: FlowDesk", PRODUCT, (r"^FlowDesk\b",)),
    Fact("products", "product: InsightBoard", PRODUCT, (r"^InsightBoard\b",)),
    Fact("features", "FlowDesk: ticket routing", ("feature",), (r"FlowDesk", r"Ticket routing")),
    Fact("prices", "FlowDesk Pro $49", PLAN, (r"\bPro\b", price("49"))),
    Fact("news", "Globex raises Series B", EVENT, (r"Series B",)),
]

SITES = {"budibase": BUDIBASE, "foundries": FOUNDRIES, "fixture": FIXTURE}
