"""Intel: evidence the pipelines collect and notes people add (``items``), their
credibility and change rules (``rules``), the in-memory vector index (``index``), the
knowledge trees (``trees``), the graph links of documents, people and news
(``graph_links``) and the text helpers search and the graph share (``text``).
"""

__all__ = [
    "graph_links",
    "index",
    "items",
    "text",
    "trees",
]
