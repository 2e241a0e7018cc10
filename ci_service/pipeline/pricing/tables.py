"""Plans from pricing tables (rule 2 of :mod:`ci_service.pipeline.pricing.plans`), read from the
page text, where a table row is written "cell | cell | cell".

Two orientations:

- *Plans as columns*: a header row of plan names ("| Basic | Pro | Enterprise", the first
  cell empty or a label such as "Plan"), then a row whose cells hold prices ("Price | £10 /
  month | £25 / month | Contact us"): each column's price is its plan's. A row label that
  names a period ("Monthly | $10 | $20") gives the period of its prices; rows with a check
  or a value give the column's features ("SSO", "Storage: 100 GB").
- *One row per plan*: a header row with a price column ("Plan | Price | Includes", "Tier |
  Monthly | Yearly"); each row below gives the plan named in its name column (the header
  cell saying plan, tier, edition, package or name; else the first) at the prices of the
  price columns (the header's period when the cell has none: "Monthly"); the other cells
  are its features (an "Includes" or "Features" cell split at commas).

Row labels that are no plan ("Price", "Total", "Setup fee", "Shipping") never name one.

A plan is not sold yet (``coming_soon``) when a cell of its own row (one row per plan) or
column (plans as columns) is only a status such as "Coming soon", "Beta" or "Planned", or
its name or price cell ends with one ("Teams (beta)"); other plans' cells never mark it.
"""

from __future__ import annotations

import re

from ci_service.pipeline.evidence import Cite
from ci_service.pipeline.pricing.drafts import (
    MAX_FEATURES,
    PlanDraft,
    on_request_plan,
    plans_from_price,
)
from ci_service.pipeline.pricing.money import (
    AMOUNT,
    TRIAL,
    ends_not_yet,
    is_free,
    is_not_yet,
    is_on_request,
    is_plumbing,
    prices,
    qualifiers,
)
from ci_service.pipeline.site import SitePage

# Header words in English, German, French, Spanish, Italian, Portuguese, Dutch and the
# Scandinavian languages.
PRICE_HEADER = re.compile(
    r"\b(?:prices?|pricing|costs?|fees?|rates?|monthly|yearly|annual(?:ly)?|amount|"
    r"per\s+(?:month|year|user|seat)|/\s*(?:month|mo|year|yr)|preise?|kosten|honorare?|"
    r"gebühr(?:en)?|prix|tarifs?|co[uû]ts?|precios?|tarifas?|prezz[oi]|costo|preços?|"
    r"prijs|prijzen|tarief|tarieven|pris(?:er)?|avgift|betrag|montant|importe|"
    r"tariffa|tariffe|importo|cena|ceny|hinta)\b",
    re.IGNORECASE,
)
NAME_HEADER = re.compile(
    r"\b(?:plans?|tiers?|editions?|packages?|names?|subscriptions?|licen[cs]es?|options?|"
    r"products?|levels?|bundles?|services?|leistung(?:en)?|dienstleistung(?:en)?|angebot|"
    r"pakete?|prestations?|formules?|servicios?|planes|servizi|pacchetti|serviços|pacotes|"
    r"diensten|dienst|pakketten|tjänst(?:er)?|tjeneste(?:r)?|ydelse(?:r)?|"
    # What a fee table calls the service it prices ("Code | Omschrijving | Tarief").
    r"omschrijving|behandeling(?:en)?|beschreibung|behandlung|d[ée]signation|acte|"
    r"descripci[óo]n|tratamiento|descrizione|trattamento|behandling|usługa|zabieg)\b",
    re.IGNORECASE,
)
FEATURES_HEADER = re.compile(
    r"\b(?:includes?|included|features?|what'?s\s+included|limits?|details?|highlights?)\b",
    re.IGNORECASE,
)
NOT_A_PLAN = re.compile(
    r"\W*(?:prices?|pricing|costs?|total|sub-?total|tax|vat|shipping|discount|fees?|"
    r"setup(?:\s+fee)?|one-?time\s+fee|billing|features?|plans?|monthly|yearly|annual(?:ly)?)\W*",
    re.IGNORECASE,
)
NO = ("✗", "✕", "×", "—", "-", "no", "n/a", "")
YES = ("✓", "✔", "✅", "yes", "included")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.split("|")]


def _is_header(cells: list[str]) -> bool:
    filled = [c for c in cells if c]
    return len(filled) >= 2 and all(len(c.split()) <= 5 and not AMOUNT.search(c) for c in filled)


def _plan_name(cell: str) -> str:
    cell = cell.strip(" *:")
    if not cell or len(cell.split()) > 6 or AMOUNT.search(cell):
        return ""
    if NOT_A_PLAN.fullmatch(cell) or TRIAL.search(cell) or is_plumbing(cell):
        return ""
    return cell


