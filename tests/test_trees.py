"""Knowledge trees: building, versions, the spec endpoints and their errors."""

from __future__ import annotations

import pytest

from ci_service.errors import NotFound
from ci_service.services.intel import trees
from ci_service.services.intel.trees import TreeDocument, TreeSection, chunk_text
from ci_service.store.db import connection
from ci_service.store.trees import KnowledgeTree, TreeNode
from ci_service.web.routes.trees import (
    NodesResponseSchema,
    TreeMetadataResponseSchema,
    TreeResponseSchema,
)
from tests.resource_helpers import error, make_competitor, make_offering, ok

LONG = " ".join(f"Sentence number {i} explains one feature of the product." for i in range(40))

DOCS = [
    TreeDocument(
        title="Datasheet",
        url="https://acme.example/datasheet.pdf",
        source="DOCUMENT",
        sections=[TreeSection("Overview", "Short overview."), TreeSection("Details", LONG)],
    ),
    TreeDocument(
        title="Home",
        url="https://acme.example/",
        source="WEB_PAGE",
        sections=[TreeSection("", "Welcome to Acme.")],
    ),
]


def valid(schema, body):
    assert schema().validate(body) == {}, schema().validate(body)
    return body


def build(workspace_id, entity_type, entity_id, docs=DOCS):
    with connection():
        return trees.replace_tree(workspace_id, entity_type, entity_id, docs)


def test_chunking_on_sentences():
    chunks = chunk_text(LONG)
    assert len(chunks) > 1 and all(len(c) <= 800 for c in chunks)
    assert all(c.endswith(".") for c in chunks)
    assert " ".join(chunks) == LONG
    assert chunk_text("x" * 2000) == ["x" * 800, "x" * 800, "x" * 400]
    assert chunk_text("  ") == []


def test_build_and_rebuild(api):
    offering = make_offering(api)
    tree = build(api.workspace_id, "OFFERING", offering["id"])
    assert tree.version == 1
    with connection():
        nodes = trees.get_nodes(api.workspace_id, tree.id)
    root = nodes[0]
    assert root["id"] == tree.root_id and root["text"] == "Suite"
    assert len(root["children"]) == 2 and tree.node_count == len(nodes)
    kinds = [n["metadata"]["type"] for n in nodes]
    assert kinds.count("document") == 2 and kinds.count("section") == 3
    assert kinds.count("chunk") >= 4
    doc = next(n for n in nodes if n["id"] == root["children"][0])
    assert doc["metadata"]["url"] == "https://acme.example/datasheet.pdf"
    assert doc["metadata"]["source"] == "DOCUMENT"
    assert all(len(n["embedding"]) == 256 for n in nodes)
    by_id = {n["id"]: n for n in nodes}
    assert all(child in by_id for n in nodes for child in n["children"])

    again = build(api.workspace_id, "OFFERING", offering["id"], DOCS[:1])
    assert again.id == tree.id and again.version == 2
    with connection():
        assert TreeNode.select().count() == again.node_count
        assert KnowledgeTree.select().count() == 1
        assert TreeNode.get_or_none(TreeNode.id == root["id"]) is None


def test_entity_must_exist(api, make_api):
    other = make_api()
    offering = make_offering(other)
    with pytest.raises(NotFound):
        build(api.workspace_id, "OFFERING", offering["id"])
    with pytest.raises(NotFound):
        build(api.workspace_id, "COMPETITOR", "nope")


def test_offering_endpoints(api, make_api):
    offering = make_offering(api)
    path = f"/api/offerings/{offering['id']}"
    error(api.get(f"{path}/knowledge-tree"), 404, "NOT_FOUND")
    error(api.get(f"{path}/tree-metadata"), 404, "NOT_FOUND")
    error(api.delete(f"{path}/tree"), 404, "NOT_FOUND")
    tree = build(api.workspace_id, "OFFERING", offering["id"])

    body = valid(TreeResponseSchema, ok(api.get(f"{path}/knowledge-tree")))["tree"]
    assert body["id"] == body["treeId"] == tree.id
    assert body["entityType"] == "OFFERING" and body["entityId"] == offering["id"]
    assert body["rootId"] == tree.root_id and body["nodeCount"] == len(body["nodes"])
    assert body["sources"][0] == {
        "title": "Datasheet",
        "url": "https://acme.example/datasheet.pdf",
        "source": "DOCUMENT",
    }
    assert all("embedding" not in n for n in body["nodes"])
    meta = valid(TreeMetadataResponseSchema, ok(api.get(f"{path}/tree-metadata")))["metadata"]
    assert meta["treeId"] == tree.id and meta["nodeCount"] == tree.node_count
    assert meta["rootId"] == tree.root_id and meta["version"] == 1

    valid(TreeResponseSchema, ok(api.get(f"/api/knowledge-trees/{tree.id}")))
    nodes = valid(NodesResponseSchema, ok(api.get(f"/api/trees/{tree.id}/nodes")))["nodes"]
    assert len(nodes) == tree.node_count and all(len(n["embedding"]) == 256 for n in nodes)
    for flag in ("true", "1", "TRUE"):
        bare = ok(api.get(f"/api/trees/{tree.id}/nodes?excludeEmbeddings={flag}"))["nodes"]
        assert all("embedding" not in n for n in bare)
    with_emb = ok(api.get(f"/api/trees/{tree.id}/nodes?excludeEmbeddings=0"))["nodes"]
    assert all("embedding" in n for n in with_emb)

    other = make_api()
    error(other.get(f"{path}/knowledge-tree"), 404, "NOT_FOUND")
    error(other.get(f"/api/knowledge-trees/{tree.id}"), 404, "NOT_FOUND")
    error(other.get(f"/api/trees/{tree.id}/nodes"), 404, "NOT_FOUND")
    error(other.delete(f"{path}/tree"), 404, "NOT_FOUND")

    assert ok(api.delete(f"{path}/tree")) == {"success": True}
    error(api.get(f"{path}/knowledge-tree"), 404, "NOT_FOUND")
    error(api.get(f"/api/knowledge-trees/{tree.id}"), 404, "NOT_FOUND")
    with connection():
        assert TreeNode.select().count() == 0


