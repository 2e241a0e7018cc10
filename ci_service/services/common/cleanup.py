"""What hangs off a record goes with it: delete hooks run inside the delete transaction.

Modules that keep rows pointing at offerings, competitors, deals or solutions (matrix cells,
battlecards, ...) register a hook here instead of being imported by the deleting service::

    @on_delete("competitor")
    def _drop_cells(workspace_id, competitor_id): ...

Kinds: ``offering`` (products included), ``competitor``, ``deal``, ``solution``.
"""

from __future__ import annotations

from collections.abc import Callable

Hook = Callable[[str, str], None]
_HOOKS: dict[str, list[Hook]] = {}


def on_delete(kind: str) -> Callable[[Hook], Hook]:
    def register(fn: Hook) -> Hook:
        hooks = _HOOKS.setdefault(kind, [])
        if fn not in hooks:
            hooks.append(fn)
        return fn

    return register


def run(kind: str, workspace_id: str, record_id: str) -> None:
    for hook in list(_HOOKS.get(kind, ())):
        hook(workspace_id, record_id)
