def test_healthz_needs_no_key(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json["status"] == "ok"


def test_authenticated_call_lists_keys(api):
    response = api.get("/api/api-keys")
    assert response.status_code == 200
    assert len(response.json["apiKeys"]) == 1
