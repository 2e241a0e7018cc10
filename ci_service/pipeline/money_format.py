"""How an amount of money is written back to people: "£300,000", "19.99", "0.005".

Apart from ``pricing_money`` (which reads prices and compiles its patterns on import) so
that what only shows money (battlecard facts, the competitor page) does not load the reader
at ``serve`` start-up.
"""

from __future__ import annotations


def format_amount(amount: float | int) -> str:
    """An amount with the precision it was stated with: "1,000", "19.99", "0.005" (never a
    sub-cent price rounded to "0.00", never "300000.0")."""
    value = float(amount)
    if value.is_integer():
        return f"{value:,.0f}"
    if abs(value) >= 0.01 and round(value, 2) == value:
        return f"{value:,.2f}"
    return f"{value:,.6f}".rstrip("0")


def format_money(amount: float | int, currency: str | None) -> str:
    """An amount as people write it, with its currency: "£300,000", "$4,500,000",
    "€19.99", "1,200 CHF" (never "300000.0 GBP")."""
    number = format_amount(amount)
    symbol = {"USD": "$", "GBP": "£", "EUR": "€", "JPY": "¥", "INR": "₹"}.get(currency or "")
    return f"{symbol}{number}" if symbol else f"{number} {currency or ''}".strip()
