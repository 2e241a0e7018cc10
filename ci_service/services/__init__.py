"""Services hold the rules. REST routes, pages, tools and the CLI call these and only
translate. One package per domain:

- ``workspace``: workspaces, competitors, our offerings and products, organizations,
  solutions, deals, the overview pages read, job views
- ``collection``: the intel jobs' steps: what the pipeline reads, stored as evidence, facts,
  products, pricing and change events
- ``intel``: intel items (evidence and notes), their vector index and knowledge trees
- ``search``: /api/search, search_intel and the full-text index upkeep
- ``graph``: the knowledge graph's nodes, edges and layout
- ``analysis``: the feature matrix, solution matrix and the claims they score
- ``battlecards``: battlecards, hand edits, exports and the generate job
- ``alerts``: the change feed, subscriptions, mutes and delivery
- ``identity``: API keys, users, team roles, OAuth clients and tokens, rate limits
- ``common``: input fields, delete hooks and one-record lookups every domain shares

Each package's ``__init__`` names the modules other layers may import (``__all__``).

Loading this package wires the services into the layers below them, which never import
a service: the job types and step handlers, the scheduler's periodic work, the
``job.failed`` event, the fan-out of every emitted event to the subscriptions, and the
graph reads' catch-up with the deals whose nodes are still to be written.
"""

from ci_service.jobs import lifecycle, registry, scheduler
from ci_service.services.alerts import changes, delivery, delivery_jobs, digest, events
from ci_service.services.battlecards import jobs as battlecard_jobs
from ci_service.services.collection import handlers as collection_handlers
from ci_service.services.graph import nodes as graph_nodes
from ci_service.services.graph import projection as graph_projection
from ci_service.services.search import upkeep

events.on_emit(delivery.fan_out)
graph_nodes.before_read(graph_projection.catch_up)  # deals' nodes written after them
lifecycle.on_job_failed(changes.job_failed)
scheduler.provide("delivery", delivery.wake)
scheduler.provide("digest", digest.enqueue_due_digests)
scheduler.provide("upkeep", upkeep.optimize_indexes)
registry.mark_wired()  # job workers refuse to start until this has run (jobs/background.py)

# Registered when imported: the delivery, battlecard and collection job types and steps.
__all__ = ["battlecard_jobs", "collection_handlers", "delivery_jobs"]
