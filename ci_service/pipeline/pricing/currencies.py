"""Currency symbols as pages in many languages write them, from the Unicode CLDR (Babel).

For each language below, the language's usual territory (CLDR's likely subtags: "sv" is
Sweden) and that territory's currency give the symbol the language writes for its own
money: "kr" in Swedish is SEK, in Norwegian NOK and in Danish DKK; "zł" is PLN, "Kč" CZK,
"Ft" HUF, "₺" TRY. A symbol only one of these currencies uses is read on any page, unless it
is made of Latin letters alone ("Ft", "KM", "Rs" are also feet, kilometres and India's
rupees); those and the ones several currencies share ("kr") only on a page in the
currency's own language (:data:`LANGUAGE`, set per
page by ``pricing.money.page_money``). The dollar, euro, pound, yen and rupee signs are
``pricing.money``'s own.
"""

from __future__ import annotations

import re
from contextvars import ContextVar
from functools import lru_cache

# The page's language (ISO 639-1), for the symbols several languages share.
LANGUAGE: ContextVar[str] = ContextVar("pricing_language", default="")

_LANGUAGES = (
    "sv nb nn da is pl cs sk hu tr ru uk bg ro hr sr bs sl mk sq lt lv et fi ja zh ko he ar fa "
    "th vi id ms fil hi bn ur el ka hy az kk uz mn km lo my ne si sw am"
).split()
# The symbols money.py reads itself; CLDR's "US$" and the like are in its table too.
_OWN = frozenset("$ € £ ¥ ₹ US$ A$ AU$ C$ CA$ NZ$ HK$ S$ R$".split())


@lru_cache(maxsize=1)
def _local() -> dict[str, dict[str, str]]:
    """language -> {symbol: ISO code} of the language's own territory's currency."""
    from babel import Locale
    from babel.core import get_global
    from babel.numbers import get_currency_symbol, get_territory_currencies

    likely = get_global("likely_subtags")
    out: dict[str, dict[str, str]] = {}
    for language in _LANGUAGES:
        try:
            territory = Locale.parse(likely.get(language, language)).territory
            currencies = get_territory_currencies(territory) if territory else []
            if not currencies:
                continue
            symbol = get_currency_symbol(currencies[0], language)
        except Exception:  # a language this Babel does not know: its symbols are not read
            continue
        if (
            symbol
            and symbol not in _OWN
            and symbol != currencies[0]
            and not (len(symbol) == 1 and symbol.isalpha())
        ):
            out[language] = {symbol: currencies[0], symbol.rstrip("."): currencies[0]}
    return out


@lru_cache(maxsize=1)
def _everywhere() -> dict[str, str]:
    """Symbols one currency alone uses: read on a page in any language."""
    codes: dict[str, set[str]] = {}
    for symbols in _local().values():
        for symbol, code in symbols.items():
            codes.setdefault(symbol, set()).add(code)
    return {s: next(iter(c)) for s, c in codes.items() if len(c) == 1 and not _ascii_word(s)}


def _ascii_word(symbol: str) -> bool:
    """Latin letters only ("kr", "Ft", "KM", "Rs"): a unit or an abbreviation too ("10 KM",
    "6 Ft"), so a currency only on a page in the currency's own language."""
    return bool(re.fullmatch(r"[A-Za-z.]+", symbol))


@lru_cache(maxsize=1)
def codes() -> tuple[str, ...]:
    """The ISO codes of the currencies above."""
    return tuple(sorted({c for symbols in _local().values() for c in symbols.values()}))


@lru_cache(maxsize=1)
def symbol_pattern() -> str:
    """A regex alternation of the symbols above, longest first; a symbol made of letters
    ("kr", "zł", "Kč") stands apart from words."""
    symbols = sorted({s for m in _local().values() for s in m if s}, key=len, reverse=True)
    parts = []
    for symbol in symbols:
        escaped = re.escape(symbol)
        parts.append(rf"(?<![^\W\d_]){escaped}(?![^\W\d_])" if symbol[-1].isalpha() else escaped)
    return "|".join(parts)


def code_of(symbol: str) -> str | None:
    """The ISO code ``symbol`` stands for on the current page, or None."""
    if found := _everywhere().get(symbol):
        return found
    language = (LANGUAGE.get() or "").split("-")[0].lower()
    return _local().get(language, {}).get(symbol)
