"""Concurrency over real HTTP: a real ``ci-service serve --threads 8`` answering requests
fired at the same instant from many client threads.

- Parallel creates against a STARTER plan's competitor limit never overshoot it.
- The per-key rate limit lets exactly ``rateLimit`` requests through, no more, no fewer.

(The in-process versions are in test_resources_competitors.py and test_auth.py; these go
through waitress's thread pool, one connection per request.)
"""

from __future__ import annotations

import time

import httpx
import pytest

from ci_service.store.db import open_database
from tests.concurrency_support import all_at_once, make_key, starter_creates
from tests.live import LiveServer
from tests.waiting import wait_for

SERVE_ARGS = ("--threads", "8", "--no-scheduler", "--job-workers", "0")
RATE_LIMIT = 40


@pytest.fixture(scope="module")
def live(module_database_url):
    database = module_database_url
    open_database(str(database))
    keys = {
        "starter": make_key("STARTER", "starter")[1],
        "limited": make_key("ENTERPRISE", "limited", rate_limit=RATE_LIMIT)[1],
    }
    with LiveServer(str(database), *SERVE_ARGS) as server:
        yield server, keys


def test_parallel_creates_never_overshoot_the_starter_limit(live):
    server, keys = live
    headers = {"X-API-Key": keys["starter"]}

    def create(i):
        body = {"name": f"Rival {i}", "websiteUrl": f"https://rival-{i}.example"}
        return httpx.post(server.url + "/api/competitors", json=body, headers=headers, timeout=30)

    responses = all_at_once(12, create)
    created = starter_creates(responses)
    for response in responses:
        if response.status_code == 403:
            error = response.json()["error"]
            assert (error["currentPlan"], error["requiredPlan"]) == ("STARTER", "PRO")
    listed = httpx.get(server.url + "/api/competitors", headers=headers, timeout=10)
    assert {c["id"] for c in listed.json()["competitors"]} == created


def seconds_into_hour() -> float:
    return time.time() % 3600


def test_rate_limit_is_exact_under_parallel_requests(live):
    server, keys = live
    headers = {"X-API-Key": keys["limited"]}
    # The window is a clock hour: don't straddle its end (waits only in the last 15 s).
    wait_for(lambda: seconds_into_hour() < 3585, timeout=20, interval=0.2)

    def burst(i):
        with httpx.Client(base_url=server.url, headers=headers, timeout=30) as client:
            return [client.get("/api/competitors") for _ in range(5)]

    responses = [r for batch in all_at_once(16, burst) for r in batch]
    assert len(responses) == 80
    allowed = [r for r in responses if r.status_code != 429]
    limited = [r for r in responses if r.status_code == 429]
    assert len(allowed) == RATE_LIMIT and len(limited) == 80 - RATE_LIMIT
    assert {r.status_code for r in allowed} == {200}
    # Each allowed request took exactly one slot: the remaining counts are 39, 38, ... 0.
    remaining = sorted(int(r.headers["X-RateLimit-Remaining"]) for r in allowed)
    assert remaining == list(range(RATE_LIMIT))
    resets = {r.headers["X-RateLimit-Reset"] for r in responses}
    assert len(resets) == 1  # one window throughout
    for response in limited:
        assert response.headers["X-RateLimit-Remaining"] == "0"
        assert response.headers["X-RateLimit-Limit"] == str(RATE_LIMIT)
        assert int(response.headers["Retry-After"]) >= 1
        error = response.json()["error"]
        assert error["code"] == "RATE_LIMITED"
        assert error["details"]["retryAfter"] == int(response.headers["Retry-After"])
    # Still closed afterwards.
    assert httpx.get(server.url + "/api/competitors", headers=headers).status_code == 429
