"""Pieces shared by the resource blueprints: paging and response schemas."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from flask import current_app


def page_args(args: dict[str, Any]) -> dict[str, int | None]:
    """``limit`` (capped at the ``list_cap`` setting) and ``offset`` for a service list."""
    cap = current_app.config["CI_SETTINGS"].list_cap
    limit = args.get("limit")
    return {"limit": cap if limit is None else min(limit, cap), "offset": args.get("offset")}


class CitationOutSchema(ma.Schema):
    """The sentence a fact was read from, in the evidence item ``evidenceId``; ``url`` opens
    the page at that sentence (a ``#:~:text=`` fragment)."""

    evidenceId = ma.fields.String(required=True)
    quote = ma.fields.String(required=True)
    url = ma.fields.String()


def Citations(**kwargs) -> ma.fields.List:  # noqa: N802
    return ma.fields.List(ma.fields.Nested(CitationOutSchema), **kwargs)


class ItemOutSchema(ma.Schema):
    id = ma.fields.String(required=True)
    name = ma.fields.String(required=True)
    description = ma.fields.String()
    evidenceIds = ma.fields.List(ma.fields.String(), metadata={"description": "pipeline facts"})
    quotes = Citations()


class PricingPlanOutSchema(ma.Schema):
    """A plan read from a pricing page (``price`` null and ``onRequest`` true for "contact
    sales" plans; ``comingSoon`` true on a plan its card or row says is not sold yet)."""

    name = ma.fields.String(required=True)
    price = ma.fields.Float(allow_none=True)
    currency = ma.fields.String(allow_none=True)
    period = ma.fields.String(allow_none=True, metadata={"description": "month, year, one-time"})
    unit = ma.fields.String(allow_none=True)
    onRequest = ma.fields.Boolean()
    comingSoon = ma.fields.Boolean(metadata={"description": "only on plans not sold yet"})
    priceText = ma.fields.String(allow_none=True)
    features = ma.fields.List(ma.fields.String())
    evidenceIds = ma.fields.List(ma.fields.String())
    quotes = Citations()


class PlanTermsOutSchema(ma.Schema):
    price = ma.fields.Float(allow_none=True)
    currency = ma.fields.String(allow_none=True)
    period = ma.fields.String(allow_none=True)
    unit = ma.fields.String(allow_none=True)
    onRequest = ma.fields.Boolean()


class PricingChangeOutSchema(ma.Schema):
    """A difference between two collections of a competitor's pricing page: ``old`` is null
    for an added plan, ``new`` for a removed one."""

    detectedAt = ma.fields.DateTime(required=True)
    change = ma.fields.String(
        required=True, metadata={"description": "price_changed, plan_added or plan_removed"}
    )
    plan = ma.fields.String(required=True, metadata={"description": "the plan's name"})
    old = ma.fields.Nested(PlanTermsOutSchema, allow_none=True)
    new = ma.fields.Nested(PlanTermsOutSchema, allow_none=True)
    evidenceIds = ma.fields.List(ma.fields.String())


class LinkOutSchema(ma.Schema):
    label = ma.fields.String(required=True)
    url = ma.fields.String(required=True)


class ProfileOutSchema(ma.Schema):
    """companyProfile: every field optional (filled in by users and refresh jobs)."""

    class Meta:
        unknown = ma.INCLUDE

    yearFounded = ma.fields.Integer(allow_none=True)
    revenue = ma.fields.String(allow_none=True)
    employeeCount = ma.fields.String(allow_none=True)
    industry = ma.fields.String(allow_none=True)
    headquarters = ma.fields.String(allow_none=True)
    newsFeed = ma.fields.List(ma.fields.Dict())
    pricingLinks = ma.fields.List(ma.fields.Dict())
    offeringLinks = ma.fields.List(ma.fields.Dict())
    funding = ma.fields.List(
        ma.fields.Dict(),
        metadata={
            "description": "{round, amount, currency, date, dateText (the date as the page "
            "wrote it), investors, evidenceIds, quotes}"
        },
    )
    customers = ma.fields.List(
        ma.fields.Dict(), metadata={"description": "{name, evidenceIds, quotes}"}
    )
    partners = ma.fields.List(
        ma.fields.Dict(),
        metadata={
            "description": "partners and resellers the site names: {name, evidenceIds, quotes}"
        },
    )
    sources = ma.fields.Dict(
        metadata={"description": "profile field -> ids of the evidence items that state it"}
    )
    quotes = ma.fields.Dict(metadata={"description": "profile field -> [citation]"})


def Strings(**kwargs) -> ma.fields.List:  # noqa: N802
    return ma.fields.List(ma.fields.String(), **kwargs)
