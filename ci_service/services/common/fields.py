"""Input schemas and checks shared by the resource services.

Services validate their plain-dict input with these marshmallow schemas themselves, so a
REST route and a tool calling the same function get the same 400 naming the same field.
The REST routes reuse the schemas for their OpenAPI documentation.
"""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import urlsplit

import marshmallow as ma
from marshmallow.validate import Length, OneOf, Range

from ci_service.errors import ValidationFailed
from ci_service.store.db import new_id
from ci_service.timeutil import parse_date, parse_datetime

NAME = Length(min=1, max=200)
TEXT = Length(max=20_000)
SHORT = Length(max=500)
ITEM_ID = Length(min=1, max=64)
MAX_ITEMS = Length(max=500)
MAX_INT = 2**31 - 1


class InputSchema(ma.Schema):
    """Request bodies: unknown fields are ignored, not rejected."""

    class Meta:
        unknown = ma.EXCLUDE


class StrictNumber(ma.fields.Float):
    """A JSON number: no numeric strings, no booleans, no NaN or infinity."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.make_error("invalid", input=value)
        if not math.isfinite(value):
            raise self.make_error("special")
        return super()._deserialize(value, attr, data, **kwargs)


class Object(ma.fields.Nested):
    """A nested object whose wrong-type error names the field itself (not ``._schema``)."""

    def _deserialize(self, value, attr, data, partial=None, **kwargs):
        if not isinstance(value, dict):
            raise ma.ValidationError("must be an object")
        return super()._deserialize(value, attr, data, partial=partial, **kwargs)


def _finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


class JsonObject(ma.fields.Dict):
    """A free-form JSON object (no NaN or infinity anywhere inside)."""

    def _deserialize(self, value, attr, data, **kwargs):
        result = super()._deserialize(value, attr, data, **kwargs)
        if not _finite(result):
            raise ma.ValidationError("numbers must be finite")
        return result


def Int(**kwargs) -> ma.fields.Integer:  # noqa: N802 - reads like a field class
    return ma.fields.Integer(strict=True, **kwargs)


class StrictBoolean(ma.fields.Boolean):
    """Only JSON true and false (no "true" strings, no 1 or 0)."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


def Bool(**kwargs) -> ma.fields.Boolean:  # noqa: N802
    return StrictBoolean(**kwargs)


def Strings(item=None, **kwargs) -> ma.fields.List:  # noqa: N802
    return ma.fields.List(ma.fields.String(validate=item or TEXT), validate=MAX_ITEMS, **kwargs)


def check_url(value: str) -> None:
    """http or https, with a host; raises marshmallow's ValidationError."""
    message = "must be a valid http or https URL with a host"
    if len(value) > 2048:
        raise ma.ValidationError("must be at most 2048 characters")
    if any(c.isspace() for c in value):
        raise ma.ValidationError(message)
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError:
        raise ma.ValidationError(message) from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ma.ValidationError(message)


def check_date(value: str) -> None:
    try:
        parse_date(value)
    except ValueError:
        raise ma.ValidationError("must be an ISO date (YYYY-MM-DD)") from None


def check_datetime(value: str) -> None:
    try:
        parse_datetime(value)
    except ValueError:
        raise ma.ValidationError("must be an ISO 8601 date-time") from None


def Url(**kwargs) -> ma.fields.String:  # noqa: N802
    return ma.fields.String(validate=check_url, metadata={"format": "uri"}, **kwargs)


class CitationSchema(InputSchema):
    """Where a fact was read: the evidence item, the exact sentence there, and a link that
    opens the page at that sentence (a ``#:~:text=`` fragment)."""

    evidenceId = ma.fields.String(required=True, validate=ITEM_ID)
    quote = ma.fields.String(required=True, validate=Length(min=1, max=2000))
    url = ma.fields.String(validate=Length(max=4096))


def Citations(**kwargs) -> ma.fields.List:  # noqa: N802
    return ma.fields.List(Object(CitationSchema), validate=MAX_ITEMS, **kwargs)


def EvidenceIds(**kwargs) -> ma.fields.List:  # noqa: N802
    return ma.fields.List(ma.fields.String(validate=ITEM_ID), validate=MAX_ITEMS, **kwargs)


class ItemSchema(InputSchema):
    """A feature, category or capability: ``{id?, name, description?}``, plus the evidence
    it was read from when the pipeline found it (``evidenceIds``, ``quotes``)."""

    id = ma.fields.String(validate=ITEM_ID, metadata={"description": "generated when omitted"})
    name = ma.fields.String(required=True, validate=NAME)
    description = ma.fields.String(validate=TEXT)
    evidenceIds = EvidenceIds()
    quotes = Citations()


