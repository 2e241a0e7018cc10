"""The intel pipeline: reading a competitor's site into facts, on top of ``ci_service.intel``
(fetching, extraction). Nothing here stores a resource or imports a service: the jobs that
run it and store what it finds are ``ci_service.services.collection``.

- ``context``: settings and the guarded Fetcher for a job
- ``site``: crawl a site with its feeds and documents into a ``SiteSnapshot``
- ``evidence``: sentences, quotes and text-fragment links of stored evidence
- ``profile``, ``products``, ``pricing``, ``people``, ``news``, ``integrations``,
  ``capabilities``, ``taxonomy``, ``page_kinds``, ``language``: deterministic extraction
- ``page_kind_names``, ``money_format``: the kind names and money formatting that services
  outside the pipeline need, without loading the readers' patterns at start-up
- ``llm``, ``llm_facts``: the optional OpenAI-compatible provider with validation and fallback
"""
