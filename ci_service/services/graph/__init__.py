"""The knowledge graph: nodes and edges written in the caller's transaction (``nodes``),
kept in step with the resources (``sync``), a new deal's nodes written after it, many
deals at a time (``projection``), and laid out for the graph page (``layout``).
"""

__all__ = [
    "layout",
    "nodes",
    "projection",
    "sync",
]
