"""Amounts, currencies, periods and units in pricing text (the "prices" rules of
:mod:`ci_service.pipeline.pricing.plans`, which re-exports these names).

An amount needs a currency: a symbol or ISO code in front ("$49", "US$ 49", "USD 1,200",
"$ USD 104" when a page splits the symbol and the code into spans) or behind ("49,99 €",
"20 GBP"). A bare number ("10,000 responses", "14-day trial", "2019") is never a price,
and a number followed by a symbol that opens the next amount ("since 2019 $5") is not one.

Numbers keep their precision ("$0.005" is 0.005). Separators: "1,000" and "1.000" are
thousands, "49,99" and "49.99" decimals, "1.000,50" / "1,000.50" the last separator the
decimal one; a leading "0" group is always decimal ("0.125"). On a page that writes its
amounts with decimal points ("$9.99"), "1.125" is a decimal too; the page's convention is
set per page (:data:`DECIMAL`, from :func:`page_decimal`).

Lines that are shop plumbing (shipping, subtotals, cart, installments, "you save", reviews)
state no plan's price.
"""

from __future__ import annotations

import contextlib
import itertools
import re
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from ci_service.pipeline.evidence import sentence_at
from ci_service.pipeline.pricing import currencies
from ci_service.pipeline.pricing.period_words import period_pattern, rate_pattern

