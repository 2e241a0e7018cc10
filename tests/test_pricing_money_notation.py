"""How pages in many languages write money (``pipeline.pricing.money`` with
``pipeline.pricing.currencies``, CLDR's symbols through Babel): thousands apart by spaces or
apostrophes, "150,-" without cents, a symbol of letters read in its own language only, and
the abbreviated periods."""

from __future__ import annotations

import pytest

from ci_service.pipeline.pricing.money import page_money, prices


def _read(line: str, language: str = "") -> list[tuple[float, str | None, str | None]]:
    with page_money(line, language):
        return [(p.amount, p.currency, p.period) for p in prices(line)]


@pytest.mark.parametrize(
    ("line", "language", "expected"),
    [
        ("1 250 kr/mån", "sv", [(1250.0, "SEK", "month")]),
        ("kr 1.250 per månad", "sv", [(1250.0, "SEK", "month")]),
        ("499 kr per måned", "nb", [(499.0, "NOK", "month")]),
        ("49 zł miesięcznie", "en", [(49.0, "PLN", None)]),
        ("1 990 Kč", "", [(1990.0, "CZK", None)]),
        ("₺299 / ay", "", [(299.0, "TRY", None)]),
        ("CHF 1'250.– pro Monat", "de", [(1250.0, "CHF", "month")]),
        ("150,- € per maand", "nl", [(150.0, "EUR", "month")]),
        ("€ 150,- p/m", "nl", [(150.0, "EUR", "month")]),
        ("€ 35 /mnd", "nl", [(35.0, "EUR", "month")]),
        ("£29 pcm", "en", [(29.0, "GBP", "month")]),
        ("€ 300 p.a.", "de", [(300.0, "EUR", "year")]),
        ("1\u00a0250 € / an", "fr", [(1250.0, "EUR", "year")]),
        ("Licenza perpetua: 2.400 € una tantum", "it", [(2400.0, "EUR", "one-time")]),
        ("199 € einmalige Einrichtung", "de", [(199.0, "EUR", "one-time")]),
        ("€ 99 eenmalig", "nl", [(99.0, "EUR", "one-time")]),
    ],
)
def test_money_as_each_language_writes_it(line, language, expected):
    assert _read(line, language) == expected


def test_letters_that_are_a_currency_only_in_its_language_are_units_elsewhere():
    # "kr" is SEK on a Swedish page; on an English page it is no currency at all.
    assert _read("299 kr", "sv") == [(299.0, "SEK", None)]
    assert _read("299 kr", "en") == []
    # "Ft" is the forint in Hungarian, feet elsewhere; "KM" kilometres.
    assert _read("Route of 10 KM and 6 Ft", "en") == []
    assert _read("4 990 Ft / hó", "hu")[0][:2] == (4990.0, "HUF")


def test_spaced_thousands_only_before_their_currency():
    # "€10 100 users": ten euros and a hundred users, not ten thousand one hundred euros.
    assert _read("Plan €10 100 users", "fr") == [(10.0, "EUR", None)]
    assert _read("10K users", "en") == []


@pytest.mark.parametrize(
    ("line", "unit"),
    [
        ("€ 45,- per persoon", "per person"),
        ("€ 9 per gebruiker", "per user"),
        ("99 kr pr. bruger", "per user"),
        ("€ 12 par utilisateur", "per user"),
        ("€ 30 pro Mitarbeiter", "per employee"),
        ("2.400 € per postazione", "per seat"),
    ],
)
def test_the_unit_a_price_is_for_in_other_languages(line, unit):
    with page_money(line, "da" if "kr" in line else ""):
        assert [p.unit for p in prices(line)] == [unit]


def test_an_overage_rate_is_not_the_plans_price():
    assert _read("$0.005 per additional invoke", "en") == []
    assert _read("$5 for each extra seat", "en") == []
    assert _read("$50 month", "en") == [(50.0, "USD", "month")]


@pytest.mark.parametrize(
    ("line", "amount", "period"),
    [
        ("Add $20-$30/mo to lease the hardware", 20.0, "month"),
        ("€10 – €20 pro Monat", 10.0, "month"),
        ("from $5 to $9 per month", 5.0, "month"),
        ("$200-$275 hardware cost", 200.0, None),
    ],
)
def test_a_range_is_one_price_from_its_lower_end(line, amount, period):
    [price] = prices(line)
    assert (price.amount, price.period) == (amount, period)


def test_two_prices_apart_are_not_a_range():
    assert [p.amount for p in prices("$10 per month, $100 per year")] == [10.0, 100.0]


@pytest.mark.parametrize(
    ("line", "language", "period", "unit"),
    [
        ("vanaf €19 per medewerker / maand", "nl", "month", "per employee"),
        ("29 € pro Nutzer / Monat", "de", "month", "per user"),
        ("€ 34 / maand", "nl", "month", None),
        ("$5 per 1000 requests, 3 months free", "en", None, "per 1000 requests"),
    ],
)
def test_a_period_after_the_unit_in_the_pages_language(line, language, period, unit):
    with page_money(line, language):
        [price] = prices(line)
    assert (price.period, price.unit) == (period, unit)


@pytest.mark.parametrize(
    ("line", "language", "unit"),
    [
        ("60 €/h", "de", "per hour"),
        ("25 € pro Stunde", "de", "per hour"),
        ("€ 80 per dag", "nl", "per day"),
        ("45 € par heure", "fr", "per hour"),
        ("$5/hr", "en", "per hour"),
    ],
)
def test_rates_per_hour_and_day_in_the_pages_language(line, language, unit):
    with page_money(line, language):
        [price] = prices(line)
    assert (price.period, price.unit) == (None, unit)
