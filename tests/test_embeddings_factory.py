"""Provider selection through CI_SERVICE_EMBEDDINGS* and the provider cache."""

from __future__ import annotations

import threading

import pytest

from ci_service.embeddings import (
    EmbeddingConfig,
    EmbeddingError,
    clear_provider_cache,
    embedding_config,
    get_provider,
)
from ci_service.embeddings.static import StaticEmbeddingProvider
from ci_service.settings import load_settings


@pytest.fixture(autouse=True)
def _fresh_cache(monkeypatch):
    for name in (
        "CI_SERVICE_EMBEDDINGS",
        "CI_SERVICE_EMBEDDINGS_BASE_URL",
        "CI_SERVICE_EMBEDDINGS_API_KEY",
        "CI_SERVICE_EMBEDDINGS_MODEL",
        "CI_SERVICE_EMBEDDINGS_DIMENSION",
        "CI_SERVICE_EMBEDDINGS_TIMEOUT",
    ):
        monkeypatch.delenv(name, raising=False)
    clear_provider_cache()
    yield
    clear_provider_cache()


def test_default_is_static():
    assert embedding_config({}).provider == "static"
    provider = get_provider({})
    assert isinstance(provider, StaticEmbeddingProvider)
    assert provider.name == "static-minilm-l6-v2-256" and provider.dimension == 256


def test_reads_os_environ_when_no_source(monkeypatch):
    monkeypatch.setenv("CI_SERVICE_EMBEDDINGS", " Static ")
    assert embedding_config().provider == "static"
    assert isinstance(get_provider(), StaticEmbeddingProvider)


def test_provider_is_cached_and_loaded_once():
    results = []
    threads = [threading.Thread(target=lambda: results.append(get_provider({}))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(p) for p in results}) == 1
    assert get_provider({"CI_SERVICE_EMBEDDINGS": "static"}) is results[0]
    clear_provider_cache()
    assert get_provider({}) is not results[0]


def test_unknown_provider_is_a_clear_error():
    with pytest.raises(EmbeddingError, match="unknown embedding provider 'bert'.*static"):
        get_provider({"CI_SERVICE_EMBEDDINGS": "bert"})


def test_openai_needs_base_url_and_model():
    with pytest.raises(EmbeddingError, match="BASE_URL"):
        get_provider({"CI_SERVICE_EMBEDDINGS": "openai"})
    with pytest.raises(EmbeddingError, match="MODEL"):
        get_provider(
            {"CI_SERVICE_EMBEDDINGS": "openai", "CI_SERVICE_EMBEDDINGS_BASE_URL": "http://x/v1"}
        )


def test_openai_config_from_env():
    config = embedding_config(
        {
            "CI_SERVICE_EMBEDDINGS": "openai",
            "CI_SERVICE_EMBEDDINGS_BASE_URL": "http://127.0.0.1:9/v1",
            "CI_SERVICE_EMBEDDINGS_API_KEY": "sk-secret",
            "CI_SERVICE_EMBEDDINGS_MODEL": "text-embedding-3-small",
            "CI_SERVICE_EMBEDDINGS_DIMENSION": "1536",
            "CI_SERVICE_EMBEDDINGS_TIMEOUT": "5",
        }
    )
    assert config == EmbeddingConfig(
        provider="openai",
        base_url="http://127.0.0.1:9/v1",
        api_key="sk-secret",
        model="text-embedding-3-small",
        dimension=1536,
        timeout=5.0,
    )
    assert "sk-secret" not in repr(config)
    provider = get_provider(config)
    assert provider.name == "openai:text-embedding-3-small"
    assert provider.dimension == 1536  # configured: no request needed


@pytest.mark.parametrize("value", ["abc", "0", "-3"])
def test_bad_numbers_are_rejected(value):
    with pytest.raises(EmbeddingError, match="CI_SERVICE_EMBEDDINGS_DIMENSION"):
        embedding_config({"CI_SERVICE_EMBEDDINGS_DIMENSION": value})


def test_settings_object_with_fallback_to_environment(monkeypatch):
    # The project's Settings has no embedding fields yet: everything comes from the env.
    monkeypatch.setenv("CI_SERVICE_EMBEDDINGS", "openai")
    monkeypatch.setenv("CI_SERVICE_EMBEDDINGS_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("CI_SERVICE_EMBEDDINGS_MODEL", "m")
    config = embedding_config(load_settings(environ={}))
    assert (config.provider, config.model) == ("openai", "m")

    class Custom:
        embeddings = "static"

    assert embedding_config(Custom()).provider == "static"


def test_minilm_without_the_extra_is_a_clear_error():
    try:
        import sentence_transformers  # noqa: F401
    except ImportError:
        with pytest.raises(EmbeddingError, match=r"ci-service\[minilm\]"):
            get_provider({"CI_SERVICE_EMBEDDINGS": "minilm"})
    else:  # pragma: no cover - only where the extra is installed
        pytest.skip("the minilm extra is installed here")
