"""Win/loss deals: a LOST deal names the competitor it was lost to, a WON deal none.

Recording a deal is a ``deal.recorded`` event, written in the same transaction."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow.validate import Length

from ci_service.errors import NotFound
from ci_service.services import change_events, cleanup, graph_sync
from ci_service.services.fields import (
    ITEM_ID,
    NAME,
    SHORT,
    Enum,
    InputSchema,
    check_date,
    fail,
    load,
    page,
)
from ci_service.store import statements
from ci_service.store.competitors import Competitor
from ci_service.store.db import database, transaction
from ci_service.store.resources import DEAL_OUTCOMES, Deal
from ci_service.timeutil import iso, utcnow


class DealUpdateSchema(InputSchema):
    prospectCompanyName = ma.fields.String(validate=NAME)
    prospectIndustry = ma.fields.String(allow_none=True, validate=NAME)
    outcome = Enum(DEAL_OUTCOMES)
    competitorId = ma.fields.String(
        allow_none=True,
        validate=ITEM_ID,
        metadata={"description": "required when outcome is LOST; null for WON"},
    )
    decisionDate = ma.fields.String(
        allow_none=True, validate=check_date, metadata={"format": "date"}
    )
    dealSize = ma.fields.String(allow_none=True, validate=NAME)
    arguments = ma.fields.List(
        ma.fields.String(validate=Length(min=1, max=2000)),
        validate=Length(max=100),
        metadata={"description": "reasons for the win or loss"},
    )


class DealCreateSchema(DealUpdateSchema):
    prospectCompanyName = ma.fields.String(required=True, validate=NAME)
    outcome = Enum(DEAL_OUTCOMES, required=True)


class DealFilterSchema(InputSchema):
    competitorId = ma.fields.String(validate=SHORT)


_ATTRS = {
    "prospectCompanyName": "prospect_company_name",
    "prospectIndustry": "prospect_industry",
    "outcome": "outcome",
    "decisionDate": "decision_date",
    "dealSize": "deal_size",
    "arguments": "arguments",
}


def _check_outcome(workspace_id: str, outcome: str, competitor_id: str | None) -> Competitor | None:
    """The rule for ``outcome``; the LOST deal's competitor (read once, for the graph too)."""
    if outcome == "LOST":
        if not competitor_id:
            raise fail({"competitorId": ["is required when outcome is LOST"]})
        competitor = _competitor_named(workspace_id, competitor_id)
        if competitor is None:
            raise fail({"competitorId": ["no such competitor in this workspace"]})
        return competitor
    if competitor_id is not None:
        raise fail({"competitorId": ["must be null when outcome is WON"]})
    return None


_COMPETITOR_NAMED_SQL = (
    "SELECT id, name FROM competitor WHERE id = {param} AND workspace_id = {param}"
)


def _competitor_named(workspace_id: str, competitor_id: str) -> Competitor | None:
    """The competitor's id and name (all a deal needs of it), or None; a statement
    written once (store/statements.py says why)."""
    sql = _COMPETITOR_NAMED_SQL.format(param=database.param)
    row = database.execute_sql(sql, (competitor_id, workspace_id)).fetchone()
    if row is None:
        return None
    return Competitor(id=row[0], workspace=workspace_id, name=row[1])


def create_deal(workspace_id: str, data: dict[str, Any], *, user_id: str | None = None) -> Deal:
    values = load(DealCreateSchema, data)
    row = Deal(
        workspace=workspace_id,
        competitor=values.get("competitorId"),
        created_by_user_id=user_id,
    )
    for key, attr in _ATTRS.items():
        if key in values:
            setattr(row, attr, values[key])
    with transaction():
        competitor = _check_outcome(workspace_id, values["outcome"], values.get("competitorId"))
        row.created_at = row.updated_at = utcnow()  # in the order deals are written
        statements.insert_model(row)
        graph_sync.sync_deal(row, competitor)
        change_events.deal_recorded(row, competitor)
    return row


def get_deal(workspace_id: str, deal_id: str) -> Deal:
    row = Deal.select().where(Deal.id == deal_id, Deal.workspace == workspace_id).first()
    if row is None:
        raise NotFound.of("Deal")
    return row


def list_deals(
    workspace_id: str,
    competitor_id: str | None = None,
    *,
    limit: int | None = None,
    offset: int | None = None,
) -> list[Deal]:
    query = Deal.select().where(Deal.workspace == workspace_id)
    if competitor_id is not None:
        query = query.where(Deal.competitor == competitor_id)
    return list(page(query.order_by(Deal.created_at, Deal.id), limit, offset))


def update_deal(workspace_id: str, deal_id: str, data: dict[str, Any]) -> Deal:
    """Change the given fields. The outcome rule is checked on the combined result when
    ``outcome`` or ``competitorId`` changes (a LOST deal whose competitor was deleted keeps
    ``competitorId`` null and can still be edited otherwise)."""
    values = load(DealUpdateSchema, data)
    with transaction():
        row = get_deal(workspace_id, deal_id)
        competitor = None
        if "outcome" in values or "competitorId" in values:
            outcome = values.get("outcome", row.outcome)
            competitor_id = values.get("competitorId", row.competitor_id)
            competitor = _check_outcome(workspace_id, outcome, competitor_id)
            row.competitor = competitor_id
        for key, attr in _ATTRS.items():
            if key in values:
                setattr(row, attr, values[key])
        row.updated_at = utcnow()
        row.save()
        graph_sync.sync_deal(row, competitor)
    return row


def delete_deal(workspace_id: str, deal_id: str) -> None:
    with transaction():
        row = get_deal(workspace_id, deal_id)
        cleanup.run("deal", workspace_id, row.id)
        graph_sync.remove_deal(workspace_id, row.id)
        row.delete_instance()


def deal_to_dict(row: Deal) -> dict[str, Any]:
    return {
        "id": row.id,
        "workspaceId": row.workspace_id,
        "prospectCompanyName": row.prospect_company_name,
        "prospectIndustry": row.prospect_industry,
        "outcome": row.outcome,
        "competitorId": row.competitor_id,
        "decisionDate": row.decision_date,
        "dealSize": row.deal_size,
        "arguments": row.arguments,
        "createdAt": iso(row.created_at),
        "createdByUserId": row.created_by_user_id,
    }
