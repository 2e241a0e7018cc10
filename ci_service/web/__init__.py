"""The HTTP layer: app factory, error envelope, auth pipeline and the REST blueprints."""

from ci_service.web.app import create_app

__all__ = ["create_app"]
