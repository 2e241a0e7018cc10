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


class ItemOutSchema(ma.Schema):
    id = ma.fields.String(required=True)
    name = ma.fields.String(required=True)
    description = ma.fields.String()


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


def Strings(**kwargs) -> ma.fields.List:  # noqa: N802
    return ma.fields.List(ma.fields.String(), **kwargs)
