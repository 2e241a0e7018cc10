"""Knowledge trees: per competitor, offering or organization, a tree of text nodes.

Shape: one root (the entity's name) → one node per document (its title, metadata
``{type: "document", title, url, source}``) → one node per section (its heading) → chunk
nodes holding the text, cut at sentence boundaries into pieces of about 800 characters.
Every node carries ``metadata.type`` (root, document, section, chunk) and, below the
root, the document's ``source`` and ``url``. Every node has an ``embedding`` made by the
current provider (one batch per rebuild).

``replace_tree`` rebuilds the whole tree in one transaction: the tree row (and so
``id``/``treeId``, which are the same value) stays, ``version`` goes up by one and every
node is new. The JSON of a tree carries ``rootId``, ``nodeCount`` and, for rendering,
``nodes`` without embeddings (fetch embeddings from the nodes endpoints).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ci_service.errors import NotFound
from ci_service.services.common import cleanup
from ci_service.services.common.fields import fail
from ci_service.services.intel import index as intel_index
from ci_service.store.competitors import Competitor
from ci_service.store.db import new_id, transaction
from ci_service.store.resources import Offering, Organization
from ci_service.store.trees import ENTITY_TYPES, KnowledgeTree, TreeNode
from ci_service.timeutil import iso, utcnow

CHUNK_CHARS = 800
MAX_NODES = 5000
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass
class TreeSection:
    heading: str
    text: str


@dataclass
class TreeDocument:
    title: str
    url: str | None = None
    source: str = "WEB_PAGE"  # WEB_PAGE, DOCUMENT, NEWS, UPLOAD, ...
    sections: list[TreeSection] = field(default_factory=list)


def chunk_text(text: str, size: int = CHUNK_CHARS) -> list[str]:
    """Pieces of about ``size`` characters, cut after a sentence where possible."""
    text = " ".join((text or "").split())
    if not text:
        return []
    chunks: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(text):
        while len(sentence) > size:  # one over-long sentence: cut at a space
            cut = sentence.rfind(" ", 0, size)
            cut = cut if cut > size // 2 else size
            if current:
                chunks.append(current)
                current = ""
            chunks.append(sentence[:cut].strip())
            sentence = sentence[cut:].strip()
        if current and len(current) + 1 + len(sentence) > size:
            chunks.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    if current:
        chunks.append(current)
    return [c for c in chunks if c]


def _entity_name(workspace_id: str, entity_type: str, entity_id: str) -> str:
    model = {"COMPETITOR": Competitor, "OFFERING": Offering, "ORGANIZATION": Organization}[
        entity_type
    ]
    row = model.get_or_none(model.id == entity_id, model.workspace == workspace_id)
    if row is None:
        raise NotFound.of(entity_type.capitalize())
    return row.name or entity_type.capitalize()


def _plan_nodes(root_text: str, documents: list[TreeDocument]) -> list[dict[str, Any]]:
    """Nodes in breadth-first order with ids, children and metadata (no embeddings)."""
    root = {"id": new_id(), "text": root_text, "children": [], "metadata": {"type": "root"}}
    levels: list[list[dict[str, Any]]] = [[root], [], [], []]
    for document in documents:
        base = {"source": document.source, "url": document.url}
        doc = {
            "id": new_id(),
            "text": document.title or document.url or "Untitled",
            "children": [],
            "metadata": {"type": "document", "title": document.title, **base},
        }
        root["children"].append(doc["id"])
        levels[1].append(doc)
        for section in document.sections:
            pieces = chunk_text(section.text)
            heading = (section.heading or "").strip()
            if not pieces and not heading:
                continue
            sec = {
                "id": new_id(),
                "text": heading or document.title or "Section",
                "children": [],
                "metadata": {"type": "section", "heading": heading, **base},
            }
            doc["children"].append(sec["id"])
            levels[2].append(sec)
            for number, piece in enumerate(pieces):
                chunk = {
                    "id": new_id(),
                    "text": piece,
                    "children": [],
                    "metadata": {"type": "chunk", "chunk": number, **base},
                }
                sec["children"].append(chunk["id"])
                levels[3].append(chunk)
    nodes = [node for level in levels for node in level]
    if len(nodes) > MAX_NODES:
        raise fail({"documents": [f"the tree would have more than {MAX_NODES} nodes"]})
    return nodes


def replace_tree(
    workspace_id: str,
    entity_type: str,
    entity_id: str,
    documents: list[TreeDocument],
    *,
    title: str | None = None,
) -> KnowledgeTree:
    """Build (or rebuild, version + 1) the entity's tree from ``documents``.

    ``entity_type``: COMPETITOR, OFFERING or ORGANIZATION; the entity must exist (404).
    ``title``: the root node's text (default: the entity's name). One transaction."""
    if entity_type not in ENTITY_TYPES:
        raise fail({"entityType": [f"must be one of {', '.join(ENTITY_TYPES)}"]})
    name = _entity_name(workspace_id, entity_type, entity_id)
    nodes = _plan_nodes(title or name, list(documents))
    provider = intel_index.provider()
    vectors = provider.embed([n["text"] for n in nodes])
    sources = [{"title": d.title, "url": d.url, "source": d.source} for d in documents]
    now = utcnow()
    with transaction():
        tree = KnowledgeTree.get_or_none(
            KnowledgeTree.workspace == workspace_id,
            KnowledgeTree.entity_type == entity_type,
            KnowledgeTree.entity_id == entity_id,
        )
        if tree is None:
            tree = KnowledgeTree(
                workspace=workspace_id,
                entity_type=entity_type,
                entity_id=entity_id,
                version=0,
                created_at=now,
            )
            tree.save(force_insert=True)
        else:
            TreeNode.delete().where(TreeNode.tree == tree.id).execute()
        rows = [
            {
                "id": node["id"],
                "tree": tree.id,
                "position": position,
                "text": node["text"],
                "children": node["children"],
                "metadata": node["metadata"],
                "embedding": intel_index.to_bytes(vector),
            }
            for position, (node, vector) in enumerate(zip(nodes, vectors, strict=True))
        ]
        for start in range(0, len(rows), 200):
            TreeNode.insert_many(rows[start : start + 200]).execute()
        tree.version += 1
        tree.root_id = nodes[0]["id"]
        tree.node_count = len(nodes)
        tree.sources = sources
        tree.embedding_model = provider.name
        tree.embedding_dimension = provider.dimension
        tree.updated_at = now
        tree.save()
    return tree


def find_tree(workspace_id: str, tree_id: str) -> KnowledgeTree | None:
    return KnowledgeTree.get_or_none(
        KnowledgeTree.id == tree_id, KnowledgeTree.workspace == workspace_id
    )


def get_tree(workspace_id: str, tree_id: str) -> KnowledgeTree:
    tree = find_tree(workspace_id, tree_id)
    if tree is None:
        raise NotFound.of("Tree")
    return tree


def tree_for_entity(workspace_id: str, entity_type: str, entity_id: str) -> KnowledgeTree:
    """The entity's tree; 404 when it has none."""
    tree = KnowledgeTree.get_or_none(
        KnowledgeTree.workspace == workspace_id,
        KnowledgeTree.entity_type == entity_type,
        KnowledgeTree.entity_id == entity_id,
    )
    if tree is None:
        raise NotFound.of("Tree")
    return tree


