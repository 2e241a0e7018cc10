"""Text embeddings for semantic search.

``get_provider()`` returns the configured :class:`EmbeddingProvider` (cached, loaded on
first use). Importing this package is cheap: no numpy, no model file, no torch, no httpx.

Selection (environment variables, or attributes of a settings object, see
:func:`embedding_config`):

``CI_SERVICE_EMBEDDINGS``
    ``static`` (default): distilled static MiniLM model shipped in the package, numpy only.
    ``minilm``: full all-MiniLM-L6-v2 through sentence-transformers (``ci-service[minilm]``).
    ``openai``: an OpenAI-compatible ``/embeddings`` endpoint.
``CI_SERVICE_EMBEDDINGS_BASE_URL``
    Endpoint of ``openai``, up to but not including ``/embeddings``
    (e.g. ``https://api.openai.com/v1``).
``CI_SERVICE_EMBEDDINGS_API_KEY``
    Bearer token for ``openai`` (optional: local servers often need none).
``CI_SERVICE_EMBEDDINGS_MODEL``
    Model name sent to ``openai`` (required for it).
``CI_SERVICE_EMBEDDINGS_DIMENSION``
    Optional expected vector length for ``openai`` (checked on every response; otherwise
    learned from the first response).
``CI_SERVICE_EMBEDDINGS_TIMEOUT``
    Optional request timeout in seconds for ``openai`` (default 30).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .base import EmbeddingError, EmbeddingProvider, l2_normalize

__all__ = [
    "PROVIDERS",
    "EmbeddingConfig",
    "EmbeddingError",
    "EmbeddingProvider",
    "clear_provider_cache",
    "create_provider",
    "embedding_config",
    "get_provider",
    "l2_normalize",
]

PROVIDERS = ("static", "minilm", "openai")
DEFAULT_PROVIDER = "static"
DEFAULT_TIMEOUT = 30.0

_FIELDS = ("embeddings", "base_url", "api_key", "model", "dimension", "timeout")
_ENV = {
    "embeddings": "CI_SERVICE_EMBEDDINGS",
    "base_url": "CI_SERVICE_EMBEDDINGS_BASE_URL",
    "api_key": "CI_SERVICE_EMBEDDINGS_API_KEY",
    "model": "CI_SERVICE_EMBEDDINGS_MODEL",
    "dimension": "CI_SERVICE_EMBEDDINGS_DIMENSION",
    "timeout": "CI_SERVICE_EMBEDDINGS_TIMEOUT",
}


@dataclass(frozen=True)
class EmbeddingConfig:
    provider: str = DEFAULT_PROVIDER
    base_url: str | None = None
    api_key: str | None = None
    model: str | None = None
    dimension: int | None = None
    timeout: float = DEFAULT_TIMEOUT

    def __repr__(self) -> str:  # never print the API key
        key = "***" if self.api_key else None
        return (
            f"EmbeddingConfig(provider={self.provider!r}, base_url={self.base_url!r}, "
            f"api_key={key!r}, model={self.model!r}, dimension={self.dimension!r}, "
            f"timeout={self.timeout!r})"
        )


def embedding_config(source: Any = None) -> EmbeddingConfig:
    """Read the embedding configuration.

    ``source`` is ``None`` (``os.environ``), a mapping of environment variables, an
    :class:`EmbeddingConfig`, or a settings object with attributes ``embeddings``,
    ``embeddings_base_url``, ``embeddings_api_key``, ``embeddings_model``,
    ``embeddings_dimension``, ``embeddings_timeout``; attributes it lacks fall back to the
    environment.
    """
    if isinstance(source, EmbeddingConfig):
        return source
    if source is None or isinstance(source, Mapping):
        env = os.environ if source is None else source
        raw = {field: env.get(_ENV[field]) for field in _FIELDS}
    else:
        raw = {}
        for field in _FIELDS:
            attr = "embeddings" if field == "embeddings" else f"embeddings_{field}"
            value = getattr(source, attr, None)
            raw[field] = os.environ.get(_ENV[field]) if value is None else value
    provider = str(raw["embeddings"] or DEFAULT_PROVIDER).strip().lower()
    if provider not in PROVIDERS:
        raise EmbeddingError(
            f"unknown embedding provider {raw['embeddings']!r} in {_ENV['embeddings']}; "
            f"choose one of: {', '.join(PROVIDERS)}"
        )
    return EmbeddingConfig(
        provider=provider,
        base_url=_text(raw["base_url"]),
        api_key=_text(raw["api_key"]),
        model=_text(raw["model"]),
        dimension=_number(raw["dimension"], int, "dimension"),
        timeout=_number(raw["timeout"], float, "timeout") or DEFAULT_TIMEOUT,
    )


def _text(value: Any) -> str | None:
    if value is None:
        return None
    value = str(value).strip()
    return value or None


def _number(value: Any, kind: type, field: str) -> Any:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        number = kind(value)
    except (TypeError, ValueError):
        raise EmbeddingError(f"{_ENV[field]} must be a number, got {value!r}") from None
    if number <= 0:
        raise EmbeddingError(f"{_ENV[field]} must be positive, got {value!r}")
    return number


def create_provider(config: EmbeddingConfig) -> EmbeddingProvider:
    """Build a new provider for ``config`` (no caching); imports the backend on demand."""
    if config.provider == "static":
        from .static import StaticEmbeddingProvider

        return StaticEmbeddingProvider()
    if config.provider == "minilm":
        from .minilm import MiniLMEmbeddingProvider

        return MiniLMEmbeddingProvider()
    if config.provider == "openai":
        from .openai_compat import OpenAICompatEmbeddingProvider

        if not config.base_url or not config.model:
            raise EmbeddingError(
                "CI_SERVICE_EMBEDDINGS=openai needs CI_SERVICE_EMBEDDINGS_BASE_URL and "
                "CI_SERVICE_EMBEDDINGS_MODEL"
            )
        return OpenAICompatEmbeddingProvider(
            base_url=config.base_url,
            model=config.model,
            api_key=config.api_key,
            dimension=config.dimension,
            timeout=config.timeout,
        )
    raise EmbeddingError(f"unknown embedding provider {config.provider!r}")  # pragma: no cover


_cache: dict[EmbeddingConfig, EmbeddingProvider] = {}
_cache_lock = threading.Lock()


def get_provider(settings_or_env: Any = None) -> EmbeddingProvider:
    """The provider selected by the configuration, created once per configuration.

    Thread-safe: concurrent first calls load the model once.
    """
    config = embedding_config(settings_or_env)
    provider = _cache.get(config)
    if provider is not None:
        return provider
    with _cache_lock:
        provider = _cache.get(config)
        if provider is None:
            provider = create_provider(config)
            _cache[config] = provider
        return provider


def clear_provider_cache() -> None:
    """Forget (and close) cached providers: tests, or a configuration change at runtime."""
    with _cache_lock:
        providers = list(_cache.values())
        _cache.clear()
    for provider in providers:
        close = getattr(provider, "close", None)
        if callable(close):
            close()
