"""Helpers for the pipeline tests: a served copy of the fixture site and the job runner.

Every test serves its own copy of ``site/`` (so it may change pages) from a local threaded
HTTP server (``tests.intel_support.FixtureServer``), with the PDF datasheet written at
setup. Fetchers may reach loopback through ``CI_SERVICE_ALLOW_PRIVATE_URLS=1`` and crawl
without a politeness delay; each test sets that environment with ``monkeypatch``.
"""

from __future__ import annotations

import shutil
from datetime import timedelta
from email.utils import format_datetime
from pathlib import Path

from ci_service.jobs.runner import JobRunner
from ci_service.timeutil import utcnow
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


CHATDESK = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>ChatDesk – Live chat software | Globex</title>
<meta name="description" content="ChatDesk is live chat for support teams."></head>
<body><main><h1>ChatDesk</h1>
<p>ChatDesk is the live chat that answers every visitor in seconds.</p>
<h2>Features</h2><ul>
<li>Chat routing: send each chat to the agent who can answer it</li>
<li>Canned replies: answer common questions with one click</li>
</ul></main></body></html>"""


def edit_file(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def change_site(root: Path) -> None:
    """A new product, a new person, a news item and a new price on the fixture site."""
    (root / "products" / "chatdesk.html").write_text(CHATDESK)
    edit_file(
        root / "products" / "index.html",
        "</ul>",
        '<li><a href="/products/chatdesk">ChatDesk</a> – live chat for support teams</li></ul>',
    )
    edit_file(
        root / "index.html",
        '<a href="/pricing">',
        '<a href="/products/chatdesk">ChatDesk</a>\n    <a href="/pricing">',
    )
    edit_file(
        root / "about.html",
        "<p>Ken Adams, CTO</p>",
        "<p>Ken Adams, CTO</p>\n    <p>Jane Doe, Chief Revenue Officer</p>",
    )
    published = format_datetime(utcnow() - timedelta(days=1), usegmt=True)
    edit_file(
        root / "news" / "feed.xml",
        "<item>",
        f"""<item><title>Globex opens a Berlin office</title>
      <link>{{base}}/news/berlin</link><guid>{{base}}/news/berlin</guid>
      <pubDate>{published}</pubDate>
      <description>Globex Software opens its first office in Europe.</description>
    </item>
    <item>""",
    )
    edit_file(root / "pricing.html", "$49 per agent", "$59 per agent")
