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

QZZR = [
    Fact("profile", "headquarters: Lehi, Utah", PROFILE_HQ, (r"Lehi",)),
    Fact("products", "product: Qzzr, a quiz tool", PRODUCT, (r"^Qzzr\b", r"quiz")),
    Fact(
        "products",
        "product: Pollcaster, a poll tool",
        ("offering", "feature", "event"),
        (r"Pollcaster",),
    ),
    plan("Basic free", "Basic", "0", None),
    plan("Pro $299/year", "Pro", "299", "year"),
    plan("Pro unlimited $999/year", r"unlimited", "999", "year"),
    plan("Enterprise custom", "Enterprise", None, None),
    person("Josh Little", "CEO"),
    person("Bucky Flowers", "The Psychologist"),
    person("Owen Fuller", "Chief Qwizard"),
    person("Bart Elison", "Keeper of the Crypt"),
    Fact(
        "funding",
        "$2 million seed",
        ("profile.funding", "event"),
        (r"\b2(?:\.0)?\s*(?:million|mln|m\b)|2,?000,?000", r"seed"),
    ),
    *[
        Fact("funding", f"investor: {name}", ("profile.funding", "node"), (pattern,))
        for name, pattern in (
            ("Kickstart Seed Fund", r"Kickstart"),
            ("Pelion Venture Partners", r"Pelion"),
            ("Peterson Ventures", r"Peterson"),
            ("RPM Ventures", r"RPM"),
        )
    ],
    Fact(
        "customers",
        "customer: Sideshow/Slideshow Collectibles",
        ("profile.customers", "node"),
        (r"S(?:l)?ideshow Collectibles",),
    ),
    Fact("customers", "customer: Marketo", ("profile.customers", "node"), (r"Marketo",)),
    event("Qzzr Launches Out of Stealth"),
    Fact("news", "news: Pollcaster launch (April 2015)", EVENT, (r"Pollcaster",)),
]

PRIVATECORE = [
    Fact(
        "profile",
        "headquarters: Palo Alto or Redwood City, California",
        PROFILE_HQ,
        (r"Palo Alto|Redwood City",),
    ),
    Fact("profile", "founded 2012", ("profile.yearFounded",), (r"2012",)),
    Fact("products", "product: PrivateCore vCage", PRODUCT, (r"vCage",)),
    Fact(
        "features",
        "vCage: attestation (vCage Manager)",
        ("feature", "offering"),
        (r"attestation|vCage Manager",),
    ),
    Fact(
        "features",
        "vCage: memory encryption (vCage Host)",
        ("feature", "offering"),
        (r"memory encryption|encrypt|vCage Host",),
    ),
    person("Oded Horovitz", "CEO"),
    person("Steve Weis", "CTO"),
    person("Todd Thiemann", "Marketing"),
    person("Sahil Rihan", "Engineer"),
    person("Carl Waldspurger", "Advisor"),
    Fact(
        "funding",
        "$2.25 million seed, Foundation Capital",
        ("profile.funding",),
        (r"2\.25|2,250,000", r"Foundation Capital"),
    ),
    Fact(
        "funding",
        "investor: Foundation Capital",
        ("profile.funding", "node"),
        (r"Foundation Capital",),
    ),
    Fact(
        "awards",
        "award: VentureBeat CloudBeat 2013",
        ANY,
        (r"CloudBeat|Early.Stage Cloud Startup",),
    ),
    event("PrivateCore is joining Facebook"),
    Fact(
        "news",
        "news: vCage limited general availability (11 Feb 2014: Locks Down OpenStack Servers)",
        EVENT,
        (r"general availability|Locks Down OpenStack|2014-02-11",),
    ),
    Fact("news", "news: PRISM-proof Tor server demo", EVENT, (r"PRISM|Tor\b",)),
]

