"""Offerings (products are the workspace's own offerings), deals, the organization and
solutions."""

from __future__ import annotations

from peewee import SQL, BooleanField, CharField, ForeignKeyField, TextField

from ci_service.store.base import BaseModel, JSONField, UTCDateTimeField
from ci_service.store.competitors import Competitor
from ci_service.store.identity import Workspace
from ci_service.timeutil import utcnow

DEAL_OUTCOMES = ("WON", "LOST")


class Offering(BaseModel):
    """One record behind both views: ``competitor`` null = the workspace's own product."""

    workspace = ForeignKeyField(Workspace, backref="offerings", on_delete="CASCADE")
    competitor = ForeignKeyField(
        Competitor, backref="offerings", null=True, on_delete="CASCADE", index=True
    )
    name = CharField(max_length=200)
    description = TextField(default="")
    audience = TextField(default="")
    value_props = JSONField(default=list)
    features = JSONField(default=list)  # [{id, name, description}]
    categories = JSONField(default=list)  # [{id, name, description}]
    capabilities = JSONField(default=list)  # [{id, name, description}]; ids = capabilityIds
    child_offering_ids = JSONField(default=list)
    # [{name, price, currency, period, unit, onRequest, priceText, features, evidenceIds,
    #   quotes}] (fields.PricingPlanSchema); competitors' plans come from their pricing pages.
    pricing = JSONField(default=list)
    # Price changes between two collections, newest first (collection.pricing_store).
    pricing_changes = JSONField(default=list)
    # A competitor's product: the sentences of its pages that state it ([{evidenceId, quote,
    # url}], collection.product_store); empty for our own offerings.
    sources = JSONField(default=list)
    is_active = BooleanField(default=True)
    created_by_user_id = CharField(max_length=64, null=True)
    created_at = UTCDateTimeField(default=utcnow, index=True)
    updated_at = UTCDateTimeField(default=utcnow)


class Deal(BaseModel):
    workspace = ForeignKeyField(Workspace, backref="deals", on_delete="CASCADE")
    prospect_company_name = CharField(max_length=200)
    prospect_industry = CharField(max_length=200, null=True)
    outcome = CharField(max_length=10)
    # SET NULL is the safety net; the competitor delete also detaches explicitly.
    competitor = ForeignKeyField(
        Competitor, backref="deals", null=True, on_delete="SET NULL", index=True
    )
    decision_date = CharField(max_length=10, null=True)  # YYYY-MM-DD
    deal_size = CharField(max_length=200, null=True)
    arguments = JSONField(default=list)
    # Beyond the contract (issue 28): every competitor in the deal, the LOST one first;
    # for a WON deal, whom we beat (services/workspace/deals.py keeps it in step, deal_stats
    # uses it).
    competitor_ids = JSONField(default=list)
    created_by_user_id = CharField(max_length=64, null=True)
    created_at = UTCDateTimeField(default=utcnow, index=True)
    updated_at = UTCDateTimeField(default=utcnow)
    # Issue 31: the deal's graph nodes are still to be written (services/graph/projection.py).
    # The database default is false: a deal written any other way has no nodes waiting.
    graph_pending = BooleanField(default=False, constraints=[SQL("DEFAULT FALSE")])


class Organization(BaseModel):
    """The workspace's own company: at most one per workspace."""

    workspace = ForeignKeyField(Workspace, backref="organization", on_delete="CASCADE", unique=True)
    name = CharField(max_length=200, default="")
    website_url = CharField(max_length=2048, default="")
    domain = CharField(max_length=255, default="")
    company_profile = JSONField(default=dict)
    company_strengths = JSONField(default=list)
    company_weaknesses = JSONField(default=list)
    reference_links = JSONField(default=list)
    key_messaging = JSONField(default=list)
    created_at = UTCDateTimeField(default=utcnow)
    updated_at = UTCDateTimeField(default=utcnow)


class Solution(BaseModel):
    workspace = ForeignKeyField(Workspace, backref="solutions", on_delete="CASCADE")
    name = CharField(max_length=200)
    description = TextField(default="")
    is_ai_generated = BooleanField(default=False)
    product_ids = JSONField(default=list)
    category_mappings = JSONField(default=list)  # [{categoryId, productId, weight}]
    created_by_user_id = CharField(max_length=64, null=True)
    created_at = UTCDateTimeField(default=utcnow, index=True)
    updated_at = UTCDateTimeField(default=utcnow)
