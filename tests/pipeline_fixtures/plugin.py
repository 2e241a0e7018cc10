"""Fixtures for the pipeline tests (``pytest_plugins = ["tests.pipeline_fixtures.plugin"]``)."""

from __future__ import annotations

import pytest

from tests.intel_support import FixtureServer
from tests.pipeline_fixtures.support import copy_site


@pytest.fixture
def crawl_env(monkeypatch):
    """Loopback allowed, no per-host delay, short deadlines."""
    monkeypatch.setenv("CI_SERVICE_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.setenv("CI_SERVICE_CRAWL_DELAY_SECONDS", "0")
    monkeypatch.setenv("CI_SERVICE_FETCH_DEADLINE_SECONDS", "10")
    for name in ("CI_SERVICE_LLM_BASE_URL", "CI_SERVICE_LLM_MODEL", "CI_SERVICE_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.fixture
def site(tmp_path, crawl_env):
    """A served copy of the fixture site: ``site.root`` (files) and ``site.base`` (URL)."""
    root = copy_site(tmp_path / "site")
    with FixtureServer(root) as server:
        yield server
