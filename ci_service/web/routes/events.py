"""/api/events: what changed, newest first (scope read, any role)."""

from __future__ import annotations

import marshmallow as ma

from ci_service.services.alerts import events
from ci_service.services.identity.auth import READ
from ci_service.store.events import IMPORTANCE
from ci_service.web.api import Blueprint, Schema
from ci_service.web.auth import principal, requires

blp = Blueprint("events", __name__, url_prefix="/api/events", description="Change events")


class EventListQuerySchema(Schema):
    type = ma.fields.String(validate=ma.validate.OneOf(events.EVENT_TYPES))
    competitorId = ma.fields.String(
        metadata={"description": "only this competitor's events (404 if not in the workspace)"}
    )
    since = ma.fields.String(
        metadata={"description": "ISO 8601 date-time: events created at or after it"}
    )
    importance = ma.fields.String(
        validate=ma.validate.OneOf(IMPORTANCE),
        metadata={"description": "minimum importance: low (all), normal, high"},
    )
    limit = ma.fields.Integer(validate=ma.validate.Range(min=1, max=events.LIST_CAP))
    offset = ma.fields.Integer(validate=ma.validate.Range(min=0))


class EventSchema(ma.Schema):
    id = ma.fields.String(required=True)
    workspaceId = ma.fields.String(required=True)
    type = ma.fields.String(required=True, validate=ma.validate.OneOf(events.EVENT_TYPES))
    competitorId = ma.fields.String(required=True, allow_none=True)
    title = ma.fields.String(required=True)
    summary = ma.fields.String(required=True)
    importance = ma.fields.String(required=True, validate=ma.validate.OneOf(IMPORTANCE))
    evidenceIds = ma.fields.List(ma.fields.String(), required=True)
    link = ma.fields.String(required=True, allow_none=True)
    data = ma.fields.Dict(required=True, metadata={"description": "per type, see docs/alerts.md"})
    createdAt = ma.fields.String(required=True)


class EventListSchema(ma.Schema):
    events = ma.fields.List(ma.fields.Nested(EventSchema), required=True)


@blp.route("", methods=["GET"])
@blp.arguments(EventListQuerySchema, location="query")
@blp.alt_response(200, schema=EventListSchema, success=True)
@blp.errors(400, 401, 403, 404, 429)
@requires(READ)
def list_events(query):
    rows = events.list_events(
        principal().workspace_id,
        event_type=query.get("type"),
        competitor_id=query.get("competitorId"),
        since=query.get("since"),
        importance=query.get("importance"),
        limit=query.get("limit"),
        offset=query.get("offset"),
    )
    return {"events": [events.event_to_dict(row) for row in rows]}
