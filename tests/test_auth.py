"""The request pipeline: 401s, IP allowlists, scopes/roles/plans, rate limits."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from ci_service.errors import Forbidden, InsufficientScope, UpgradeRequired
from ci_service.services.identity.auth import READ, WRITE, Access, Principal, check_access
from ci_service.store.db import connection
from ci_service.store.identity import ApiKey
from ci_service.timeutil import utcnow
from ci_service.web.app import create_app, shutdown_app
from ci_service.web.auth import PUBLIC

MESSAGE = "Invalid or missing API key"


def _assert_401(response):
    assert response.status_code == 401
    assert response.json == {"error": {"code": "UNAUTHORIZED", "message": MESSAGE}}
    assert "X-RateLimit-Limit" not in response.headers


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"X-API-Key": ""},
        {"X-API-Key": "not-a-key"},
        {"X-API-Key": "svc_live_" + "z" * 32},
        {"X-API-Key": "svc_live_" + "a" * 31},
        {"X-API-Key": "svc_test_" + "a" * 32},
        {"X-API-Key": "svc_live_" + "a" * 32},  # well formed, unknown
        {"Authorization": "Bearer svc_live_" + "a" * 32},
    ],
)
def test_missing_malformed_and_unknown_keys_are_401(client, headers):
    _assert_401(client.get("/api/api-keys", headers=headers))


def test_key_with_known_prefix_but_wrong_secret_is_401(api):
    forged = api.key[:17] + ("0" if api.key[17] != "0" else "1") + api.key[18:]
    _assert_401(api.get("/api/api-keys", headers={"X-API-Key": forged}))


def test_uppercase_key_is_rejected(api):
    _assert_401(api.get("/api/api-keys", headers={"X-API-Key": api.key.upper()}))


def test_revoked_key_is_401(api):
    with connection():
        ApiKey.update(revoked_at=utcnow()).execute()
    _assert_401(api.get("/api/api-keys"))


def test_expired_key_is_401(make_api):
    api = make_api(expires_at=utcnow() + timedelta(hours=1))
    assert api.get("/api/api-keys").status_code == 200
    with connection():
        ApiKey.update(expires_at=utcnow() - timedelta(seconds=1)).execute()
    _assert_401(api.get("/api/api-keys"))


@pytest.mark.parametrize(
    "allowed, remote, ok",
    [
        (["127.0.0.1"], "127.0.0.1", True),
        (["127.0.0.0/8"], "127.9.9.9", True),
        (["10.0.0.0/8"], "127.0.0.1", False),
        (["10.0.0.0/8", "192.168.0.0/16"], "192.168.44.1", True),
        (["2001:db8::/32"], "2001:db8::1", True),
        (["2001:db8::/32"], "10.0.0.1", False),
        (["10.1.2.3"], "::ffff:10.1.2.3", True),
    ],
)
def test_ip_allowlist(make_api, allowed, remote, ok):
    api = make_api(allowed_ips=allowed)
    response = api.get("/api/api-keys", environ_base={"REMOTE_ADDR": remote})
    if ok:
        assert response.status_code == 200
    else:
        assert response.status_code == 403
        assert response.json["error"]["code"] == "IP_NOT_ALLOWED"


def test_rate_limit_headers_on_every_authenticated_response(make_api):
    api = make_api(rate_limit=10)
    ok = api.get("/api/api-keys")
    assert ok.headers["X-RateLimit-Limit"] == "10"
    assert ok.headers["X-RateLimit-Remaining"] == "9"
    reset = int(ok.headers["X-RateLimit-Reset"])
    assert reset % 3600 == 0 and reset > utcnow().timestamp()
    # A 4xx after authentication carries them too.
    missing = api.delete("/api/api-keys/nope")
    assert missing.status_code == 404
    assert missing.headers["X-RateLimit-Remaining"] == "8"


def test_rate_limit_exceeded_is_429(make_api):
    api = make_api(rate_limit=3)
    statuses = [api.get("/api/api-keys").status_code for _ in range(3)]
    assert statuses == [200, 200, 200]
    response = api.get("/api/api-keys")
    assert response.status_code == 429
    error = response.json["error"]
    assert error["code"] == "RATE_LIMITED"
    retry = error["details"]["retryAfter"]
    assert isinstance(retry, int) and 1 <= retry <= 3600
    assert response.headers["Retry-After"] == str(retry)
    assert response.headers["X-RateLimit-Remaining"] == "0"


def test_rate_limits_are_per_key(make_api, make_key):
    api = make_api(rate_limit=1)
    assert api.get("/api/api-keys").status_code == 200
    assert api.get("/api/api-keys").status_code == 429
    with connection():
        from ci_service.store.identity import Workspace

        workspace = Workspace.get_by_id(api.workspace_id)
    other_key, _ = make_key(workspace, rate_limit=1)
    assert api.get("/api/api-keys", headers={"X-API-Key": other_key}).status_code == 200


def test_rate_limit_is_exact_under_concurrent_threads(app, make_api):
    api = make_api(rate_limit=50)
    results: list[int] = []
    lock = threading.Lock()
    start = threading.Barrier(16)

    def worker():
        client = app.test_client()
        start.wait()
        for _ in range(10):
            status = client.get("/api/api-keys", headers={"X-API-Key": api.key}).status_code
            with lock:
                results.append(status)

    threads = [threading.Thread(target=worker) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(results) == 160
    assert results.count(200) == 50
    assert results.count(429) == 110


def test_rate_limit_survives_restart(settings, make_api, app):
    api = make_api(rate_limit=3)
    assert api.get("/api/api-keys").status_code == 200
    assert api.get("/api/api-keys").status_code == 200
    shutdown_app(app)  # what serve does on exit: persist the counters

    restarted = create_app(settings)
    client = restarted.test_client()
    headers = {"X-API-Key": api.key}
    first = client.get("/api/api-keys", headers=headers)
    assert first.status_code == 200
    assert first.headers["X-RateLimit-Remaining"] == "0"
    assert client.get("/api/api-keys", headers=headers).status_code == 429
    shutdown_app(restarted)


def _principal(**overrides) -> Principal:
    values = dict(
        key_id="k", user_id="u", workspace_id="w", tenant_id="t", role="OWNER",
        plan="ENTERPRISE", scopes=("read", "write", "admin"), rate_limit=10, allowed_ips=(),
        expires_at=None,
    )  # fmt: skip
    values.update(overrides)
    return Principal(**values)


def test_check_access_order_scope_then_role_then_plan():
    pro_write = Access(scope="write", min_role="EDITOR", plan="PRO")
    with pytest.raises(InsufficientScope):
        check_access(_principal(scopes=("read",), role="VIEWER", plan="STARTER"), pro_write)
    with pytest.raises(Forbidden):
        check_access(_principal(role="VIEWER", plan="STARTER"), pro_write)
    with pytest.raises(UpgradeRequired) as raised:
        check_access(_principal(role="EDITOR", plan="STARTER"), pro_write)
    assert raised.value.extra == {"requiredPlan": "PRO"}
    check_access(_principal(role="EDITOR", plan="PRO"), pro_write)
    check_access(_principal(role="VIEWER", scopes=("read",)), READ)
    with pytest.raises(Forbidden):
        check_access(_principal(role="VIEWER"), WRITE)


def test_every_api_route_declares_its_access(app):
    """A view under /api/ without @requires would be refused at runtime; catch it here."""
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/"):
            view = app.view_functions[rule.endpoint]
            access = getattr(view, "access", None)
            assert isinstance(access, Access) or access is PUBLIC, rule.rule
