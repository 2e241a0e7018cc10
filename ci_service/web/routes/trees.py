"""Knowledge trees: the spec's tree, tree-metadata and node endpoints.

``{tree}`` carries ``rootId``, ``nodeCount`` and the ``nodes`` (without embeddings) in
breadth-first order, enough to render it; embeddings come from ``/api/nodes`` and
``/api/trees/{treeId}/nodes``. ``id`` and ``treeId`` are the same stable value.
"""

from __future__ import annotations

import marshmallow as ma

from ci_service.errors import NotFound
from ci_service.services.identity.auth import READ, WRITE
from ci_service.services.intel import trees
from ci_service.services.workspace import offerings, organizations
from ci_service.store.trees import ENTITY_TYPES
from ci_service.web.api import Blueprint, Schema, SuccessSchema
from ci_service.web.auth import principal, requires
from ci_service.web.routes.resource_common import Strings

blp = Blueprint("knowledge-trees", __name__, url_prefix="/api", description="Knowledge trees")

_TRUE = {"true", "True", "TRUE", "1"}
_FALSE = {"false", "False", "FALSE", "0"}
MISSING = "missing required parameter"


def Flag(**kwargs) -> ma.fields.Boolean:  # noqa: N802
    return ma.fields.Boolean(truthy=_TRUE, falsy=_FALSE, load_default=False, **kwargs)


class EmbeddingQuerySchema(Schema):
    excludeEmbeddings = Flag(metadata={"description": "true or 1 drops `embedding`"})


class NodesQuerySchema(EmbeddingQuerySchema):
    ids = ma.fields.String(
        required=True,
        validate=ma.validate.Length(min=1, max=70_000),
        error_messages={"required": MISSING},
        metadata={"description": "comma-separated node ids (at most 1000)"},
    )
    treeId = ma.fields.String(
        required=True,
        validate=ma.validate.Length(min=1, max=64),
        error_messages={"required": MISSING},
    )


class TreeNodeSchema(ma.Schema):
    id = ma.fields.String(required=True)
    treeId = ma.fields.String(required=True)
    text = ma.fields.String(required=True)
    children = Strings(required=True, metadata={"description": "child node ids"})
    metadata = ma.fields.Dict(
        required=True, metadata={"description": "type (root/document/section/chunk), source, url"}
    )
    embedding = ma.fields.List(
        ma.fields.Float(), metadata={"description": "absent with excludeEmbeddings=true"}
    )


class TreeSchema(ma.Schema):
    id = ma.fields.String(required=True, metadata={"description": "same as treeId"})
    treeId = ma.fields.String(required=True, metadata={"description": "stable per entity"})
    workspaceId = ma.fields.String(required=True)
    entityType = ma.fields.String(required=True, validate=ma.validate.OneOf(ENTITY_TYPES))
    entityId = ma.fields.String(required=True)
    version = ma.fields.Integer(required=True, metadata={"description": "+1 per rebuild"})
    rootId = ma.fields.String(required=True, allow_none=True)
    nodeCount = ma.fields.Integer(required=True)
    sources = ma.fields.List(ma.fields.Dict(), required=True)
    createdAt = ma.fields.DateTime(required=True)
    updatedAt = ma.fields.DateTime(required=True)
    nodes = ma.fields.List(
        ma.fields.Nested(TreeNodeSchema), metadata={"description": "without embeddings"}
    )


class TreeResponseSchema(ma.Schema):
    tree = ma.fields.Nested(TreeSchema, required=True)


class TreeMetadataSchema(ma.Schema):
    treeId = ma.fields.String(required=True)
    rootId = ma.fields.String(required=True, allow_none=True)
    nodeCount = ma.fields.Integer(required=True)
    createdAt = ma.fields.DateTime(required=True)
    version = ma.fields.Integer(required=True)
    updatedAt = ma.fields.DateTime(required=True)


class TreeMetadataResponseSchema(ma.Schema):
    metadata = ma.fields.Nested(TreeMetadataSchema, required=True)


class NodesResponseSchema(ma.Schema):
    nodes = ma.fields.List(ma.fields.Nested(TreeNodeSchema), required=True)


def _offering_tree(offering_id: str):
    ws = principal().workspace_id
    offering = offerings.get_offering(ws, offering_id)
    return trees.tree_for_entity(ws, "OFFERING", offering.id)


@blp.route("/offerings/<offering_id>/knowledge-tree", methods=["GET"])
@blp.alt_response(200, schema=TreeResponseSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(READ)
def offering_tree(offering_id):
    return {"tree": trees.tree_to_dict(_offering_tree(offering_id))}


@blp.route("/offerings/<offering_id>/tree-metadata", methods=["GET"])
@blp.alt_response(200, schema=TreeMetadataResponseSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(READ)
def offering_tree_metadata(offering_id):
    return {"metadata": trees.tree_metadata(_offering_tree(offering_id))}


@blp.route("/offerings/<offering_id>/tree", methods=["DELETE"])
@blp.alt_response(200, schema=SuccessSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(WRITE)
def delete_offering_tree(offering_id):
    ws = principal().workspace_id
    offering = offerings.get_offering(ws, offering_id)
    trees.delete_tree_for_entity(ws, "OFFERING", offering.id)
    return {"success": True}


@blp.route("/organizations/tree", methods=["GET"])
@blp.alt_response(200, schema=TreeResponseSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(READ)
def organization_tree():
    ws = principal().workspace_id
    org = organizations.find_organization(ws)
    if org is None:
        raise NotFound.of("Organization")
    return {"tree": trees.tree_to_dict(trees.tree_for_entity(ws, "ORGANIZATION", org.id))}


@blp.route("/organizations/<organization_id>/tree-metadata", methods=["GET"])
@blp.alt_response(200, schema=TreeMetadataResponseSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(READ)
def organization_tree_metadata(organization_id):
    ws = principal().workspace_id
    org = organizations.get_organization(ws, organization_id)
    return {"metadata": trees.tree_metadata(trees.tree_for_entity(ws, "ORGANIZATION", org.id))}


@blp.route("/nodes", methods=["GET"])
@blp.arguments(NodesQuerySchema, location="query")
@blp.alt_response(200, schema=NodesResponseSchema, success=True)
@blp.errors(400, 401, 403, 404, 429, 431)
@requires(READ)
def get_nodes(args):
    ids = [i.strip() for i in args["ids"].split(",") if i.strip()]
    if not ids:
        from ci_service.services.common.fields import fail

        raise fail({"ids": ["must name at least one node id"]})
    nodes = trees.get_nodes(
        principal().workspace_id, args["treeId"], ids, args["excludeEmbeddings"]
    )
    return {"nodes": nodes}


@blp.route("/knowledge-trees/<tree_id>", methods=["GET"])
@blp.alt_response(200, schema=TreeResponseSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(READ)
def get_tree(tree_id):
    return {"tree": trees.tree_to_dict(trees.get_tree(principal().workspace_id, tree_id))}


@blp.route("/trees/<tree_id>/nodes", methods=["GET"])
@blp.arguments(EmbeddingQuerySchema, location="query")
@blp.alt_response(200, schema=NodesResponseSchema, success=True)
@blp.errors(400, 401, 403, 404, 429)
@requires(READ)
def tree_nodes(args, tree_id):
    nodes = trees.get_nodes(principal().workspace_id, tree_id, None, args["excludeEmbeddings"])
    return {"nodes": nodes}
