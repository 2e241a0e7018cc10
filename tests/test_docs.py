"""Docs are tested: settings, environment variables, CLI commands, links and the OpenAPI
document. The README is the short way in; the reference is in docs/*.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ci_service.cli import cli
from ci_service.settings import SETTINGS

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
DOCS = "\n".join(page.read_text() for page in PAGES)


def test_every_setting_is_documented():
    for setting in SETTINGS:
        assert f"| `{setting.name}` |" in DOCS, setting.name


def environment_variables() -> set[str]:
    """Every ``CI_SERVICE_*`` variable the service reads: one per setting, and those its
    code names (a name ending in ``_`` is a prefix in prose, not a variable)."""
    names = {f"CI_SERVICE_{setting.name.upper()}" for setting in SETTINGS}
    for source in (ROOT / "ci_service").rglob("*.py"):
        names.update(re.findall(r"\bCI_SERVICE_[A-Z0-9_]*[A-Z0-9]\b", source.read_text()))
    return names


def test_every_environment_variable_is_documented():
    names = environment_variables()
    assert "CI_SERVICE_DATABASE" in names and "CI_SERVICE_SECRET_KEY" in names
    for name in sorted(names):
        assert re.search(rf"\b{name}\b", DOCS), name


def test_every_cli_command_is_documented():
    def walk(command, path):
        for name, sub in getattr(command, "commands", {}).items():
            if getattr(sub, "commands", None):
                yield from walk(sub, [*path, name])
            else:
                yield " ".join([*path, name])

    for command in walk(cli, []):
        assert re.search(rf"ci-service {re.escape(command)}\b", DOCS), command


def github_anchors(text: str) -> set[str]:
    """The anchors GitHub gives the headings of a Markdown page (code blocks aside)."""
    anchors: set[str] = set()
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    for heading in re.findall(r"^#{1,6} +(.+?) *$", text, flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        anchor, n = slug, 0
        while anchor in anchors:
            n += 1
            anchor = f"{slug}-{n}"
        anchors.add(anchor)
    return anchors


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_links_between_pages_resolve(page):
    """Every relative link of the README and docs/*.md names a file that exists and, with a
    ``#``, a heading of that page: moving text between pages must not break one."""
    text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{page.name}: {target}"
        if anchor and linked.suffix == ".md":
            assert anchor in github_anchors(linked.read_text()), f"{page.name}: {target}"


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