_OWN_CODES = "USD EUR GBP CHF CAD AUD NZD JPY INR SEK NOK DKK PLN BRL MXN SGD HKD ZAR CNY CZK TRY"
# With CLDR's currencies of many languages (``pricing.currencies``), less codes that are
# words or names on pages ("ALL plans", "AMD Ryzen", "PHP 8").
_CODES = "|".join(
    code
    for code in dict.fromkeys([*_OWN_CODES.split(), *currencies.codes(), "RON", "BGN"])
    if code not in {"ALL", "AMD", "PHP", "GEL", "LAK"}
)
_SYMBOLS = {"$": "USD", "US$": "USD", "A$": "AUD", "AU$": "AUD", "C$": "CAD", "CA$": "CAD"}
_SYMBOLS.update({"NZ$": "NZD", "HK$": "HKD", "S$": "SGD", "R$": "BRL", "€": "EUR", "£": "GBP"})
_SYMBOLS.update({"¥": "JPY", "₹": "INR"})
_SYM = rf"(?:US|AU|A|CA|C|NZ|HK|S|R)?\$|€|£|¥|₹|{currencies.symbol_pattern()}"
# Thousands apart by a (no-break) space or an apostrophe ("1 250", "1'250"), or by a point
# or comma; "150,-" is 150 with no cents.
_GROUPED = r"\d{1,3}(?:[\u00a0\u202f'’]\d{3})+(?:[.,]\d{1,2})?"
_NUM = rf"{_GROUPED}|\d{{1,9}}(?:[.,]\d{{1,6}}){{0,4}}"
_SPACED = r"\d{1,3}(?: \d{3})+(?:[.,]\d{1,2})?"  # only before its currency: "1 250 kr"
_NO_CENTS = r"(?:[.,][-–](?![\w-]))?"
AMOUNT = re.compile(
    rf"(?:(?P<sym>{_SYM})\s?(?:(?P<symcode>{_CODES})\b\s?)?|\b(?P<code>{_CODES})\s?(?:{_SYM})?\s?)"
    rf"(?P<num>{_NUM})(?!\d){_NO_CENTS}"
    rf"|(?<![\w.,$€£¥₹])(?P<num2>{_SPACED}|{_NUM}){_NO_CENTS}\s?"
    rf"(?:(?P<sym2>{_SYM})|(?P<code2>{_CODES})\b)(?!\s?\d)"
)
# The page's decimal separator ("." or ","), None when the page does not say.
DECIMAL: ContextVar[str | None] = ContextVar("pricing_decimal", default=None)
COMMA_LANGUAGES = frozenset(
    "de fr es it nl pt pl ru sv da fi nb nn no cs sk sl hr sr bs tr ro hu el bg uk lt lv et "
    "id vi ca gl eu is".split()
)
_NOT_THIS = r"(?<!\blast )(?<!\bthis )(?<!\bnext )(?<!\bthat )(?<!\bsame )"
_PERIODS = (
    (
        "month",
        r"(?:/|\bper\b|\ba\b|\beach\b)\s*(?:mo|mon|month|mth)s?\b|\bmonthly\b|"
        + _NOT_THIS
        + r"\bmonth\b",
    ),
    ("year", r"(?:/|\bper\b|\ba\b|\beach\b)\s*(?:yr|year|annum)s?\b|\bannually\b|\byearly\b"),
    ("year", _NOT_THIS + r"\byear\b"),
    # Serbian/Croatian, German, French, Spanish (the page's language picks the decimals;
    # the words are unambiguous across these languages)
    (
        "month",
        r"\bmj?ese\u010dn[oa]\b|\bmj?esecno\b|\bpo mj?esecu\b|\bmonatlich\b|\bpro monat\b|"
        r"/\s*(?:monat|mois|mes|mesec|mjesec)\b|\bpar mois\b|\bmensuel(?:le)?\b|\bal mes\b|"
        r"\bmensual\b",
    ),
    (
        "year",
        r"\bgodi\u0161nje\b|\bgodisnje\b|\bj\u00e4hrlich\b|\bpro jahr\b|"
        r"/\s*(?:jahr|an|a\u00f1o|godina|godinu)\b|\bpar an\b|\bannuel(?:le)?\b|"
        r"\bal a\u00f1o\b|\banual\b",
    ),
    # Abbreviations: "p/m", "p.m.", "pcm", "/mnd" (Dutch), "p/j", "p.a.".
    ("month", r"\bp\s?/\s?m(?:nd)?\b|\bp\.m\.|\bpcm\b|/\s*mnd\b|\bper\s+mnd\b"),
    ("year", r"\bp\s?/\s?j\b|\bp\.j\.|\bp\.a\.|\bper\s+annum\b"),
    ("one-time", r"\bone[- ]?time\b|\bonce\b|\blifetime\b|\bone[- ]off\b|\bperpetual\b"),
    # Italian, German, French, Spanish, Portuguese, Dutch, Swedish, Polish: "once", "perpetual".
    (
        "one-time",
        r"\buna[ \t]+tantum\b|\beinmalig\w*|\bpaiement[ \t]+unique\b|\b(?:pago|pagamento)[ \t]+"
        r"[úu]nico\b|\beenmalig\w*|\beng[åa]ngs\w*|\bjednorazow\w*|\bperpetu[ao]\b|"
        r"\bperp[ée]tuel(?:le)?\b|\bdauerhaft\w*",
    ),
)
_BILLED_YEARLY = re.compile(
    r"\b(?:billed|paid|charged|invoiced)\s+(?:annually|yearly|per year|every year)\b", re.I
)
_UNIT_WORDS = (
    r"end[- ]?users?|users?|seats?|members?|agents?|editors?|hosts?|nodes?|devices?|"
    r"licen[cs]es?|projects?|sites?|servers?|instances?|employees?|contacts?|admins?|"
    r"creators?|builders?|people|persons?|messages?|e-?mails?|sms|requests?|(?:api\s+)?calls?|"
    r"minutes?|hours?|[GMTP]i?B|gigabytes?|terabytes?|transactions?|orders?|credits?|"
    r"domains?|workspaces?|locations?|vehicles?|tokens?|cores?|vcpus?|responses?|"
    r"submissions?|subscribers?|units?"
)
_UNIT = re.compile(
    rf"^\s*(?:(?:per|/|each|an?)\s*(?P<count>\d[\d,.]*\s*[kKmM]?\s+)?|)(?P<word>{_UNIT_WORDS})\b",
    re.IGNORECASE,
)
# "po agentu", "pro Nutzer", "par utilisateur", "por usuario", after the period or not
# ("19,99 € mesečno po agentu"): the English unit they name.
_FOREIGN_UNIT = re.compile(
    r"\b(?:po|pro|je|par|por|per|pr\.?|för|pour)\s+(?P<word>korisnik\w*|agent\w*|"
    r"(?:be)?nutzer\w*|utilisateur\w*|usuario\w*|usu[aá]rio\w*|utente\w*|gebruiker\w*|"
    r"användare|bruker\w*|bruger\w*|u[żz]ytkownik\w*|licenc\w*|lizenz\w*|sedi\u0161t\w*|"
    r"mest\w*|platz|poste|postazion\w*|arbeitspl[aä]tz\w*|persoon\w*|personne\w*|persona\w*|pessoa\w*|person(?:er)?\b|"
    r"osob\w*|mitarbeiter\w*|medewerker\w*|employé\w*|empleado\w*|dipendente\w*)",
    re.IGNORECASE,
)
_FOREIGN_UNITS = (
    (
        "user",
        r"korisnik|nutzer|benutzer|utilisateur|usuario|usu[aá]rio|utente|gebruiker|användare|"
        r"bruker|bruger|u[żz]ytkownik",
    ),
    ("agent", r"agent"),
    ("license", r"licenc|lizenz"),
    ("seat", r"sedi\u0161t|mest|platz|poste|postazion|arbeitspl"),
    ("person", r"persoon|personne|persona|pessoa|person|osob"),
    ("employee", r"mitarbeiter|medewerker|employé|empleado|dipendente"),
)
_FLAT = re.compile(r"\bflat\b", re.IGNORECASE)
ON_REQUEST = re.compile(
    r"\W*(?:contact\s+(?:us|sales|our\s+sales(?:\s+team)?)(?:\s+for\s+(?:pricing|a\s+quote))?"
    r"|talk\s+to\s+(?:us|sales|an\s+expert)|let'?s\s+talk|get\s+(?:a\s+)?quote"
    r"|request\s+(?:a\s+)?(?:quote|quotation|pricing|price)"
    r"|request\s+for\s+(?:a\s+)?(?:quote|quotation|pricing|proposal)"
    r"|(?:price|pricing|quote)?\s*(?:up)?on\s+(?:request|application)"
    r"|custom(?:\s+(?:pricing|prices?|quotes?|plans?|offers?|packages?|deals?))?"
    r"|(?:flexible|tailored|individual|volume)\s+pricing|call\s+us|ask\s+us"
    r"|contact\s+for\s+(?:pricing|a\s+quote)|quote\s+based"
    # Serbian/Croatian, German, French, Spanish
    r"|(?:cena|cijena)\s+na\s+upit|na\s+upit|po\s+dogovoru|kontaktirajte\s+(?:nas|prodaju)"
    r"|(?:preis\s+)?auf\s+anfrage|sur\s+(?:demande|devis)|a\s+consultar|bajo\s+pedido)\W*",
    re.IGNORECASE,
)
# A sentence that opens with one of these ("Contact sales for SSO and audit logs.") under a
# plan name says the plan's price is on request.
ON_REQUEST_START = re.compile(
    r"(?:contact\s+(?:us|sales)|talk\s+to\s+(?:us|sales)|let'?s\s+talk|get\s+a\s+quote|"
    r"request\s+(?:a\s+|for\s+(?:a\s+)?)?(?:quote|quotation)|(?:price\s+)?(?:up)?on\s+request|"
    r"custom\s+(?:pricing|quote|plans?)|(?:cena|cijena)\s+na\s+upit|kontaktirajte\s+prodaju|"
    r"(?:preis\s+)?auf\s+anfrage|prix\s+sur\s+demande|precio\s+a\s+consultar)\b",
    re.IGNORECASE,
)
FREE = re.compile(
    r"\W*(?:free(?:\s+forever)?|always\s+free|forever\s+free|\$0|£0|€0|0\s?€|besplatno|"
    r"kostenlos|gratuit|gratis)"
    r"(?:\s+(?:forever|for\s+life|for\s+ever))?(?:\s+(?:for|up\s+to)\s+[\w ,.+-]{1,40})?\W*",
    re.IGNORECASE,
)
# Free trials, e-commerce plumbing and other lines around prices that state no plan's price.
TRIAL = re.compile(
    r"\btrial\b|\b\d+[- ]?(?:days?|weeks?|months?)\s+free\b|"
    r"\bfree\s+for\s+(?:\d+|one|two|three|a)\s+(?:days?|weeks?|months?)\b",
    re.IGNORECASE,
)
PLUMBING = re.compile(
    r"\b(?:shipping|postage|sub-?total|order\s+total|grand\s+total|(?:add|added)\s+to\s+"
    r"(?:cart|basket|bag)|(?:shopping\s+)?(?:cart|basket)|checkout|install?ments?|"
    r"interest[- ]free|pay\s+in\s+\d|payments?\s+of|klarna|afterpay|"
    r"\d[\d,]*\)?\s+(?:customer\s+)?reviews?|customer\s+reviews?|write\s+a\s+review|"
    r"out\s+of\s+5\s+stars?|in\s+stock|out\s+of\s+stock|related\s+products?|"
    r"you\s+may\s+also\s+like|customers\s+also|in\s+revenue|revenue\s+of|raised|funding|"
    r"valuation)\b|^\W*total\b",
    re.IGNORECASE,
)
# An amount followed by these words is a company's or a customer's figure, not a price.
NOT_A_PRICE_AFTER = re.compile(
    r"^\W*(?:[^\s$€£]+\s+){0,3}?(?:in\s+)?(?:revenue|sales|salary|salaries|income|profit|"
    r"earnings|ARR|MRR|funding|seed|series\s+[A-E]\b|valuation|raised|grants?|prizes?|"
    r"saved|savings|in\s+damages|market|budget)\b",
    re.IGNORECASE,
)
# An amount followed by these words is what more of something costs on top of a plan.
_ADD_ON_AFTER = re.compile(
    r"^\W*(?:(?:per|for\s+each|each|/|a|an)\s+(?:additional|extra|further)\b|"
    r"(?:overage|surcharge|add-?on)\b)",
    re.IGNORECASE,
)
# An amount right after these words is an old price or a saving, not what the plan costs.
NOT_THE_PRICE = re.compile(
    r"(?:\b(?:save|saving|you\s+save|was|were|rrp|msrp|compare\s+at|list\s+price|"
    r"regular(?:ly)?|normally|up\s+to)\W{0,3})$",
    re.IGNORECASE,
)
# A count of days, weeks or months right after a number ("2 Week", "14-day").
_DURATION_AFTER = re.compile(r"[\s-]*(?:days?|weeks?|months?|years?)\b", re.IGNORECASE)
QUOTE_MARKS = "\"“”„«»‘’'"
# A plan its own card or row says is not sold yet: a status line or badge ("Coming soon",
# "Beta", "Early access", "On the roadmap", "Planned", "Join the waitlist", "Coming in
# 2025"), or the same words closing its name or price line ("Teams (beta)").
_NOT_YET_WORDS = (
    r"coming\s+soon|coming\s+(?:in\s+)?(?:q[1-4]\s+)?(?:[a-z]+\s+)?(?:19|20)\d\d|"
    r"(?:(?:public|private|open|closed)\s+)?beta|in\s+beta|beta\s+access|"
    r"(?:request\s+|get\s+)?early\s+access|(?:join\s+(?:the|our)\s+)?wait-?\s?list|"
    r"on\s+(?:the|our)\s+roadmap|planned|(?:available|launching|arriving)\s+soon|"
    r"not\s+(?:yet\s+)?available(?:\s+yet)?"
)
_NOT_YET_LINE = re.compile(rf"\W*(?:{_NOT_YET_WORDS})\W*", re.IGNORECASE)
_NOT_YET_END = re.compile(rf"(?:\s*[(\[–—:|-]\s*|\s+)(?:{_NOT_YET_WORDS})\W*$", re.IGNORECASE)


