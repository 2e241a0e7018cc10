"""The default static embedding provider and its shipped model file."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
import zipfile

import numpy as np
import pytest

from ci_service.embeddings.base import EmbeddingError
from ci_service.embeddings.static import (
    DEFAULT_MODEL_PATH,
    SOURCE_SHA256,
    StaticEmbeddingProvider,
    load_static_model,
)

EXPECTED_SOURCE_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"


@pytest.fixture(scope="module")
def provider():
    return StaticEmbeddingProvider()


def cos(a, b):
    return float(np.dot(a, b))


# -- the shipped file ----------------------------------------------------------------------


def test_shipped_file_metadata():
    vectors, vocab, meta = load_static_model(DEFAULT_MODEL_PATH)
    assert meta["source_model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert meta["source_sha256"] == EXPECTED_SOURCE_SHA256 == SOURCE_SHA256
    assert meta["dimension"] == 256 == vectors.shape[1]
    assert meta["vocab_size"] == len(vocab) == vectors.shape[0]
    assert meta["name"] == "static-minilm-l6-v2-256"
    assert meta["pca"]["components"] == 256
    assert meta["script"] == "scripts/distill_static_embeddings.py"
    assert vectors.dtype == np.float16
    assert np.isfinite(vectors).all()
    assert hashlib.sha256(vectors.tobytes()).hexdigest() == meta["vectors_sha256"]
    assert "[UNK]" in vocab and not any(t.startswith("[unused") for t in vocab)


def test_shipped_file_is_plain_npz_without_pickles():
    with zipfile.ZipFile(DEFAULT_MODEL_PATH) as archive:
        assert sorted(archive.namelist()) == ["metadata.npy", "vectors.npy", "vocab.npy"]
    with np.load(DEFAULT_MODEL_PATH, allow_pickle=False) as archive:
        json.loads(archive["metadata"].tobytes())
    assert 10e6 < DEFAULT_MODEL_PATH.stat().st_size < 20e6


def test_loads_quickly():
    started = time.perf_counter()
    StaticEmbeddingProvider()
    assert time.perf_counter() - started < 2.0  # ~0.05-0.15 s; generous for busy CI hosts


def test_bad_model_file(tmp_path):
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a zip")
    with pytest.raises(EmbeddingError):
        StaticEmbeddingProvider(broken)
    with pytest.raises(EmbeddingError):
        StaticEmbeddingProvider(tmp_path / "missing.npz")


# -- the embedding contract ----------------------------------------------------------------


def test_shape_dtype_and_normalisation(provider):
    out = provider.embed(["pricing plans", "Our office is in Berlin.", "a"])
    assert out.shape == (3, 256) and out.dtype == np.float32 and out.flags.c_contiguous
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    assert provider.name == "static-minilm-l6-v2-256" and provider.dimension == 256


def test_empty_and_unknown_only_texts_give_zero_vectors(provider):
    out = provider.embed(["", "   \n\t", "🚀🔥", "real words"])
    assert not out[0].any() and not out[1].any() and not out[2].any()
    assert out[3].any()
    assert provider.embed([]).shape == (0, 256)


def test_deterministic_and_batch_independent(provider):
    texts = ["competitor raised prices", "new product launch", "", "hiring in Berlin"]
    batch = provider.embed(texts)
    again = provider.embed(texts)
    single = np.stack([provider.embed_query(t) for t in texts])
    assert np.array_equal(batch, again)
    assert np.allclose(batch, single, atol=1e-6)


def test_embed_query_is_one_vector(provider):
    vector = provider.embed_query("pricing")
    assert vector.shape == (256,) and vector.dtype == np.float32


def test_rejects_a_bare_string(provider):
    with pytest.raises(TypeError):
        provider.embed("not a list")
    with pytest.raises(TypeError):
        provider.embed([b"bytes"])


def test_max_tokens_truncates():
    short = StaticEmbeddingProvider(max_tokens=2)
    assert np.allclose(
        short.embed_query("pricing plans and many other words"),
        short.embed_query("pricing plans"),
        atol=1e-6,
    )
    whole = StaticEmbeddingProvider(max_tokens=None)
    assert not np.allclose(
        whole.embed_query("pricing plans and many other words"), whole.embed_query("pricing plans")
    )


# -- semantics -----------------------------------------------------------------------------


def test_similar_meaning_scores_higher(provider):
    a, b, c = provider.embed(
        ["pricing plans and costs", "how much does it cost per month", "our office is in Berlin"]
    )
    assert cos(a, b) > cos(a, c) + 0.1
    x, y, z = provider.embed(
        ["the company laid off staff", "job cuts and layoffs", "new dark mode in the mobile app"]
    )
    assert cos(x, y) > cos(x, z)


DOCUMENTS = [
    "Pricing starts at $49 per user per month, billed annually.",
    "Acme raised a $120 million Series C led by Sequoia.",
    "The company opened a new engineering office in Berlin.",
    "Customers report frequent outages and slow support.",
    "The CEO stepped down; the CFO becomes interim chief executive.",
    "The platform is SOC 2 Type II certified and GDPR compliant.",
    "The mobile app now supports offline mode on iOS and Android.",
    "Revenue grew 35% year over year to $410 million.",
    "Layoffs affected roughly 10% of staff in sales.",
    "A patent lawsuit alleges the search feature infringes three patents.",
]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("how much does it cost per month", 0),
        ("where are they hiring engineers", 2),
        ("reliability problems and downtime", 3),
        ("leadership change", 4),
        ("security certification", 5),
        ("annual revenue growth", 7),
        ("job cuts", 8),
        ("legal dispute over intellectual property", 9),
    ],
)
def test_small_retrieval(provider, query, expected):
    docs = provider.embed(DOCUMENTS)
    scores = docs @ provider.embed_query(query)
    assert int(np.argmax(scores)) == expected, (query, DOCUMENTS[int(np.argmax(scores))])


# -- laziness ------------------------------------------------------------------------------


def test_import_is_lazy():
    code = (
        "import sys, ci_service.embeddings as e\n"
        "heavy = [m for m in ('numpy', 'torch', 'httpx', 'sentence_transformers',"
        " 'ci_service.embeddings.static') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
