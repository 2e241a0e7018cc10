"""Knowledge trees: per competitor, offering or organization, a tree of text nodes.

One ``KnowledgeTree`` row per entity. Its ``id`` is also its ``treeId``: stable for the
entity across rebuilds, while ``version`` counts the rebuilds. A rebuild replaces every
node (root → document → section → chunk). Node embeddings are float32 bytes made by the
model named in ``embedding_model``.
"""

from __future__ import annotations

from peewee import BlobField, CharField, ForeignKeyField, IntegerField, TextField

from ci_service.store.base import BaseModel, JSONField, UTCDateTimeField
from ci_service.store.identity import Workspace
from ci_service.timeutil import utcnow

ENTITY_TYPES = ("COMPETITOR", "OFFERING", "ORGANIZATION")


class KnowledgeTree(BaseModel):
    workspace = ForeignKeyField(Workspace, backref="knowledge_trees", on_delete="CASCADE")
    entity_type = CharField(max_length=20)
    entity_id = CharField(max_length=64)
    version = IntegerField(default=1)
    root_id = CharField(max_length=64, null=True)
    node_count = IntegerField(default=0)
    sources = JSONField(default=list)  # [{title, url, source}]
    embedding_model = CharField(max_length=200, null=True)
    embedding_dimension = IntegerField(null=True)
    created_at = UTCDateTimeField(default=utcnow)
    updated_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = ((("workspace", "entity_type", "entity_id"), True),)


class TreeNode(BaseModel):
    tree = ForeignKeyField(KnowledgeTree, backref="nodes", on_delete="CASCADE")
    position = IntegerField()  # breadth-first order within the tree; the root is 0
    text = TextField(default="")
    children = JSONField(default=list)
    metadata = JSONField(default=dict)
    embedding = BlobField(null=True)

    class Meta:
        indexes = ((("tree", "position"), False),)
