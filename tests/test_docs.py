"""Docs are tested: settings, CLI commands and the OpenAPI document."""

from __future__ import annotations

from pathlib import Path

from ci_service.cli import cli
from ci_service.settings import SETTINGS

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def test_every_setting_is_documented():
    for setting in SETTINGS:
        assert f"| `{setting.name}` |" in README, setting.name


def test_every_cli_command_is_documented():
    def walk(command, path):
        for name, sub in getattr(command, "commands", {}).items():
            if getattr(sub, "commands", None):
                yield from walk(sub, [*path, name])
            else:
                yield " ".join([*path, name])

    for command in walk(cli, []):
        assert f"ci-service {command}" in README, command


def test_openapi_describes_every_api_route(app, client):
    spec = client.get("/openapi.json").json
    assert spec["components"]["securitySchemes"]["ApiKeyAuth"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-API-Key",
    }
    assert spec["security"] == [{"ApiKeyAuth": []}]
    documented = {
        (path, method.upper())
        for path, operations in spec["paths"].items()
        for method in operations
        if method != "parameters"
    }
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/"):
            continue
        path = rule.rule.replace("<", "{").replace(">", "}")
        path = path.replace("{path:", "{").replace("{int:", "{")
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            assert (path, method) in documented, (path, method)
            operation = spec["paths"][path][method.lower()]
            statuses = set(operation["responses"])
            assert "200" in statuses or "201" in statuses, (path, method)
            assert {"401", "429"} <= statuses, (path, method, statuses)


def test_docs_page_is_served_offline(client):
    page = client.get("/docs").get_data(as_text=True)
    assert "/docs/assets/swagger-ui-bundle.js" in page
    assert "http://" not in page.replace("http://localhost", "") and "https://" not in page
    assert '"validatorUrl": null' in page
    asset = client.get("/docs/assets/swagger-ui-bundle.js")
    assert asset.status_code == 200 and len(asset.data) > 100_000
    asset.close()
