"""Search: ``/api/search`` across resources (``unified``), ``search_intel`` and the
intel substring search (``intel_search``), the search page (``page``), result windows
(``window``) and the full-text index upkeep the scheduler runs (``upkeep``). Inside:
``text`` (query parsing).
"""

__all__ = [
    "intel_search",
    "page",
    "unified",
    "upkeep",
    "window",
]