@dataclass
class Price:
    amount: float
    currency: str | None
    period: str | None
    unit: str | None
    text: str


def number(raw: str, decimal: str | None = None) -> float | None:
    """ "1,000" -> 1000, "49,99" -> 49.99, "1.000,50" -> 1000.5, "0.005" -> 0.005."""
    raw = re.sub(r"(?<=\d)[ \u00a0\u202f'’](?=\d{3}(?!\d))", "", (raw or "").strip())
    if not re.fullmatch(r"\d+(?:[.,]\d+)*", raw):
        return None
    decimal = decimal or DECIMAL.get()
    seps = re.findall(r"[.,]", raw)
    groups = re.split(r"[.,]", raw)
    try:
        if not seps:
            return float(raw)
        if len(set(seps)) == 2:
            mark = seps[-1]
            if seps.count(mark) > 1:
                return None
            head, tail = raw.rsplit(mark, 1)
            return float(re.sub(r"[.,]", "", head) + "." + tail)
        if len(seps) > 1:  # "1,000,000" / "1.000.000"
            ok = all(len(g) == 3 for g in groups[1:])
            return float("".join(groups)) if ok else None
        head, tail = groups
        thousands = len(tail) == 3 and head != "0" and not (seps[0] == "." and decimal == ".")
        return float(head + tail) if thousands else float(f"{head}.{tail}")
    except ValueError:
        return None


