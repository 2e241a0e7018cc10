"""REST blueprints, one module per resource. Register new ones in BLUEPRINTS."""

from ci_service.web.routes.api_keys import blp as api_keys_blp
from ci_service.web.routes.battlecards import blp as battlecards_blp
from ci_service.web.routes.competitors import blp as competitors_blp
from ci_service.web.routes.deals import blp as deals_blp
from ci_service.web.routes.events import blp as events_blp
from ci_service.web.routes.health import blp as health_blp
from ci_service.web.routes.intel import blp as intel_blp
from ci_service.web.routes.jobs import blp as jobs_blp
from ci_service.web.routes.knowledge_graph import blp as knowledge_graph_blp
from ci_service.web.routes.matrix import blp as matrix_blp
from ci_service.web.routes.mutes import blp as mutes_blp
from ci_service.web.routes.offering_jobs import blp as offering_jobs_blp
from ci_service.web.routes.offerings import blp as offerings_blp
from ci_service.web.routes.organization_jobs import blp as organization_jobs_blp
from ci_service.web.routes.organizations import blp as organizations_blp
from ci_service.web.routes.products import blp as products_blp
from ci_service.web.routes.search import blp as search_blp
from ci_service.web.routes.solutions import blp as solutions_blp
from ci_service.web.routes.subscriptions import blp as subscriptions_blp
from ci_service.web.routes.trees import blp as trees_blp

BLUEPRINTS = [
    health_blp,
    api_keys_blp,
    jobs_blp,
    products_blp,
    offering_jobs_blp,
    offerings_blp,
    competitors_blp,
    deals_blp,
    organization_jobs_blp,
    organizations_blp,
    solutions_blp,
    knowledge_graph_blp,
    intel_blp,
    trees_blp,
    matrix_blp,
    battlecards_blp,
    search_blp,
    events_blp,
    subscriptions_blp,
    mutes_blp,
]