RIFFYN = [
    Fact("profile", "headquarters: Oakland, California", PROFILE_HQ, (r"Oakland",)),
    Fact("profile", "founded 2014", ("profile.yearFounded",), (r"2014",)),
    Fact(
        "profile",
        "industry: R&D / experiment software",
        ("profile.industry",),
        (r"R&D|research|scien|experiment|biotech|life science",),
    ),
    Fact(
        "products",
        "product: Riffyn SDE (Scientific Development Environment)",
        PRODUCT,
        (r"SDE|Scientific Development Environment",),
    ),
    Fact(
        "products",
        "product: Riffyn Open Access",
        ("offering", "feature", "event"),
        (r"Open Access",),
    ),
    person("Tim Gardner", "C"),
    Fact(
        "people",
        "Lili Nader (Chief Technology Officer / CTO)",
        PERSON,
        (r"Lili Nader", r"Chief Technology Officer|CTO"),
    ),
    person("Claude Calegari", "Operations"),
    person("Loren Perelman", "Scientific Consulting"),
    person("Alan Hanley", "Product Development"),
    person("Doug Williams", "Commercial Development"),
    Fact(
        "funding",
        "$1.8M seed led by O'Reilly AlphaTech Ventures",
        ("profile.funding",),
        (r"1\.8|1,800,000",),
    ),
    Fact(
        "funding",
        "Siemens Venture Capital investment",
        ("profile.funding", "node", "event"),
        (r"Siemens",),
    ),
    Fact(
        "customers", "customer: Novozymes", ("profile.customers", "node", "event"), (r"Novozymes",)
    ),
    Fact("awards", "award: Gartner Cool Vendor 2017", ANY, (r"Cool Vendor",)),
    Fact("news", "news: Open Access launch (2018-10-03)", EVENT, (r"Open Access",)),
    Fact("news", "news: Boston office (2018-01)", EVENT, (r"Boston",)),
    Fact("news", "news: Lili Nader named CTO (2017-11-14)", EVENT, (r"Nader",)),
]