def Items(**kwargs) -> ma.fields.List:  # noqa: N802
    return ma.fields.List(Object(ItemSchema), validate=MAX_ITEMS, **kwargs)


class LinkSchema(InputSchema):
    label = ma.fields.String(required=True, validate=SHORT)
    url = Url(required=True)


class DiscoveredLinkSchema(LinkSchema):
    discoveredAt = ma.fields.String(validate=check_datetime, metadata={"format": "date-time"})


class NewsItemSchema(InputSchema):
    date = ma.fields.String(validate=SHORT)
    title = ma.fields.String(validate=SHORT)
    url = Url()
    summary = ma.fields.String(validate=TEXT)
    source = ma.fields.String(validate=SHORT)


class FundingRoundSchema(InputSchema):
    """One funding event: ``{round?, amount?, currency?, date?, dateText?, investors[],
    evidenceIds, quotes}``; ``amount`` is a number in ``currency`` (ISO 4217) when the page
    says one; ``date`` the machine form ("2019-12"), ``dateText`` as the page wrote it
    ("December 2019"), for display."""

    round = ma.fields.String(allow_none=True, validate=SHORT)
    amount = StrictNumber(allow_none=True)
    currency = ma.fields.String(allow_none=True, validate=Length(max=8))
    date = ma.fields.String(allow_none=True, validate=SHORT)
    dateText = ma.fields.String(allow_none=True, validate=SHORT)
    investors = Strings(item=SHORT)
    evidenceIds = EvidenceIds()
    quotes = Citations()


class NamedFactSchema(InputSchema):
    """A named fact (a customer, a founder): ``{name, evidenceIds, quotes}``."""

    name = ma.fields.String(required=True, validate=NAME)
    evidenceIds = EvidenceIds()
    quotes = Citations()


class CompanyProfileSchema(InputSchema):
    yearFounded = Int(allow_none=True, validate=Range(0, 9999))
    revenue = ma.fields.String(allow_none=True, validate=SHORT)
    employeeCount = ma.fields.String(allow_none=True, validate=SHORT)
    industry = ma.fields.String(allow_none=True, validate=SHORT)
    headquarters = ma.fields.String(allow_none=True, validate=SHORT)
    newsFeed = ma.fields.List(Object(NewsItemSchema), validate=MAX_ITEMS)
    pricingLinks = ma.fields.List(Object(DiscoveredLinkSchema), validate=MAX_ITEMS)
    offeringLinks = ma.fields.List(Object(DiscoveredLinkSchema), validate=MAX_ITEMS)
    funding = ma.fields.List(Object(FundingRoundSchema), validate=MAX_ITEMS)
    customers = ma.fields.List(Object(NamedFactSchema), validate=MAX_ITEMS)
    # Partners, resellers and technology partners the site names (logo rows under a
    # partners heading), each with its evidence.
    partners = ma.fields.List(Object(NamedFactSchema), validate=MAX_ITEMS)
    sources = ma.fields.Dict(
        keys=ma.fields.String(validate=Length(max=100)),
        values=EvidenceIds(),
        metadata={"description": "profile field -> ids of the evidence items that state it"},
    )
    quotes = ma.fields.Dict(
        keys=ma.fields.String(validate=Length(max=100)),
        values=Citations(),
        metadata={"description": "profile field -> the sentences that state it"},
    )


class PricingPlanSchema(InputSchema):
    """A plan read from a pricing page. ``price`` is null for "contact sales" plans
    (``onRequest`` true); ``period`` month, year or one-time; ``unit`` e.g. "per user",
    "per end-user", "flat"; ``comingSoon`` true when the plan is announced but not sold yet
    ("Coming soon", "Beta", "Early access" on its card)."""

    name = ma.fields.String(required=True, validate=NAME)
    price = StrictNumber(allow_none=True)
    currency = ma.fields.String(allow_none=True, validate=Length(max=8))
    period = ma.fields.String(allow_none=True, validate=OneOf(["month", "year", "one-time"]))
    unit = ma.fields.String(allow_none=True, validate=SHORT)
    onRequest = StrictBoolean()
    comingSoon = StrictBoolean()
    priceText = ma.fields.String(allow_none=True, validate=SHORT)
    features = Strings(item=SHORT)
    evidenceIds = EvidenceIds()
    quotes = Citations()