def page_decimal(text: str, language: str = "") -> str | None:
    """The decimal separator the page's amounts use ("9,99 €" -> ",", "$9.99" -> ".")."""
    votes = {",": 0, ".": 0}
    for match in AMOUNT.finditer(text or ""):
        raw = match.group("num") or match.group("num2") or ""
        seps = re.findall(r"[.,]", raw)
        if not seps:
            continue
        tail = re.split(r"[.,]", raw)[-1]
        if len(set(seps)) == 2 or len(tail) != 3:
            votes[seps[-1]] += 1
    if votes[","] != votes["."]:
        return "," if votes[","] > votes["."] else "."
    return "," if (language or "").split("-")[0].lower() in COMMA_LANGUAGES else None


@contextlib.contextmanager
def page_money(text: str, language: str = "") -> Iterator[None]:
    """The page's way of writing money, for the amounts read inside: its decimal separator
    (:data:`DECIMAL`) and its language (``currencies.LANGUAGE``, for "kr" and the like)."""
    decimal = DECIMAL.set(page_decimal(text, language))
    spoken = currencies.LANGUAGE.set(language or "")
    try:
        yield
    finally:
        currencies.LANGUAGE.reset(spoken)
        DECIMAL.reset(decimal)


def currency_of(match: re.Match[str]) -> str | None:
    code = match.group("symcode") or match.group("code") or match.group("code2")
    symbol = match.group("sym") or match.group("sym2") or ""
    return (code.upper() if code else None) or _SYMBOLS.get(symbol) or currencies.code_of(symbol)


