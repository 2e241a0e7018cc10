"""/api/products: the workspace's own offerings, in the product view."""

from __future__ import annotations

import marshmallow as ma

from ci_service.services.common.fields import PageSchema
from ci_service.services.identity.auth import READ, WRITE
from ci_service.services.workspace import products
from ci_service.web.api import Blueprint, SuccessSchema
from ci_service.web.auth import principal, requires
from ci_service.web.routes.resource_common import (
    ItemOutSchema,
    PricingPlanOutSchema,
    Strings,
    page_args,
)

blp = Blueprint("products", __name__, url_prefix="/api/products", description="Products")


class ProductSchema(ma.Schema):
    id = ma.fields.String(required=True)
    workspaceId = ma.fields.String(required=True)
    name = ma.fields.String(required=True)
    description = ma.fields.String(required=True)
    audience = ma.fields.String(required=True)
    valueProps = Strings(required=True)
    features = ma.fields.List(ma.fields.Nested(ItemOutSchema), required=True)
    categories = ma.fields.List(ma.fields.Nested(ItemOutSchema), required=True)
    capabilities = ma.fields.List(ma.fields.Nested(ItemOutSchema), required=True)
    pricing = ma.fields.List(
        ma.fields.Nested(PricingPlanOutSchema),
        required=True,
        metadata={"description": "our price plans, compared with competitors' in battlecards"},
    )
    createdAt = ma.fields.DateTime(required=True)
    createdByUserId = ma.fields.String(required=True, allow_none=True)


class ProductListSchema(ma.Schema):
    products = ma.fields.List(ma.fields.Nested(ProductSchema), required=True)


class ProductResponseSchema(ma.Schema):
    product = ma.fields.Nested(ProductSchema, required=True)


def _one(row):
    return {"product": products.product_to_dict(row)}


@blp.route("", methods=["GET"])
@blp.arguments(PageSchema, location="query")
@blp.alt_response(200, schema=ProductListSchema, success=True)
@blp.errors(400, 401, 403, 429)
@requires(READ)
def list_products(args):
    rows = products.list_products(principal().workspace_id, **page_args(args))
    return {"products": [products.product_to_dict(r) for r in rows]}


@blp.route("", methods=["POST"])
@blp.arguments(products.ProductCreateSchema)
@blp.alt_response(200, schema=ProductResponseSchema, success=True)
@blp.errors(400, 401, 403, 413, 415, 429)
@requires(WRITE)
def create_product(body):
    p = principal()
    return _one(products.create_product(p.workspace_id, body, user_id=p.user_id))


@blp.route("/<product_id>", methods=["GET"])
@blp.alt_response(200, schema=ProductResponseSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(READ)
def get_product(product_id):
    return _one(products.get_product(principal().workspace_id, product_id))


@blp.route("/<product_id>", methods=["PATCH"])
@blp.arguments(products.ProductUpdateSchema)
@blp.alt_response(200, schema=ProductResponseSchema, success=True)
@blp.errors(400, 401, 403, 404, 413, 415, 429)
@requires(WRITE)
def update_product(body, product_id):
    return _one(products.update_product(principal().workspace_id, product_id, body))


@blp.route("/<product_id>", methods=["DELETE"])
@blp.alt_response(200, schema=SuccessSchema, success=True)
@blp.errors(401, 403, 404, 429)
@requires(WRITE)
def delete_product(product_id):
    products.delete_product(principal().workspace_id, product_id)
    return {"success": True}
