"""Liveness."""

from __future__ import annotations

import marshmallow as ma

from ci_service import __version__
from ci_service.store.db import database
from ci_service.web.api import Blueprint
from ci_service.web.auth import public

blp = Blueprint("health", __name__, description="Liveness probe (no API key needed)")


class HealthSchema(ma.Schema):
    status = ma.fields.String(required=True)
    version = ma.fields.String(required=True)


@blp.route("/healthz", methods=["GET"])
@blp.doc(security=[])
@blp.alt_response(200, schema=HealthSchema, success=True, description="The service is up")
@public
def healthz():
    database.execute_sql("SELECT 1")
    return {"status": "ok", "version": __version__}
