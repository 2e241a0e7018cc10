"""The request path without work the answer does not need (issue 31).

- With ``serve``'s flusher thread running, a read writes nothing: the request thread runs
  no INSERT or UPDATE, and the rate-limit count and lastUsedAt still reach the database
  (from the flusher), exactly. On PostgreSQL the rate-limit count is the one write a read
  makes (one upsert, exact across processes).
- The principal of an unchanged key row is reused, but a revoked key, a changed role or a
  write's new data version is seen on the very next request.
- The OpenAPI document, written when first read, is the one written at registration.
"""

from __future__ import annotations

import threading

import pytest
from flask_smorest import Api as SmorestApi

from ci_service.services.identity import api_keys as apikeys
from ci_service.store.db import connection, database
from ci_service.store.identity import ApiKey, RateLimitCounter
from ci_service.web import api as web_api
from ci_service.web.app import create_app, shutdown_app
from tests.waiting import wait_for

WRITES = ("INSERT", "UPDATE", "DELETE")


class Statements:
    """The statements run by ``thread`` (the test's own: the test client's requests)."""

    def __init__(self, thread: threading.Thread):
        self.thread = thread
        self.seen: list[str] = []
        self.original = database.obj.execute_sql

    def __enter__(self):
        def execute_sql(sql, params=None, *args, **kwargs):
            if threading.current_thread() is self.thread:
                self.seen.append(sql)
            return self.original(sql, params, *args, **kwargs)

        database.obj.execute_sql = execute_sql
        return self

    def __exit__(self, *exc):
        database.obj.execute_sql = self.original

    def writes(self) -> list[str]:
        return [s for s in self.seen if s.lstrip().upper().startswith(WRITES)]


def stored(key_id: str) -> tuple[int, object]:
    with connection():
        counter = RateLimitCounter.get_or_none(RateLimitCounter.id == key_id)
        return (counter.count if counter else 0), ApiKey.get_by_id(key_id).last_used_at


def test_a_read_writes_nothing_and_the_flusher_keeps_counts_exact(
    settings, make_workspace, make_key, backend
):
    app = create_app(settings.with_overrides(usage_flush_seconds=0.05))
    usage = app.extensions["ci_usage"]
    try:
        key, row = make_key(make_workspace())
        client = app.test_client()
        usage.start_flusher()
        with Statements(threading.current_thread()) as statements:
            for _ in range(7):
                answer = client.get("/api/competitors", headers={"X-API-Key": key})
                assert answer.status_code == 200
        assert statements.seen, "the key check runs on the request thread"
        if backend == "postgresql":
            # Several processes share the count: the process leases slots of the window
            # (services/identity/usage.py), one slot first, then 32: two upserts for seven
            # reads (three, should the flusher have found the key idle between two), and
            # the only writes.
            writes = [s.split(" (")[0] for s in statements.writes()]
            assert writes == ["INSERT INTO rate_limit_counter"] * len(writes)
            assert 2 <= len(writes) <= 3
        else:
            assert statements.writes() == []
        wait_for(lambda: stored(row.id), until=lambda got: got[0] == 7 and got[1] is not None)
        assert answer.headers["X-RateLimit-Remaining"] == str(row.rate_limit - 7)
    finally:
        usage.stop_flusher()
        shutdown_app(app)
    assert stored(row.id)[0] == 7  # stopping flushes once more, adding nothing


def test_without_the_flusher_a_due_flush_runs_after_the_request(settings, make_workspace, make_key):
    app = create_app(settings.with_overrides(usage_flush_seconds=0))
    try:
        key, row = make_key(make_workspace())
        client = app.test_client()
        assert client.get("/api/competitors", headers={"X-API-Key": key}).status_code == 200
        assert stored(row.id)[0] == 1
    finally:
        shutdown_app(app)


def test_key_changes_are_seen_on_the_next_request(api):
    assert api.get("/api/competitors").status_code == 200
    assert api.get("/api/competitors").status_code == 200  # the same row: reused
    prefix = apikeys.key_prefix(api.key)
    with connection():
        ApiKey.update(scopes=["read"]).where(ApiKey.prefix == prefix).execute()
    created = api.post("/api/competitors", json={"name": "R", "websiteUrl": "https://r.example"})
    assert created.status_code == 403
    assert created.json["error"]["code"] == "INSUFFICIENT_SCOPE"
    with connection():
        apikeys.revoke_key(ApiKey.get(ApiKey.prefix == prefix).id, api.workspace_id)
    assert api.get("/api/competitors").status_code == 401