def amount_of(match: re.Match[str]) -> float | None:
    return number(match.group("num") or match.group("num2") or "")


# A rate per stretch of time, which no plan period says: "p/d", "p.d.", "per day", "/night".
_RATE = re.compile(
    r"^\s*(?:p\s*/\s*(?P<short>[dhw])\b|p\.(?P<dotted>[dhw])\.|(?:per|/|an?|each)\s*"
    r"(?P<word>day|night|hour|hr|week|wk)s?\b)",
    re.IGNORECASE,
)
_RATE_UNITS = {"d": "day", "h": "hour", "w": "week", "hr": "hour", "wk": "week"}


def _unit(head: str) -> str | None:
    if rate := _RATE.match(head):
        word = (rate.group("short") or rate.group("dotted") or rate.group("word")).lower()
        return f"per {_RATE_UNITS.get(word, word)}"
    for stretch in ("hour", "day", "week"):  # "60 €/h", "25 € pro Stunde", "€ 80 per dag"
        if re.match(rate_pattern(stretch), head, re.IGNORECASE):
            return f"per {stretch}"
    match = _UNIT.match(head)
    if match:
        word = " ".join(match.group("word").split())
        if re.fullmatch(r"[GMTP]i?B", word, re.IGNORECASE):
            word = word[:-1].upper() + "B" if len(word) == 2 else word[0].upper() + "iB"
        else:
            word = (
                word.lower().replace(" ", "-") if word.lower().startswith("end") else word.lower()
            )
            word = "end-user" if word.startswith("end") else word
        count = " ".join((match.group("count") or "").split())
        if count:
            return f"per {count} {word}"
        word = {"people": "person", "persons": "person", "sms": "SMS"}.get(word, word)
        keep = word in ("end-user", "SMS") or word.endswith("B") or not word.endswith("s")
        return "per " + (word if keep else word[:-1])
    if foreign := _FOREIGN_UNIT.search(head[:40]):
        stem = foreign.group("word").casefold()
        for unit, pattern in _FOREIGN_UNITS:
            if re.match(pattern, stem):
                return f"per {unit}"
    return "flat" if _FLAT.search(head) else None


