"""/api/search: competitors, battlecards and intel items by substring."""

from __future__ import annotations

import marshmallow as ma

from ci_service.services.identity.auth import READ
from ci_service.services.search import unified as search
from ci_service.web.api import Blueprint, Schema
from ci_service.web.auth import principal, requires

blp = Blueprint("search", __name__, url_prefix="/api/search", description="Search")


class SearchQuerySchema(Schema):
    # Checked by the service (at least 2 characters after stripping); documented here.
    q = ma.fields.String(
        required=True,
        metadata={
            "description": "case-insensitive substring, at least 2 characters",
            "minLength": 2,
        },
    )


class SearchResultSchema(ma.Schema):
    type = ma.fields.String(
        required=True, validate=ma.validate.OneOf(("competitor", "battlecard", "intel"))
    )
    id = ma.fields.String(required=True)
    title = ma.fields.String(required=True)
    subtitle = ma.fields.String(required=True, allow_none=True)
    url = ma.fields.String(required=True, metadata={"description": "app-relative path"})
    score = ma.fields.Float(required=True, allow_none=True, metadata={"description": "null"})


class SearchResponseSchema(ma.Schema):
    results = ma.fields.List(
        ma.fields.Nested(SearchResultSchema),
        required=True,
        metadata={"description": "competitors, then battlecards, then intel; at most 20"},
    )


@blp.route("", methods=["GET"])
@blp.arguments(SearchQuerySchema, location="query")
@blp.alt_response(200, schema=SearchResponseSchema, success=True)
@blp.errors(400, 401, 403, 429)
@requires(READ)
def search_all(args):
    caller = principal()
    results = search.search(caller.workspace_id, args["q"], version=caller.data_version)
    return {"results": results}