def test_a_write_is_read_after_it(api):
    before = api.get("/api/competitors").json["competitors"]
    body = {"name": "Rival", "websiteUrl": "https://rival.example"}
    assert api.post("/api/competitors", json=body).status_code == 200
    after = api.get("/api/competitors").json["competitors"]
    assert len(after) == len(before) + 1  # a new data version: a new principal, a new key


@pytest.mark.backends("sqlite")
def test_the_openapi_document_is_the_same_written_late(settings, monkeypatch):
    lazy = create_app(settings)
    try:
        late = lazy.test_client().get("/openapi.json").get_json()
    finally:
        shutdown_app(lazy)
    monkeypatch.setattr(web_api.Api, "register_blueprint", SmorestApi.register_blueprint)
    eager = create_app(settings)
    try:
        assert eager.test_client().get("/openapi.json").get_json() == late
    finally:
        shutdown_app(eager)


@pytest.mark.backends("sqlite")
def test_a_key_revoked_by_another_process_is_refused_at_once(settings, make_workspace, make_key):
    """As ``serve`` runs it (connections kept): the key's row read once is reused while
    nothing is committed, and a revocation committed elsewhere is seen on the next request."""
    import sqlite3

    # No usage flush during the test: it is a commit too, and would make the row read again.
    app = create_app(settings.with_overrides(usage_flush_seconds=3600), persistent_connections=True)
    try:
        key, row = make_key(make_workspace())
        client = app.test_client()
        with Statements(threading.current_thread()) as statements:
            for _ in range(3):
                answer = client.get("/api/competitors", headers={"X-API-Key": key})
                assert answer.status_code == 200
        keyed = [s for s in statements.seen if "FROM api_key" in s]
        assert len(keyed) == 1  # read once, then reused: nothing was committed
        other = sqlite3.connect(settings.database)  # another process, as the CLI would be
        with other:
            other.execute(
                "UPDATE api_key SET revoked_at = '2026-01-01T00:00:00.000000Z' WHERE id = ?",
                (row.id,),
            )
        other.close()
        assert client.get("/api/competitors", headers={"X-API-Key": key}).status_code == 401
    finally:
        shutdown_app(app)


def test_a_route_loads_its_body_once_and_everything_else_is_validated(api, monkeypatch):
    """A JSON body the route's parser loaded reaches the service marked as loaded with
    that schema, which then does not load it again (``LoadedBody``); a plain dict (the
    CLI, the tool server) or a body loaded with another schema is validated."""
    from ci_service.errors import ValidationFailed
    from ci_service.services.common import fields
    from ci_service.services.workspace import deals

    schema = fields.schema_instance(deals.DealCreateSchema)
    loads: list[dict] = []
    original = type(schema).load

    def counted(self, data, *args, **kwargs):
        if self is schema:
            loads.append(data)
        return original(self, data, *args, **kwargs)

    monkeypatch.setattr(type(schema), "load", counted)
    body = {"prospectCompanyName": "Initech", "outcome": "WON", "arguments": ["price"]}
    created = api.post("/api/deals", json=body)
    assert created.status_code == 200, created.json
    assert created.json["deal"]["prospectCompanyName"] == "Initech"
    assert len(loads) == 1
    bad = api.post("/api/deals", json={"prospectCompanyName": "Initech", "outcome": "TIED"})
    assert bad.status_code == 400 and "outcome" in bad.json["error"]["details"]["fields"]

    with pytest.raises(ValidationFailed):
        with connection():
            deals.create_deal(api.workspace_id, {"prospectCompanyName": "X", "outcome": "TIED"})
    other = fields.LoadedBody({"prospectCompanyName": "X", "outcome": "TIED"})
    other.schema = fields.schema_instance(deals.DealUpdateSchema)
    with pytest.raises(ValidationFailed):
        fields.load(deals.DealCreateSchema, other)


def test_error_responses_are_documented_without_a_wrapper_each(api):
    doc = api.get("/openapi.json").json
    responses = doc["paths"]["/api/deals"]["post"]["responses"]
    assert {"200", "400", "401", "403", "413", "415", "429"} <= set(responses)
    assert responses["429"] == {"$ref": "#/components/responses/ERROR_429"}


def test_only_coroutine_functions_go_through_flask_s_async_check(settings):
    app = create_app(settings)
    try:

        def plain():
            return "sync"

        async def coroutine():
            return "async"

        assert app.ensure_sync(plain) is plain
        try:
            wrapped = app.ensure_sync(coroutine)
        except RuntimeError:  # Flask without its async extra says so: still not run as is
            return
        assert wrapped is not coroutine
    finally:
        shutdown_app(app)