def _cell_plans(name: str, cell: str, head: str, url: str, line: str) -> list[PlanDraft]:
    found = prices(cell)
    for price in found:
        period, unit, _ = qualifiers(head)
        price.period = price.period or period
        price.unit = price.unit or unit
    if found:
        return plans_from_price(name, found, url, line)
    if is_on_request(cell):
        return [on_request_plan(name, cell, url, line)]
    if is_free(cell):
        cite = Cite(url, line)
        return [PlanDraft(name, 0.0, None, None, None, price_text=cell, cite=cite, page_url=url)]
    return []


def _features_of(cells: list[str], header: list[str], skip: set[int]) -> list[str]:
    out: list[str] = []
    for j, cell in enumerate(cells):
        head = header[j] if header and j < len(header) else ""
        if j in skip or cell.lower() in NO:
            continue
        if cell.lower() in YES:
            out.append(head)
        elif FEATURES_HEADER.search(head) or not head:
            out += [p.strip() for p in re.split(r"(?<!\d),\s+|;\s+|\s+•\s+", cell) if p.strip()]
        else:
            out.append(f"{head}: {cell}")
    return [f[:200] for f in out if f][:MAX_FEATURES]


class _Table:
    def __init__(self, header: list[str]) -> None:
        self.header = header
        price_cols = [j for j, c in enumerate(header) if j and PRICE_HEADER.search(c)]
        self.by_row = bool(header[0]) and bool(price_cols) and not PRICE_HEADER.search(header[0])
        self.price_cols = price_cols
        named = [j for j, c in enumerate(header) if NAME_HEADER.search(c) and j not in price_cols]
        self.name_col = named[0] if named else 0
        self.features: dict[int, list[str]] = {}
        self.soon: set[int] = set()  # columns a status cell says are not sold yet
        self.plans: dict[int, list[PlanDraft]] = {}  # column -> its plans so far


def table_plans(page: SitePage) -> list[PlanDraft]:
    """Plans from the page text's tables, in both orientations (see the module rules)."""
    out: list[PlanDraft] = []
    table: _Table | None = None
    url = page.url
    for line in page.text.splitlines():
        if " | " not in line and not line.startswith("| "):
            table = None
            continue
        cells = _cells(line)
        if table is None or len(cells) != len(table.header):
            if _is_header(cells) and (cells[0] or len([c for c in cells[1:] if c]) >= 2):
                table = _Table(cells)
                if table.by_row or all(cells[1:]):
                    continue
            table = None
            continue
        if table.by_row:
            out += _row_plans(table, cells, url, line)
        else:
            out += _column_row(table, cells, url, line)
    for plan in out:
        plan.features = plan.features[:MAX_FEATURES]
    return out


def _row_plans(table: _Table, cells: list[str], url: str, line: str) -> list[PlanDraft]:
    name = _plan_name(cells[table.name_col])
    if not name:
        return []
    plans: list[PlanDraft] = []
    for j in table.price_cols:
        plans += _cell_plans(name, cells[j], table.header[j], url, line)
    skip = {table.name_col, *table.price_cols}
    features = _features_of(cells, table.header, skip)
    soon = any(is_not_yet(c) for c in cells) or any(
        ends_not_yet(cells[j]) for j in (table.name_col, *table.price_cols)
    )
    for plan in plans:
        plan.features = features
        plan.coming_soon = soon
    return plans


def _column_row(table: _Table, cells: list[str], url: str, line: str) -> list[PlanDraft]:
    label = cells[0]
    header = table.header
    found = {j: prices(c) for j, c in enumerate(cells) if j}
    out: list[PlanDraft] = []
    if any(found.values()):
        for j, row_prices in found.items():
            name = header[j].strip(" *:")
            if not name:
                continue
            for price in row_prices:
                if price.period is None:
                    price.period = qualifiers(label)[0]
            column = []
            if row_prices:
                column = plans_from_price(name, row_prices, url, line)
                for plan in column:
                    plan.features = table.features.setdefault(j, [])
            elif is_on_request(cells[j]):
                column = [on_request_plan(name, cells[j], url, line)]
            for plan in column:
                plan.coming_soon = j in table.soon or any(
                    ends_not_yet(c) for c in (header[j], cells[j])
                )
            table.plans.setdefault(j, []).extend(column)
            out += column
        return out
    for j, cell in enumerate(cells[1:], start=1):
        if is_not_yet(cell):  # "Availability | Now | Coming soon": that column's
            table.soon.add(j)
            for plan in table.plans.get(j, []):
                plan.coming_soon = True
            continue
        if cell and cell.lower() not in NO and label:
            item = label if cell.lower() in YES else None
            table.features.setdefault(j, []).append(item or f"{label}: {cell}"[:200])
    return out
