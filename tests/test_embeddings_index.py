"""VectorIndex and IndexRegistry."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from ci_service.embeddings.index import IndexRegistry, VectorIndex


def unit(*values):
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def brute_force(ids, matrix, query, k):
    m = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    scores = m @ (query / np.linalg.norm(query))
    order = np.argsort(-scores, kind="stable")[:k]
    return [ids[i] for i in order], scores[order]


def test_add_search_and_scores():
    index = VectorIndex(3, model="m")
    index.add(["a", "b", "c"], [[1, 0, 0], [0, 2, 0], [1, 1, 0]])
    assert len(index) == 3 and "b" in index and index.model == "m"
    results = index.search([1, 0, 0], k=2)
    assert [i for i, _ in results] == ["a", "c"]
    assert results[0][1] == pytest.approx(1.0) and results[1][1] == pytest.approx(0.7071, abs=1e-4)
    assert np.allclose(index.get("b"), [0, 1, 0])  # stored normalised
    assert index.get("zzz") is None


def test_add_rejects_existing_ids_atomically():
    index = VectorIndex(2)
    index.add([1], [[1, 0]])
    with pytest.raises(KeyError):
        index.add([2, 1], [[0, 1], [0, 1]])
    assert len(index) == 1 and 2 not in index


def test_upsert_replaces():
    index = VectorIndex(2)
    index.upsert([1, 2], [[1, 0], [0, 1]])
    index.upsert([2, 3], [[1, 0.1], [-1, 0]])
    assert len(index) == 3
    assert [i for i, _ in index.search([1, 0], k=3)] == [1, 2, 3]


def test_remove_keeps_rows_consistent():
    rng = np.random.default_rng(1)
    data = rng.standard_normal((50, 4)).astype(np.float32)
    index = VectorIndex(4)
    index.upsert(range(50), data)
    assert index.remove([0, 10, 49, 999]) == 3
    assert len(index) == 47 and 10 not in index
    kept = [i for i in range(50) if i not in (0, 10, 49)]
    for i in kept:
        assert np.allclose(index.get(i), data[i] / np.linalg.norm(data[i]), atol=1e-6)
    q = rng.standard_normal(4).astype(np.float32)
    expected, _ = brute_force(kept, data[kept], q, 5)
    assert [i for i, _ in index.search(q, 5)] == expected


def test_search_matches_brute_force_on_random_data():
    rng = np.random.default_rng(0)
    data = rng.standard_normal((2000, 32)).astype(np.float32)
    index = VectorIndex(32, initial_capacity=1)
    for start in range(0, 2000, 300):  # exercises growth
        index.upsert(range(start, min(2000, start + 300)), data[start : start + 300])
    assert index.capacity >= 2000
    for _ in range(5):
        q = rng.standard_normal(32).astype(np.float32)
        got = index.search(q, 10)
        ids, scores = brute_force(list(range(2000)), data, q, 10)
        assert [i for i, _ in got] == ids
        assert np.allclose([s for _, s in got], scores, atol=1e-5)


def test_filters():
    index = VectorIndex(2)
    index.upsert(["a", "b", "c", "d"], [[1, 0], [0.9, 0.1], [0.5, 0.5], [0, 1]])
    q = [1, 0]
    assert [i for i, _ in index.search(q, 2, filter_ids={"c", "d", "nope"})] == ["c", "d"]
    assert [i for i, _ in index.search(q, 2, filter_ids=["d", "d"])] == ["d"]
    assert index.search(q, 2, filter_ids=set()) == []
    assert [i for i, _ in index.search(q, 2, filter_ids=lambda i: i in "bd")] == ["b", "d"]
    assert index.search(q, 3, filter_ids=lambda i: False) == []
    assert [i for i, _ in index.search(q, 10, min_score=0.5)] == ["a", "b", "c"]


def test_predicate_filter_scans_past_the_first_window():
    rng = np.random.default_rng(2)
    index = VectorIndex(8)
    data = rng.standard_normal((1000, 8)).astype(np.float32)
    index.upsert(range(1000), data)
    q = data[0]
    got = index.search(q, 3, filter_ids=lambda i: i % 97 == 5)
    allowed = [i for i in range(1000) if i % 97 == 5]
    expected, _ = brute_force(allowed, data[allowed], q, 3)
    assert [i for i, _ in got] == expected


def test_edge_cases():
    index = VectorIndex(3)
    assert index.search([1, 0, 0], 5) == []
    index.upsert([], np.zeros((0, 3)))
    index.upsert(["z", "x"], [[0, 0, 0], [1, 0, 0]])  # a zero vector is allowed
    assert index.search([0, 0, 0], 5) == []  # zero query
    assert index.search([1, 0, 0], 0) == []
    assert [i for i, _ in index.search([1, 0, 0], 5)] == ["x", "z"]
    with pytest.raises(ValueError):
        index.search([1, 0], 5)
    with pytest.raises(ValueError):
        index.upsert(["a"], [[1, 0]])
    with pytest.raises(ValueError):
        index.upsert(["a", "a"], [[1, 0, 0], [0, 1, 0]])
    with pytest.raises(ValueError):
        index.upsert(["a"], [[np.nan, 0, 0]])
    with pytest.raises(ValueError):
        VectorIndex(0)
    index.clear()
    assert len(index) == 0 and index.ids() == []


def test_capacity_grows_geometrically_and_shrinks():
    index = VectorIndex(4, initial_capacity=1)
    capacities = set()
    for i in range(1000):
        index.upsert([i], np.ones((1, 4)))
        capacities.add(index.capacity)
    assert len(capacities) < 20  # amortised growth, not one reallocation per insert
    index.remove(range(990))
    assert len(index) == 10 and index.capacity < 100
    assert sorted(index.ids()) == list(range(990, 1000))


def test_thread_safety():
    index = VectorIndex(16)
    rng = np.random.default_rng(3)
    data = rng.standard_normal((4000, 16)).astype(np.float32)
    errors = []

    def writer(offset):
        try:
            for start in range(offset, 4000, 400):
                index.upsert(range(start, start + 100), data[start : start + 100])
                index.remove(range(start, start + 50))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def reader():
        try:
            for _ in range(200):
                for item_id, score in index.search(data[0], 5):
                    assert -1.0001 <= score <= 1.0001
                    assert item_id in range(4000)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(o,)) for o in (0, 100, 200, 300)]
    threads += [threading.Thread(target=reader) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    expected = {
        i for o in (0, 100, 200, 300) for s in range(o, 4000, 400) for i in range(s + 50, s + 100)
    }
    assert set(index.ids()) == expected
    for i in list(expected)[:50]:
        assert np.allclose(index.get(i), data[i] / np.linalg.norm(data[i]), atol=1e-6)


def test_registry_per_workspace_with_loader():
    calls = []

    def loader(workspace_id):
        calls.append(workspace_id)
        if workspace_id == "empty":
            return None
        return ["d1", "d2"], np.array([[1, 0], [0, 1]], dtype=np.float32)

    registry = IndexRegistry(2, model="static-minilm-l6-v2-256", loader=loader)
    assert registry.peek("w1") is None
    results = []
    threads = [
        threading.Thread(target=lambda: results.append(registry.get("w1"))) for _ in range(5)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(i) for i in results}) == 1 and calls == ["w1"]
    w1 = registry.get("w1")
    assert len(w1) == 2 and w1.model == "static-minilm-l6-v2-256"
    assert len(registry.get("empty")) == 0
    assert set(registry.workspaces()) == {"w1", "empty"} and "w1" in registry and len(registry) == 2
    w1.upsert(["d3"], [[1, 1]])
    assert registry.get("w1") is w1 and len(w1) == 3
    assert registry.drop("w1") and not registry.drop("w1")
    assert len(registry.get("w1")) == 2  # reloaded
    registry.clear()
    assert len(registry) == 0


def test_registry_without_loader():
    registry = IndexRegistry(4)
    index = registry.get(1)
    assert isinstance(index, VectorIndex) and index.dimension == 4 and len(index) == 0
