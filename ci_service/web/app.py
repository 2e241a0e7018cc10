"""The Flask app factory. ``serve`` and the tests both build the app here."""

from __future__ import annotations

import inspect
import logging
import random
from pathlib import Path

from flask import Flask, g, send_from_directory

from ci_service import __version__
from ci_service.services.identity.usage import make_tracker
from ci_service.services.search import window as search_window
from ci_service.settings import Settings, load_settings
from ci_service.store.db import (
    close_database,
    database,
    keep_writer_connection,
    open_database,
)
from ci_service.web import auth, outages, response_cache
from ci_service.web.api import Api
from ci_service.web.errors import register_error_handlers
from ci_service.web.json_provider import OrjsonProvider
from ci_service.web.url_rules import LazyBuildRule

log = logging.getLogger("ci_service")


class _App(Flask):
    """Flask, asking whether a hook or view is a coroutine function only of what is not a
    plain function: ``ensure_sync`` runs before every hook, view and flask-smorest
    wrapper, about ten times a request, and ``inspect.iscoroutinefunction`` unwraps
    before it reads the same flag (issue 31). Nothing of ours is async; anything that
    is still goes through Flask's own check."""

    def ensure_sync(self, func):
        code = getattr(func, "__code__", None)
        if code is not None and not code.co_flags & inspect.CO_COROUTINE:
            return func
        return super().ensure_sync(func)


def _new_request_id() -> str:
    # 16 hex digits. A request id ties log lines together and is no secret, so Python's own
    # generator, not os.urandom: its system call let go of the GIL on every request, and
    # another thread took it (issue 31; the same as new ids, store/engine.py).
    return f"{random.getrandbits(64):016x}"


API_SPEC_OPTIONS = {
    "info": {
        "description": "Competitive intelligence REST API. Authenticate with the X-API-Key "
        "header; errors use the envelope {error: {code, message, details?}}."
    },
    "components": {
        "securitySchemes": {"ApiKeyAuth": {"type": "apiKey", "in": "header", "name": "X-API-Key"}}
    },
    "security": [{"ApiKeyAuth": []}],
}


def _swagger_assets_dir() -> str:
    import swagger_ui_bundle

    return str(Path(swagger_ui_bundle.swagger_ui_path))


def create_app(
    settings: Settings | None = None, *, persistent_connections: bool = False, **overrides
) -> Flask:
    """Build the app on ``settings`` (defaults plus CI_SERVICE_* env when omitted).

    ``persistent_connections`` (what ``serve`` uses): each server thread keeps its SQLite
    connection between requests instead of reconnecting, which saves the connect, the
    pragmas and the schema parse on every request (about 30% of a small read). Tests keep
    one connection per request so nothing outlives a temporary database."""
    settings = settings or load_settings()
    if overrides:
        settings = settings.with_overrides(**overrides)

    app = _App("ci_service", static_folder=None)  # the pages blueprint serves /static
    app.url_rule_class = LazyBuildRule  # url_for's code compiled on first use (start-up)
    app.config.update(
        CI_SETTINGS=settings,
        MAX_CONTENT_LENGTH=max(settings.max_upload_bytes, settings.max_json_bytes),
        API_TITLE="ci-service",
        API_VERSION=__version__,
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="/docs",
        OPENAPI_SWAGGER_UI_URL="/docs/assets/",
        # Served from the app (swagger-ui-bundle), and no call-out to the online validator.
        OPENAPI_SWAGGER_UI_CONFIG={"validatorUrl": None, "persistAuthorization": True},
        API_SPEC_OPTIONS=API_SPEC_OPTIONS,
    )
    app.json = OrjsonProvider(app)
    app.json.sort_keys = False

    db = open_database(settings.database, pool_size=settings.database_pool_size)
    if persistent_connections:
        keep_writer_connection(db)  # writes share one warm connection (store/db.py)
    app.extensions["ci_database"] = db
    app.extensions["ci_usage"] = make_tracker(settings.usage_flush_seconds)

    # A read that lost its database connection mid-request runs once more (web/outages.py).
    app.wsgi_app = outages.RetryReads(app.wsgi_app)

    usage = app.extensions["ci_usage"]
    # One hook each side (issue 31): every registered hook costs a call and Flask's
    # coroutine check on every request, so the request pipeline runs as one function.
    response_cache.install(app, settings.response_cache_mb)
    extensions = app.extensions

    @app.before_request
    def begin_request():
        g.request_id = outages.request_id(_new_request_id)
        # The thread's connection, replaced if the database closed it (a restart).
        outages.begin_request(usage)
        auth.authorize_request()  # key, IP allowlist, rate limit, scope/role/plan
        cache = extensions.get("ci_response_cache")
        if cache is not None:
            return response_cache.lookup(cache)  # after the checks: they run first
        return None

    search_window.configure(settings.search_cache_mb)

    @app.after_request
    def finish(response):
        cache = extensions.get("ci_response_cache")
        if cache is not None:
            response = response_cache.store(cache, response)
        auth.add_rate_limit_headers(response)
        response.headers.add("X-Request-Id", getattr(g, "request_id", ""))
        usage.maybe_flush()  # nothing here once serve's flusher thread runs: no write on a read
        return response

    @app.teardown_request
    def close_connection(exc):
        outages.end_request(usage)
        if not persistent_connections and not database.is_closed():
            database.close()

    api = Api(app)
    from ci_service.web.routes import BLUEPRINTS

    for blueprint in BLUEPRINTS:
        api.register_blueprint(blueprint)
    from ci_service.web.routes.oauth_connections import blp as connections_blueprint

    api.register_blueprint(connections_blueprint)  # issue 17; kept out of BLUEPRINTS' file
    from ci_service.web.mcp_http import bp as mcp_blueprint

    app.register_blueprint(mcp_blueprint)  # JSON-RPC, outside the REST OpenAPI document
    from ci_service.web.oauth import routes as oauth_routes

    oauth_routes.install(app)  # the tool server's OAuth 2.1 endpoints (issue 17)
    app.extensions["ci_api"] = api
    from ci_service.web import pages

    pages.install(app)  # the web app for people (sessions, not keys)

    @app.get("/docs/assets/<path:filename>")
    def swagger_assets(filename):
        return send_from_directory(_swagger_assets_dir(), filename, max_age=86400)

    register_error_handlers(app)
    return app


def shutdown_app(app: Flask) -> None:
    """Persist pending usage counters and close the database's connections (PostgreSQL:
    the pool); safe to call more than once."""
    usage = app.extensions.get("ci_usage")
    if usage is not None:
        usage.stop_flusher()  # and the last flush
    db = app.extensions.get("ci_database")
    if db is not None:
        close_database(db)
