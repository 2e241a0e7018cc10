"""Settings forms: plain text fields <-> the REST bodies the services take.

People edit lists in textareas, one entry per line:

- strings (strengths, value props, ...): the line itself;
- items (features, categories): ``Name: description`` (the description is optional);
- links: ``Label | https://...``;
- price plans are not text: each plan is a row of inputs (name, price, currency, period,
  unit, "on request"), see ``parse_plan_rows``.

The parsers translate; the service then validates the result exactly as for a REST call.
Price rows are checked here first, because the schema accepts what people get wrong: a
plan with a name and no price, or the price typed into the name (``Team $15/user/month``).
Those are errors naming the row, in the same ``ValidationFailed`` shape as the services'.
"""

from __future__ import annotations

import re
from typing import Any

from ci_service.errors import ValidationFailed

ON_REQUEST = ("on request", "contact", "contact sales", "custom")


def lines(text: Any) -> list[str]:
    """The non-empty lines of a textarea, stripped."""
    return [line.strip() for line in str(text or "").splitlines() if line.strip()]


# -- items: "Name: description" -------------------------------------------------------------


def items_text(items: list[dict[str, Any]] | None) -> str:
    out = []
    for item in items or []:
        description = (item.get("description") or "").replace("\n", " ").strip()
        out.append(f"{item.get('name', '')}: {description}" if description else item.get("name"))
    return "\n".join(str(line) for line in out)