def test_nodes_endpoint(api):
    offering = make_offering(api)
    tree = build(api.workspace_id, "OFFERING", offering["id"])
    with connection():
        all_nodes = trees.get_nodes(api.workspace_id, tree.id, exclude_embeddings=True)
    wanted = [all_nodes[3]["id"], all_nodes[0]["id"], "missing"]
    body = valid(
        NodesResponseSchema,
        ok(api.get(f"/api/nodes?ids={','.join(wanted)}&treeId={tree.id}&excludeEmbeddings=false")),
    )
    assert [n["id"] for n in body["nodes"]] == wanted[:2]
    assert all(len(n["embedding"]) == 256 and n["treeId"] == tree.id for n in body["nodes"])
    bare = ok(api.get(f"/api/nodes?ids={wanted[0]}&treeId={tree.id}&excludeEmbeddings=true"))
    assert "embedding" not in bare["nodes"][0]
    error(api.get(f"/api/nodes?ids={wanted[0]}&treeId=nope"), 404, "NOT_FOUND")


@pytest.mark.parametrize(
    "query, fields",
    [
        ("", {"ids", "treeId"}),
        ("ids=a", {"treeId"}),
        ("treeId=t", {"ids"}),
        ("ids=,,&treeId=t", {"ids"}),
        ("ids=a&treeId=t&excludeEmbeddings=maybe", {"excludeEmbeddings"}),
    ],
)
def test_nodes_endpoint_errors(api, query, fields):
    err = error(api.get(f"/api/nodes?{query}"), 400, "VALIDATION_ERROR")
    assert set(err["details"]["fields"]) == fields
    if fields & {"ids", "treeId"} and query != "ids=,,&treeId=t":
        assert "missing required parameter" in err["message"]


def test_bad_exclude_flag_on_tree_nodes(api):
    error(api.get("/api/trees/x/nodes?excludeEmbeddings=yes"), 400, "VALIDATION_ERROR")


def test_organization_endpoints(api):
    error(api.get("/api/organizations/tree"), 404, "NOT_FOUND")
    org = ok(api.patch("/api/organizations", json={"name": "Us"}))["organization"]
    # the static segment wins over /api/organizations/<id>
    error(api.get("/api/organizations/tree"), 404, "NOT_FOUND")
    assert ok(api.get(f"/api/organizations/{org['id']}"))["organization"]["name"] == "Us"
    error(api.get(f"/api/organizations/{org['id']}/tree-metadata"), 404, "NOT_FOUND")
    tree = build(api.workspace_id, "ORGANIZATION", org["id"])
    body = valid(TreeResponseSchema, ok(api.get("/api/organizations/tree")))["tree"]
    assert body["treeId"] == tree.id and body["entityType"] == "ORGANIZATION"
    assert body["nodes"][0]["text"] == "Us"
    meta = ok(api.get(f"/api/organizations/{org['id']}/tree-metadata"))["metadata"]
    valid(TreeMetadataResponseSchema, {"metadata": meta})
    assert meta["treeId"] == tree.id
    error(api.get("/api/organizations/other/tree-metadata"), 404, "NOT_FOUND")


def test_deleting_the_entity_deletes_its_tree(api):
    offering = make_offering(api)
    rival = make_competitor(api)["competitor"]
    build(api.workspace_id, "OFFERING", offering["id"])
    build(api.workspace_id, "COMPETITOR", rival["id"])
    ok(api.delete(f"/api/offerings/{offering['id']}"))
    ok(api.delete(f"/api/competitors/{rival['id']}"))
    with connection():
        assert KnowledgeTree.select().count() == 0 and TreeNode.select().count() == 0
