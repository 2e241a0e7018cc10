"""Collection: the steps of the collect, discovery, offering and organization jobs.

The pipeline (``ci_service.pipeline``) reads pages into facts; these modules store them
through the resource services, with their evidence and change events.

Public modules: ``start`` (queue an analysis or a refresh), ``handlers`` (the job types and
step handlers, registered when ``ci_service.services`` loads). Inside: ``competitor_jobs``,
``offering_jobs``, ``organization_jobs`` (the steps), ``ingest`` (evidence, trees, graph
nodes from a snapshot), ``facts`` (profile, products, pricing of a competitor),
``product_store``, ``pricing_store``, ``capability_store`` (saving).
"""

__all__ = ["handlers", "start"]
