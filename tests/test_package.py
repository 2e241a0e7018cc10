"""The package as users get it (issue 25): the wheel and the sdist built from the tracked files
hold every file the service reads at run time, and a fresh virtual environment with only the
built wheel installed serves every page.

The archives are built with PyPA's ``build`` (sdist, then the wheel from that sdist, as a
release is) from a temporary copy of the files git tracks (and new ones it does not ignore),
never inside the checkout, so no ``build/`` or ``*.egg-info`` is left there. The smoke
venv is a plain ``python -m venv`` where pip installs the wheel alone; its dependencies come
from the package index (or pip's cache) as for a user. No database backend fixture: the
installed service runs on its own temporary SQLite file.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

import ci_service
from tests.live import LiveServer, run_cli
from tests.web_support import csrf_of

ROOT = Path(__file__).resolve().parent.parent
EMAIL = "owner@acme.example"
PASSWORD = "a long smoke-test password"
INSTALL_TIMEOUT = 900  # a cold pip cache downloads every dependency once

LINK = re.compile(r"<link\b[^>]*\bhref=\"([^\"]+)\"")
SCRIPT = re.compile(r"<script\b[^>]*\bsrc=\"([^\"]+)\"")
NAV = re.compile(r"<nav\b[^>]*>(.*?)</nav>", re.S)
HREF = re.compile(r"href=\"([^\"]+)\"")
CONTENT_TYPES = {
    ".css": ("text/css",),
    ".js": ("text/javascript", "application/javascript"),
    ".svg": ("image/svg+xml",),  # the favicon
}


def run(command: list[str], *, timeout: float = 300, **options) -> str:
    """Run ``command``; its output, or a failure that shows it."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, **options)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{command} failed ({done.returncode}):\n{output}"
    return done.stdout


def tracked_files() -> list[str]:
    """What git tracks, plus new files not yet added that .gitignore does not exclude: the
    files a commit of this working tree would hold (a new module must not fail the build)."""
    out = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT)
    return [name for name in out.split("\0") if name and (ROOT / name).is_file()]


def tracked_data_files() -> list[str]:
    """Every tracked non-Python file under ci_service/ (what package data must carry)."""
    return [n for n in tracked_files() if n.startswith("ci_service/") and not n.endswith(".py")]


def new_venv(path: Path) -> Path:
    """A fresh virtual environment (no system site-packages); its python."""
    run([sys.executable, "-m", "venv", str(path)])
    return path / "bin" / "python"


@dataclass
class Archives:
    wheel: Path
    sdist: Path


@dataclass
class Installed:
    python: Path
    program: list[str]  # the wheel's console script: ``ci-service``
    workdir: Path  # not the checkout: nothing there may shadow the installed package


@dataclass
class Served:
    url: str
    key: str
    competitor: dict


