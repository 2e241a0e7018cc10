"""A postgresql:// database without psycopg2 installed: one line saying what to install, exit
code 2, from every command that opens one, never peewee's traceback."""

from __future__ import annotations

import sys

import pytest
from click.testing import CliRunner

from ci_service.cli import cli
from ci_service.store.db import MissingDriver, make_database

URL = "postgresql://ci@127.0.0.1:9/ci"  # never reached: the driver is asked for first
LINE = 'Error: PostgreSQL needs its driver: pip install "ci-service[postgresql]"'


@pytest.fixture
def no_driver(monkeypatch):
    """As if psycopg2 were not installed: importing it raises ModuleNotFoundError."""
    for name in [m for m in sys.modules if m == "psycopg2" or m.startswith("psycopg2.")]:
        monkeypatch.setitem(sys.modules, name, None)


def test_make_database_names_the_extra(no_driver):
    with pytest.raises(MissingDriver, match=r'pip install "ci-service\[postgresql\]"'):
        make_database(URL)


@pytest.mark.parametrize(
    "args",
    [
        ["--database", URL, "serve", "--port", "0"],
        ["--database", URL, "worker"],
        ["--database", URL, "workspaces", "list"],
        ["--database", "postgres://ci@127.0.0.1:9/ci", "keys", "list", "--workspace", "acme"],
        ["--database", URL, "backup", "{tmp}/ci.dump"],
        ["--database", "{tmp}/ci.db", "migrate-data", "--to", URL],
    ],
    ids=["serve", "worker", "workspaces", "postgres-scheme", "backup", "migrate-data-to"],
)
def test_the_cli_says_what_to_install(no_driver, tmp_path, args):
    result = CliRunner().invoke(cli, [a.format(tmp=tmp_path) for a in args])
    assert result.exit_code == 2, result.output
    assert result.output.splitlines() == [LINE]


def test_other_missing_modules_are_not_taken_for_the_driver(monkeypatch):
    """Only psycopg2's absence becomes the line: another import error is still reported."""
    from ci_service.cli import common

    def missing(*args, **kwargs):
        raise ModuleNotFoundError("No module named 'waitress'", name="waitress")

    monkeypatch.setattr(common, "open_database", missing)
    result = CliRunner().invoke(cli, ["--database", URL, "workspaces", "list"])
    assert isinstance(result.exception, ModuleNotFoundError)
    assert result.exit_code == 1