def qualifiers(after: str) -> tuple[str | None, str | None, bool]:
    """(period, unit, billed yearly) from the words after an amount."""
    head = after[:60]
    found = [
        (m.start(), name)
        for name, rx in _PERIODS
        if (m := re.search(rx, head, re.I)) and len(head[: m.start()].split()) <= 3
    ]
    # The CLDR forms right after the amount or after up to three words of a unit ("€19
    # per medewerker / maand").
    starts = [0] + [w.end() for w in itertools.islice(re.finditer(r"\S+", head), 3)]
    for name in ("month", "year"):
        at = next((s for s in starts if re.match(period_pattern(name), head[s:], re.I)), None)
        if at is not None:
            found.append((at, name))
    period = min(found)[1] if found else None
    return period, _unit(head), bool(_BILLED_YEARLY.search(after[:80]))


def is_plumbing(line: str) -> bool:
    """Shop plumbing, a saving or a figure that is no plan's price ("Shipping $4.99")."""
    return bool(PLUMBING.search(line))


def is_quoted(line: str) -> bool:
    """A quotation: a testimonial's words, not the page's own prices."""
    text = line.strip()
    return len(text) > 1 and text[0] in QUOTE_MARKS and len(text.split()) >= 4


def is_prose(text: str, found: list[Price]) -> bool:
    """A sentence that mentions an amount ("We saved $2,000 in a week.") states no plan's
    price: many words around the amounts and no period or unit."""
    if not found or any(p.period or p.unit for p in found):
        return False
    words = len(AMOUNT.sub(" ", text).split())
    first = AMOUNT.search(text)
    before = len(text[: first.start()].split()) if first else 0
    return words > 8 or before > 4 or (words > 4 and text.rstrip().endswith((".", "!")))


_RANGE = re.compile(r"\s*(?:-|–|—|to|bis|à|a|tot|till?)\s*", re.IGNORECASE)