@pytest.fixture(scope="session")
def archives(tmp_path_factory) -> Archives:
    work = tmp_path_factory.mktemp("package")
    source = work / "source"
    for name in tracked_files():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    builder = new_venv(work / "builder")
    run([str(builder), "-m", "pip", "install", "--quiet", "--prefer-binary", "build>=1.2,<2"])
    dist = work / "dist"
    run([str(builder), "-m", "build", "--outdir", str(dist), str(source)], cwd=work)
    wheels, sdists = list(dist.glob("*.whl")), list(dist.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(dist.iterdir())
    return Archives(wheel=wheels[0], sdist=sdists[0])


@pytest.fixture(scope="module")
def installed(archives, tmp_path_factory) -> Installed:
    work = tmp_path_factory.mktemp("installed")
    python = new_venv(work / "venv")
    pip = [str(python), "-m", "pip", "install", "--quiet", "--prefer-binary", "--no-input"]
    run([*pip, str(archives.wheel)], timeout=INSTALL_TIMEOUT, cwd=work)
    return Installed(python=python, program=[str(python.parent / "ci-service")], workdir=work)


@pytest.fixture(scope="module")
def served(installed) -> Iterator[Served]:
    database = str(installed.workdir / "ci-service.db")

    def cli(*args: str, input: str | None = None) -> str:
        done = run_cli(database, *args, program=installed.program, input=input)
        assert done.returncode == 0, f"ci-service {' '.join(args)}:\n{done.stderr}"
        return done.stdout.strip().splitlines()[-1]

    cli("workspaces", "create", "acme", "--plan", "ENTERPRISE")
    cli("users", "create", "--workspace", "acme", "--email", EMAIL, "--role", "OWNER",
        "--password-stdin", input=PASSWORD + "\n")  # fmt: skip
    key = cli("keys", "create", "--workspace", "acme", "--name", "smoke")
    # No job threads: the competitor added below must not be fetched from the network.
    server = LiveServer(database, "--no-scheduler", "--no-jobs", program=installed.program)
    server.start(timeout=60)
    try:
        answer = httpx.post(
            server.url + "/api/competitors",
            headers={"X-API-Key": key},
            json={"name": "Rivalco", "websiteUrl": "https://rivalco.example"},
        )
        assert answer.status_code in (200, 201), answer.text
        yield Served(url=server.url, key=key, competitor=answer.json()["competitor"])
        assert server.stop() == 0, "".join(server.stderr_lines)
    finally:
        server.kill()  # only if stop() did not end it
    assert server.process.poll() is not None


def assets_of(page: str) -> set[str]:
    """The same-origin stylesheet and script URLs a page loads."""
    urls = {html.unescape(u) for u in LINK.findall(page) + SCRIPT.findall(page)}
    return {u for u in urls if u.startswith("/") and not u.startswith("//")}


def assert_assets_served(client: httpx.Client, urls: set[str]) -> None:
    assert urls, "the page loads no stylesheet or script"
    for url in sorted(urls):
        answer = client.get(url)
        assert answer.status_code == 200, f"{url}: {answer.status_code}"
        expected = CONTENT_TYPES[Path(url.split("?")[0]).suffix]
        assert answer.headers["content-type"].startswith(expected), (url, answer.headers)
        assert answer.content, url


def assert_html_page(answer: httpx.Response, status: int = 200) -> str:
    where = answer.request.url
    assert answer.status_code == status, f"{where}: {answer.status_code}\n{answer.text[:2000]}"
    assert answer.headers["content-type"].startswith("text/html"), where
    return answer.text


def nav_links(page: str) -> list[str]:
    return [html.unescape(href) for nav in NAV.findall(page) for href in HREF.findall(nav)]


def test_wheel_and_sdist_hold_every_tracked_data_file(archives):
    expected = tracked_data_files()
    assert "ci_service/web/pages/templates/error.html" in expected  # the list is not empty
    in_wheel = set(zipfile.ZipFile(archives.wheel).namelist())
    with tarfile.open(archives.sdist) as sdist:
        # An sdist's members sit under its "name-version/" folder.
        in_sdist = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert [name for name in expected if name not in in_wheel] == []
    assert [name for name in expected if name not in in_sdist] == []
    assert not [name for name in in_wheel if "__pycache__" in name or name.endswith(".pyc")]


def test_installed_wheel_runs_its_own_copy_and_version(installed):
    where = run(
        [str(installed.python), "-c", "import ci_service; print(ci_service.__file__)"],
        cwd=installed.workdir,
    )
    # The wheel's copy, not the checkout (an editable install or PYTHONPATH would show here).
    assert Path(where.strip()).is_relative_to(installed.python.parent.parent), where
    version = run([*installed.program, "--version"], cwd=installed.workdir)
    assert version.strip() == f"ci-service, version {ci_service.__version__}"


def test_signin_page_and_its_static_files(served):
    with httpx.Client(base_url=served.url) as client:
        page = assert_html_page(client.get("/signin"))
        assert 'name="password"' in page and csrf_of(page)
        assert_assets_served(client, assets_of(page))


def test_signed_in_every_page_of_the_nav_renders(served):
    with httpx.Client(base_url=served.url, follow_redirects=True) as client:
        form = client.get("/signin").text
        home = client.post(
            "/signin", data={"csrf_token": csrf_of(form), "email": EMAIL, "password": PASSWORD}
        )
        assert home.url.path == "/", home.url
        home_page = assert_html_page(home)
        assert "Rivalco" in home_page
        pages = {"/": home_page}
        # The main nav, then each settings tab; plus pages reached from content.
        queue = nav_links(home_page)
        queue += [f"/competitors/{served.competitor['id']}", "/search?q=Rivalco"]
        queue += ["/matrix/solutions", "/account/password"]
        while queue:
            path = queue.pop(0)
            if path in pages or not path.startswith("/") or path.startswith("//"):
                continue
            pages[path] = assert_html_page(client.get(path))
            queue += nav_links(pages[path])
        assert {"/", "/matrix", "/graph", "/deals", "/jobs", "/settings"} <= pages.keys()
        assert sum(path.startswith("/settings/") for path in pages) >= 3, sorted(pages)
        assert_assets_served(client, set().union(*(assets_of(page) for page in pages.values())))
        # error.html, what a missing template turned into a 500 everywhere.
        missing = assert_html_page(client.get("/competitors/no-such-id"), 404)
        assert "ci-service" in missing


def test_openapi_page_and_document(served):
    with httpx.Client(base_url=served.url) as client:
        docs = assert_html_page(client.get("/docs"))
        assert_assets_served(client, assets_of(docs))
        document = client.get("/openapi.json")
        assert document.status_code == 200
        assert "/api/competitors" in document.json()["paths"]


def test_tool_call_over_mcp(served):
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "list_competitors", "arguments": {}},
    }
    answer = httpx.post(served.url + "/mcp", json=body, headers={"X-API-Key": served.key})
    assert answer.status_code == 200, answer.text
    result = answer.json()["result"]
    assert result["isError"] is False
    names = [row["name"] for row in result["structuredContent"]["competitors"]]
    assert names == ["Rivalco"]
