"""The knowledge graph: labelled nodes and edges, scoped to a workspace.

A node's ``key`` (unique per workspace) names what it stands for, e.g. ``OFFERING:<id>``,
so repeated updates find the same node instead of adding another. Edges cascade with
their nodes: deleting a node never leaves an edge pointing at nothing.
"""

from __future__ import annotations

from peewee import CharField, ForeignKeyField

from ci_service.store.base import BaseModel, JSONField, UTCDateTimeField
from ci_service.store.identity import Workspace
from ci_service.timeutil import utcnow


class GraphNode(BaseModel):
    # No index of its own: (workspace, key) below leads with it (migration 0016).
    workspace = ForeignKeyField(Workspace, backref="graph_nodes", on_delete="CASCADE", index=False)
    key = CharField(max_length=300)
    label = CharField(max_length=40)
    name = CharField(max_length=2000)
    ref_type = CharField(max_length=40, null=True)  # what record owns it (for removal)
    ref_id = CharField(max_length=64, null=True)
    created_at = UTCDateTimeField(default=utcnow)
    # What the node says beyond its name, e.g. a PERSON's title, founder flag and the
    # evidence behind them ({title, founder, evidenceIds, quotes}); added by 0007.
    properties = JSONField(default=dict)

    class Meta:
        indexes = (
            (("workspace", "key"), True),
            (("workspace", "ref_type", "ref_id"), False),
        )


class GraphEdge(BaseModel):
    workspace = ForeignKeyField(Workspace, backref="graph_edges", on_delete="CASCADE")
    # No index of its own: (source, target, label) below leads with it (migration 0016).
    source = ForeignKeyField(GraphNode, backref="out_edges", on_delete="CASCADE", index=False)
    target = ForeignKeyField(GraphNode, backref="in_edges", on_delete="CASCADE", index=True)
    label = CharField(max_length=40)
    created_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = ((("source", "target", "label"), True),)