def parse_items(text: Any, current: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Items from ``Name: description`` lines. An item whose name is already in ``current``
    keeps its id and its evidence, so references to it (matrix cells) stay valid."""
    known = {str(i.get("name", "")).casefold(): i for i in current or []}
    out = []
    for line in lines(text):
        name, _, description = line.partition(":")
        item: dict[str, Any] = {"name": name.strip(), "description": description.strip()}
        previous = known.pop(item["name"].casefold(), None)
        if previous is not None:
            item["id"] = previous["id"]
            for extra in ("evidenceIds", "quotes"):
                if previous.get(extra):
                    item[extra] = previous[extra]
        out.append(item)
    return out


# -- links: "Label | url" -------------------------------------------------------------------


def links_text(links: list[dict[str, Any]] | None) -> str:
    return "\n".join(f"{link.get('label', '')} | {link.get('url', '')}" for link in links or [])


def parse_links(text: Any) -> list[dict[str, str]]:
    out = []
    for line in lines(text):
        label, bar, url = line.rpartition("|")
        if not bar:  # a bare address: its own label
            label, url = line, line
        out.append({"label": label.strip(), "url": url.strip()})
    return out


# -- price plans: one row of labelled inputs per plan ----------------------------------------
#
# Row fields are named ``plan-<n>-<field>``; ``n`` only orders the rows (the page's script
# numbers the rows it adds after the ones the server drew), so gaps are fine.

PLAN_FIELDS = ("name", "price", "currency", "period", "unit")
PERIODS = ("month", "year", "one-time")
UNITS = ("per user", "per seat", "per end-user", "flat")
BLANK_ROWS = 2  # drawn under the plans, for adding some without the script
MAX_ROWS = 100
_ROW_KEY = re.compile(r"plan-(\d{1,4})-(name|price|currency|period|unit|onRequest)")
_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY"}
_AMOUNT = r"\d[\d,]*(?:\.\d+)?"
# A price typed into the plan's name: "$15", "15 USD", "15/user" ("Team 2" stays a name).
_PRICE_IN_NAME = re.compile(
    rf"(?P<symbol>[$€£¥])\s*(?P<a1>{_AMOUNT})"
    rf"|(?P<a2>{_AMOUNT})\s*(?:(?P<symbol2>[$€£¥])|(?P<code>usd|eur|gbp|chf|jpy|cad|aud)\b)"
    rf"|(?P<a3>{_AMOUNT})(?=\s*/)",
    re.IGNORECASE,
)
_PERIOD_WORDS = {"month": "month", "mo": "month", "monthly": "month", "year": "year"}
_PERIOD_WORDS |= {"yr": "year", "annual": "year", "annually": "year", "yearly": "year"}


def blank_row() -> dict[str, Any]:
    return {**dict.fromkeys(PLAN_FIELDS, ""), "onRequest": False}


def _amount_text(price: Any) -> str:
    if price is None:
        return ""
    return f"{price:g}" if isinstance(price, float) else str(price)


def plan_rows(plans: list[dict[str, Any]] | None, blanks: int = BLANK_ROWS):
    """The form rows for stored plans, and ``blanks`` empty rows under them."""
    rows = [
        {
            "name": plan.get("name") or "",
            "price": "" if plan.get("onRequest") else _amount_text(plan.get("price")),
            "currency": plan.get("currency") or "",
            "period": plan.get("period") or "",
            "unit": plan.get("unit") or "",
            "onRequest": bool(plan.get("onRequest")),
        }
        for plan in plans or []
    ]
    return rows + [blank_row() for _ in range(blanks)]


def submitted_rows(form) -> list[dict[str, Any]]:
    """The plan rows a form holds, in their order, without the blank ones."""
    numbers = sorted({int(m.group(1)) for key in form if (m := _ROW_KEY.fullmatch(key))})
    rows = []
    for number in numbers[:MAX_ROWS]:
        row = {f: str(form.get(f"plan-{number}-{f}", "")).strip() for f in PLAN_FIELDS}
        row["onRequest"] = bool(form.get(f"plan-{number}-onRequest"))
        if any(row.values()):
            rows.append(row)
    return rows


def split_price(name: str) -> dict[str, Any] | None:
    """What a name with a price typed into it stands for (``Team $15/user/month`` ->
    name Team, price 15, currency USD, unit per user, period month), or None."""
    found = _PRICE_IN_NAME.search(name)
    if found is None:
        return None
    amount = found.group("a1") or found.group("a2") or found.group("a3")
    symbol = found.group("symbol") or found.group("symbol2")
    currency = _SYMBOLS.get(symbol or "") or (found.group("code") or "").upper() or None
    out: dict[str, Any] = {
        "name": name[: found.start()].strip(" -–—:|,(") or None,
        "price": _number(amount),
        "currency": currency,
        "period": None,
        "unit": None,
    }
    for word in re.split(r"[\s/]+|\bper\b", name[found.end() :].casefold()):
        word = word.strip(" .,()")
        if word in _PERIOD_WORDS:
            out["period"] = _PERIOD_WORDS[word]
        elif word.rstrip("s") in ("user", "seat", "end-user", "member", "agent"):
            out["unit"] = f"per {word.rstrip('s')}"
        elif word == "flat":
            out["unit"] = "flat"
    return out


def _number(text: str) -> float | int | None:
    try:
        value = float(text.replace(",", ""))
    except ValueError:
        return None
    return int(value) if value.is_integer() and abs(value) < 1e15 else value


def _suggestion(name: str, split: dict[str, Any]) -> str:
    parts = [f'name "{split["name"] or "…"}"', f"price {_amount_text(split['price'])}"]
    parts += [f"{key} {split[key]}" for key in ("currency", "period", "unit") if split[key]]
    return f"{name}: put the price in its own fields: {', '.join(parts)}"


def _plan_from_row(row: dict[str, Any], problems: dict[str, str]) -> dict[str, Any]:
    """One row as a plan; what is wrong goes into ``problems`` (field -> message)."""
    name = row["name"]
    label = name or "A plan with no name"
    if not name:
        problems["name"] = f"{label}: enter the plan's name"
    elif (split := split_price(name)) is not None:
        problems["name"] = _suggestion(name, split)
    plan: dict[str, Any] = {"name": name, "onRequest": row["onRequest"], "price": None}
    price_text = row["price"]
    if price_text.casefold() in ON_REQUEST:
        plan["onRequest"] = True
    elif price_text:
        symbol = price_text[0] if price_text[0] in _SYMBOLS else ""
        price = _number(price_text.removeprefix(symbol).strip())
        if price is None or price < 0:
            problems["price"] = f'{label}: the price "{price_text}" is not a number, e.g. 15'
        elif row["onRequest"]:
            problems["price"] = f"{label}: give a price or tick On request, not both"
        plan["price"] = price
        if symbol and not row["currency"]:
            row["currency"] = _SYMBOLS[symbol]
    elif not row["onRequest"] and "name" not in problems:
        problems["price"] = f'{label}: enter a price, e.g. 15, or tick "On request"'
    currency = row["currency"].upper()
    currency = _SYMBOLS.get(currency, currency)
    if currency and not re.fullmatch(r"[A-Z]{3}", currency):
        problems["currency"] = f'{label}: the currency "{row["currency"]}" is not a code like USD'
    plan["currency"] = currency or None
    period = row["period"].casefold()
    if period and period not in PERIODS:
        problems["period"] = f"{label}: the period is one of month, year or one-time"
    plan["period"] = period or None
    plan["unit"] = row["unit"] or None
    return plan


def parse_plan_rows(
    rows: list[dict[str, Any]], current: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """Plans from the form's non-blank rows, in the POST/PATCH /api/products shape. A plan
    already in ``current`` (same name) keeps its features and evidence. Errors are per row:
    ``pricing.<row>.<field>`` in the services' ``ValidationFailed`` shape."""
    known = {str(p.get("name", "")).casefold(): p for p in current or []}
    plans, fields = [], {}
    for number, row in enumerate(rows):
        problems: dict[str, str] = {}
        plan = _plan_from_row(row, problems)
        fields |= {f"pricing.{number}.{key}": [text] for key, text in problems.items()}
        previous = known.get(plan["name"].casefold())
        for extra in ("features", "evidenceIds", "quotes", "comingSoon"):
            if previous is not None and previous.get(extra):
                plan[extra] = previous[extra]
        plans.append(plan)
    if fields:
        text = "; ".join(m for messages in fields.values() for m in messages)
        raise ValidationFailed(f"Invalid pricing: {text}"[:500], {"fields": fields})
    return plans


def row_errors(error: ValidationFailed) -> tuple[list[str], dict[str, str]]:
    """A product form's messages: the summary lines, and ``"<row>.<field>" -> message`` for
    the rows' inputs (the service's own per-plan messages, e.g. a bad period, included)."""
    fields = (error.details or {}).get("fields") or {}
    summary, per_row = [], {}
    for key, messages in fields.items():
        found = re.fullmatch(r"pricing\.(\d+)\.(\w+)", key)
        if found and found.group(2) in PLAN_FIELDS:
            text = "; ".join(messages)
            per_row[f"{found.group(1)}.{found.group(2)}"] = text
            summary.append(text if ": " in text else f"Plan {int(found.group(1)) + 1}: {text}")
        else:
            summary += [f"{key}: {message}" for message in messages]
    return summary or [error.message], per_row


# -- small values ---------------------------------------------------------------------------


def optional_text(value: Any) -> str | None:
    """A form field's text, or None when left empty (clears the stored value)."""
    text = str(value or "").strip()
    return text or None


def year(value: Any) -> Any:
    """A year field: an int when it reads as one, None when empty, else the text itself (the
    service's schema then reports it)."""
    text = str(value or "").strip()
    if not text:
        return None
    return int(text) if text.isdigit() else text


def form_errors(error: ValidationFailed) -> list[str]:
    """Readable lines for a validation error: one per field message, else the message."""
    fields = (error.details or {}).get("fields") or {}
    out = [f"{name}: {message}" for name, messages in fields.items() for message in messages]
    return out or [error.message]
