"""search_intel (semantic + BM25 blend), substring search, the in-memory index, reindex."""

from __future__ import annotations

import pytest

from ci_service.errors import ValidationFailed
from ci_service.services.intel import index as intel_index
from ci_service.services.intel import items as intel
from ci_service.services.search import intel_search
from ci_service.store.db import connection, database
from ci_service.store.intel import IntelEmbedding, IntelItem
from ci_service.store.trees import TreeNode
from tests.intel_helpers import competitor, evidence

TEXTS = {
    "zorblax": ("Zorblax launch", "Zorblax announced a new analytics suite for retailers."),
    "pricing": ("Pricing", "The enterprise plan price increased by twenty percent this year."),
    "security": ("Security", "Single sign-on, audit logs and encryption at rest for customers."),
    "hiring": ("Careers", "We are hiring engineers in Berlin and Lisbon."),
}


@pytest.fixture
def seeded(make_workspace):
    ws = make_workspace()
    a = competitor(ws.id, "A", "https://a.example")
    b = competitor(ws.id, "B", "https://b.example")
    items = {}
    for n, (key, (title, text)) in enumerate(TEXTS.items()):
        owner = a if n % 2 == 0 else b
        items[key] = evidence(ws.id, owner.id, f"https://x.example/{key}", text, title=title).item
    return ws, a, b, items


def search(ws_id, query, **kw):
    with connection():
        return intel_search.search_intel(ws_id, query, **kw)


def test_exact_name_ranks_first(seeded):
    ws, _a, _b, items = seeded
    results = search(ws.id, "zorblax")
    assert results[0]["id"] == items["zorblax"].id
    assert results[0]["relevanceScore"] >= 0.5
    assert all(r["relevanceScore"] < 0.5 for r in results[1:])
    assert all(0 <= r["relevanceScore"] <= 1 for r in results)
    scores = [r["relevanceScore"] for r in results]
    assert scores == sorted(scores, reverse=True)
    assert {"id", "content", "metadata", "credibilityScore"} <= set(results[0])


def test_semantic_match_without_shared_words(seeded):
    ws, *_rest, items = seeded
    assert search(ws.id, "how much does it cost")[0]["id"] == items["pricing"].id
    assert search(ws.id, "job openings for developers")[0]["id"] == items["hiring"].id


def test_competitor_filter_and_limit(seeded):
    ws, a, b, items = seeded
    only_b = search(ws.id, "zorblax", competitor_id=b.id)
    assert only_b and {r["competitorId"] for r in only_b} == {b.id}
    assert search(ws.id, "zorblax", competitor_id="nobody") == []
    assert len(search(ws.id, "analytics", limit=1)) == 1


@pytest.mark.parametrize(
    "query, limit, field",
    [
        ("", 10, "query"),
        ("   ", 10, "query"),
        (None, 10, "query"),
        (5, 10, "query"),
        ("x", 0, "limit"),
        ("x", 101, "limit"),
        ("x", "5", "limit"),
        ("x", True, "limit"),
    ],
)
def test_search_validation(seeded, query, limit, field):
    ws = seeded[0]
    with pytest.raises(ValidationFailed) as info:
        search(ws.id, query, limit=limit)
    assert field in info.value.details["fields"]


@pytest.mark.parametrize(
    "query", ['"', '"unbalanced', "a*", "NEAR(a b)", "(x OR", "x AND -y", "^col:", "zo", "'; --"]
)
def test_fts_syntax_in_user_text_never_raises(seeded, query):
    ws = seeded[0]
    search(ws.id, query)
    with connection():
        intel_search.substring_search_intel(ws.id, query, 20)


def test_index_follows_writes(seeded):
    ws, a, _b, items = seeded
    search(ws.id, "zorblax")  # loads the index
    index = intel_index.registry().peek(ws.id)
    assert len(index) == 4
    with connection():
        note = intel.create_note(ws.id, {"content": "Quokka partnership rumours"}, user_id=None)
    assert note.id in index
    assert search(ws.id, "quokka")[0]["id"] == note.id
    with connection():
        intel.delete_intel(ws.id, note.id)
    assert note.id not in index and all(r["id"] != note.id for r in search(ws.id, "quokka"))


def test_rolled_back_write_does_not_reach_the_index(seeded):
    ws = seeded[0]
    search(ws.id, "zorblax")
    index = intel_index.registry().peek(ws.id)
    with pytest.raises(RuntimeError), connection():
        with database.atomic():
            intel.create_note(ws.id, {"content": "never committed"}, user_id=None)
            raise RuntimeError("boom")
    assert len(index) == 4


