"""What every domain shares: input schemas and checks (``fields``) and the delete hooks
that take what hangs off a deleted record with it (``cleanup``).
"""

__all__ = [
    "cleanup",
    "fields",
]
