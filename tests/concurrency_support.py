"""Helpers for the tests that fire requests or claims from many threads at once."""

from __future__ import annotations

import contextlib
import threading

import httpx

from ci_service.services.identity import api_keys as apikeys
from ci_service.services.workspace.workspaces import create_workspace
from ci_service.store.db import connection


def all_at_once(count: int, call, *, context=contextlib.nullcontext) -> list:
    """Run ``call(i)`` in ``count`` threads released together; results (or errors) in order.

    ``context()`` (say ``connection``) is entered in each thread around its call."""
    barrier = threading.Barrier(count)
    results: list = [None] * count

    def run(i):
        barrier.wait(timeout=30)
        try:
            with context():
                results[i] = call(i)
        except Exception as exc:  # reported by the assertions, with the thread's error
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a client thread hung"
    return results


def make_key(plan: str, name: str, rate_limit: int | None = None) -> tuple[str, str]:
    """A new workspace ``name`` on ``plan`` with an owner's API key: (workspace id, key)."""
    with connection():
        workspace = create_workspace(name, plan)
        user = apikeys.ensure_user(workspace, None, "OWNER")
        _, key = apikeys.create_key(user, name=name, rate_limit=rate_limit)
    return workspace.id, key


def starter_creates(responses: list) -> set[str]:
    """Check 12 parallel creates on a STARTER plan: 3 made, 9 refused at its limit of 3.
    Returns the ids of the created competitors."""
    assert all(isinstance(r, httpx.Response) for r in responses), responses
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200] * 3 + [403] * 9, [r.text for r in responses if r.status_code >= 500]
    for response in responses:
        if response.status_code == 403:
            error = response.json()["error"]
            assert error["code"] == "UPGRADE_REQUIRED"
            assert (error["limit"], error["currentCount"]) == (3, 3)
    return {r.json()["competitor"]["id"] for r in responses if r.status_code == 200}
