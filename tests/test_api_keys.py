"""/api/api-keys: shapes, defaults, the 400 table, gates, revocation and hashing."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from ci_service.timeutil import iso, utcnow
from tests.backends import everything_stored

KEY_RE = re.compile(r"^svc_live_[0-9a-f]{32}$")


def test_create_returns_key_once_with_defaults(api):
    response = api.post("/api/api-keys", json={"name": "ci bot"})
    assert response.status_code == 200
    body = response.json
    assert KEY_RE.match(body["key"])
    key = body["apiKey"]
    assert set(key) == {
        "id", "tenantId", "name", "prefix", "createdAt", "expiresAt", "scopes", "rateLimit",
        "allowedIps",
    }  # fmt: skip
    assert key["name"] == "ci bot"
    assert key["prefix"] == body["key"][:17] and key["prefix"].startswith("svc_live_")
    assert key["expiresAt"] is None
    assert key["scopes"] == ["read", "write", "admin"]
    assert key["rateLimit"] == 1000
    assert key["allowedIps"] == []
    assert key["createdAt"].endswith("Z")
    # The new key works, and listing never shows it again.
    listed = api.get("/api/api-keys", headers={"X-API-Key": body["key"]})
    assert listed.status_code == 200
    assert body["key"] not in listed.get_data(as_text=True)


def test_create_with_every_option(api):
    expires = iso(utcnow() + timedelta(days=30))
    response = api.post(
        "/api/api-keys",
        json={
            "name": "x" * 100,
            "expiresAt": expires,
            "scopes": ["write", "read"],
            "rateLimit": 50,
            "allowedIps": ["10.0.0.0/8", "192.168.1.7", "::1"],
        },
    )
    assert response.status_code == 200, response.json
    key = response.json["apiKey"]
    assert key["expiresAt"] == expires
    assert key["scopes"] == ["read", "write"]
    assert key["rateLimit"] == 50
    assert key["allowedIps"] == ["10.0.0.0/8", "192.168.1.7", "::1"]


def test_list_shape_and_last_used(api):
    before = api.get("/api/api-keys").json["apiKeys"]
    assert len(before) == 1
    item = before[0]
    assert set(item) == {
        "id", "tenantId", "name", "prefix", "createdAt", "expiresAt", "lastUsedAt", "revokedAt"
    }  # fmt: skip
    # The listing request itself used the key, and lastUsedAt is flushed before listing.
    assert item["lastUsedAt"] is not None and item["revokedAt"] is None


def test_revoke_makes_key_unusable_and_is_permanent(api):
    created = api.post("/api/api-keys", json={"name": "temp"}).json
    key_id, key = created["apiKey"]["id"], created["key"]
    assert api.get("/api/api-keys", headers={"X-API-Key": key}).status_code == 200

    response = api.delete(f"/api/api-keys/{key_id}")
    assert response.status_code == 200 and response.json == {"success": True}
    assert api.get("/api/api-keys", headers={"X-API-Key": key}).status_code == 401

    listed = {k["id"]: k for k in api.get("/api/api-keys").json["apiKeys"]}
    revoked_at = listed[key_id]["revokedAt"]
    assert revoked_at is not None
    # Revoking again succeeds and keeps the first revocation time.
    assert api.delete(f"/api/api-keys/{key_id}").status_code == 200
    again = {k["id"]: k for k in api.get("/api/api-keys").json["apiKeys"]}
    assert again[key_id]["revokedAt"] == revoked_at


def test_revoke_unknown_and_foreign_keys_is_404(api, make_api):
    assert api.delete("/api/api-keys/does-not-exist").json["error"]["code"] == "NOT_FOUND"
    other = make_api()
    other_id = other.get("/api/api-keys").json["apiKeys"][0]["id"]
    response = api.delete(f"/api/api-keys/{other_id}")
    assert response.status_code == 404
    assert response.json["error"]["code"] == "NOT_FOUND"
    # ... and the other workspace's key still works.
    assert other.get("/api/api-keys").status_code == 200
    # Listing shows only the caller's workspace.
    ids = [k["id"] for k in api.get("/api/api-keys").json["apiKeys"]]
    assert other_id not in ids


PAST = "2001-01-01T00:00:00Z"


@pytest.mark.parametrize(
    "body, field",
    [
        ({}, "name"),
        ({"name": ""}, "name"),
        ({"name": "   "}, "name"),
        ({"name": "x" * 101}, "name"),
        ({"name": 5}, "name"),
        ({"name": None}, "name"),
        ({"name": "k", "expiresAt": "tomorrow"}, "expiresAt"),
        ({"name": "k", "expiresAt": "2030-01-01"}, "expiresAt"),
        ({"name": "k", "expiresAt": "2030-13-01T00:00:00Z"}, "expiresAt"),
        ({"name": "k", "expiresAt": PAST}, "expiresAt"),
        ({"name": "k", "expiresAt": 12345}, "expiresAt"),
        ({"name": "k", "scopes": ["bogus"]}, "scopes"),
        ({"name": "k", "scopes": "read"}, "scopes"),
        ({"name": "k", "scopes": []}, "scopes"),
        ({"name": "k", "scopes": [1]}, "scopes"),
        ({"name": "k", "rateLimit": "100"}, "rateLimit"),
        ({"name": "k", "rateLimit": 0}, "rateLimit"),
        ({"name": "k", "rateLimit": -5}, "rateLimit"),
        ({"name": "k", "rateLimit": 1.5}, "rateLimit"),
        ({"name": "k", "rateLimit": True}, "rateLimit"),
        ({"name": "k", "rateLimit": 10**9}, "rateLimit"),
        ({"name": "k", "allowedIps": ["not-an-ip"]}, "allowedIps"),
        ({"name": "k", "allowedIps": "1.2.3.4"}, "allowedIps"),
        ({"name": "k", "allowedIps": ["10.0.0.0/33"]}, "allowedIps"),
        ({"name": "k", "allowedIps": [None]}, "allowedIps"),
    ],
)
def test_create_validation_errors(api, body, field):
    response = api.post("/api/api-keys", json=body)
    assert response.status_code == 400, response.json
    error = response.json["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert any(name.split(".")[0] == field for name in error["details"]["fields"]), error
    # Nothing was created.
    assert len(api.get("/api/api-keys").json["apiKeys"]) == 1


def test_non_object_body_is_400(api):
    response = api.post("/api/api-keys", json=["name"])
    assert response.status_code == 400
    assert response.json["error"]["code"] == "VALIDATION_ERROR"


@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize("plan", ["STARTER", "PRO"])
def test_api_keys_need_enterprise(make_api, plan, method):
    api = make_api(plan=plan)
    body = {"json": {"name": "k"}} if method == "post" else {}
    response = getattr(api, method)("/api/api-keys", **body)
    assert response.status_code == 403
    error = response.json["error"]
    assert error["code"] == "UPGRADE_REQUIRED"
    assert error["requiredPlan"] == "ENTERPRISE"
    assert "Enterprise" in error["message"]


@pytest.mark.parametrize("role, allowed", [("OWNER", True), ("ADMIN", True), ("EDITOR", False),
                                           ("VIEWER", False)])  # fmt: skip
def test_api_keys_need_owner_or_admin(make_api, role, allowed):
    api = make_api(role=role)
    responses = [
        api.get("/api/api-keys"),
        api.post("/api/api-keys", json={"name": "k"}),
        api.delete("/api/api-keys/whatever"),
    ]
    for response in responses:
        if allowed:
            assert response.status_code in (200, 404)
        else:
            assert response.status_code == 403
            assert response.json["error"]["code"] == "FORBIDDEN"


def test_api_keys_need_admin_scope(make_api):
    api = make_api(scopes=["read", "write"])
    response = api.get("/api/api-keys")
    assert response.status_code == 403
    assert response.json["error"]["code"] == "INSUFFICIENT_SCOPE"


def test_database_never_holds_a_full_key(api, app, settings, backend):
    keys = [api.key] + [
        api.post("/api/api-keys", json={"name": f"k{i}"}).json["key"] for i in range(3)
    ]
    for key in keys:
        assert api.get("/api/api-keys", headers={"X-API-Key": key}).status_code == 200
    app.extensions["ci_usage"].flush()
    dump, raw = everything_stored(settings.database, backend)
    for key in keys:
        assert key not in dump
        assert key[len("svc_live_") :] not in dump
    for key in keys:
        assert key.encode() not in raw