def test_stale_index_entries_are_skipped(seeded):
    ws, *_rest, items = seeded
    search(ws.id, "zorblax")
    with connection():  # behind the service's back: the index still has the vector
        IntelItem.delete().where(IntelItem.id == items["zorblax"].id).execute()
    assert all(r["id"] != items["zorblax"].id for r in search(ws.id, "zorblax"))
    assert items["zorblax"].id not in intel_index.registry().peek(ws.id)


def test_substring_search(seeded):
    ws, *_rest, items = seeded
    with connection():
        found = intel_search.substring_search_intel(ws.id, "ENTERPRISE PLAN", 20)
        assert [i.id for i in found] == [items["pricing"].id]
        assert [i.id for i in intel_search.substring_search_intel(ws.id, "sign-on", 20)] == [
            items["security"].id
        ]
        two = [i.id for i in intel_search.substring_search_intel(ws.id, "AU", 20)]  # audit, 2 chars
        assert items["security"].id in two
        assert (
            intel_search.substring_search_intel(ws.id, "Zorblax", 20)[0].title == "Zorblax launch"
        )
        assert (
            intel_search.substring_search_intel(ws.id, "launch", 20) == []
        )  # titles are not content
        assert intel_search.substring_search_intel(ws.id, "%", 20) == []
        assert intel_search.substring_search_intel(ws.id, "e", 20) == []
        newest_first = intel_search.substring_search_intel(ws.id, "an", 20)
        assert [i.seq for i in newest_first] == sorted((i.seq for i in newest_first), reverse=True)
        assert len(intel_search.substring_search_intel(ws.id, "an", 1)) == 1


def test_substring_search_is_workspace_scoped(seeded, make_workspace):
    ws2 = make_workspace()
    with connection():
        assert intel_search.substring_search_intel(ws2.id, "enterprise", 20) == []
        assert intel_search.substring_search_intel(ws2.id, "en", 20) == []


def test_reindex_after_model_change(seeded):
    from ci_service.services.intel import trees
    from ci_service.services.intel.trees import TreeDocument, TreeSection

    ws, a, _b, items = seeded
    with connection():
        trees.replace_tree(
            ws.id,
            "COMPETITOR",
            a.id,
            [TreeDocument("Doc", None, "UPLOAD", [TreeSection("H", "T")])],
        )
        assert intel_search.reindex_counts(ws.id)["intelItems"] == 0  # nothing stale
        IntelEmbedding.update(model="old-model").execute()
        TreeNode.update(embedding=None).execute()
        from ci_service.store.trees import KnowledgeTree

        KnowledgeTree.update(embedding_model="old-model").execute()
    intel_index.reset_index_cache()
    assert search(ws.id, "zorblax")[0]["relevanceScore"] >= 0.5  # FTS still finds it
    assert len(intel_index.registry().peek(ws.id)) == 0  # no vector of the current model
    with connection():
        counts = intel_search.reindex_counts(ws.id)
        assert counts["intelItems"] == 4 and counts["treeNodes"] == 4 and counts["trees"] == 1
        assert IntelEmbedding.select().where(IntelEmbedding.model == "old-model").count() == 0
        assert TreeNode.select().where(TreeNode.embedding.is_null()).count() == 0
        assert intel_search.reindex(ws.id) == 0
        assert intel_search.reindex(ws.id, force=True) == 8
    assert search(ws.id, "how much does it cost")[0]["id"] == items["pricing"].id


def test_cli_reindex(seeded, settings):
    import json

    from click.testing import CliRunner

    from ci_service.cli import cli

    result = CliRunner().invoke(
        cli, ["--database", settings.database, "reindex", "--all", "--rebuild-fts", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["intelItems"] == 4 and data["ftsRebuilt"] is True
    result = CliRunner().invoke(
        cli, ["--database", settings.database, "reindex", "--workspace", seeded[0].name]
    )
    assert result.exit_code == 0 and "Re-embedded 0 intel items" in result.output
    bad = CliRunner().invoke(cli, ["--database", settings.database, "reindex", "--workspace", "no"])
    assert bad.exit_code != 0


def test_write_committed_while_loading_reaches_the_index(seeded, monkeypatch):
    ws = seeded[0]
    original = intel_index._load
    written = []

    def load_then_write(*args):
        index = original(*args)  # the snapshot is taken; now a write commits mid-load
        with connection():
            written.append(intel.create_note(ws.id, {"content": "Axolotl"}, user_id=None))
        return index

    intel_index.reset_index_cache()
    monkeypatch.setattr(intel_index, "_load", load_then_write)
    with connection():
        index = intel_index.workspace_index(ws.id)
    assert written[0].id in index and len(index) == 5
