"""Win/loss deals: a LOST deal names the competitor it was lost to, a WON deal none.

Beyond the contract (issue 28), ``competitorIds`` lists every competitor in the deal, so a
WON deal can say whom we beat:

- Optional on create and PATCH; each id must be a competitor of the workspace (another
  workspace's id is unknown); repeats are dropped, order kept. A LOST deal's
  ``competitorId`` is always in it, first. Returned on every deal (``[]`` when none).
- A PATCH without ``competitorIds`` keeps the stored list, with the (new) LOST competitor
  first; a LOST competitor replaced by another leaves the list (it was there as the one
  lost to, and a correction must not count the deal against it). A deal turned WON keeps
  it: it was in the deal.
- Deleting a competitor removes it from every deal's list (the ``cleanup`` hook below);
  the deal stays.

Recording a deal is a ``deal.recorded`` event, written in the same transaction. Its graph
nodes are written after it (services/graph/projection.py): the deal is stored with
``graph_pending`` set, and every read of the graph finds them written."""

from __future__ import annotations

import json
from typing import Any

import marshmallow as ma
from marshmallow.validate import Length

from ci_service.errors import NotFound
from ci_service.services.alerts import changes as change_events
from ci_service.services.common import cleanup
from ci_service.services.common.fields import (
    ITEM_ID,
    NAME,
    SHORT,
    Enum,
    InputSchema,
    check_date,
    fail,
    load,
    page,
    unique,
)
from ci_service.services.graph import projection as graph_projection
from ci_service.services.graph import sync as graph_sync
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
    competitorIds = ma.fields.List(
        ma.fields.String(validate=ITEM_ID),
        validate=Length(max=100),
        metadata={
            "description": "beyond the contract: every competitor in the deal (for WON, "
            "whom we beat); a LOST deal's competitorId is always included, first"
        },
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


def _check_outcome(
    outcome: str, competitor_id: str | None, found: dict[str, Competitor]
) -> Competitor | None:
    """The rule for ``outcome``; the LOST deal's competitor (read once, for the graph too)."""
    if outcome == "LOST":
        if not competitor_id:
            raise fail({"competitorId": ["is required when outcome is LOST"]})
        competitor = found.get(competitor_id)
        if competitor is None:
            raise fail({"competitorId": ["no such competitor in this workspace"]})
        return competitor
    if competitor_id is not None:
        raise fail({"competitorId": ["must be null when outcome is WON"]})
    return None


def _check_listed(ids: list[str], found: dict[str, Competitor]) -> None:
    missing = [cid for cid in ids if cid not in found]
    if missing:
        raise fail({"competitorIds": [f"unknown competitor ids: {', '.join(missing)}"]})


def _in_deal(outcome: str, competitor_id: str | None, ids: list[str]) -> list[str]:
    """The stored list: the LOST competitor first, then the others, each once."""
    first = [competitor_id] if outcome == "LOST" and competitor_id else []
    return unique([*first, *ids])


_COMPETITORS_NAMED_SQL = (
    "SELECT id, name FROM competitor WHERE workspace_id = {param} AND id IN ({marks})"
)
_SQL_BY_COUNT: dict[tuple[int, str], str] = {}


def _competitors_named(workspace_id: str, ids: list[str]) -> dict[str, Competitor]:
    """id -> the competitor's id and name (all a deal needs of it), for the ids that are
    this workspace's competitors; one statement for all of them, its text written once
    per count (store/statements.py says why)."""
    ids = unique(i for i in ids if i)
    if not ids:
        return {}
    key = (len(ids), database.param)
    sql = _SQL_BY_COUNT.get(key)
    if sql is None:
        marks = ", ".join([database.param] * len(ids))
        sql = _SQL_BY_COUNT[key] = _COMPETITORS_NAMED_SQL.format(param=database.param, marks=marks)
    rows = database.execute_sql(sql, (workspace_id, *ids)).fetchall()
    named = {row[0]: Competitor(id=row[0], workspace=workspace_id, name=row[1]) for row in rows}
    return {cid: named[cid] for cid in ids if cid in named}  # in the order asked


def create_deal(workspace_id: str, data: dict[str, Any], *, user_id: str | None = None) -> Deal:
    values = load(DealCreateSchema, data)
    competitor_id = values.get("competitorId")
    listed = unique(values.get("competitorIds") or [])
    row = Deal(
        workspace=workspace_id,
        competitor=competitor_id,
        competitor_ids=_in_deal(values["outcome"], competitor_id, listed),
        created_by_user_id=user_id,
        graph_pending=True,  # its nodes: services/graph/projection.py
    )
    for key, attr in _ATTRS.items():
        if key in values:
            setattr(row, attr, values[key])
    # A request's write, holding nothing else: it may share its commit (store/engine.py).
    with transaction(group=True):
        found = _competitors_named(workspace_id, [competitor_id, *listed])
        competitor = _check_outcome(values["outcome"], competitor_id, found)
        _check_listed(listed, found)
        row.created_at = row.updated_at = utcnow()  # in the order deals are written
        statements.insert_model(row)
        change_events.deal_recorded(row, competitor)
        database.after_commit(graph_projection.wake)
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
    ``competitorId`` null and can still be edited otherwise). ``competitorIds``: see the
    module docstring."""
    values = load(DealUpdateSchema, data)
    with transaction():
        row = get_deal(workspace_id, deal_id)
        outcome = values.get("outcome", row.outcome)
        competitor_id = values.get("competitorId", row.competitor_id)
        if "competitorIds" in values:
            listed = unique(values["competitorIds"])
        else:
            listed = list(row.competitor_ids or [])
            replaced = row.competitor_id
            if replaced and competitor_id and replaced != competitor_id:
                listed = [cid for cid in listed if cid != replaced]
        found = _competitors_named(workspace_id, [competitor_id, *listed])
        if "outcome" in values or "competitorId" in values:
            _check_outcome(outcome, competitor_id, found)
            row.competitor = competitor_id
        if "competitorIds" in values:
            _check_listed(listed, found)
        # A stored id no longer found (deleted meanwhile) is dropped, never an error.
        row.competitor_ids = [
            cid for cid in _in_deal(outcome, row.competitor_id, listed) if cid in found
        ]
        for key, attr in _ATTRS.items():
            if key in values:
                setattr(row, attr, values[key])
        row.updated_at = utcnow()
        row.graph_pending = False  # written here, whether or not it was still waiting
        row.save()
        graph_sync.sync_deal(row, [found[cid] for cid in row.competitor_ids])
    return row


_MENTIONING_SQL = (
    "SELECT id, CAST(competitor_ids AS TEXT) FROM deal "
    "WHERE workspace_id = {param} AND CAST(competitor_ids AS TEXT) LIKE {param}"
)


@cleanup.on_delete("competitor")
def _forget_competitor(workspace_id: str, competitor_id: str) -> None:
    """The deleted competitor leaves every deal's list; the deals stay (the competitor
    delete itself clears ``competitorId``)."""
    # The JSON text holds the id quoted: a cheap pre-filter, checked exactly below.
    sql = _MENTIONING_SQL.format(param=database.param)
    rows = database.execute_sql(sql, (workspace_id, f'%"{competitor_id}"%')).fetchall()
    now = utcnow()
    for deal_id, text in rows:
        ids = json.loads(text) if isinstance(text, str) else list(text or [])
        if competitor_id in ids:
            Deal.update(
                competitor_ids=[cid for cid in ids if cid != competitor_id], updated_at=now
            ).where(Deal.id == deal_id).execute()


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
        "competitorIds": list(row.competitor_ids or []),
        "createdAt": iso(row.created_at),
        "createdByUserId": row.created_by_user_id,
    }
