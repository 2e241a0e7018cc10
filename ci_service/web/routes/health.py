"""Liveness, and whether the database answers (a load balancer's health check)."""

from __future__ import annotations

import marshmallow as ma

from ci_service import __version__
from ci_service.store.db import ping
from ci_service.web.api import Blueprint
from ci_service.web.auth import public

blp = Blueprint("health", __name__, description="Liveness probe (no API key needed)")


class HealthSchema(ma.Schema):
    status = ma.fields.String(
        required=True, metadata={"description": '"ok", or "unavailable" (503)'}
    )
    version = ma.fields.String(required=True)
    database = ma.fields.String(
        required=True,
        metadata={
            "description": '"ok", or "unreachable" when it did not answer, on a new '
            "connection either"
        },  # fmt: skip
    )


@blp.route("/healthz", methods=["GET"])
@blp.doc(security=[])
@blp.alt_response(
    200, schema=HealthSchema, success=True, description="The service and its database are up"
)
@blp.alt_response(
    503,
    schema=HealthSchema,
    description="The database does not answer (tried once more on a new connection)",
)
@public
def healthz():
    # SELECT 1 on this thread's connection, then on a new one: a connection a database
    # restart closed is not an outage, a database that refuses a new one is.
    if ping():
        return {"status": "ok", "version": __version__, "database": "ok"}
    return {"status": "unavailable", "version": __version__, "database": "unreachable"}, 503
