"""The knowledge graph: nodes and edges written in the caller's transaction (``nodes``),
kept in step with the resources (``sync``), and laid out for the graph page (``layout``).
"""

__all__ = [
    "layout",
    "nodes",
    "sync",
]
