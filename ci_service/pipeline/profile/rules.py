"""The text rules behind ``pipeline.profile.extract`` (its docstring documents them): regular
expressions over a page's main text for the founding year, headquarters, team size, revenue,
funding rounds and named customers, each match cited by the sentence that holds it.

Real pages are hostile: every pattern is bounded (no unbounded backtracking) and a value
that cannot be understood (a year in the future, a place with a street number, an amount
without a number) is dropped, never raised.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice
from typing import Any
from urllib.parse import urlsplit

from ci_service.pipeline.customers.names import is_count
from ci_service.pipeline.customers.pages import is_customer_page
from ci_service.pipeline.evidence import Cite, sentence_at, sentences
from ci_service.pipeline.profile.places import (
    COUNTRIES,
    NOT_PLACE,
    address_blocks,
    address_place,
    city_line_end,
    clean_place,
    postal_cities,
)
from ci_service.pipeline.site import SitePage
from ci_service.pipeline.subject import (
    about_blocks,
    about_us,
    names_another,
    subject_before,
)
from ci_service.timeutil import utcnow

# "founded" in the other languages the pipeline reads (German, French, Spanish, Italian,
# Dutch, Nordic, Polish, Czech, Slovene, Croatian, Serbian Latin)
FOUNDED_ABROAD = (
    r"gegründet|gründung|fondée?|fundad[ao]|fondat[ao]|opgericht|grundad|grundlagt|grunnlagt|"
    r"perustettu|założon[aey]|založen[aáoý]?|osnovan[aeoi]?"
)
MAX_TEXT = 100_000  # characters of a page the rules read (hostile pages can be huge)
MAX_LIST = 20
MAX_MATCHES = 40  # per rule and page: a value is stated a few times, not thousands
COPYRIGHT = re.compile(r"©|\bcopyright\b|\(c\)\s*\d|all rights reserved", re.I)
_PERSON = re.compile(r"\b(?:who|he|she|his|her|him)\b", re.I)
_TEAM_SEGMENT = re.compile(r"^(?:(?:our-?|the-?|meet-(?:the-)?)?team|people|leadership)$", re.I)

YEAR = r"1[89]\d\d|20\d\d"
_MONTHS = (
    "jan feb mar apr may jun jul aug sep oct nov dec".split(),
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?",
)
_MONTH = _MONTHS[1]
_FOUNDED_RULES = (  # (priority, pattern with the year as group 1, needs first person (2: as
    # the subject, "Acme was launched in 2014"))
    (
        0,
        rf"\b(?:co-?)?(?:founded|founding|established|incorporated|{FOUNDED_ABROAD})\b"
        rf"[^.!?\n]{{0,60}}?\b({YEAR})\b",
        0,
    ),
    (0, rf"\best\.?[ \t]*({YEAR})\b", 0),
    (0, rf"\b({YEAR})\b[^.!?\n]{{0,20}}?\b(?:{FOUNDED_ABROAD})\b", 0),  # "wurde 2016 gegründet"
    (1, rf"\b(?:began|begun|begins|started|starts|born)\b[^.!?\n]{{0,40}}?\b({YEAR})\b", 0),
    (2, rf"\bsince[ \t]+(?:(?:early|late|mid)[ -]?)?(?:{_MONTH}[ \t]+)?({YEAR})\b", 1),
    (1, rf"\b(?:was|were)[ \t]+launched\b[^.!?\n]{{0,40}}?\b({YEAR})\b", 2),
)
_FOUNDED = [(p, re.compile(rx, re.I), fp) for p, rx, fp in _FOUNDED_RULES]
_STORY = re.compile(r"\b(?:our story|our history|history|how it (?:all )?started)\b", re.I)
_STORY_START = re.compile(rf"^\W*(?:back )?in[ \t]+(?:{_MONTH}[ \t]+)?({YEAR})\b", re.I)

_WORD = r"(?:[A-Z][a-z]?\.|[A-Z]\.(?:[A-Z]\.)+|[A-Z][\w'’&-]*)"  # "St.", "U.K.", words
_PART = rf"{_WORD}(?:[ \t]+(?:(?:of|on|upon|am|de|del|la|le|sur|im)[ \t]+)?{_WORD}){{0,3}}"
_PLACE = rf"({_PART}(?:,[ \t]*{_PART}){{0,2}})"
_HQ_WORD = r"(?i:headquarters|head[ \t]+office)|HQ"
_HQ_RULES = (  # (priority, pattern with the place (or an address) as group 1, strict: the
    # company ("we", its name) must be the subject on every page, not only on other pages)
    (0, rf"\b(?i:headquartered[ \t]+(?:in|at|out of))[ \t]+(?:the[ \t]+)?{_PLACE}", 0),
    (
        0,
        rf"\b(?:{_HQ_WORD})(?i:[ \t]+(?:is|are))?(?i:[ \t]+located)?"
        rf"(?:(?i:[ \t]+(?:in|at))|[ \t]*[:–-])[ \t]+{_PLACE}",
        0,
    ),
    (0, rf"\b(?:{_HQ_WORD})[ \t]*[:–-][ \t]*(\d[^\n]{{0,160}})", 0),  # "HQ: 1 Main St, Dublin"
    # "Singapore HQ", "Denver Office (HQ)"
    (0, r"((?:[A-Z][\w'’&.-]*[ \t]+){1,3})\(?(?:HQ|Headquarters|Head Office)\b", 0),
    (2, rf"(?<![-\w])(?i:based[ \t]+(?:in|out of))[ \t]+{_PLACE}", 0),
    (2, rf"(?<![-\w])(?i:(?:is|are)[ \t]+located[ \t]+in)[ \t]+{_PLACE}", 1),
    (
        2,
        rf"\b(?i:(?:founded|established|started)(?:[ \t]+in[ \t]+\d{{4}})?[ \t]+in)[ \t]+"
        rf"{_PLACE}",
        0,
    ),
    (3, rf"\b(?i:offices[ \t]+in)[ \t]+{_PLACE}", 0),
)
_HQ = [(p, re.compile(rx), strict) for p, rx, strict in _HQ_RULES]
# "our data center is located in Frankfurt", "our main station is located in ...": where
# something else is (a site, a branch, a depot), not the company.
_NOT_SITE = re.compile(
    r"\b(?:data|servers?|cent(?:er|re)s?|hosting|customers?|users?|clients?|stations?|"
    r"stores?|shops?|warehouses?|branch(?:es)?|depots?|factor(?:y|ies)|plants?|outlets?|"
    r"showrooms?|pick-?up|branches|franchises?)\b",
    re.I,
)
_EMPLOYEE_WORDS = r"(?:full[- ]time[ \t]+)?(?:employees|staff|team members|colleagues|staffers)"
_QUALIFIER = r"(?:(over|more than|about|around|nearly|almost|approximately)[ \t]+)?"
_NUMBER = r"(\d{1,3}(?:,\d{3})+|\d+)"
_EMPLOYEE_RULES = (  # (pattern: qualifier, number, plus; profile pages only)
    (rf"{_QUALIFIER}{_NUMBER}(\+)?[ \t]+{_EMPLOYEE_WORDS}\b", 0),
    (rf"\b(?:team|workforce|headcount|staff)[ \t]+of[ \t]+{_QUALIFIER}{_NUMBER}(\+)?", 0),
    (rf"(){_NUMBER}(\+)?[- ](?:strong|person|people)[ \t]+team\b", 0),
    (rf"\bemploys?[ \t]+{_QUALIFIER}{_NUMBER}(\+)?", 0),
    (rf"(?<!join )(?<!by ){_QUALIFIER}{_NUMBER}(\+)?[ \t]+people\b(?![ \t]+(?:use|trust|rely))", 1),
)
# "for companies with 50 employees", "up to 10 staff": the size of someone else.
_OTHERS_SIZE = re.compile(
    r"(?:(?:compan(?:y|ies)|businesses|organi[sz]ations|teams|firms|enterprises|customers|"
    r"clients)[ \t]+(?:with|of)|up to|for|per|under|fewer than|less than)[ \t]+$",
    re.I,
)
_EMPLOYEES = [(re.compile(rx, re.I), profile_only) for rx, profile_only in _EMPLOYEE_RULES]
_EMPLOYEE_RANGE = re.compile(rf"\b(\d+)[ \t]*[-–][ \t]*(\d+)[ \t]+{_EMPLOYEE_WORDS}\b", re.I)
_REVENUE = re.compile(
    r"\b(?:annual\s+)?(?:revenue|revenues|turnover|sales)\s+(?:of|was|were|reached|exceeded|"
    r"topped|:)\s+((?:about|over|more than|nearly)\s+)?([$€£]\s?\d[\d,.]*\s*"
    r"(?:million|billion|thousand|[MBK]n?\b|m\b|bn\b)?)",
    re.IGNORECASE,
)

_FUNDING_CUE = re.compile(
    r"\b(?:raised?|raises|raising|closed|secured?|secures|received|completed|landed|funding|"
    r"funded|financing|investment|invested|investors?|backed|round|grant(?:ed)?)\b",
    re.I,
)
_TARGET = re.compile(
    r"\b(?:seek(?:s|ing)?|looking|plan(?:s|ning)?|aim(?:s|ing)?|hop(?:e|ing)|intend|want|"
    r"will|would|expect)\b[^.]{0,20}\b(?:to[ \t]+)?(?:raise|close|secure)\b",
    re.I,
)
_ROUND = re.compile(
    r"\b(pre[- ]?seed|series[ -](?-i:[A-H])(?![\w-])|(?:seed|angel|bridge)(?=[ \t]+(?:round|"
    r"funding|investment|financing|capital|investors?|extension))|grants?(?![ \t]+(?:you|access|"
    r"permission|licen[cs]es?|rights)))\b",
    re.I,
)
_SYMBOLS = {"$": "USD", "us$": "USD", "£": "GBP", "€": "EUR", "¥": "JPY", "₹": "INR",
            "a$": "AUD", "au$": "AUD", "c$": "CAD", "ca$": "CAD", "s$": "SGD"}  # fmt: skip
_CODES = "USD|GBP|EUR|CHF|CAD|AUD|SGD|JPY|INR|SEK|NOK|DKK"
_WORDS = {"dollars": "USD", "pounds": "GBP", "euros": "EUR"}
_MULT = r"(k|m|mn|mm|million|bn|b|billion|thousand)?"
_AMOUNT = re.compile(
    rf"(?:(US\$|AU?\$|CA?\$|S\$|[$£€¥₹])[ \t]?|\b({_CODES})[ \t]?)(\d[\d,.]*)[ \t]*{_MULT}\b"
    rf"|\b(\d[\d,.]*)[ \t]*{_MULT}[ \t]+({_CODES}|dollars|pounds|euros)\b",
    re.I,
)
_NAME_WORD = r"[A-Z0-9][\w'’&-]*(?:\.[\w'’&-]+)*"  # "Widgets.io"; never a sentence's "."
_NAME = rf"{_NAME_WORD}(?:[ \t]+(?:(?:of|de|von|van|&)[ \t]+)?{_NAME_WORD}){{0,5}}"
# "&" joins words of one name ("Procter & Gamble"), never two names.
# "and" in English, German, French, Dutch, Spanish, Swedish, Norwegian and Danish, Italian.
_AND = r"(?:and|und|et|en|y|och|og|e)"
_SEPARATOR = rf"(?:,[ \t]*(?:{_AND}[ \t]+)?|[ \t]+{_AND}[ \t]+)(?:the[ \t]+)?"
_LIST = rf"({_NAME}(?:{_SEPARATOR}{_NAME}){{0,11}})"
_INVESTORS = re.compile(
    r"\b(?i:led by|co-led by|backed by|funded by|financed by|granted by|investments?[ \t]+"
    r"(?:by|from)|(from)|investors?"
    r"[ \t]+(?:include|including|are|such as)|participation (?:from|of))[ \t]+"
    rf"(?i:(?:the|existing|new|our|its|investors?|including|such as|like)[ \t]+){{0,3}}{_LIST}"
)
_CUSTOMERS = re.compile(
    r"\b(?i:(?:trusted|used|loved|chosen|relied on|relied upon) by|(?:customers|clients)[ \t]+"
    r"(?:include|including|such as|like)|(?:signups|users|customers|clients)[ \t]+(from|at)|"
    r"(?:companies|teams|organi[sz]ations|brands|businesses)[ \t]+(including|such as|like)|"
    # "Kunden wie", "zu unseren Kunden zählen", "clients tels que", "parmi nos clients",
    # "klanten zoals", "clientes como", "kunder som", "bland våra kunder", "clienti come"
    r"kunden[ \t]+wie|zu[ \t]+unseren[ \t]+kunden[ \t]+(?:zählen|gehören)|clients[ \t]+tels[ \t]+"
    r"que|parmi[ \t]+nos[ \t]+clients|nos[ \t]+clients[ \t]+(?:comptent|incluent)|klanten[ \t]+"
    r"(?:zoals|als)|onder[ \t]+onze[ \t]+klanten|clientes[ \t]+como|entre[ \t]+nuestros[ \t]+"
    r"clientes|kunder[ \t]+som|bland[ \t]+våra[ \t]+kunder|blandt[ \t]+vores[ \t]+kunder|"
    r"blant[ \t]+våre[ \t]+kunder|clienti[ \t]+come|tra[ \t]+i[ \t]+nostri[ \t]+clienti)"
    r"(?i:[ \t]+(?:zijn|finns|er|är|sind|sont|figurent|son|sono))?"
    rf"[ \t]+(?i:(?:the likes of|teams at|companies like|companies such as)[ \t]+)?{_LIST}"
)
# The money before an investor's "from": an amount, a round, raising, an investment.
_MONEY = re.compile(
    rf"{_AMOUNT.pattern}|{_ROUND.pattern}|\b(?:raised?|raises|raising|secured?|secures|closed|"
    r"received|funding|financing|investments?|invested)\b",
    re.I,
)
_PEOPLE = re.compile(
    r"\b(?:veterans?|alumni|engineers?|employees|executives|people|founders?|experts?|leaders|"
    r"professionals|team|staff|graduates|researchers|speakers?|presentations?|talks?)\b"
    r"(?:[ \t]+\w+){0,2}[ \t]*$",
    re.I,
)
_TOTAL = re.compile(
    r"\b(?:brings?|bringing|brought|takes?|taking|took)\b[^.]{0,50}\bto[ \t]*$"
    r"|\btotal\w*\b[^.]{0,30}$",
    re.I,
)
_USES = re.compile(
    r"\b(?:us(?:e|es|ed|ing)|trust\w*|rel(?:y|ies|ied)|customers?|clients?|kunden|klanten|"
    r"clientes|kunder|clienti)\b",
    re.I,
)
_NOT_NAME = set(  # words that start no company name: the list has ended
    "the our a an we you it this that these home contact about pricing blog learn read "
    "teams companies businesses startups enterprises developers thousands millions hundreds "
    "fortune leading top many more over some all and others series in on at by from with "
    "ltd inc".split()
)


@dataclass
class Candidate:
    field: str
    value: Any
    cite: Cite | None
    order: tuple[int, ...]  # (priority, page rank, page index, position): lowest wins
    page_url: str = ""


def segments(page: SitePage) -> list[str]:
    return [s for s in urlsplit(page.url).path.lower().split("/") if s and s != "index.html"]


def _first(pattern: re.Pattern[str], text: str) -> list[re.Match[str]]:
    return list(islice(pattern.finditer(text), MAX_MATCHES))


def valid_year(year: str) -> int | None:
    value = int(year)
    return value if 1800 <= value <= utcnow().year else None


def _amount(number: str, mult: str | None) -> float | int | None:
    number = number.rstrip(".,")
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", number):
        number = number.replace(",", "")
    elif re.fullmatch(r"\d{1,3}(?:\.\d{3}){2,}", number) or (
        not mult and re.fullmatch(r"\d{1,3}\.\d{3}", number)
    ):
        number = number.replace(".", "")
    elif re.fullmatch(r"\d+,\d{1,2}", number):
        number = number.replace(",", ".")
    try:
        value = float(number)
    except ValueError:
        return None
    factor = {"k": 1e3, "thousand": 1e3, "b": 1e9, "bn": 1e9, "billion": 1e9}
    value *= factor.get((mult or "").lower(), 1e6 if mult else 1)
    return int(value) if value == int(value) else value


def _date(sentence: str) -> tuple[str, str] | None:
    """(machine date, the date as the sentence writes it): ("2019-12", "December 2019"),
    ("2021-03-05", "5 March 2021"), ("2020", "early 2020")."""
    months = _MONTHS[0]
    found = re.search(
        rf"\b(?:(\d{{1,2}})(?:st|nd|rd|th)?[ \t]+)?({_MONTH})[ \t]+(?:(\d{{1,2}})(?:st|nd|rd|th)?"
        rf",?[ \t]+)?({YEAR})\b|\b(?i:in|during)[ \t]+((?:(?:early|late|mid)[ -]?)?({YEAR}))\b",
        sentence,
    )
    if not found or not valid_year(found.group(4) or found.group(6)):
        return None
    if found.group(6):
        return found.group(6), found.group(5)
    month = months.index(found.group(2)[:3].lower()) + 1
    day = int(found.group(1) or found.group(3) or 0)
    machine = f"{found.group(4)}-{month:02d}" + (f"-{day:02d}" if 1 <= day <= 31 else "")
    return machine, " ".join(found.group(0).split())


def _names(listed: str, exclude: list[str], after: str | None = None) -> list[str]:
    """The names of a listed "A, B and C". With ``after`` (the text following the list,
    where a last "15k" finds its "users") a count ends the list: customers, not investors
    ("backed by 500 Startups" names a firm)."""
    out: list[str] = []
    parts = re.split(_SEPARATOR, listed)
    for number, name in enumerate(parts):
        name = name.strip()
        last = number == len(parts) - 1
        if after is not None and (is_count(name) or (last and is_count(f"{name}{after}"))):
            break  # "Loved by 15k users": a figure, and the list ends there
        if not re.search(r"\b(?:inc|ltd|co|corp|llc)\.$", name, re.I):
            name = name.rstrip(".")
        first = name.split()[0].casefold() if name.split() else ""
        if (
            not name
            or first in _NOT_NAME
            or name.casefold() in COUNTRIES
            or name.isdigit()
            or re.fullmatch(r"[A-Z]&[A-Z]", name)  # "Q&A", "R&D": no company
            or _ROUND.fullmatch(name)
            or re.match(rf"^{_MONTH}$", name)
            or any(alias in name.casefold() for alias in exclude)
            or len(name) > 80
        ):
            break  # a list ends at its first word that is not a name
        if name not in out:
            out.append(name)
    return out[:MAX_LIST]


def _hq_place(match: re.Match[str], priority: int, text: str) -> tuple[str | None, int]:
    """The place of a headquarters rule's match (see ``_HQ_RULES``), or None, and where its
    quote ends."""
    raw, end = match.group(1), match.end()
    if raw[:1].isdigit():  # "HQ: 1 Main Street, Dublin, Ireland"
        return address_place(raw) or clean_place(raw), end
    if match.start(1) == match.start():  # "Contact Us Singapore HQ": the label's last words
        words = raw.split()
        while words and words[0].casefold() in NOT_PLACE | {"us", "new"}:
            words.pop(0)
        place = clean_place(" ".join(words))
        after = text[end : end + 200]
        if place and (full := address_place(after)):
            # "Denver Office (HQ) / 120 Main St / Denver, Colorado 80202": the address's
            # fuller form of the same city, quoted with it
            if full.split(",")[0].casefold() == place.casefold():
                return full, end + city_line_end(after, full)
        return place, end
    place = clean_place(raw)
    # "offices in London, Berlin and Paris": a list of places, the first one is the answer
    if place and re.match(r"[ \t]+and[ \t]+[A-Z]", text[end : end + 8]):
        place = place.split(",")[0]
    return (place.split(",")[0] if place and priority == 3 else place), end


def _funding(sentence: str, aliases: list[str]) -> dict[str, Any] | None:
    cue = _FUNDING_CUE.search(sentence) or _ROUND.search(sentence)
    if not cue or _TARGET.search(sentence):
        return None
    entry: dict[str, Any] = {}
    if match := _ROUND.search(sentence):
        kind = re.sub(r"[- ]+", "-", match.group(1).lower())
        entry["round"] = f"Series {kind[-1].upper()}" if kind.startswith("series") else kind
        entry["round"] = {"preseed": "pre-seed", "grants": "grant"}.get(kind, entry["round"])
    for match in _first(_AMOUNT, sentence):
        symbol, code, number, mult = match.group(1, 2, 3, 4)
        if number is None:
            number, mult, code = match.group(5, 6, 7)
        currency = _SYMBOLS.get((symbol or "").lower()) or _WORDS.get((code or "").lower())
        value = _amount(number, mult)
        if _TOTAL.search(sentence[: match.start()][-80:]):
            continue  # "brings its funding to $4.6M": a total, not this round's amount
        if value is not None and 10_000 <= value <= 1e13:  # not a price, not garbage
            entry.update(amount=value, currency=currency or (code or "").upper() or None)
            break
    investors: list[str] = []
    for match in _first(_INVESTORS, sentence):
        # "from" names an investor only after the money ("a spin-out from X raised", "veterans
        # from X" do not)
        before = sentence[: match.start()]
        if not match.group(1) or (_MONEY.search(before) and not _PEOPLE.search(before[-60:])):
            investors += [n for n in _names(match.group(2), aliases) if n not in investors]
    if investors:
        entry["investors"] = investors[:MAX_LIST]
    if not (entry.get("amount") or entry.get("investors")):
        return None
    if date := _date(sentence):
        entry["date"], entry["dateText"] = date  # the page's wording is what people read
    return entry


def page_candidates(page: SitePage, rank: int, index: int, aliases: list[str]) -> list[Candidate]:
    """Every profile value the rules read on ``page`` (``rank`` 0 profile page, 1 home page,
    2 other; ``aliases`` the company's names, casefolded), each with its sentence."""
    text = page.text[:MAX_TEXT]
    found: list[Candidate] = []
    quotes: dict[tuple[int, int], str] = {}  # one sentence search per match
    blocks = about_blocks(text, aliases)  # "About Acme" boilerplate: about the company
    team = page.kind == "team" or any(_TEAM_SEGMENT.match(s) for s in segments(page))

    def ours(start: int, us: bool = False) -> bool:
        subject = subject_before(text, start)
        return about_us(subject, aliases, us) or any(a <= start < b for a, b in blocks)

    def add(
        name: str, value: Any, span: tuple[int, int], priority: int, us: bool = False, strict=0
    ) -> None:
        if span not in quotes:
            quotes[span] = sentence_at(text, *span)
        quote = quotes[span]
        # Elsewhere than profile pages (and for loose phrasings everywhere) the company (or
        # "we") must be the subject: named in the sentence before the match ("Acme was
        # founded in ...").
        if COPYRIGHT.search(quote) or ((rank == 2 or strict) and not ours(span[0], us)):
            return
        letters = [ch for ch in quote if ch.isalpha()]
        if sum(ch.isupper() for ch in letters) > 0.6 * len(letters) > 12:
            return  # an all-caps sentence is a disclaimer or a banner, not a statement
        order = (priority, rank, index, span[0])
        if name == "headquarters":  # a profile or the home page before any post
            order = (int(rank >= 2), *order)
        found.append(Candidate(name, value, Cite(page.url, quote), order, page.url))

    for priority, pattern, first_person in _FOUNDED:
        for match in _first(pattern, text):
            sentence = sentence_at(text, match.start(), match.end())
            year = valid_year(match.group(1))
            subject = subject_before(text, match.start())
            named = about_us(match.group(0), aliases)  # "Jo and Al founded Acme in 2015"
            if not year or _PERSON.search(sentence):
                continue
            if not named and names_another(subject, aliases):
                continue  # another firm's or a person's founding ("X Capital was founded")
            if first_person == 1 and not about_us(sentence, aliases, True):
                continue
            # "Acme was launched in 2014"; on a team page a bio's years are never ours
            strict = not named and (first_person == 2 or team)
            add("yearFounded", year, match.span(), priority, strict=strict)
    for heading, _level, body in page.sections:
        if heading and _STORY.search(heading) and (match := _STORY_START.search(body or "")):
            where = text.find(body[: match.end()])
            if where >= 0 and (year := valid_year(match.group(1))):
                add("yearFounded", year, (where, where + match.end()), 1)
    for priority, pattern, strict in _HQ:
        for match in _first(pattern, text):
            place, end = _hq_place(match, priority, text)
            place = ", ".join(  # "Headquartered in Austin, Acme ...": Acme is no place
                part
                for part in (place or "").split(", ")
                if part and not any(alias in part.casefold() for alias in aliases)
            )
            if place and not (strict and _NOT_SITE.search(subject_before(text, match.start()))):
                add("headquarters", place, (match.start(), end), priority, us=True, strict=strict)
    if rank == 0:
        blocks = 0
        for start, end in address_blocks(text)[:MAX_MATCHES]:
            if place := address_place(text[start:end]):
                end = start + city_line_end(text[start:end], place)
                cite = Cite(page.url, text[start:end])  # the block's lines, one quote
                order = (0, 1, rank, index, start)
                found.append(Candidate("headquarters", place, cite, order, page.url))
                blocks += 1
        if not blocks and page.kind == "contact":
            # A contact page's first address in running text ("Sjøgata 12, 0150
            # Oslo"; "12 W. Canyon Hwy Fairview, CA 90210").
            for place, start, end in postal_cities(text)[:1]:
                order = (0, 2, rank, index, start)
                cite = Cite(page.url, text[start:end])
                found.append(Candidate("headquarters", place, cite, order, page.url))
    for pattern, profile_only in _EMPLOYEES:
        for match in _first(pattern, text) if rank == 0 or not profile_only else ():
            qualifier, number, plus = match.group(1, 2, 3)
            count = int(number.replace(",", ""))
            if 0 < count < 5_000_000 and not _OTHERS_SIZE.search(text[: match.start()][-40:]):
                more = plus or (qualifier or "").lower() in ("over", "more than")
                add("employeeCount", f"{count}+" if more else str(count), match.span(), 0)
    for match in _first(_EMPLOYEE_RANGE, text):
        add("employeeCount", f"{match.group(1)}-{match.group(2)}", match.span(), 0)
    for match in _first(_REVENUE, text):
        qualifier = (match.group(1) or "").strip()
        amount = " ".join(match.group(2).split()).rstrip(".,")
        add("revenue", f"{qualifier} {amount}".strip()[:500], match.span(), 0)
    funded = 0
    for line in re.finditer(r"[^\n]+", text):
        offset = line.start()
        for sentence in sentences(line.group(0)):
            where = text.find(sentence, offset)
            if funded < MAX_MATCHES and where >= 0 and (entry := _funding(sentence, aliases)):
                funded += 1
                cue = _FUNDING_CUE.search(sentence)
                start = where + (cue.start() if cue else 0)  # the subject comes before it
                add("funding", entry, (start, where + len(sentence)), 0, us=True)
            offset = max(offset, where)
    customer_page = is_customer_page(page)
    for match in _first(_CUSTOMERS, text):
        names = _names(match.group(3), aliases, text[match.end(3) : match.end(3) + 60])
        loose = match.group(1) or match.group(2)  # "from X", "companies like X": 2 names
        if match.group(2) and not _USES.search(sentence_at(text, *match.span())):
            continue
        if len(names) >= (2 if loose else 1):
            for name in names:
                add("customers", name, match.span(), 0 if customer_page else 1)
    return found
