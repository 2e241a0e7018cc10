"""A real ``ci-service serve`` process on a free port."""

from __future__ import annotations

import httpx

from tests.live import LiveServer, run_cli


def test_serve_end_to_end(database_url):
    database = database_url
    assert run_cli(database, "workspaces", "create", "acme", "--plan", "ENTERPRISE").returncode == 0
    created = run_cli(database, "keys", "create", "--workspace", "acme", "--name", "k",
                      "--rate-limit", "5")  # fmt: skip
    key = created.stdout.strip().splitlines()[-1]

    server = LiveServer(database).start()
    try:
        headers = {"X-API-Key": key}
        assert httpx.get(server.url + "/healthz").json()["status"] == "ok"
        assert httpx.get(server.url + "/api/api-keys").status_code == 401
        response = httpx.get(server.url + "/api/api-keys", headers=headers)
        assert response.status_code == 200
        assert response.headers["X-RateLimit-Remaining"] == "4"
        # A key made by the CLI while the server runs is usable at once.
        other = run_cli(database, "keys", "create", "--workspace", "acme", "--name", "k2")
        assert other.returncode == 0, other.stderr
        other_key = other.stdout.strip().splitlines()[-1]
        assert httpx.get(server.url + "/api/api-keys", headers={"X-API-Key": other_key}).is_success
        response = httpx.post(server.url + "/api/api-keys", headers=headers, content=b"{bad")
        assert response.status_code == 415  # no JSON content type
        assert response.json()["error"]["code"] == "UNSUPPORTED_MEDIA_TYPE"
        assert httpx.get(server.url + "/docs").status_code == 200
        assert "/api/api-keys" in httpx.get(server.url + "/openapi.json").json()["paths"]
    finally:
        assert server.stop() == 0
    assert any("stopped" in line for line in server.stderr_lines)

    # The rate-limit window survives the restart: 2 of 5 were used before (the 415 counts).
    with LiveServer(database) as restarted:
        statuses = [
            httpx.get(restarted.url + "/api/api-keys", headers=headers).status_code
            for _ in range(4)
        ]
    assert statuses == [200, 200, 200, 429]


def test_serve_refuses_bad_database_url(tmp_path):
    result = run_cli("mysql://nowhere/db", "serve", "--port", "0")
    assert result.returncode == 1
    assert "unsupported database URL" in result.stderr
    assert "Traceback" not in result.stderr


def test_serve_says_when_postgresql_cannot_be_reached():
    result = run_cli("postgresql://ci:s3cret-pw@127.0.0.1:9/db", "serve", "--port", "0")
    assert result.returncode == 1
    assert "cannot open the database postgresql://ci:***@127.0.0.1:9/db" in result.stderr
    assert "s3cret-pw" not in result.stderr and "Traceback" not in result.stderr
