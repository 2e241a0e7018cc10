"""The embedding provider interface shared by every backend.

Contract for ``EmbeddingProvider.embed(texts)``:

* returns a C-contiguous ``float32`` array of shape ``(len(texts), provider.dimension)``;
* every row is L2-normalised, so the cosine similarity of two rows is their dot product;
* a text with nothing to embed (empty, whitespace only, or, for the static model, made
  only of unknown tokens) gives an all-zero row. A zero row has cosine 0 with everything,
  never ranks above a real match and is easy to detect (``not row.any()``);
* the same input always gives the same output (no randomness, no batching effects beyond
  float rounding of the remote/torch backends).

numpy is imported lazily so that ``import ci_service.embeddings`` stays cheap.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


class EmbeddingError(RuntimeError):
    """An embedding backend failed or is misconfigured (message says which and why)."""


class EmbeddingProvider(ABC):
    """Turns texts into L2-normalised float32 vectors.

    ``name`` identifies the model and is stored next to every vector: vectors made under
    different names are not comparable, and a name change means the workspace needs
    ``ci-service reindex``. ``dimension`` is the row length.
    """

    name: str
    dimension: int

    @abstractmethod
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``; see the module docstring for the output contract."""

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one text; a 1-D float32 vector of length ``dimension``."""
        return self.embed([text])[0]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name!r} dimension={self.dimension}>"


def check_texts(texts: Sequence[str]) -> list[str]:
    """Validate the ``embed`` argument: a sequence of str (a bare str is a common mistake)."""
    if isinstance(texts, str | bytes):
        raise TypeError("embed() takes a list of texts; use embed_query() for a single text")
    texts = list(texts)
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"texts must be str, got {type(text).__name__}")
    return texts


def l2_normalize(matrix: np.ndarray) -> np.ndarray:
    """Row-wise L2 normalisation into a new float32 array; zero rows stay zero."""
    import numpy as np

    out = np.array(matrix, dtype=np.float32, copy=True, order="C")
    if out.ndim == 1:
        norm = float(np.linalg.norm(out))
        if norm > 0:
            out /= norm
        return out
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.divide(out, norms, out=out, where=norms > 0)
    return out
