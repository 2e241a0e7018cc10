"""Helpers for the pipeline tests: a served copy of the fixture site and the job runner.

Every test serves its own copy of ``site/`` (so it may change pages) from a local threaded
HTTP server (``tests.intel_support.FixtureServer``), with the PDF datasheet written at
setup. Fetchers may reach loopback through ``CI_SERVICE_ALLOW_PRIVATE_URLS=1`` and crawl
without a politeness delay; each test sets that environment with ``monkeypatch``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ci_service.jobs.runner import JobRunner
from tests.intel_support import make_pdf

SITE = Path(__file__).parent / "site"
DATASHEET_LINES = [
    "FlowDesk Datasheet",
    "Key features",
    "- Visual workflow builder",
    "- SLA management",
    "- Audit logs",
    "Pricing",
    "Pro plan: 49 USD per agent per month",
]


def copy_site(target: Path) -> Path:
    shutil.copytree(SITE, target)
    (target / "docs").mkdir()
    (target / "docs" / "datasheet.pdf").write_bytes(
        make_pdf([DATASHEET_LINES], title="FlowDesk Datasheet")
    )
    return target


def run_jobs(max_jobs: int = 20) -> int:
    """Run every queued job in this thread (the app's database must be open)."""
    return JobRunner(0).run_until_idle(max_jobs)


def job(api, job_id: str) -> dict:
    response = api.get(f"/api/jobs/{job_id}")
    assert response.status_code == 200, response.json
    return response.json["job"]


def add_competitor(api, url: str, name: str = "Globex", first_run: bool = True) -> tuple:
    response = api.post(
        "/api/competitors", json={"name": name, "websiteUrl": url, "isFirstRun": first_run}
    )
    assert response.status_code == 200, response.json
    return response.json["competitor"]["id"], response.json["jobId"]


def graph_labels(api) -> dict[str, list[str]]:
    nodes = api.get("/api/knowledge-graph").json["elements"]["nodes"]
    labels: dict[str, list[str]] = {}
    for node in nodes:
        labels.setdefault(node["data"]["label"], []).append(node["data"]["name"])
    return labels
