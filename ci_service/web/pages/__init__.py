"""The web app for people: server-rendered pages on the same services as REST and tools.

Layout: ``context.py`` (the session, CSRF, the access rule of a page, rendering and the
security headers), one module of views per area (``auth_views``, ``home``, ...), Jinja
templates in ``templates/`` (one base, a block per page) and our own small CSS and
JavaScript in ``static/``; no third-party asset, no CDN, no build step.

Every page declares what it needs with ``@page(access)`` (signed in, a workspace chosen,
then the same scope/role/plan rule as the API); a missing or another workspace's id is the
same 404 page. Forms and state-changing requests carry the session's CSRF token.
"""

from __future__ import annotations

from importlib import import_module

from flask import Blueprint, Flask

bp = Blueprint(
    "pages",
    __name__,
    template_folder="templates",
    static_folder="static",
    static_url_path="/static",
)

VIEW_MODULES = (
    "auth_views",
    "home",
    "changes",
    "competitors",
    "competitor_edit",
    "competitor_import",
    "intel",
    "jobs",
    "search",
    "battlecards",
    "matrix",
    "solutions",
    "graph",
    "deals",
    "settings",
    "alerts",
    "alerts_mutes",
    "oauth_consent",
    "settings_connections",
)


def install(app: Flask) -> None:
    from ci_service.web.pages import context

    for name in VIEW_MODULES:
        import_module(f"ci_service.web.pages.{name}")
    context.install(app, bp)
    app.register_blueprint(bp)
