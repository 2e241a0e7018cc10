"""What every domain shares: input schemas and checks (``fields``), the delete hooks
that take what hangs off a deleted record with it (``cleanup``), and reading one record of
a workspace with its 404 (``records``).
"""

__all__ = [
    "cleanup",
    "fields",
    "records",
]
