"""Bulk import of competitors from a CSV file (issue 31): ``preview`` reads the file into a
plan and creates nothing; ``apply`` reads it again and creates the plan's rows. The CLI
(``ci-service competitors import``) and the web app's import page call these two.

The file: UTF-8 (a byte-order mark is fine), comma-separated, a header row naming the
columns (case, spaces, ``_`` and ``-`` ignored): ``name`` and ``website`` (also ``websiteUrl``
or ``url``) required, ``tier`` and ``relevantProducts`` (also ``relevant products``,
``products``) optional; other columns are ignored and reported. A website typed without a
scheme gets ``https://``. Products are our products' names or ids, separated by ``;`` or
``|``, matched without regard to case. Row numbers are the spreadsheet's: the header is row
1. At most ``MAX_BYTES`` and ``MAX_ROWS`` data rows; a file that is not UTF-8 text, has no
header, uses another delimiter or cannot be read as CSV is refused whole
(``ValidationFailed``, field ``file``); everything else is judged row by row.

Each row is one of: ``create``; ``duplicate`` (its website is already a competitor's, by
``competitors.website_key``, the home form's rule, or an earlier row of the file will create
it: skipped); ``error`` (each bad field with its message; never blocks another row).

``apply`` never trusts an earlier preview: it parses and checks the file again, then creates
each row in its own transaction through ``overview.add_competitor`` (the service of ``POST
/api/competitors`` with a tier: the plan limit, the row and its ``collect`` analysis job).
One transaction per row, not one for the file: a row that fails (the plan limit reached
meanwhile, a product deleted meanwhile) becomes an error row and the others are still
created, a long import does not hold the write lock for its whole length, and an import cut
short can be run again, since the rows it created are then duplicates. The duplicate check
is repeated inside each row's transaction, so two imports of one file at once cannot both
create a site.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from typing import Any

from ci_service.errors import ServiceError, UpgradeRequired, ValidationFailed
from ci_service.services.common.fields import load
from ci_service.services.workspace import competitors, overview, products
from ci_service.store.competitors import TIERS, Competitor
from ci_service.store.db import transaction

MAX_BYTES = 2 * 1024 * 1024  # the file, as uploaded
MAX_ROWS = 5_000  # data rows (blank lines not counted)
MAX_CELL = 4_096  # characters in one cell; a longer one is a row error, not echoed
SHOWN = 80  # characters of a typed value quoted back in a message

# Header spellings (lower case, without spaces, "_" and "-") -> the column they name.
COLUMNS = {
    "name": "name",
    "competitor": "name",
    "competitorname": "name",
    "company": "name",
    "website": "website",
    "websiteurl": "website",
    "url": "website",
    "tier": "tier",
    "relevantproducts": "products",
    "relevantproductids": "products",
    "products": "products",
}
REQUIRED = ("name", "website")
_HEADER_NOISE = re.compile(r"[\s_\-]+")
_PRODUCT_SEPARATORS = re.compile(r"[;|]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# A website typed without its scheme: a host name, maybe a port, then a path or nothing
# ("javascript:..." or "mailto:..." are not hosts: they stay invalid).
_BARE_HOST = re.compile(r"[^\W_][\w.-]*(:\d+)?([/?#]|$)")
# Keys of the create schema's error details -> the column a person sees.
_SCHEMA_FIELDS = {"name": "name", "websiteUrl": "website", "relevantProductIds": "products"}


@dataclass
class ImportRow:
    """One data row of the file and what importing does with it."""

    row: int  # the spreadsheet row number (the header is row 1)
    name: str
    website_url: str
    tier: str | None = None
    product_ids: list[str] = field(default_factory=list)
    product_names: list[str] = field(default_factory=list)
    action: str = "create"  # create | duplicate | error
    errors: list[dict[str, str]] = field(default_factory=list)  # {field, message}
    note: str = ""  # why a duplicate is skipped
    duplicate_of: dict[str, str] | None = None  # the competitor that has the site
    competitor_id: str | None = None  # set by apply
    job_id: str | None = None

    def fail(self, column: str, message: str) -> None:
        self.action = "error"
        self.errors.append({"field": column, "message": message})

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "row": self.row,
            "action": self.action,
            "name": self.name,
            "websiteUrl": self.website_url,
            "tier": self.tier,
            "relevantProductIds": self.product_ids,
            "relevantProducts": self.product_names,
        }
        if self.errors:
            data["errors"] = self.errors
        if self.note:
            data["note"] = self.note
        if self.duplicate_of:
            data["duplicateOf"] = self.duplicate_of
        if self.competitor_id:
            data["competitorId"] = self.competitor_id
            data["jobId"] = self.job_id
        return data


@dataclass
class ImportPlan:
    """What a file would do (``preview``) or did (``apply``: ``applied`` is true and created
    rows carry their competitor and job ids)."""

    rows: list[ImportRow]
    ignored_columns: list[str] = field(default_factory=list)
    applied: bool = False

    def count(self, action: str) -> int:
        return sum(1 for r in self.rows if r.action == action)

    @property
    def all_failed(self) -> bool:
        """Every row is an error (the CLI's exit code 1)."""
        return bool(self.rows) and self.count("error") == len(self.rows)

    def to_dict(self) -> dict[str, Any]:
        return {
            "applied": self.applied,
            "summary": {
                "rows": len(self.rows),
                "create": self.count("create"),
                "duplicate": self.count("duplicate"),
                "error": self.count("error"),
            },
            "ignoredColumns": self.ignored_columns,
            "rows": [r.to_dict() for r in self.rows],
        }


def refused(message: str) -> ValidationFailed:
    """The whole file is refused: a 400 naming the field ``file``."""
    return ValidationFailed(message, {"fields": {"file": [message]}})


def preview(
    workspace_id: str, data: bytes | str, *, plan: str = "ENTERPRISE", limit: int | None = None
) -> ImportPlan:
    """The plan for ``data`` (the file's bytes, or its text): creates nothing. ``plan`` and
    ``limit`` (None: unlimited) are the workspace's competitor limit, as for ``POST
    /api/competitors``: rows past it are errors."""
    header, records = _read(decode(data))
    columns, ignored = _columns(header)
    rows = [_row(number, columns, len(header), cells) for number, cells in records]
    if not rows:
        raise refused("The file has a header row but no rows under it")
    _match_products(workspace_id, rows)
    _mark_duplicates(workspace_id, rows)
    _mark_over_limit(workspace_id, rows, plan, limit)
    return ImportPlan(rows, ignored)


def apply(
    workspace_id: str, data: bytes | str, *, plan: str = "ENTERPRISE", limit: int | None = None
) -> ImportPlan:
    """Check ``data`` again (``preview``) and create its ``create`` rows, each with its
    analysis job, each in its own transaction (see the module docstring)."""
    result = preview(workspace_id, data, plan=plan, limit=limit)
    result.applied = True
    for row in result.rows:
        if row.action == "create":
            _create(workspace_id, row, plan, limit)
    return result


def decode(data: bytes | str) -> str:
    """The file's text: at most ``MAX_BYTES``, UTF-8 (BOM dropped), no NUL byte."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    if len(raw) > MAX_BYTES:
        raise refused(
            f"The file is {len(raw):,} bytes; at most {MAX_BYTES:,} ({MAX_BYTES // 2**20} MB) "
            "can be imported at once: split it"
        )
    if b"\x00" in raw:
        raise refused("This is not a CSV text file (it holds binary data)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise refused(
            f"The file is not UTF-8 text (line {line:,}); save it as “CSV UTF-8”"
        ) from None
    if not text.strip():
        raise refused("The file is empty")
    return text


def _read(text: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header and the non-blank data rows with their row numbers."""
    reader = csv.reader(io.StringIO(text, newline=""))
    header: list[str] | None = None
    records: list[tuple[int, list[str]]] = []
    try:
        for number, cells in enumerate(reader, start=1):
            if not any(c.strip() for c in cells):
                continue  # blank lines, before the header too
            if header is None:
                header = cells
            elif len(records) == MAX_ROWS:
                raise refused(
                    f"The file has more than {MAX_ROWS:,} rows; import at most {MAX_ROWS:,} "
                    "at once: split it"
                )
            else:
                records.append((number, cells))
    except csv.Error as exc:
        raise refused(
            f"The file cannot be read as CSV near line {reader.line_num}: {exc}"
        ) from None
    if header is None:
        raise refused("The file is empty")
    return header, records


def _columns(header: list[str]) -> tuple[dict[str, int], list[str]]:
    """Column -> index in a row, and the header's names that are not ours."""
    columns: dict[str, int] = {}
    ignored: list[str] = []
    for index, title in enumerate(header):
        key = COLUMNS.get(_HEADER_NOISE.sub("", title.strip().lower()))
        if key is None:
            if title.strip():
                ignored.append(_shown(title.strip()))
            continue
        if key in columns:
            raise refused(f"The header names the {key} column twice (“{_shown(title)}”)")
        columns[key] = index
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        if len(header) == 1 and any(d in header[0] for d in ";\t"):
            raise refused(
                "The file is not comma-separated (its header holds “;” or tabs): save it as "
                "CSV with commas"
            )
        found = ", ".join(f"“{_shown(h.strip())}”" for h in header if h.strip()) or "nothing"
        raise refused(
            "The first row must be a header naming the columns: name and website are "
            f"required, tier and relevantProducts optional (found {found})"
        )
    return columns, ignored


def _shown(value: str) -> str:
    value = _CONTROL.sub("?", value)
    return value if len(value) <= SHOWN else value[: SHOWN - 1] + "…"


def _row(number: int, columns: dict[str, int], width: int, cells: list[str]) -> ImportRow:
    """One data row checked on its own (products, duplicates and the limit come later)."""

    def cell(key: str) -> str:
        index = columns.get(key)
        return cells[index].strip() if index is not None and index < len(cells) else ""

    values = {key: cell(key) for key in ("name", "website", "tier", "products")}
    row = ImportRow(number, values["name"], values["website"])
    if any(c.strip() for c in cells[width:]):
        row.fail("row", f"has {len(cells)} values for {width} columns (quote a comma in a value)")
    for key, value in values.items():
        if len(value) > MAX_CELL:
            row.fail(key, f"is too long ({len(value):,} characters)")
        elif _CONTROL.search(value):
            row.fail(key, "holds control characters (a line break, tab or escape)")
    if row.action == "error":  # shown back shortened; never stored
        row.name, row.website_url = _shown(row.name), _shown(row.website_url)
        return row
    if _BARE_HOST.match(row.website_url):
        row.website_url = "https://" + row.website_url  # typed as "globex.example/x"
    for key in REQUIRED:
        if not values[key]:
            row.fail(key, "is empty (required)")
    try:
        load(competitors.CompetitorCreateSchema, {"name": row.name, "websiteUrl": row.website_url})
    except ValidationFailed as exc:
        for key, messages in (exc.details or {}).get("fields", {}).items():
            if values.get(_SCHEMA_FIELDS.get(key, key)):  # an empty one is said above
                for message in messages:
                    row.fail(_SCHEMA_FIELDS.get(key, key), message)
    if values["tier"]:
        tier = re.sub(r"[\s\-]+", "_", values["tier"].upper())  # "tier 1" is TIER_1
        if tier in TIERS:
            row.tier = tier
        else:
            row.tier = _shown(values["tier"])  # shown back as typed, on an error row only
            row.fail("tier", f"must be one of {', '.join(TIERS)}")
    typed = (p.strip() for p in _PRODUCT_SEPARATORS.split(values["products"]))
    row.product_names = [_shown(p) for p in typed if p][:100]
    if row.action == "error":
        row.name, row.website_url = _shown(row.name), _shown(row.website_url)
    return row


def _match_products(workspace_id: str, rows: list[ImportRow]) -> None:
    """Each row's product names or ids -> ids of the workspace's own products."""
    if not any(r.product_names for r in rows):
        return
    own = products.list_products(workspace_id, limit=1000)
    names = {p.id: p.name for p in own}
    by_name: dict[str, list[str]] = {}
    for p in own:
        by_name.setdefault(p.name.strip().casefold(), []).append(p.id)
    for row in rows:
        found: list[str] = []
        shown: list[str] = []  # our product's own name once matched, else as typed
        for typed in row.product_names:
            matches = [typed] if typed in names else by_name.get(typed.casefold(), [])
            if len(matches) == 1:
                found.append(matches[0])
                shown.append(names[matches[0]])
                continue
            shown.append(typed)
            if matches:
                row.fail("products", f"“{_shown(typed)}” names {len(matches)} products: use its id")
            else:
                row.fail("products", f"unknown product “{_shown(typed)}”")
        row.product_ids = list(dict.fromkeys(found))
        row.product_names = list(dict.fromkeys(shown))


def _tracked(workspace_id: str) -> dict[str, Competitor]:
    """website_key -> the workspace's oldest competitor with that site."""
    query = (
        Competitor.select(Competitor.id, Competitor.name, Competitor.website_url)
        .where(Competitor.workspace == workspace_id)
        .order_by(Competitor.created_at, Competitor.id)
    )
    tracked: dict[str, Competitor] = {}
    for c in query:
        tracked.setdefault(competitors.website_key(c.website_url), c)
    return tracked


def _mark_duplicates(workspace_id: str, rows: list[ImportRow]) -> None:
    tracked = _tracked(workspace_id)
    first_row: dict[str, int] = {}
    for row in rows:
        if row.action != "create":
            continue
        key = competitors.website_key(row.website_url)
        existing = tracked.get(key)
        if existing is not None:
            _skip(row, existing)
        elif key in first_row:
            row.action = "duplicate"
            row.note = f"same website as row {first_row[key]}"
        else:
            first_row[key] = row.row


def _skip(row: ImportRow, existing: Competitor) -> None:
    row.action = "duplicate"
    row.note = f"already tracked as “{existing.name}”"
    row.duplicate_of = {"id": existing.id, "name": existing.name}


def _mark_over_limit(workspace_id: str, rows: list[ImportRow], plan: str, limit: int | None):
    """Rows past the plan's competitor limit are errors (``create_competitor`` checks it
    again as each is created)."""
    if limit is None:
        return
    count = Competitor.select().where(Competitor.workspace == workspace_id).count()
    room = max(0, limit - count)
    for row in rows:
        if row.action != "create":
            continue
        if room > 0:
            room -= 1
        else:
            row.fail("plan", f"the {plan} plan allows {limit} competitors ({count} now): upgrade")


def _create(workspace_id: str, row: ImportRow, plan: str, limit: int | None) -> None:
    data: dict[str, Any] = {"name": row.name, "websiteUrl": row.website_url}
    if row.product_ids:
        data["relevantProductIds"] = row.product_ids
    try:
        with transaction():
            # Again under the write lock: another import may have added the site meanwhile.
            existing = _tracked_now(workspace_id, row.website_url)
            if existing is not None:
                _skip(row, existing)
                return
            created, job = overview.add_competitor(
                workspace_id, data, plan=plan, limit=limit, tier=row.tier
            )
    except UpgradeRequired as exc:
        row.fail("plan", exc.message)
        return
    except ValidationFailed as exc:
        fields = (exc.details or {}).get("fields") or {"row": [exc.message]}
        for key, messages in fields.items():
            for message in messages:
                row.fail(_SCHEMA_FIELDS.get(key, key), message)
        return
    except ServiceError as exc:  # a rule this import does not know yet: the row, not a 500
        row.fail("row", exc.message)
        return
    row.competitor_id, row.job_id = created.id, job.id


def _tracked_now(workspace_id: str, url: str) -> Competitor | None:
    """``competitors.tracked_website``, narrowed in SQL to the addresses that hold the host:
    one cheap query per created row instead of every competitor through ``website_key``."""
    key = competitors.website_key(url)
    host = re.split(r"[/?:]", key, maxsplit=1)[0]
    query = (
        Competitor.select(Competitor.id, Competitor.name, Competitor.website_url)
        .where(Competitor.workspace == workspace_id, Competitor.website_url.contains(host))
        .order_by(Competitor.created_at, Competitor.id)
    )
    return next((c for c in query if competitors.website_key(c.website_url) == key), None)
