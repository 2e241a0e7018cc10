"""The text rules behind ``pipeline.profile`` (its docstring documents them): regular
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

from ci_service.pipeline.evidence import Cite, sentence_at, sentences
from ci_service.pipeline.site import SitePage
from ci_service.timeutil import utcnow

MAX_TEXT = 100_000  # characters of a page the rules read (hostile pages can be huge)
MAX_LIST = 20
MAX_MATCHES = 40  # per rule and page: a value is stated a few times, not thousands
_CUSTOMER_SEGMENT = re.compile(r"^(?:customers?|clients?|case-?stud(?:y|ies)|testimonials)$", re.I)
COPYRIGHT = re.compile(r"©|\bcopyright\b|\(c\)\s*\d|all rights reserved", re.I)
_PERSON = re.compile(r"\b(?:who|he|she|his|her|him)\b", re.I)
_FIRST_PERSON = re.compile(r"\b(?:we|our|us|the company)\b", re.I)

YEAR = r"1[89]\d\d|20\d\d"
_MONTHS = (
    "jan feb mar apr may jun jul aug sep oct nov dec".split(),
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?",
)
_MONTH = _MONTHS[1]
_FOUNDED_RULES = (  # (priority, pattern with the year as group 1, needs first person)
    (
        0,
        rf"\b(?:co-?)?(?:founded|founding|established|incorporated)\b[^.!?\n]{{0,60}}?\b({YEAR})\b",
        0,
    ),
    (0, rf"\best\.?[ \t]*({YEAR})\b", 0),
    (1, rf"\b(?:began|begun|begins|started|starts|born)\b[^.!?\n]{{0,40}}?\b({YEAR})\b", 0),
    (2, rf"\bsince[ \t]+(?:(?:early|late|mid)[ -]?)?(?:{_MONTH}[ \t]+)?({YEAR})\b", 1),
)
_FOUNDED = [(p, re.compile(rx, re.I), fp) for p, rx, fp in _FOUNDED_RULES]
_STORY = re.compile(r"\b(?:our story|our history|history|how it (?:all )?started)\b", re.I)
_STORY_START = re.compile(rf"^\W*(?:back )?in[ \t]+(?:{_MONTH}[ \t]+)?({YEAR})\b", re.I)

_WORD = r"(?:[A-Z][a-z]?\.|[A-Z]\.(?:[A-Z]\.)+|[A-Z][\w'’&-]*)"  # "St.", "U.K.", words
_PART = rf"{_WORD}(?:[ \t]+(?:(?:of|on|upon|am|de|del|la|le|sur|im)[ \t]+)?{_WORD}){{0,3}}"
_PLACE = rf"({_PART}(?:,[ \t]*{_PART}){{0,2}})"
_HQ_WORD = r"(?i:headquarters|head[ \t]+office)|HQ"
_HQ_RULES = (  # (priority, pattern with the place (or an address) as group 1)
    (0, rf"\b(?i:headquartered[ \t]+(?:in|at|out of))[ \t]+(?:the[ \t]+)?{_PLACE}"),
    (
        0,
        rf"\b(?:{_HQ_WORD})(?i:[ \t]+(?:is|are))?(?i:[ \t]+located)?"
        rf"(?:(?i:[ \t]+(?:in|at))|[ \t]*[:–-])[ \t]+{_PLACE}",
    ),
    (0, rf"\b(?:{_HQ_WORD})[ \t]*[:–-][ \t]*(\d[^\n]{{0,160}})"),  # "HQ: 1 Main St, Dublin"
    (0, r"((?:[A-Z][\w'’&.-]*[ \t]+){1,3})(?:HQ|Headquarters|Head Office)\b"),
    (2, rf"(?<![-\w])(?i:based[ \t]+(?:in|out of))[ \t]+{_PLACE}"),
    (
        2,
        rf"\b(?i:(?:founded|established|started)(?:[ \t]+in[ \t]+\d{{4}})?[ \t]+in)[ \t]+"
        rf"{_PLACE}",
    ),
    (3, rf"\b(?i:offices[ \t]+in)[ \t]+{_PLACE}"),
)
_HQ = [(p, re.compile(rx)) for p, rx in _HQ_RULES]
_NOT_PLACE = set(
    "the our a an we you it this home contact about pricing blog global corporate company "
    "main world international group regional european emea apac americas asian former "
    "visit get see read learn sign log".split()
)
_STREET_WORD = (
    r"\b(?:street|st|road|rd|avenue|ave|lane|ln|way|drive|dr|boulevard|blvd|crescent|place|pl|"
    r"square|sq|suite|floor|building|house|court|rue|via|calle|avenida|park|unit|po box)\b\.?"
    r"|\w(?:straße|strasse|str\.|gasse|weg|plein|laan|straat|vej|gatan|katu)\b"
)
_STREET = re.compile(rf"^\d+[a-z]?\b|(?:{_STREET_WORD})$", re.I)  # "Main St", not "St. Louis"
_STREET_LINE = re.compile(rf"^(?=[^\n]*\d)(?=[^\n]*(?:{_STREET_WORD}))[^\n]{{4,80}}$", re.I)
_US_CITY = re.compile(r"\b([A-Z][A-Za-z .'-]{1,30}),[ \t]*([A-Z]{2})[ \t]+\d{5}(?:-\d{4})?\b")
_POSTAL = re.compile(r"\b(?:\d{4,6}|[A-Z]{1,2}\d[A-Z\d]?[ \t]*\d[A-Z]{2})\b")
COUNTRIES = {
    c.casefold(): c
    for c in (
        "United Kingdom|UK|U.K.|England|Scotland|Wales|Northern Ireland|Ireland|United States|"
        "United States of America|USA|U.S.A.|US|Canada|Mexico|Brazil|Argentina|Chile|Colombia|"
        "Germany|France|Spain|Portugal|Italy|Netherlands|The Netherlands|Belgium|Luxembourg|"
        "Switzerland|Austria|Sweden|Norway|Denmark|Finland|Iceland|Estonia|Latvia|Lithuania|"
        "Poland|Czech Republic|Czechia|Slovakia|Hungary|Romania|Bulgaria|Greece|Croatia|"
        "Serbia|Ukraine|Turkey|Israel|UAE|United Arab Emirates|Egypt|Nigeria|Kenya|"
        "South Africa|India|China|Hong Kong|Taiwan|Japan|South Korea|Korea|Singapore|Malaysia|"
        "Indonesia|Philippines|Vietnam|Thailand|Australia|New Zealand"
    ).split("|")
}

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
_NAME_WORD = r"[A-Z0-9][\w'’&-]*(?:\.[\w'’&-]+)*"  # "Foundries.io"; never a sentence's "."
_NAME = rf"{_NAME_WORD}(?:[ \t]+(?:(?:of|de|von|van|&)[ \t]+)?{_NAME_WORD}){{0,5}}"
# "&" joins words of one name ("Procter & Gamble"), never two names.
_SEPARATOR = r"(?:,[ \t]*(?:and[ \t]+)?|[ \t]+and[ \t]+)(?:the[ \t]+)?"
_LIST = rf"({_NAME}(?:{_SEPARATOR}{_NAME}){{0,11}})"
_INVESTORS = re.compile(
    r"\b(?i:led by|co-led by|backed by|funded by|financed by|granted by|(from)|investors?"
    r"[ \t]+(?:include|including|are|such as)|participation (?:from|of))[ \t]+"
    rf"(?i:(?:the|existing|new|our|its|investors?|including|such as|like)[ \t]+){{0,3}}{_LIST}"
)
_CUSTOMERS = re.compile(
    r"\b(?i:(?:trusted|used|loved|chosen|relied on|relied upon) by|(?:customers|clients)[ \t]+"
    r"(?:include|including|such as|like)|(?:signups|users|customers|clients)[ \t]+(from|at)|"
    r"(?:companies|teams|organi[sz]ations|brands|businesses)[ \t]+(including|such as|like))"
    rf"[ \t]+(?i:(?:the likes of|teams at|companies like|companies such as)[ \t]+)?{_LIST}"
)
_USES = re.compile(r"\b(?:us(?:e|es|ed|ing)|trust\w*|rel(?:y|ies|ied)|customers?|clients?)\b", re.I)
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


def about_us(sentence: str, aliases: list[str], first_person: bool = False) -> bool:
    low = sentence.casefold()
    return any(a in low for a in aliases) or (first_person and bool(_FIRST_PERSON.search(low)))


def _first(pattern: re.Pattern[str], text: str) -> list[re.Match[str]]:
    return list(islice(pattern.finditer(text), MAX_MATCHES))


def valid_year(year: str) -> int | None:
    value = int(year)
    return value if 1800 <= value <= utcnow().year else None


def clean_place(raw: str) -> str | None:
    """A place string ("Cambridge, UK") from a regex match, or None when it is not one."""
    raw = re.split(r"(?<=[a-z]{3})\.\s", raw)[0]
    parts = []
    for part in raw.split(","):
        words = [w.strip(".'’") if len(w) > 4 else w for w in part.split()]
        words = [w for w in words if w and not any(ch.isdigit() for ch in w)]
        while words and words[-1].casefold() in ("hq", "headquarters", "head", "office"):
            words.pop()
        if not words or words[0].casefold() in _NOT_PLACE or len(words) > 4:
            break
        if any(w.rstrip(".")[:3].casefold() in _MONTHS[0] and len(w) <= 9 for w in words[:1]):
            break  # "in March 2020" is a date
        if _STREET.search(" ".join(words)):
            continue
        name = " ".join(words).rstrip(".,;:")
        if name and name.casefold() not in (p.casefold() for p in parts):
            parts.append(name)
    place = ", ".join(parts[:3])
    return place if 2 <= len(place) <= 80 else None


def address_place(block: str) -> str | None:
    """City (and country) of a postal address block, or None."""
    if match := _US_CITY.search(block):
        return f"{match.group(1).strip()}, {match.group(2)}"
    parts = [p.strip() for p in re.split(r",|\n|;|\s[|•·]\s", block) if p.strip()]
    for index, part in enumerate(parts):
        bare = " ".join(w for w in part.split() if not any(ch.isdigit() for ch in w))
        country = COUNTRIES.get(bare.strip(" .").casefold())
        if not country or index == 0:
            continue
        for before in reversed(parts[max(0, index - 2) : index]):
            city = clean_place(_POSTAL.sub("", before))
            street = _STREET.search(_POSTAL.sub("", before).strip())
            if city and not street and city.casefold() != country.casefold():
                return f"{city}, {country}"
        return country if _POSTAL.search(part) or _STREET.search(parts[index - 1]) else None
    return None


def _address_blocks(text: str) -> list[tuple[int, int]]:
    """(start, end) of a street line ("12 Market Street", "Kaiserstraße 5") and the next 3."""
    lines = [(m.start(), m.end()) for m in re.finditer(r"[^\n]+", text)]
    spans = []
    for i, (start, end) in enumerate(lines):
        if _STREET_LINE.match(text[start:end].strip()):
            spans.append((start, lines[min(i + 3, len(lines) - 1)][1]))
    return spans


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


def _date(sentence: str) -> str | None:
    months = _MONTHS[0]
    found = re.search(
        rf"\b(?:(\d{{1,2}})(?:st|nd|rd|th)?[ \t]+)?({_MONTH})[ \t]+(?:(\d{{1,2}})(?:st|nd|rd|th)?"
        rf",?[ \t]+)?({YEAR})\b|\b(?i:in|during)[ \t]+(?:(?:early|late|mid)[ -]?)?({YEAR})\b",
        sentence,
    )
    if not found or not valid_year(found.group(4) or found.group(5)):
        return None
    if found.group(5):
        return found.group(5)
    month = months.index(found.group(2)[:3].lower()) + 1
    day = int(found.group(1) or found.group(3) or 0)
    return f"{found.group(4)}-{month:02d}" + (f"-{day:02d}" if 1 <= day <= 31 else "")


def _names(listed: str, exclude: list[str]) -> list[str]:
    out: list[str] = []
    for name in re.split(_SEPARATOR, listed):
        name = name.strip()
        if not re.search(r"\b(?:inc|ltd|co|corp|llc)\.$", name, re.I):
            name = name.rstrip(".")
        first = name.split()[0].casefold() if name.split() else ""
        if (
            not name
            or first in _NOT_NAME
            or name.casefold() in COUNTRIES
            or name.isdigit()
            or _ROUND.fullmatch(name)
            or re.match(rf"^{_MONTH}$", name)
            or any(alias in name.casefold() for alias in exclude)
            or len(name) > 80
        ):
            break  # a list ends at its first word that is not a name
        if name not in out:
            out.append(name)
    return out[:MAX_LIST]


def _hq_place(match: re.Match[str], priority: int, text: str) -> str | None:
    """The place of a headquarters rule's match (see ``_HQ_RULES``), or None."""
    raw = match.group(1)
    if raw[:1].isdigit():  # "HQ: 1 Main Street, Dublin, Ireland"
        return address_place(raw) or clean_place(raw)
    if match.start(1) == match.start():  # "Contact Us Singapore HQ": the label's last words
        words = raw.split()
        while words and words[0].casefold() in _NOT_PLACE | {"us", "new"}:
            words.pop(0)
        raw = " ".join(words)
    place = clean_place(raw)
    # "offices in London, Berlin and Paris": a list of places, the first one is the answer
    if place and re.match(r"[ \t]+and[ \t]+[A-Z]", text[match.end() : match.end() + 8]):
        place = place.split(",")[0]
    return place.split(",")[0] if place and priority == 3 else place


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
        if value is not None and 10_000 <= value <= 1e13:  # not a price, not garbage
            entry.update(amount=value, currency=currency or (code or "").upper() or None)
            break
    investors: list[str] = []
    for match in _first(_INVESTORS, sentence):
        # "from" names an investor only after the money ("a spin-out from X raised" does not)
        if not match.group(1) or match.start() > cue.start():
            investors += [n for n in _names(match.group(2), aliases) if n not in investors]
    if investors:
        entry["investors"] = investors[:MAX_LIST]
    if not (entry.get("amount") or entry.get("investors")):
        return None
    if date := _date(sentence):
        entry["date"] = date
    return entry


