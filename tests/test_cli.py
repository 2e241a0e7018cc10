"""The click CLI: workspaces and keys, output contracts and clear errors."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from ci_service.cli import cli

KEY_RE = re.compile(r"^svc_live_[0-9a-f]{32}$")


def test_workspace_create_prints_id_last(run):
    result = run("workspaces", "create", "acme", "--plan", "ENTERPRISE")
    assert result.exit_code == 0, result.output
    workspace_id = result.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"[0-9a-f]{32}", workspace_id)
    listed = json.loads(run("workspaces", "list", "--json").stdout)
    assert listed[0]["id"] == workspace_id and listed[0]["plan"] == "ENTERPRISE"
    table = run("workspaces", "list").stdout
    assert "acme" in table and "ENTERPRISE" in table


def test_workspace_create_json(run):
    data = json.loads(run("workspaces", "create", "acme", "--plan", "pro", "--json").stdout)
    assert data["name"] == "acme" and data["plan"] == "PRO"


def test_workspace_errors(run):
    assert run("workspaces", "create", "acme").exit_code == 0
    duplicate = run("workspaces", "create", "acme")
    assert duplicate.exit_code == 1 and "already exists" in duplicate.output
    bad_plan = run("workspaces", "create", "other", "--plan", "GOLD")
    assert bad_plan.exit_code == 2 and "GOLD" in bad_plan.output


def test_keys_create_prints_key_alone_last_and_it_works(run, tmp_path):
    run("workspaces", "create", "acme", "--plan", "ENTERPRISE")
    result = run("keys", "create", "--workspace", "acme", "--name", "laptop")
    assert result.exit_code == 0, result.output
    key = result.stdout.strip().splitlines()[-1]
    assert KEY_RE.match(key)

    from ci_service.web.app import create_app

    app = create_app(database=run.database, job_workers=0, scheduler=False)
    response = app.test_client().get("/api/api-keys", headers={"X-API-Key": key})
    assert response.status_code == 200
    assert response.json["apiKeys"][0]["name"] == "laptop"


def test_keys_create_options(run):
    workspace_id = run("workspaces", "create", "acme").stdout.strip().splitlines()[-1]
    result = run(
        "keys", "create", "--workspace", workspace_id, "--name", "ro", "--email", "a@b.co",
        "--role", "viewer", "--scopes", "read", "--expires-at", "2099-01-01T00:00:00Z",
        "--rate-limit", "10", "--allowed-ip", "10.0.0.0/8", "--allowed-ip", "127.0.0.1",
        "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["role"] == "VIEWER"
    assert data["scopes"] == ["read"]
    assert data["rateLimit"] == 10
    assert data["allowedIps"] == ["10.0.0.0/8", "127.0.0.1"]
    assert data["expiresAt"] == "2099-01-01T00:00:00.000Z"
    assert KEY_RE.match(data["key"])


@pytest.mark.parametrize(
    "args, message, code",
    [
        (["--workspace", "nope", "--name", "k"], "workspace 'nope' not found", 1),
        (["--workspace", "acme", "--name", "k", "--role", "KING"], "KING", 2),
        (["--workspace", "acme", "--name", "k", "--scopes", "read,root"], "scopes", 1),
        (["--workspace", "acme", "--name", "k", "--expires-at", "2001-01-01T00:00:00Z"],
         "expiresAt", 1),
        (["--workspace", "acme", "--name", "k", "--expires-at", "soon"], "expiresAt", 1),
        (["--workspace", "acme", "--name", "k", "--rate-limit", "0"], "rateLimit", 1),
        (["--workspace", "acme", "--name", "k", "--allowed-ip", "nope"], "allowedIps", 1),
        (["--workspace", "acme", "--name", "x" * 101], "name", 1),
        (["--workspace", "acme", "--name", "k", "--email", "nobody"], "email", 1),
        (["--workspace", "acme"], "--name", 2),
    ],
)  # fmt: skip
def test_keys_create_errors(run, args, message, code):
    run("workspaces", "create", "acme")
    result = run("keys", "create", *args)
    assert result.exit_code == code, result.output
    assert message in result.output
    listed = json.loads(run("keys", "list", "--workspace", "acme", "--json").stdout)
    assert listed == []  # nothing half-created


def test_keys_list_and_revoke(run):
    run("workspaces", "create", "acme")
    run("keys", "create", "--workspace", "acme", "--name", "one")
    listed = json.loads(run("keys", "list", "--workspace", "acme", "--json").stdout)
    assert [k["name"] for k in listed] == ["one"] and listed[0]["revokedAt"] is None
    assert "one" in run("keys", "list", "--workspace", "acme").stdout

    revoked = run("keys", "revoke", listed[0]["id"])
    assert revoked.exit_code == 0 and "Revoked" in revoked.stdout
    listed = json.loads(run("keys", "list", "--workspace", "acme", "--json").stdout)
    assert listed[0]["revokedAt"] is not None

    missing = run("keys", "revoke", "nope")
    assert missing.exit_code == 1 and "not found" in missing.output


def test_unsupported_database_url_is_a_clear_error(tmp_path):
    result = CliRunner().invoke(cli, ["--database", "mysql://x/y", "workspaces", "list"])
    assert result.exit_code == 1
    assert "unsupported database URL" in result.output


def test_every_command_has_help():
    def walk(command, path):
        yield path, command
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, [*path, name])

    for path, command in walk(cli, []):
        result = CliRunner().invoke(cli, [*path, "--help"])
        assert result.exit_code == 0, path
        assert (command.help or "").strip(), f"no help for {' '.join(path)}"