def prices(line: str, next_line: str = "") -> list[Price]:
    """The prices stated in ``line`` (qualifiers from ``next_line`` when the line has none)."""
    if is_plumbing(line) or is_quoted(line):
        return []
    matches = list(AMOUNT.finditer(line))
    out = []
    upper: set[int] = set()  # the upper ends of ranges, stated by their lower ends
    for i, match in enumerate(matches):
        if i in upper:
            continue
        amount = amount_of(match)
        if amount is None or NOT_THE_PRICE.search(line[max(0, match.start() - 24) : match.start()]):
            continue
        if NOT_A_PRICE_AFTER.match(line[match.end() : match.end() + 60]):
            continue
        if _ADD_ON_AFTER.match(line[match.end() : match.end() + 60]):
            continue  # "$0.005 per additional invoke": an overage rate, not the plan's price
        if _DURATION_AFTER.match(line[match.end() :]) and TRIAL.search(line):
            continue  # "$ 2 Week Free Trial": a trial's length under a currency sign
        currency = currency_of(match)
        if currency is None:
            continue  # letters that are money only in another language ("10 KM", "6 Ft")
        end = matches[i + 1].start() if i + 1 < len(matches) else len(line)
        after = line[match.end() : end]
        if i + 1 < len(matches) and _RANGE.fullmatch(after):
            # "$20-$30/mo": one price from its lower end, qualified as the range is.
            upper.add(i + 1)
            end = matches[i + 2].start() if i + 2 < len(matches) else len(line)
            after = line[matches[i + 1].end() : end]
        period, unit, yearly = qualifiers(after)
        text = line[match.start() : end].strip(" [](),;")
        if period is None and unit is None and i == len(matches) - 1 and next_line:
            if len(next_line.split()) <= 6 and not AMOUNT.search(next_line):
                period, unit, yearly = qualifiers(next_line)
                text = f"{text} {next_line}" if period or unit else text
        if period == "month" and yearly:
            amount, period = round(amount * 12, 6), "year"
        out.append(Price(amount, currency, period, unit, text[:200]))
    return out


def is_on_request(line: str) -> bool:
    return len(line.split()) <= 6 and bool(ON_REQUEST.fullmatch(line))


def is_not_yet(line: str) -> bool:
    """A whole line saying a plan is not sold yet ("Coming soon", "Beta", "Early access")."""
    return len(line.split()) <= 6 and bool(_NOT_YET_LINE.fullmatch(line))


def ends_not_yet(line: str) -> bool:
    """A plan's name or price line closed by such words ("Teams (beta)", "$20/mo – soon")
    (a feature line's "SSO (beta)" says so of the feature, not of the plan: never asked)."""
    return len(line.split()) <= 12 and bool(_NOT_YET_END.search(line))


def is_free(line: str) -> bool:
    return len(line.split()) <= 8 and bool(FREE.fullmatch(line)) and not TRIAL.search(line)


def find_quote(text: str, *candidates: str) -> str | None:
    """The first candidate found in ``text`` (whitespace and case aside), as ``text`` has it;
    last, a candidate whose characters the text has with other spacing ("$ USD 104 /month"
    for "$USD104/month" or "$\\nUSD\\n104")."""
    for candidate in candidates:
        words = candidate.split()
        if not words:
            continue
        pattern = r"\s+".join(re.escape(w) for w in words)
        match = re.search(rf"^[ \t]*({pattern})[ \t]*$", text, re.I | re.M) or re.search(
            rf"(?<!\w)({pattern})" if words[0][0].isalnum() else f"({pattern})", text, re.I
        )
        if match:
            return match.group(1)
    for candidate in candidates:
        chars = "".join(candidate.split())
        if 0 < len(chars) <= 200:
            match = re.search(r"\s*".join(re.escape(c) for c in chars), text, re.I)
            if match:
                return match.group(0)
    return None


def amount_quote(text: str, amount: float, name: str = "") -> str | None:
    """The sentence of ``text`` stating ``amount`` (one that also names ``name`` first)."""
    hits = [m for m in AMOUNT.finditer(text) if amount_of(m) == amount]
    hits = [m for m in hits if not is_quoted(sentence_at(text, m.start(), m.end()))]
    hits.sort(key=lambda m: name.casefold() not in sentence_at(text, m.start()).casefold())
    return sentence_at(text, hits[0].start(), hits[0].end()) if hits else None
