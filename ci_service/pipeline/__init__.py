"""The intel pipeline (issue 5): what the collect, discovery, offering and organization
jobs do, on top of ``ci_service.intel`` (fetching, extraction) and the intel, tree and
graph services.

- ``handlers``: job type registrations and step handlers (imported by ``ci_service.jobs``)
- ``context``: settings and the guarded Fetcher for a job
- ``site``: crawl a site with its feeds and documents into a ``SiteSnapshot``
- ``ingest``: evidence items, knowledge tree and graph nodes from a snapshot
- ``profile``, ``products``, ``capabilities``, ``taxonomy``: deterministic extraction
- ``llm``: the optional OpenAI-compatible provider with validation and fallback
- ``competitor_jobs``, ``organization``, ``offering_jobs``: the step handlers

Only ``handlers`` is imported with the package; the rest loads when a step runs.
"""

from ci_service.pipeline import handlers as handlers
