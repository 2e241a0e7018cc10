"""How the world's languages write "per month" and "per year" after a price, from the
Unicode CLDR (through Babel) rather than from word lists of our own.

CLDR gives every locale's per-unit patterns for months and years in a long and a short
form ("{0} per maand", "{0}/mnd", "{0} al mese", "{0}/mês", "{0} na miesiąc"); the text
after the placeholder is what a pricing page writes after an amount. Narrow forms ("/m",
"/a", "/J") are left out: one letter after a slash is as often a metre or a unit as a
period. The languages read are :data:`LANGUAGES` (the ones sites are written in, not a
list of words); the patterns are built once, on first use.
"""

from __future__ import annotations

import functools
import re

# Languages whose CLDR period patterns are read (ISO 639-1; Norwegian Bokmål is "nb").
LANGUAGES = (
    "en de fr es it pt nl sv nb nn da fi is pl cs sk sl hr sr bs hu ro bg ru uk el tr lt lv "
    "et ca gl eu ga cy id ms vi"
).split()
_LENGTHS = ("long", "short")


def _suffixes(unit: str, lengths: tuple[str, ...] = _LENGTHS, least: int = 2) -> set[str]:
    """What each language writes after an amount "per ``unit``", in the forms of
    ``lengths``, with at least ``least`` letters."""
    from babel import Locale
    from babel.core import UnknownLocaleError

    found: set[str] = set()
    for language in LANGUAGES:
        try:
            patterns = Locale.parse(language)._data["unit_patterns"].get(unit, {})
        except (UnknownLocaleError, ValueError, KeyError):
            continue
        # "/ maand", "/ Monat": a slash before the unit's name (its long singular form).
        one = ((patterns.get("long") or {}).get("one") or "").split("{0}", 1)[-1].strip()
        if len(one) >= 3 and one.isalpha():
            found.add(f"/ {one}")
        for length in lengths:
            per = (patterns.get(length) or {}).get("per") or ""
            if "{0}" not in per:
                continue
            suffix = " ".join(per.split("{0}", 1)[1].split())
            letters = re.sub(r"[\W\d_]", "", suffix)
            if len(letters) >= least:
                found.add(suffix)
    return found


def _pattern(suffixes: set[str]) -> str:
    either = "|".join(re.escape(s).replace(r"\ ", r"\s*") for s in sorted(suffixes, key=len)[::-1])
    return r"^\s*(?:[,.][-–]\s*)?(?:" + either + r")(?![^\W\d_])"


@functools.cache
def period_pattern(period: str) -> str:
    """A regular expression for "per month" (``period`` "month") or "per year" ("year")
    right after an amount ("25,- per maand": a whole amount's ",-" may come between), in
    every language of :data:`LANGUAGES`. Built once per period: every price asks for it."""
    unit = {"month": "duration-month", "year": "duration-year"}[period]
    return _pattern(_suffixes(unit))


@functools.cache
def rate_pattern(stretch: str) -> str:
    """A regular expression for "per hour" (``stretch`` "hour"), "per day" or "per week"
    right after an amount, in every language of :data:`LANGUAGES`; an hour's one-letter
    form ("€/h") too, which nothing else writes after money."""
    unit = {"hour": "duration-hour", "day": "duration-day", "week": "duration-week"}[stretch]
    if stretch == "hour":
        return _pattern(_suffixes(unit, ("long", "short", "narrow"), least=1))
    return _pattern(_suffixes(unit))
