"""One error envelope everywhere: {"error": {"code", "message", "details"?}}."""

from __future__ import annotations

import logging

import pytest

from ci_service.services.identity import api_keys as apikeys


def _assert_envelope(response, status, code):
    assert response.status_code == status
    assert response.mimetype == "application/json"
    body = response.json
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    return body["error"]


def test_malformed_json_is_400(api):
    response = api.client.post(
        "/api/api-keys",
        data='{"name": "x",',
        headers={"X-API-Key": api.key, "Content-Type": "application/json"},
    )
    _assert_envelope(response, 400, "VALIDATION_ERROR")


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded"])
def test_wrong_content_type_is_415(api, content_type):
    response = api.client.post(
        "/api/api-keys",
        data='{"name": "x"}',
        headers={"X-API-Key": api.key, "Content-Type": content_type},
    )
    _assert_envelope(response, 415, "UNSUPPORTED_MEDIA_TYPE")


def test_oversized_body_is_413(api):
    big = '{"name": "' + "x" * (1024 * 1024 + 10) + '"}'
    response = api.client.post(
        "/api/api-keys",
        data=big,
        headers={"X-API-Key": api.key, "Content-Type": "application/json"},
    )
    _assert_envelope(response, 413, "PAYLOAD_TOO_LARGE")


def test_unknown_route_is_404_envelope(client, api):
    _assert_envelope(client.get("/api/nothing-here"), 404, "NOT_FOUND")
    _assert_envelope(api.get("/api/nothing-here"), 404, "NOT_FOUND")
    _assert_envelope(client.get("/nothing"), 404, "NOT_FOUND")


def test_wrong_method_is_405_envelope(api):
    response = api.put("/api/api-keys", json={})
    error = _assert_envelope(response, 405, "METHOD_NOT_ALLOWED")
    assert "GET" in response.headers["Allow"]
    assert error["message"]


def test_unexpected_exception_is_500_without_internals(api, monkeypatch, caplog):
    def explode(workspace_id):
        raise RuntimeError("secret internal detail")

    monkeypatch.setattr(apikeys, "list_keys", explode)
    with caplog.at_level(logging.ERROR, logger="ci_service.web"):
        response = api.get("/api/api-keys")
    error = _assert_envelope(response, 500, "INTERNAL_ERROR")
    text = response.get_data(as_text=True)
    assert "secret internal detail" not in text and "Traceback" not in text
    request_id = error["details"]["requestId"]
    assert response.headers["X-Request-Id"] == request_id
    logged = [r for r in caplog.records if request_id in r.getMessage()]
    assert logged and logged[0].exc_info is not None
    assert api.key not in caplog.text  # no secrets in logs


def test_validation_error_names_fields(api):
    response = api.post("/api/api-keys", json={"name": 7, "rateLimit": "x"})
    error = _assert_envelope(response, 400, "VALIDATION_ERROR")
    assert {"name", "rateLimit"} <= set(error["details"]["fields"])


def test_every_response_has_request_id(client):
    assert client.get("/healthz").headers["X-Request-Id"]
    assert client.get("/api/api-keys").headers["X-Request-Id"]
