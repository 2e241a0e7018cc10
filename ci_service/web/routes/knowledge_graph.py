"""/api/knowledge-graph: the workspace graph as visualization elements."""

from __future__ import annotations

import marshmallow as ma

from ci_service.services.common.fields import CitationSchema
from ci_service.services.graph import nodes as graph
from ci_service.services.identity.auth import READ
from ci_service.web.api import Blueprint
from ci_service.web.auth import principal, requires

blp = Blueprint(
    "knowledge-graph", __name__, url_prefix="/api/knowledge-graph", description="Knowledge graph"
)


class NodeDataSchema(ma.Schema):
    id = ma.fields.String(required=True)
    name = ma.fields.String(required=True)
    label = ma.fields.String(required=True, metadata={"enum": list(graph.NODE_LABELS)})
    color = ma.fields.String(required=True, metadata={"description": "fixed per label"})
    # Node properties, present when known (graph.NODE_PROPERTIES).
    title = ma.fields.String(metadata={"description": "PERSON: job title as the site writes it"})
    founder = ma.fields.Boolean(metadata={"description": "PERSON: named a founder"})
    date = ma.fields.String(metadata={"description": "MARKET_EVENT: YYYY-MM-DD"})
    url = ma.fields.String(metadata={"description": "MARKET_EVENT: the article"})
    evidenceIds = ma.fields.List(
        ma.fields.String(), metadata={"description": "intel items stating it"}
    )
    quotes = ma.fields.List(
        ma.fields.Nested(CitationSchema),
        metadata={"description": "the sentences stating it, with their evidence"},
    )


class EdgeDataSchema(ma.Schema):
    id = ma.fields.String(required=True)
    source = ma.fields.String(required=True)
    target = ma.fields.String(required=True)
    label = ma.fields.String(required=True)


class NodeElementSchema(ma.Schema):
    data = ma.fields.Nested(NodeDataSchema, required=True)


class EdgeElementSchema(ma.Schema):
    data = ma.fields.Nested(EdgeDataSchema, required=True)


class ElementsSchema(ma.Schema):
    nodes = ma.fields.List(ma.fields.Nested(NodeElementSchema), required=True)
    edges = ma.fields.List(ma.fields.Nested(EdgeElementSchema), required=True)


class GraphSchema(ma.Schema):
    elements = ma.fields.Nested(ElementsSchema, required=True)


@blp.route("", methods=["GET"])
@blp.alt_response(200, schema=GraphSchema, success=True)
@blp.errors(401, 403, 429)
@requires(READ)
def get_knowledge_graph():
    return graph.graph_elements(principal().workspace_id)
