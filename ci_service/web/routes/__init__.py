"""REST blueprints, one module per resource. Register new ones in BLUEPRINTS."""

from ci_service.web.routes.api_keys import blp as api_keys_blp
from ci_service.web.routes.health import blp as health_blp

BLUEPRINTS = [
    health_blp,
    api_keys_blp,
]