def PricingPlans(**kwargs) -> ma.fields.List:  # noqa: N802
    return ma.fields.List(Object(PricingPlanSchema), validate=MAX_ITEMS, **kwargs)


def Profile(**kwargs) -> ma.fields.Nested:  # noqa: N802
    return Object(CompanyProfileSchema, **kwargs)


def Links(**kwargs) -> ma.fields.List:  # noqa: N802
    return ma.fields.List(Object(LinkSchema), validate=MAX_ITEMS, **kwargs)


def Enum(values, **kwargs) -> ma.fields.String:  # noqa: N802
    return ma.fields.String(validate=OneOf(values), **kwargs)


class PageSchema(InputSchema):
    """``limit``/``offset`` query parameters (query strings, so not strict integers)."""

    limit = ma.fields.Integer(validate=Range(min=0), metadata={"description": "capped at 1000"})
    offset = ma.fields.Integer(validate=Range(min=0, max=MAX_INT))


def _flatten(messages: Any, prefix: str = "") -> dict[str, list[str]]:
    fields: dict[str, list[str]] = {}
    if isinstance(messages, dict):
        for key, value in messages.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            for inner, texts in _flatten(value, name).items():
                fields.setdefault(inner, []).extend(texts)
    elif isinstance(messages, list) and all(isinstance(m, str) for m in messages):
        fields[prefix or "body"] = list(messages)
    elif isinstance(messages, list):
        for item in messages:
            for inner, texts in _flatten(item, prefix).items():
                fields.setdefault(inner, []).extend(texts)
    else:
        fields[prefix or "body"] = [str(messages)]
    return fields


def fail(fields: dict[str, list[str]]) -> ValidationFailed:
    text = ", ".join(f"{k} ({'; '.join(v)})" for k, v in fields.items())
    return ValidationFailed(f"Invalid request: {text}"[:500], {"fields": fields})


_SCHEMAS: dict[type[ma.Schema], ma.Schema] = {}


def schema_instance(schema: type[ma.Schema]) -> ma.Schema:
    """One instance per schema class, made on first use. Making one deep-copies every
    declared field (about a tenth of a millisecond for a deal's), and loading keeps no
    state on the instance (marshmallow 4 has no context), so threads share it."""
    instance = _SCHEMAS.get(schema)
    if instance is None:
        instance = _SCHEMAS.setdefault(schema, schema())
    return instance


class LoadedBody(dict):
    """A request body that a REST route's parser has loaded with ``schema`` already
    (web/api.py): ``load`` with the same schema takes it as it is instead of validating
    it a second time (issue 31: a deal's body was loaded twice, once by the route and
    once by the service). Anything else, from the CLI, the tool server or a page, is a
    plain dict and is validated here."""

    __slots__ = ("schema",)


def load(schema: type[ma.Schema], data: Any) -> dict[str, Any]:
    """Validate ``data`` with ``schema``; a 400 naming each bad field otherwise.

    Update schemas declare no required fields (rather than loading with ``partial``, which
    would also relax the required fields of nested items)."""
    if type(data) is LoadedBody and data.schema is schema_instance(schema):
        return dict(data)
    if not isinstance(data, dict):
        raise fail({"body": ["must be a JSON object"]})
    try:
        return schema_instance(schema).load(data)
    except ma.ValidationError as exc:
        raise fail(_flatten(exc.messages)) from None


def normalize_items(field: str, items: list[dict]) -> list[dict]:
    """``{id, name, description}`` for each item, with an id generated where omitted."""
    out, seen = [], set()
    for item in items:
        item_id = item.get("id") or new_id()
        if item_id in seen:
            raise fail({field: [f"duplicate id '{item_id}'"]})
        seen.add(item_id)
        description = item.get("description", "")
        normalized = {"id": item_id, "name": item["name"], "description": description}
        for extra in ("evidenceIds", "quotes"):  # kept only when given (pipeline facts)
            if item.get(extra):
                normalized[extra] = item[extra]
        out.append(normalized)
    return out


def unique(values: list[str]) -> list[str]:
    """The values without repeats, in first-seen order."""
    return list(dict.fromkeys(values))


def page(query, limit: int | None, offset: int | None, cap: int = 1000):
    """Apply ``limit`` (capped at ``cap``) and ``offset`` to a peewee query."""
    limit = cap if limit is None else min(limit, cap)
    return query.limit(limit).offset(offset or 0)
