"""Dates as web pages and feeds write them: ISO text, "July 27, 2018", "27 July 2018",
"2018-07-27", a dated URL path (``/2018/07/27/slug``) and, for a page in another language,
that language's forms ("12. mart 2024.", ``pipeline.language.find_written_date``).

A date before 1990 or more than two days ahead (a feed's zero date, an events calendar)
counts as no date (``timeutil.plausible_web_date``).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from ci_service.timeutil import plausible_web_date

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_YEAR = r"(?:19|20)\d\d"
_DATE = re.compile(
    rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+{_YEAR}\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b"
    rf"|\b{_YEAR}-\d\d-\d\d\b|\b{_YEAR}/\d\d/\d\d\b|\b\d{{1,2}}([./-])\d{{1,2}}\1{_YEAR}\b"
    rf"|\b{_MONTH}\s+{_YEAR}\b",
    re.IGNORECASE,
)
_URL_DATE = re.compile(r"/((?:19|20)\d\d)/(0?[1-9]|1[0-2])/(?:(0?[1-9]|[12]\d|3[01])/)?")
_DATEPARSER = {
    "PREFER_DAY_OF_MONTH": "first",
    "RETURN_AS_TIMEZONE_AWARE": True,
    "TO_TIMEZONE": "UTC",
}


# The forms pages write most ("July 27, 2018", "27 Jul 2018", "July 2018"): read directly,
# dateparser (a millisecond a call) only for the rest.
_COMMON_FORMS = ("%B %d %Y", "%b %d %Y", "%d %B %Y", "%d %b %Y", "%B %Y", "%b %Y", "%Y/%m/%d")
_ORDINAL = re.compile(r"(?<=\d)(?:st|nd|rd|th)\b", re.IGNORECASE)


def _common_form(text: str) -> datetime | None:
    cleaned = _ORDINAL.sub("", text).replace(",", " ").replace(" of ", " ")
    cleaned = " ".join(cleaned.replace(". ", " ").rstrip(".").split())
    for form in _COMMON_FORMS:
        try:
            return datetime.strptime(cleaned, form).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


# A date written in numbers only: "5.4.2016", "05/04/2016", "5-4-2016".
_NUMERIC = re.compile(r"^(\d{1,2})([./-])(\d{1,2})\2((?:19|20)\d\d)$")


def numeric_date(text: str, lang: str = "") -> datetime | None:
    """A date written in numbers alone, read the way its writer meant it: with dots or
    dashes the day comes first (that is how the languages that write them so order them);
    with slashes a number over 12 is the day, and otherwise an English page puts the month
    first and any other language the day."""
    match = _NUMERIC.match(text.strip())
    if match is None:
        return None
    first, separator, second, year = match.groups()
    a, b = int(first), int(second)
    if separator != "/" or a > 12 or (b <= 12 and lang not in ("", "en")):
        day, month = a, b
    else:
        month, day = a, b
    try:
        return datetime(int(year), month, day, tzinfo=UTC)
    except ValueError:
        return None


def parse_date(value: Any, lang: str = "") -> datetime | None:
    """``value`` (ISO text, "July 27, 2018", "5.4.2016", a datetime) as an aware UTC
    datetime, or None when it is not a date or lies outside 1990 .. now + 2 days. ``lang``
    is the page's language, for dates in numbers alone (:func:`numeric_date`)."""
    if isinstance(value, datetime):
        when = value
    else:
        text = " ".join(str(value or "").split())[:100]
        if not text:
            return None
        try:
            when = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            when = numeric_date(text, lang) or _common_form(text)
        if when is None:
            import dateparser

            when = dateparser.parse(text, languages=["en"], settings=_DATEPARSER)
            if when is None:
                return None
    return plausible_web_date(when)


def find_date(text: str, lang: str = "") -> datetime | None:
    """The first plausible written date in ``text``: English forms, then (for a page in
    another language) that language's ("12. mart 2024.", "12. März 2024")."""
    for match in _DATE.finditer(text or ""):
        if when := parse_date(match.group(0), lang):
            return when
    if lang and lang != "en":
        from ci_service.pipeline.language import find_written_date

        if when := find_written_date(text, lang):
            return plausible_web_date(when.replace(tzinfo=UTC))
    return None


def url_date(url: str) -> datetime | None:
    """The date a URL's path states (``/2014/09/24/slug``; day 1 when it gives a month)."""
    if match := _URL_DATE.search(urlsplit(url).path):
        year, month, day = (int(g) if g else 1 for g in match.groups())
        return parse_date(datetime(year, month, day, tzinfo=UTC))
    return None
