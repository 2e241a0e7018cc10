"""The compact (int8) vector index, its recall against float32, and the search caches
and bounds of issue 16: cached document frequencies, the 2-character scan window."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from ci_service.embeddings.index import VectorIndex, quantise
from ci_service.services.intel import index as intel_index
from ci_service.services.intel import items as intel
from ci_service.services.search import intel_search
from ci_service.store.db import connection
from ci_service.store.intel import IntelEmbedding
from tests.intel_helpers import competitor, evidence

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "vector_recall.py"


def load_recall_script():
    spec = importlib.util.spec_from_file_location("vector_recall", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def unit_rows(matrix):
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def test_int8_recall_against_float32_on_static_embeddings():
    # What docs/intel.md quotes: 2,000 generated texts and 100 queries through the default
    # static provider; the top 10 of the int8 index against the exact float32 one.
    result = load_recall_script().measure(docs=2000, queries=100, k=10)
    assert result["queries"] >= 95
    assert result["recall"] >= 0.98
    assert result["max_score_error"] < 0.01
    assert result["int8_bytes"] * 3 < result["float32_bytes"]


def test_quantise_round_trips_within_half_a_step():
    rng = np.random.default_rng(4)
    matrix = unit_rows(rng.standard_normal((300, 64)).astype(np.float32))
    matrix[7] = 0.0  # a zero row keeps a zero scale
    values, scale = quantise(matrix)
    assert values.dtype == np.int8 and scale.dtype == np.float32 and scale[7] == 0
    back = values.astype(np.float32) * scale[:, None]
    assert np.all(np.abs(back - matrix) <= scale[:, None] / 2 + 1e-7)
    assert np.abs(values).max() == 127


def test_int8_index_scores_like_float32_through_writes():
    rng = np.random.default_rng(5)
    data = rng.standard_normal((3000, 32)).astype(np.float32)
    exact, compact = VectorIndex(32), VectorIndex(32, storage="int8", initial_capacity=1)
    for index in (exact, compact):
        for start in range(0, 3000, 700):  # grows
            index.upsert(range(start, min(3000, start + 700)), data[start : start + 700])
        index.remove(range(0, 3000, 3))  # moves rows (and their scales) into the holes
        index.upsert([1, 2], data[[10, 11]])  # replaces
    assert compact.storage == "int8" and sorted(compact.ids()) == sorted(exact.ids())
    for item_id in [1, 2, 4, 2999]:
        assert np.allclose(compact.get(item_id), exact.get(item_id), atol=0.01)
    for _ in range(10):
        q = rng.standard_normal(32).astype(np.float32)
        want, got = exact.search(q, 10), compact.search(q, 10)
        assert len({i for i, _ in want} & {i for i, _ in got}) >= 8
        approx = compact.scores(q, [i for i, _ in want])
        assert all(abs(approx[i] - s) < 0.01 for i, s in want)
        allowed = set(range(1, 3000, 7))
        filtered = compact.search(q, 5, filter_ids=allowed)
        assert filtered and all(i in allowed for i, _ in filtered)
    compact.remove(range(3000))  # shrinks the matrix and its scales together
    assert len(compact) == 0 and compact.capacity < 100
    compact.upsert(["a"], [[1.0] + [0.0] * 31])
    assert compact.search([1.0] + [0.0] * 31, 1)[0][0] == "a"


def test_int8_index_edge_cases():
    index = VectorIndex(3, storage="int8")
    index.upsert(["zero", "x"], [[0, 0, 0], [2, 0, 0]])
    assert np.allclose(index.get("zero"), 0) and np.allclose(index.get("x"), [1, 0, 0])
    assert [i for i, _ in index.search([1, 0, 0], 5)] == ["x", "zero"]
    assert index.scores([0, 0, 0], ["x"]) == {} and index.scores([1, 0, 0], ["nope"]) == {}
    assert index.nbytes == index.capacity * 3 + index.capacity * 4
    index.clear()
    assert len(index) == 0 and index.search([1, 0, 0], 1) == []
    with pytest.raises(ValueError):
        VectorIndex(3, storage="float16")


@pytest.fixture
def items(make_workspace):
    ws = make_workspace()
    rival = competitor(ws.id, "A", "https://a.example")
    texts = [
        "Zorblax announced a new analytics suite for retailers.",
        "The enterprise plan price increased by twenty percent this year.",
        "Single sign-on, audit logs and encryption at rest for customers.",
    ]
    rows = [
        evidence(ws.id, rival.id, f"https://x.example/{n}", text, title=f"Item {n}").item
        for n, text in enumerate(texts)
    ]
    return ws, rows


def test_intel_index_holds_the_stored_vectors_as_int8(items, monkeypatch):
    ws, rows = items
    monkeypatch.setattr(intel_index, "_LOAD_CHUNK", 2)  # several batches (pages on PG)
    with connection():
        intel_search.search_intel(ws.id, "analytics")
        stored = {
            e.item_id: intel_index.from_bytes(e.vector)
            for e in IntelEmbedding.select().where(IntelEmbedding.workspace == ws.id)
        }
    index = intel_index.registry().peek(ws.id)
    assert index.storage == "int8" and len(index) == len(rows) == len(stored)
    for item_id, vector in stored.items():
        assert np.allclose(index.get(item_id), vector / np.linalg.norm(vector), atol=0.01)


def test_document_frequencies_are_cached_until_the_items_change(items, monkeypatch):
    ws, rows = items
    counted = []
    real = intel_search._document_frequency
    monkeypatch.setattr(
        intel_search, "_document_frequency", lambda word: counted.append(word) or real(word)
    )
    with connection():
        intel_search.search_intel(ws.id, "quokka partnership")
        intel_search.search_intel(ws.id, "quokka partnership")
        assert counted.count("quokka") == 1  # the second search used the cache
        note = intel.create_note(ws.id, {"content": "Quokka partnership rumours"}, user_id=None)
        found = intel_search.search_intel(ws.id, "quokka partnership")
        assert counted.count("quokka") == 2 and found[0]["id"] == note.id
        intel.delete_intel(ws.id, note.id)  # max(seq) stays: this process's write counts
        intel_search.search_intel(ws.id, "quokka partnership")
        assert counted.count("quokka") == 3
        assert intel_search._document_frequency("quokka") == 0


def test_two_character_queries_scan_a_bounded_newest_window(items, monkeypatch):
    ws, rows = items
    with connection():
        # every item contains "an"/"AN" somewhere; the newest come first, at most the limit
        found = intel_search.substring_search_rows(ws.id, "aN", 20)
        assert [r[0] for r in found] == [r.id for r in reversed(rows)]
        assert found[0][1:] == (rows[-1].title, rows[-1].content)
        assert [r[0] for r in intel_search.substring_search_rows(ws.id, "an", 2)] == [
            rows[2].id,
            rows[1].id,
        ]
        monkeypatch.setattr(intel_search, "SHORT_SCAN_ROWS", 2)
        # "Zo" occurs only in the oldest item, outside a window of the newest two
        assert intel_search.substring_search_rows(ws.id, "zo", 20) == []
        assert [r[0] for r in intel_search.substring_search_rows(ws.id, "zor", 20)] == [rows[0].id]
        monkeypatch.setattr(intel_search, "SHORT_SCAN_ROWS", 3)
        assert [r[0] for r in intel_search.substring_search_rows(ws.id, "zo", 20)] == [rows[0].id]
