"""Settings forms: plain text fields <-> the REST bodies the services take.

People edit lists in textareas, one entry per line:

- strings (strengths, value props, ...): the line itself;
- items (features, categories): ``Name: description`` (the description is optional);
- links: ``Label | https://...``;
- price plans: ``Name | 49 | USD | month | per user`` (price ``on request`` for a "contact
  sales" plan; empty parts are left out).

The parsers only translate: the service validates the result exactly as for a REST call. A
line that cannot be read at all (a price that is not a number) is reported with its line
number, in the same ``ValidationFailed`` shape as the services' errors.
"""

from __future__ import annotations

from typing import Any

from ci_service.errors import ValidationFailed

ON_REQUEST = ("on request", "contact", "contact sales", "custom")


def lines(text: Any) -> list[str]:
    """The non-empty lines of a textarea, stripped."""
    return [line.strip() for line in str(text or "").splitlines() if line.strip()]


def _invalid(field: str, messages: list[str]) -> ValidationFailed:
    text = "; ".join(messages)
    return ValidationFailed(f"Invalid {field}: {text}"[:500], {"fields": {field: messages}})


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


# -- price plans: "Name | 49 | USD | month | per user" --------------------------------------


def _price_text(plan: dict[str, Any]) -> str:
    if plan.get("onRequest"):
        return "on request"
    price = plan.get("price")
    if price is None:
        return ""
    return f"{price:g}" if isinstance(price, float) else str(price)


def plans_text(plans: list[dict[str, Any]] | None) -> str:
    out = []
    for plan in plans or []:
        parts = [
            plan.get("name") or "",
            _price_text(plan),
            plan.get("currency") or "",
            plan.get("period") or "",
            plan.get("unit") or "",
        ]
        while parts and not parts[-1]:
            parts.pop()
        out.append(" | ".join(parts))
    return "\n".join(out)


def parse_plans(text: Any, current: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Plans from ``Name | price | currency | period | unit`` lines. A plan already in
    ``current`` (same name) keeps its feature list."""
    known = {str(p.get("name", "")).casefold(): p for p in current or []}
    out, errors = [], []
    for number, line in enumerate(lines(text), start=1):
        parts = [part.strip() for part in line.split("|")]
        if len(parts) > 5:
            errors.append(
                f"line {number}: at most 5 parts (name | price | currency | period | unit)"
            )
            continue
        name, price_text, currency, period, unit = (parts + [""] * 5)[:5]
        plan: dict[str, Any] = {"name": name, "onRequest": False}
        if price_text.casefold() in ON_REQUEST:
            plan.update(onRequest=True, price=None)
        elif price_text:
            number_text = price_text.replace(",", "").lstrip("$€£")
            try:
                plan["price"] = float(number_text)
            except ValueError:
                errors.append(f"line {number}: the price '{price_text}' is not a number")
                continue
        else:
            plan["price"] = None
        plan["currency"] = currency.upper() or None
        plan["period"] = period.lower() or None
        plan["unit"] = unit or None
        previous = known.get(name.casefold())
        if previous is not None and previous.get("features"):
            plan["features"] = previous["features"]
        out.append(plan)
    if errors:
        raise _invalid("pricing", errors)
    return out


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