DEVOPS = [
    Fact("profile", "operated by Wiredcraft Co. Ltd", ANY, (r"Wiredcraft",)),
    Fact("profile", "headquarters: San Francisco", PROFILE_HQ, (r"San Francisco",)),
    Fact(
        "products",
        "product: devo.ps, a single API for your servers",
        PRODUCT,
        (r"devo\.?ps", r"server|infrastructure|API|DevOps"),
    ),
    plan("Free $0", "Free", "0", None),
    plan("Bootstrap $49/month", "Bootstrap", "49", "month"),
    plan("Startup $99/month", "Startup", "99", "month"),
    plan("Business $199/month", "Business", "199", "month"),
    person("Ronan Berder", "Product, Business & Strategy"),
    person("Juha Suomalainen", "Development"),
    person("Vincent Viallet", "Ops"),
    event("Releasing devo.ps 0.13"),
    event("Releasing devo.ps 0.12"),
    event("BackupAllTheThings"),
    event("Announcing dopy with Digital Ocean API v2 support"),
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

# The Serbian (Latin script) fixture site ``tests/pipeline_fixtures/site_sr``: prices in EUR
# with decimal commas ("19,99 € mesečno"), Serbian titles, dates and URL paths.
FIXTURE_SR = [
    Fact("profile", "founded 2015", ("profile.yearFounded",), (r"2015",)),
    Fact("profile", "headquarters: Novi Sad", PROFILE_HQ, (r"Novi Sad",)),
    Fact("products", "product: Pratilac", PRODUCT, (r"^Pratilac\b",)),
    Fact(
        "features",
        "Pratilac: automatsko usmeravanje tiketa",
        ("feature",),
        (r"Pratilac", r"usmeravanje tiketa"),
    ),
    Fact(
        "features",
        "Pratilac: automatizacija procesa",
        ("feature",),
        (r"Pratilac", r"Automatizacija procesa"),
    ),
    Fact(
        "features",
        "Pratilac: izveštaji u realnom vremenu",
        ("feature",),
        (r"Pratilac", r"Izveštaji u realnom vremenu"),
    ),
    Fact("prices", "Start free", PLAN, (r"\bStart\b", price("0"))),
    plan("Tim 19,99 € per agent/month", "Tim", "19.99", "month", r'"currency": "EUR"'),
    plan("Biznis 49,99 € per agent/month", "Biznis", "49.99", "month", r'"currency": "EUR"'),
    plan("Korporativni on request", "Korporativni", None, None),
    person("Marko Petrović", "Direktor"),
    person("Ana Jovanović", "Osnivač"),
    person("Nikola Ilić", "Tehnički direktor"),
    event("Pratilac 3 donosi automatizaciju procesa"),
    Fact("news", "news dated 2024-03-12", EVENT, (r"Pratilac 3", r"2024-03-12")),
]

SITES = {
    "budibase": BUDIBASE,
    "foundries": FOUNDRIES,
    "qzzr": QZZR,
    "privatecore": PRIVATECORE,
    "riffyn": RIFFYN,
    "devops": DEVOPS,
    "fixture": FIXTURE,
    "fixture-sr": FIXTURE_SR,
}


# -- junk: what a structured record must never be ---------------------------------------------
# Site chrome, legal and utility words, one phrase per line: an offering, feature, plan,
# person or investor whose whole name is one of these is junk, whatever the site.
CHROME = {
    line.strip()
    for line in """
reviews
review
related products
services
resources
phone
telephone
email
e-mail
location
address
contact
contact us
let's connect
get in touch
follow us
subscribe
newsletter
search
sign in
sign up
log in
login
logout
register
my account
account
privacy
privacy policy
terms
terms of service
terms of use
terms and conditions
cookies
cookie policy
legal
careers
jobs
blog
news
press
about
about us
company
team
our team
home
menu
read more
learn more
more
glossary
getting started
faq
faqs
q&a
support
help
documentation
docs
cart
checkout
payment
payments
payment options
shipping
thank you
thank-you
thanks
404
page not found
not found
copyright
all rights reserved
skip to content
share
twitter
facebook
linkedin
github
youtube
instagram
rss
feed
archives
categories
tags
uncategorized
download
request a demo
book a demo
start free trial
get started
name
name (required)
email (required)
website
comment
comments
leave a comment
leave a reply
as seen on
select page
vision
values
impact
events
livecasts
case studies
developer blog
videos
""".strip().splitlines()
}
# A news item or event titled like a legal, utility or archive page (or dated only).
NOT_NEWS = re.compile(
    r"^(?:privacy(?: policy)?|terms(?: of (?:service|use))?|cookie policy|legal|search|"
    r"thank(?:s| you|-you)!?$|page not found|404|sign in|log in|contact(?: us)?|pricing|careers|"
    r"jobs|about(?: us)?|our team|team|home|blog|news|press|archives?)\b"
    r"|^(?:\d{1,2}\s+)?(?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december)\s+\d{4}$|^\d{4}(?:[-/]\d{1,2})?$|^(?:category|tag|author|archives?)\s*:",
    re.IGNORECASE,
)
NOT_NEWS_URL = re.compile(
    r"/(?:careers?|jobs?)/|#comment"
    r"|/(?:tags?|categor(?:y|ies)|authors?|feed|page/\d+|privacy[^/]*|terms[^/]*|tos|"
    r"pricing|careers|jobs|search|thank-?you[^/]*|404)/?$|/\d{4}/(?:\d{1,2}/)?$",
    re.IGNORECASE,
)


# Chrome words that are also what a product does ("Share: bring teams together", "Search:
# find any record"): junk only as a bare name with no description of its own.
AMBIGUOUS = {"share", "search", "support", "help", "events", "feed", "download", "docs"}


def junk_reason(place: str, name: str, url: str = "", description: str = "") -> str | None:
    """Why a stored record is junk (chrome, legal, utility), or None when it is not."""
    key = " ".join(name.replace("’", "'").split()).strip(" :|-").casefold()
    described = len(description.split()) >= 3 and not re.search(r"\bno \w+ yet\b", description)
    if key in AMBIGUOUS and described:
        return None
    if place in ("offering", "feature", "plan", "person", "investor") and key in CHROME:
        return f"site chrome as a {place}: {name!r}"
    if place == "plan" and re.search(r"\d+[\s-]*(?:day|week|month)s?\b.*\btrial", key):
        return f"a free-trial length as a plan: {name!r}"
    person_name = name.split(" (")[0]
    if place == "person" and (
        re.search(
            r"[a-z](?:CEO|CTO|COO|CFO|Chief|Co-?[Ff]ounder|Founder|Director|VP|Vice|Head|"
            r"Manager|Engineer|President|Officer)",
            person_name,
        )
        or re.search(r"\d|@|https?:", person_name)
        or len(person_name.split()) > 4
        or re.search(
            r"\b(?:appoints|names|named|announces|hires|joins|launches|welcomes|promotes)\b",
            person_name,
            re.IGNORECASE,
        )
    ):
        return f"not a person's name: {name!r}"
    if place in ("offering", "feature") and (
        re.match(r"by\s", key) or NOT_NEWS.match(key) and re.search(r"\d{4}$", key)
    ):
        return f"a byline or date as a {place}: {name!r}"
    if place in ("offering", "feature") and re.fullmatch(
        r"(?:january|february|march|april|may|june|july|august|september|october|november|"
        r"december)\s+\d{1,2},?\s+\d{4}",
        key,
    ):
        return f"a date as a {place}: {name!r}"
    if place == "news" and (NOT_NEWS.search(key) or (url and NOT_NEWS_URL.search(url))):
        return f"not news: {name!r} {url}"
    return None
