"""The shape of the code (issue 30): the layer contracts in pyproject.toml hold, no two
modules import each other (directly or round a longer loop, lazy imports included), no
module is over 500 lines, and the other layers import only the modules a services domain
package names in its ``__all__``."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import grimp
import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "ci_service"
SERVICES = PACKAGE / "services"
MAX_LINES = 500


def build_graph():
    return grimp.build_graph("ci_service", include_external_packages=False, cache_dir=None)


@pytest.fixture(scope="module")
def graph():
    return build_graph()


def import_cycles(graph) -> list[list[str]]:
    edges = nx.DiGraph()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            edges.add_edge(module, imported)
    return [sorted(c) for c in nx.strongly_connected_components(edges) if len(c) > 1]


LINT_IMPORTS = (
    "from importlinter.cli import lint_imports; raise SystemExit(lint_imports(no_cache=True))"
)


def test_layer_contracts_hold():
    # In its own process: import-linter sets up logging its own way, which would silence the
    # loggers later tests read. It reads pyproject.toml from the working directory.
    done = subprocess.run(
        [sys.executable, "-c", LINT_IMPORTS], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_no_import_cycles(graph):
    assert import_cycles(graph) == []


def test_the_cycle_check_finds_a_cycle():
    # The check itself: a made-up import back from the store to the web app is a cycle.
    graph = build_graph()
    graph.add_import(importer="ci_service.store.db", imported="ci_service.web.app")
    assert any("ci_service.store.db" in cycle for cycle in import_cycles(graph))


def test_no_module_is_over_500_lines():
    long = {
        str(path.relative_to(ROOT)): n
        for path in PACKAGE.rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


def domains() -> list[str]:
    return sorted(p.name for p in SERVICES.iterdir() if p.is_dir() and (p / "__init__.py").exists())


@pytest.mark.parametrize("domain", domains())
def test_each_domain_names_its_public_modules(domain):
    package = importlib.import_module(f"ci_service.services.{domain}")
    assert package.__doc__ and len(package.__doc__.strip()) > 40
    modules = {p.stem for p in (SERVICES / domain).glob("*.py")} - {"__init__"}
    assert set(package.__all__) <= modules, f"{domain}.__all__ names a module it does not have"


def test_other_packages_import_only_public_modules(graph):
    private = []
    for domain in domains():
        public = set(importlib.import_module(f"ci_service.services.{domain}").__all__)
        prefix = f"ci_service.services.{domain}"
        for module in graph.find_children(prefix):
            if module.rsplit(".", 1)[1] in public:
                continue
            for importer in graph.find_modules_that_directly_import(module):
                if importer != prefix and not importer.startswith(prefix + "."):
                    private.append(f"{importer} -> {module}")
    assert private == []


WIRING = """
from ci_service.jobs import registry, scheduler
from ci_service.jobs.background import start_background
from ci_service.settings import load_settings

assert not registry.wired() and scheduler._WORK == {}
try:
    start_background(None, load_settings(database="unused.db", job_workers=1))
except RuntimeError as exc:
    assert "import ci_service.services" in str(exc), exc
else:
    raise AssertionError("job workers started with no step handlers")

import ci_service.services  # noqa: E402

assert registry.wired()
assert sorted(scheduler._WORK) == ["delivery", "digest", "upkeep"]
print("wired")
"""


def fresh_interpreter(code: str, cwd) -> str:
    """What ``code`` prints, run by a new Python (nothing imported yet); fails on an error."""
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_loading_the_services_wires_the_layers_below(tmp_path):
    # A fresh interpreter: the job engine alone has no step handlers and refuses to start
    # workers; loading ci_service.services registers the handlers and the scheduled work.
    assert fresh_interpreter(WIRING, tmp_path) == "wired"


# What `serve` imports before it answers (cli/serve.py); the site readers stay out of it.
SERVE_IMPORTS = """
import sys
from ci_service.jobs.background import start_background
from ci_service.services.graph.projection import DealProjector
from ci_service.web.app import create_app
readers = ("ci_service.pipeline.page_kinds", "ci_service.pipeline.pricing.money")
print(" ".join(name for name in readers if name in sys.modules) or "none")
"""


def test_serve_start_up_does_not_load_the_site_readers(tmp_path):
    # Their patterns compile on import (tens of milliseconds of a start-up that should take
    # under half a second); the services need only the kind names and money formatting.
    assert fresh_interpreter(SERVE_IMPORTS, tmp_path) == "none"
