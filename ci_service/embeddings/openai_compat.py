"""Optional provider: an OpenAI-compatible ``POST {base_url}/embeddings`` endpoint.

Works with OpenAI, Azure-style proxies, vLLM, llama.cpp server, Ollama (``/v1``), LiteLLM,
text-embeddings-inference and similar servers. Request body ``{"model", "input": [...]}``;
the response must be ``{"data": [{"index": i, "embedding": [floats]}, ...]}``. Vectors are
re-normalised locally (not every server normalises). Empty/whitespace texts are not sent
(several servers reject them) and get a zero vector, like the other providers.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .base import EmbeddingError, EmbeddingProvider, check_texts, l2_normalize

if TYPE_CHECKING:
    import numpy as np

RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
_PROBE_TEXT = "dimension probe"


class OpenAICompatEmbeddingProvider(EmbeddingProvider):
    """Embeddings from an OpenAI-compatible HTTP endpoint (httpx, synchronous).

    ``dimension``: the expected vector length; when ``None`` it is learned from the first
    response (reading ``.dimension`` before any ``embed`` sends one short probe request).
    Every response is checked against it, so a model swap behind the same name is caught.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        dimension: int | None = None,
        timeout: float = 30.0,
        batch_size: int = 128,
        max_retries: int = 2,
        backoff: float = 0.5,
        transport: Any = None,
    ) -> None:
        try:
            import httpx
        except ImportError as exc:  # pragma: no cover - httpx is a main dependency
            raise EmbeddingError("CI_SERVICE_EMBEDDINGS=openai needs httpx") from exc
        if not base_url or not model:
            raise EmbeddingError("OpenAI-compatible embeddings need a base URL and a model")
        self._httpx = httpx
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.name = f"openai:{model}"
        self._dimension = dimension
        self.batch_size = max(1, batch_size)
        self.max_retries = max(0, max_retries)
        self.backoff = backoff
        headers = {"Accept": "application/json", "User-Agent": "ci-service-embeddings"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._client = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
            transport=transport,
            follow_redirects=False,
        )
        self._lock = threading.Lock()

    @property
    def dimension(self) -> int:  # type: ignore[override]
        if self._dimension is None:
            self.embed([_PROBE_TEXT])
        assert self._dimension is not None
        return self._dimension

    def close(self) -> None:
        self._client.close()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        texts = check_texts(texts)
        rows = [i for i, text in enumerate(texts) if text.strip()]
        vectors: list[np.ndarray] = []
        for start in range(0, len(rows), self.batch_size):
            batch = [texts[i] for i in rows[start : start + self.batch_size]]
            vectors.append(self._request(batch))
        if self._dimension is None and not vectors:
            _ = self.dimension  # learn the dimension so the zero rows have a length
        out = np.zeros((len(texts), self._dimension or 0), dtype=np.float32)
        if vectors:
            out[rows] = np.concatenate(vectors)
        return out

    def _request(self, batch: list[str]) -> np.ndarray:
        httpx = self._httpx
        url = f"{self.base_url}/embeddings"
        payload = {"model": self.model, "input": batch}
        attempt = 0
        while True:
            try:
                response = self._client.post(url, json=payload)
            except httpx.HTTPError as exc:
                if attempt < self.max_retries and isinstance(
                    exc, httpx.TimeoutException | httpx.NetworkError
                ):
                    attempt += 1
                    time.sleep(self.backoff * 2 ** (attempt - 1))
                    continue
                raise EmbeddingError(
                    f"embeddings request to {url} failed: {type(exc).__name__}: {exc}"
                ) from exc
            if response.status_code in RETRY_STATUS and attempt < self.max_retries:
                attempt += 1
                time.sleep(self.backoff * 2 ** (attempt - 1))
                continue
            break
        if response.status_code >= 400:
            raise EmbeddingError(
                f"embeddings endpoint {url} answered HTTP {response.status_code}: "
                f"{_error_detail(response)}"
            )
        try:
            body = response.json()
        except ValueError:
            raise EmbeddingError(
                f"embeddings endpoint {url} returned non-JSON: {response.text[:200]!r}"
            ) from None
        return self._parse(body, len(batch), url)

    def _parse(self, body: Any, count: int, url: str) -> np.ndarray:
        import numpy as np

        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list):
            raise EmbeddingError(f"embeddings endpoint {url}: response has no 'data' list")
        if len(data) != count:
            raise EmbeddingError(
                f"embeddings endpoint {url}: sent {count} inputs, got {len(data)} embeddings"
            )
        ordered: list[Any] = [None] * count
        for position, item in enumerate(data):
            if not isinstance(item, dict) or not isinstance(item.get("embedding"), list):
                raise EmbeddingError(f"embeddings endpoint {url}: item {position} has no vector")
            index = item.get("index", position)
            if not isinstance(index, int) or not 0 <= index < count or ordered[index] is not None:
                raise EmbeddingError(f"embeddings endpoint {url}: bad index {index!r}")
            ordered[index] = item["embedding"]
        lengths = {len(vector) for vector in ordered}
        if len(lengths) != 1:
            raise EmbeddingError(f"embeddings endpoint {url}: vectors of mixed lengths {lengths}")
        length = lengths.pop()
        with self._lock:
            if self._dimension is None:
                if length == 0:
                    raise EmbeddingError(f"embeddings endpoint {url}: empty vectors")
                self._dimension = length
        if length != self._dimension:
            raise EmbeddingError(
                f"embeddings endpoint {url}: model {self.model!r} returned {length}-dimensional "
                f"vectors, expected {self._dimension}"
            )
        try:
            matrix = np.asarray(ordered, dtype=np.float32)
        except (TypeError, ValueError):
            raise EmbeddingError(f"embeddings endpoint {url}: non-numeric vector values") from None
        if not np.isfinite(matrix).all():
            raise EmbeddingError(f"embeddings endpoint {url}: non-finite vector values")
        return l2_normalize(matrix)


def _error_detail(response: Any) -> str:
    """The server's error message (OpenAI style ``{"error": {"message"}}``) or body start."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:300] or "(empty body)"
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])[:300]
        if isinstance(error, str):
            return error[:300]
        if body.get("detail"):
            return str(body["detail"])[:300]
    return str(body)[:300]
