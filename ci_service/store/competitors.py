"""Competitors: the companies a workspace tracks."""

from __future__ import annotations

from peewee import CharField, ForeignKeyField, IntegerField

from ci_service.store.base import BaseModel, JSONField, UTCDateTimeField
from ci_service.store.identity import Workspace
from ci_service.timeutil import utcnow

COMPETITOR_STATUSES = ("PENDING", "PROCESSING", "COMPLETE", "ERROR")
TIERS = {"TIER_1": 7, "TIER_2": 30, "TIER_3": 90}  # tier -> refreshRate in days


class Competitor(BaseModel):
    workspace = ForeignKeyField(Workspace, backref="competitors", on_delete="CASCADE")
    name = CharField(max_length=200)
    website_url = CharField(max_length=2048)
    status = CharField(max_length=20, default="PENDING")
    tags = JSONField(default=list)
    priority = IntegerField(default=1)
    tier = CharField(max_length=20, default="TIER_3")
    refresh_rate = IntegerField(default=90)  # days
    products = JSONField(default=list)
    categories = JSONField(default=list)
    relevant_product_ids = JSONField(default=list)
    company_profile = JSONField(default=dict)
    company_strengths = JSONField(default=list)
    company_weaknesses = JSONField(default=list)
    reference_links = JSONField(default=list)
    key_messaging = JSONField(default=list)
    last_refresh_at = UTCDateTimeField(null=True)
    last_battlecard_at = UTCDateTimeField(null=True)
    created_at = UTCDateTimeField(default=utcnow, index=True)
    updated_at = UTCDateTimeField(default=utcnow)