def page_candidates(page: SitePage, rank: int, index: int, aliases: list[str]) -> list[Candidate]:
    """Every profile value the rules read on ``page`` (``rank`` 0 profile page, 1 home page,
    2 other; ``aliases`` the company's names, casefolded), each with its sentence."""
    text = page.text[:MAX_TEXT]
    found: list[Candidate] = []
    quotes: dict[tuple[int, int], str] = {}  # one sentence search per match

    def add(name: str, value: Any, span: tuple[int, int], priority: int, us: bool = False) -> None:
        if span not in quotes:
            quotes[span] = sentence_at(text, *span)
        quote = quotes[span]
        # Elsewhere than profile pages the company (or "we") must be the subject: named in
        # the sentence before the match ("Budibase was founded in ...").
        subject = re.split(r"[.!?]\s+|\n", text[max(0, span[0] - 200) : span[0]])[-1]
        if COPYRIGHT.search(quote) or (rank == 2 and not about_us(subject, aliases, us)):
            return
        letters = [ch for ch in quote if ch.isalpha()]
        if sum(ch.isupper() for ch in letters) > 0.6 * len(letters) > 12:
            return  # an all-caps sentence is a disclaimer or a banner, not a statement
        order = (priority, rank, index, span[0])
        found.append(Candidate(name, value, Cite(page.url, quote), order, page.url))

    for priority, pattern, first_person in _FOUNDED:
        for match in _first(pattern, text):
            sentence = sentence_at(text, match.start(), match.end())
            year = valid_year(match.group(1))
            if year and not _PERSON.search(sentence):
                if not first_person or about_us(sentence, aliases, True):
                    add("yearFounded", year, match.span(), priority)
    for heading, _level, body in page.sections:
        if heading and _STORY.search(heading) and (match := _STORY_START.search(body or "")):
            where = text.find(body[: match.end()])
            if where >= 0 and (year := valid_year(match.group(1))):
                add("yearFounded", year, (where, where + match.end()), 1)
    for priority, pattern in _HQ:
        for match in _first(pattern, text):
            place = ", ".join(  # "Headquartered in Austin, Acme ...": Acme is no place
                part
                for part in (_hq_place(match, priority, text) or "").split(", ")
                if part and not any(alias in part.casefold() for alias in aliases)
            )
            if place:
                add("headquarters", place, match.span(), priority, us=True)
    if rank == 0:
        for start, end in _address_blocks(text)[:MAX_MATCHES]:
            if place := address_place(text[start:end]):
                cite = Cite(page.url, text[start:end])  # the block's lines, one quote
                order = (1, rank, index, start)
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
    customer_page = any(_CUSTOMER_SEGMENT.match(s) for s in segments(page))
    for match in _first(_CUSTOMERS, text):
        names = _names(match.group(3), aliases)
        loose = match.group(1) or match.group(2)  # "from X", "companies like X": 2 names
        if match.group(2) and not _USES.search(sentence_at(text, *match.span())):
            continue
        if len(names) >= (2 if loose else 1):
            for name in names:
                add("customers", name, match.span(), 0 if customer_page else 1)
    return found
