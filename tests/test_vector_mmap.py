"""The memory-mapped vector index of issue 31: shared files, incremental appends, a build
in the background that does not hold up searches, and its results against exact search."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from ci_service.embeddings import mapped, mapped_build
from ci_service.embeddings.mapped import MappedVectorIndex
from ci_service.embeddings.mapped_build import build
from ci_service.services.intel import index as intel_index
from ci_service.services.intel import items as intel
from ci_service.services.search import intel_search
from ci_service.store.db import connection
from tests.intel_helpers import competitor, evidence
from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parent.parent


def unit(matrix):
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def clustered(n: int, d: int = 64, clusters: int = 50, seed: int = 3):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(clusters, d))
    return (centres[rng.integers(0, clusters, n)] + 0.6 * rng.normal(size=(n, d))).astype(
        np.float32
    )


def batches(matrix, size=500, first=1):
    for start in range(0, len(matrix), size):
        keys = list(range(first + start, first + min(len(matrix), start + size)))
        yield keys, [f"id{k:030d}" for k in keys], matrix[start : start + size]


def test_two_instances_share_the_files(tmp_path):
    matrix = clustered(300, d=16)
    a = build(tmp_path / "ix", 16, batches(matrix), model="m", stamp=5)
    b = MappedVectorIndex(tmp_path / "ix", 16, model="m")
    assert len(a) == len(b) == 300 and isinstance(b._vec, np.memmap)
    assert b.read_meta()["stamp"] == 5
    a.upsert([301], matrix[:1] * 2, ["id-new"])  # appended by one ...
    assert 301 in b and "id-new" in b  # ... seen by the other
    assert np.allclose(b.get(301), unit(matrix[:1])[0], atol=0.01)
    a.remove([7])
    assert 7 not in b and len(b) == 300
    assert all(key != 7 for key, _ in b.search(matrix[6], 5))
    a.upsert([7], matrix[6:7], ["id7"])  # an upsert revives a removed key in place
    assert b.search(matrix[6], 1)[0][0] == 7 and len(b) == 301
    assert b._n == 301  # in place: no new row


def test_another_process_sees_appends(tmp_path):
    matrix = clustered(100, d=16)
    build(tmp_path / "ix", 16, batches(matrix), model="m", stamp=0)
    script = (
        "import numpy as np, sys\n"
        "from ci_service.embeddings.mapped import MappedVectorIndex\n"
        f"ix = MappedVectorIndex({str(tmp_path / 'ix')!r}, 16, model='m')\n"
        "ix.upsert([500, 501], np.eye(16, dtype=np.float32)[:2], ['p500', 'p501'])\n"
        "print(len(ix))\n"
    )
    reader = MappedVectorIndex(tmp_path / "ix", 16, model="m")
    assert len(reader) == 100
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "102"
    assert len(reader) == 102 and reader.search(np.eye(16)[1], 1)[0][0] == 501


def test_incremental_appends_keep_lookups_right(tmp_path):
    ix = MappedVectorIndex(tmp_path / "ix", 8, model="m")
    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(40, 8)).astype(np.float32)
    for start in range(0, 30, 3):  # in order: the rows stay sorted
        keys = list(range(start + 10, start + 13))
        ix.upsert(keys, vectors[start : start + 3], [f"k{k}" for k in keys])
    assert ix.read_meta()["sorted"] == 30 == len(ix)
    ix.upsert([5, 2], vectors[30:32], ["k5", "k2"])  # older keys: an unsorted tail
    assert ix.read_meta()["sorted"] == 30 and len(ix) == 32
    for key, row in [(5, 30), (2, 31), (10, 0), (39, 29)]:
        assert np.allclose(ix.get(key), unit(vectors[row : row + 1])[0], atol=0.02)
    assert ix.scores(vectors[31], [2, 5, 999]).keys() == {2, 5}
    assert ix.search(vectors[31], 1)[0][0] == 2


def test_coarse_search_against_exact(tmp_path, monkeypatch):
    monkeypatch.setattr(mapped, "EXACT_ROWS", 1000)
    monkeypatch.setattr(mapped, "RERANK_MIN", 300)
    matrix = clustered(6000, d=64)
    ix = build(tmp_path / "ix", 64, batches(matrix, 1000), model="m", stamp=0)
    normed = unit(matrix)
    rng = np.random.default_rng(9)
    recalls = []
    for q in matrix[rng.integers(0, 6000, 30)] + 0.3 * rng.normal(size=(30, 64)):
        exact = {int(k) + 1 for k in np.argsort(-(normed @ (q / np.linalg.norm(q))))[:10]}
        found = ix.search(q, 10)
        assert [s for _, s in found] == sorted((s for _, s in found), reverse=True)
        recalls.append(len(exact & {k for k, _ in found}) / 10)
    assert np.mean(recalls) >= 0.9
    # A filter scores exactly the allowed rows.
    allowed = set(range(100, 200))
    assert {k for k, _ in ix.search(matrix[150], 5, filter_ids=allowed)} <= allowed


@pytest.fixture
def workspace_items(make_workspace):
    ws = make_workspace()
    rival = competitor(ws.id, "A", "https://a.example")
    texts = [
        "Zorblax announced a new analytics suite for retailers.",
        "The enterprise plan price increased by twenty percent this year.",
        "Single sign-on, audit logs and encryption at rest for customers.",
    ]
    rows = [
        evidence(ws.id, rival.id, f"https://a.example/{n}", text, title=f"Item {n}").item
        for n, text in enumerate(texts)
    ]
    return ws, rows


def test_the_files_are_reused_not_rebuilt(workspace_items, monkeypatch):
    ws, rows = workspace_items
    with connection():
        intel_search.search_intel(ws.id, "analytics")
    path = intel_index.registry().peek(ws.id).path
    assert (path / "meta.json").exists()
    intel_index.reset_index_cache()  # as a new process would
    monkeypatch.setattr(mapped_build, "build", lambda *a, **k: pytest.fail("rebuilt"))
    with connection():
        found = intel_search.search_intel(ws.id, "price increase")
        note = intel.create_note(ws.id, {"content": "Quokka pricing rumours"}, user_id=None)
    assert found[0]["id"] == rows[1].id
    index = intel_index.registry().peek(ws.id)
    assert index.path == path and len(index) == 4 and note.seq in index


def test_files_of_another_database_are_rebuilt(workspace_items):
    import json

    ws, rows = workspace_items
    with connection():
        intel_search.search_intel(ws.id, "analytics")
    index = intel_index.registry().peek(ws.id)
    meta_file = index.path / "meta.json"
    meta = json.loads(meta_file.read_text())
    assert [rows[0].seq, rows[0].id] in meta["checks"]
    # As after a restore: the files say another item holds that seq.
    meta["checks"] = [[seq, "other" + item_id] for seq, item_id in meta["checks"]]
    meta_file.write_text(json.dumps(meta))
    intel_index.reset_index_cache()
    with connection():
        assert not intel_index._usable(index)
        assert intel_search.search_intel(ws.id, "price increase")[0]["id"] == rows[1].id
    assert [rows[0].seq, rows[0].id] in json.loads(meta_file.read_text())["checks"]


def test_a_large_build_runs_in_the_background(workspace_items, monkeypatch):
    ws, rows = workspace_items
    intel_index.reset_index_cache()
    monkeypatch.setattr(intel_index, "INLINE_BUILD", 1)
    release = threading.Event()
    real = intel_index._build

    def slow_build(*args):
        assert release.wait(30)
        return real(*args)

    monkeypatch.setattr(intel_index, "_build", slow_build)
    started = time.perf_counter()
    with connection():
        lexical = intel_search.search_intel(ws.id, "zorblax")  # answered while it builds
        note = intel.create_note(ws.id, {"content": "Wombat storage"}, user_id=None)
    assert time.perf_counter() - started < 10
    assert lexical[0]["id"] == rows[0].id
    assert intel_index.registry().peek(ws.id) is None and ws.id in intel_index.registry().building
    release.set()
    wait_for(lambda: intel_index.registry().peek(ws.id) is not None, timeout=30)
    index = intel_index.registry().peek(ws.id)
    assert len(index) == 4 and note.seq in index  # the write made meanwhile is in
    with connection():
        assert intel_search.search_intel(ws.id, "wombat storage")[0]["id"] == note.id


def test_the_vector_dir_setting_places_the_files(workspace_items, monkeypatch, tmp_path):
    ws, _rows = workspace_items
    monkeypatch.setenv("CI_SERVICE_VECTOR_DIR", str(tmp_path / "vectors"))
    intel_index.reset_index_cache()
    with connection():
        assert intel_search.search_intel(ws.id, "analytics")
    path = intel_index.registry().peek(ws.id).path
    assert path.parent.parent == tmp_path / "vectors"  # <dir>/<database>/<index>
    assert (path / "meta.json").exists()
    intel_index.reset_index_cache()