def tree_metadata(tree: KnowledgeTree) -> dict[str, Any]:
    """``{treeId, rootId, nodeCount, createdAt}`` (plus version and updatedAt)."""
    return {
        "treeId": tree.id,
        "rootId": tree.root_id,
        "nodeCount": tree.node_count,
        "createdAt": iso(tree.created_at),
        "version": tree.version,
        "updatedAt": iso(tree.updated_at),
    }


def delete_tree_for_entity(workspace_id: str, entity_type: str, entity_id: str) -> None:
    """Delete the entity's tree and its nodes; 404 when it has none."""
    with transaction():
        tree = tree_for_entity(workspace_id, entity_type, entity_id)
        TreeNode.delete().where(TreeNode.tree == tree.id).execute()
        tree.delete_instance()


def get_nodes(
    workspace_id: str,
    tree_id: str,
    ids: list[str] | None = None,
    exclude_embeddings: bool = False,
) -> list[dict[str, Any]]:
    """Nodes of the tree (all, in tree order, or those of ``ids`` that exist, in the order
    asked); 404 when the tree is not the workspace's."""
    tree = get_tree(workspace_id, tree_id)
    query = TreeNode.select().where(TreeNode.tree == tree.id)
    if ids is not None:
        wanted = list(dict.fromkeys(ids))[:1000]
        found = {n.id: n for n in query.where(TreeNode.id.in_(wanted))}
        rows = [found[i] for i in wanted if i in found]
    else:
        rows = list(query.order_by(TreeNode.position))
    return [node_to_dict(n, exclude_embeddings) for n in rows]


def node_to_dict(node: TreeNode, exclude_embeddings: bool = False) -> dict[str, Any]:
    data = {
        "id": node.id,
        "treeId": node.tree_id,
        "text": node.text,
        "children": node.children,
        "metadata": node.metadata,
    }
    if not exclude_embeddings:
        data["embedding"] = (
            [round(float(x), 6) for x in intel_index.from_bytes(node.embedding)]
            if node.embedding
            else []
        )
    return data


def tree_to_dict(tree: KnowledgeTree, *, include_nodes: bool = True) -> dict[str, Any]:
    data = {
        "id": tree.id,
        "treeId": tree.id,
        "workspaceId": tree.workspace_id,
        "entityType": tree.entity_type,
        "entityId": tree.entity_id,
        "version": tree.version,
        "rootId": tree.root_id,
        "nodeCount": tree.node_count,
        "sources": tree.sources,
        "createdAt": iso(tree.created_at),
        "updatedAt": iso(tree.updated_at),
    }
    if include_nodes:
        rows = TreeNode.select().where(TreeNode.tree == tree.id).order_by(TreeNode.position)
        data["nodes"] = [node_to_dict(n, True) for n in rows]
    return data


def _drop_trees(workspace_id: str, entity_type: str, entity_id: str) -> None:
    for tree in KnowledgeTree.select().where(
        KnowledgeTree.workspace == workspace_id,
        KnowledgeTree.entity_type == entity_type,
        KnowledgeTree.entity_id == entity_id,
    ):
        TreeNode.delete().where(TreeNode.tree == tree.id).execute()
        tree.delete_instance()


@cleanup.on_delete("competitor")
def _competitor_deleted(workspace_id: str, competitor_id: str) -> None:
    _drop_trees(workspace_id, "COMPETITOR", competitor_id)


@cleanup.on_delete("offering")
def _offering_deleted(workspace_id: str, offering_id: str) -> None:
    _drop_trees(workspace_id, "OFFERING", offering_id)
