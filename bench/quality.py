"""``python -m bench.quality``: how much of a real website the pipeline understands.

For each site (the real-site copies in ``../shared/realsites`` when that folder is there,
and the project's own fixture site), it serves the site on loopback, creates a workspace
with one product of ours, adds the site as a competitor (``isFirstRun``), runs the collect
job to its end in this process, and reads back through the REST API what was stored in
*structured places*: the company profile, the offerings with features and pricing, the
graph's PERSON / MARKET_EVENT nodes and the battlecard. Then it checks the facts a person
learns from reading the site (``bench/quality_facts.py``) against those places: a fact
counts only when a structured record states it **and** carries evidence (an evidence id,
and a quote found in that evidence item's content where the record has quotes).

It prints, per site and per kind (profile, products, prices, people, news, funding,
features, ...), facts found / facts listed, then every battlecard item with whether its
evidence resolves and carries its quote. ``--json`` prints the same as JSON. Exit code 0
unless a site's collect did not complete.

This is a measurement, not a test: it has no thresholds. docs/quality.md quotes its figures.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
REALSITES = REPO.parent / "shared" / "realsites"
FIXTURE_SITE = REPO / "tests" / "pipeline_fixtures" / "site"
FIXTURE_SITES = {"fixture": FIXTURE_SITE, "fixture-sr": FIXTURE_SITE.with_name("site_sr")}

OUR_PRODUCT = {
    "name": "Acme Apps",
    "description": "Acme Apps is a low-code platform to build internal tools and workflows.",
    "audience": "IT teams",
    "valueProps": ["Single sign-on and audit logs on every plan", "24/7 support"],
    "features": [
        {"name": "Single sign-on", "description": "SAML and OIDC sign-in"},
        {"name": "Audit logs", "description": "Every change recorded"},
        {"name": "Workflow automation", "description": "Automate approvals"},
        {"name": "REST API", "description": "Connect any system"},
        {"name": "Self-hosting", "description": "Run it on your own servers"},
    ],
    "pricing": [
        {"name": "Team", "price": 8, "currency": "USD", "period": "month", "unit": "per user"},
        {"name": "Enterprise", "price": None, "onRequest": True},
    ],
}
OUR_ORGANIZATION = {
    "name": "Acme",
    "websiteUrl": "https://acme.example",
    "companyProfile": {"yearFounded": 2009, "employeeCount": "400", "headquarters": "Boston"},
}


@contextlib.contextmanager
def loopback_env():
    """What a benchmark run over local copies of sites needs: crawling loopback allowed, no
    politeness delay, no language model (the rules' output is what is measured)."""
    saved = dict(os.environ)
    os.environ.update(CI_SERVICE_ALLOW_PRIVATE_URLS="1", CI_SERVICE_CRAWL_DELAY_SECONDS="0")
    for name in ("CI_SERVICE_LLM_BASE_URL", "CI_SERVICE_LLM_MODEL"):
        os.environ.pop(name, None)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def serve_realsite(folder: Path):
    """The real-site copy served by its own ``serve.py`` (it rewrites ``__BASE_URL__``)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(REALSITES / "serve.py"), str(folder), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                httpx.get(base + "/", timeout=1)
                break
            except httpx.TransportError:
                if process.poll() is not None:
                    raise RuntimeError(f"serve.py for {folder} exited") from None
                time.sleep(0.05)
        yield base + "/"
    finally:
        process.terminate()
        process.wait(10)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Static files as the fixture site expects them (the way ``tests.intel_support``'s
    server answers): ``/products/flowdesk`` is ``products/flowdesk.html`` and ``{base}`` in
    text files is the server's address."""

    def do_GET(self):  # noqa: N802 (http.server's naming)
        path = Path(self.translate_path(self.path))
        for candidate in (path, path.with_name(path.name + ".html"), path / "index.html"):
            if candidate.is_file():
                body = candidate.read_bytes()
                kind = self.guess_type(str(candidate))
                if kind.startswith("text/") or kind.endswith("xml"):
                    base = f"http://{self.headers.get('Host', '127.0.0.1')}"
                    body = body.replace(b"{base}", base.encode())
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
        self.send_error(404)

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve_folder(folder: Path):
    """A plain static server for the project's fixture site."""
    from bench.corpus.serve import serve_http

    with serve_http(functools.partial(_QuietHandler, directory=str(folder))) as url:
        yield url


@dataclass
class Record:
    """One structured statement the service holds, with whether its evidence checks out."""

    place: str  # profile.headquarters, offering, feature, plan, person, event, funding, ...
    text: str
    evidenced: bool


@dataclass
class Knowledge:
    competitor: dict[str, Any]
    offerings: list[dict[str, Any]]
    nodes: list[dict[str, Any]]
    battlecard: dict[str, Any] | None
    evidence: dict[str, dict[str, Any]]
    intel: dict[str, dict[str, Any]]
    records: list[Record] = field(default_factory=list)


class Api:
    def __init__(self, client: Any, key: str):
        self.client, self.headers = client, {"X-API-Key": key}

    def get(self, path: str) -> dict[str, Any]:
        response = self.client.get(path, headers=self.headers)
        if response.status_code != 200:
            raise RuntimeError(f"GET {path}: {response.status_code} {response.get_data(True)}")
        return response.get_json()

    def send(self, method: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
        response = self.client.open(path, method=method, json=body, headers=self.headers)
        if response.status_code not in (200, 201):
            raise RuntimeError(f"{method} {path}: {response.status_code} {response.get_data(True)}")
        return response.get_json()


def _quote_ok(citation: dict[str, Any], intel: dict[str, dict[str, Any]]) -> bool:
    item = intel.get(citation.get("evidenceId", ""))
    if item is None:
        return False
    quote = " ".join(str(citation.get("quote", "")).split()).casefold()
    return bool(quote) and quote in " ".join(item["content"].split()).casefold()


def _evidenced(record: dict[str, Any], intel: dict[str, dict[str, Any]]) -> bool:
    """Evidence ids that all exist, and quotes (where given) found in their items."""
    ids = record.get("evidenceIds") or []
    quotes = record.get("quotes") or []
    if not ids or any(i not in intel for i in ids):
        return False
    return all(_quote_ok(q, intel) for q in quotes)


def collect_records(k: Knowledge) -> list[Record]:
    profile = k.competitor.get("companyProfile") or {}
    sources = profile.get("sources") or {}
    quotes = profile.get("quotes") or {}
    out: list[Record] = []
    for name in ("yearFounded", "headquarters", "employeeCount", "revenue", "industry"):
        if profile.get(name) not in (None, ""):
            record = {"evidenceIds": sources.get(name), "quotes": quotes.get(name)}
            out.append(Record(f"profile.{name}", str(profile[name]), _evidenced(record, k.intel)))
    for kind in ("funding", "customers", "partners"):
        for item in profile.get(kind) or []:
            out.append(Record(f"profile.{kind}", json.dumps(item), _evidenced(item, k.intel)))
    for offering in k.offerings:
        features = offering.get("features") or []
        plans = offering.get("pricing") or []
        evidenced = _evidenced(offering, k.intel) or any(
            _evidenced(f, k.intel) for f in features + plans
        )
        text = f"{offering['name']} — {offering.get('description', '')}"
        out.append(Record("offering", text, evidenced))
        for feature in features:
            text = f"{offering['name']}: {feature['name']} — {feature.get('description', '')}"
            out.append(Record("feature", text, _evidenced(feature, k.intel)))
        for plan in plans:
            out.append(
                Record("plan", f"{offering['name']}: {json.dumps(plan)}", _evidenced(plan, k.intel))
            )
    news_titles = {
        " ".join(i["title"].split()).casefold()
        for i in k.intel.values()
        if i.get("sourceType") == "NEWS"
    }
    for node in k.nodes:
        data = node["data"]
        if data["label"] == "PERSON":
            text = f"{data['name']} {data.get('title', '')}"
            out.append(Record("person", text, _evidenced(data, k.intel)))
        elif data["label"] == "MARKET_EVENT":
            text = f"{data['name']} {data.get('date', '')}"
            evidenced = _evidenced(data, k.intel) or any(
                t and t in " ".join(data["name"].split()).casefold() for t in news_titles
            )
            out.append(Record("event", text, evidenced))
        elif data["label"] not in ("COMPETITOR", "ORGANIZATION", "DOCUMENT", "TOPIC"):
            out.append(Record(f"node.{data['label']}", data["name"], _evidenced(data, k.intel)))
    for section, item in battlecard_items(k.battlecard):
        text = " ".join(str(item.get(key, "")) for key in ("title", "description", "objection"))
        out.append(Record(f"battlecard.{section}", text, _evidenced(item, k.intel)))
    return out


def battlecard_items(card: dict[str, Any] | None) -> list[tuple[str, dict[str, Any]]]:
    if not card:
        return []
    content = card.get("content") or {}
    items = []
    for section in ("whyWeWin", "whyWeLose", "objections", "talkingPoints"):
        items.extend((section, item) for item in content.get(section) or [])
    singles = (("killShot", "killShotEvidenceIds"), ("pricingWedge", "pricingEvidenceIds"))
    for section, ids_key in singles:
        if content.get(section):
            items.append(
                (
                    section,
                    {
                        "title": content[section],
                        "evidenceIds": content.get(ids_key) or [],
                        "quotes": content.get(f"{section}Quotes") or [],
                    },
                )
            )
    return items


def read_back(api: Api, competitor_id: str) -> Knowledge:
    competitor = api.get(f"/api/competitors/{competitor_id}")["competitor"]
    offerings = [
        o for o in api.get("/api/offerings")["offerings"] if o.get("competitorId") == competitor_id
    ]
    nodes = api.get("/api/knowledge-graph")["elements"]["nodes"]
    intel = {i["id"]: i for i in api.get(f"/api/intel?competitorId={competitor_id}")["intelItems"]}
    card, evidence = None, {}
    for row in api.get(f"/api/battlecards?competitorId={competitor_id}").get("battlecards", []):
        full = api.get(f"/api/battlecards/{row['id']}?includeEvidence=true")
        card, evidence = full["battlecard"], full.get("evidence") or {}
        break
    knowledge = Knowledge(competitor, offerings, nodes, card, evidence, intel)
    knowledge.records = collect_records(knowledge)
    return knowledge


def collect_site(
    name: str, url: str, workdir: Path, company: str = ""
) -> tuple[Knowledge, dict[str, Any]]:
    """Collect the site at ``url`` as a competitor named ``company`` (as a user would name
    it; the site's short name when not given) in a workspace of its own."""
    from ci_service.jobs.runner import JobRunner
    from ci_service.services.identity import api_keys as apikeys
    from ci_service.services.workspace.workspaces import create_workspace
    from ci_service.settings import load_settings
    from ci_service.store.db import connection
    from ci_service.web.app import create_app, shutdown_app

    settings = load_settings(database=str(workdir / f"{name}.db"), job_workers=0, scheduler=False)
    app = create_app(settings)
    try:
        client = app.test_client()
        with connection():
            workspace = create_workspace(f"quality-{name}", "ENTERPRISE")
            user = apikeys.ensure_user(workspace, None, "OWNER")
            _row, key = apikeys.create_key(user, name="quality")
        api = Api(client, key)
        api.send("PATCH", "/api/organizations", OUR_ORGANIZATION)
        api.send("POST", "/api/products", OUR_PRODUCT)
        created = api.send(
            "POST",
            "/api/competitors",
            {"name": company or name, "websiteUrl": url, "isFirstRun": True},
        )
        started = time.monotonic()
        JobRunner(0).run_until_idle(20)
        elapsed = time.monotonic() - started
        job = api.get(f"/api/jobs/{created['jobId']}")["job"]
        knowledge = read_back(api, created["competitor"]["id"])
    finally:
        shutdown_app(app)
    return knowledge, {"job": job, "seconds": round(elapsed, 1)}


def junk_items(k: Knowledge) -> list[str]:
    """Stored offerings, features, plans, people, investors and news items that are site
    chrome, legal or utility text (``quality_facts.junk_reason``)."""
    from bench.quality_facts import junk_reason

    candidates: list[tuple[str, str, str]] = []
    described: dict[tuple[str, str], str] = {}
    for offering in k.offerings:
        candidates.append(("offering", offering["name"], ""))
        described["offering", offering["name"]] = offering.get("description") or ""
        for feature in offering.get("features") or []:
            candidates.append(("feature", feature["name"], ""))
            described["feature", feature["name"]] = feature.get("description") or ""
        candidates.extend(("plan", p.get("name") or "", "") for p in offering.get("pricing") or [])
    for item in (k.competitor.get("companyProfile") or {}).get("funding") or []:
        for investor in item.get("investors") or []:
            candidates.append(("investor", str(investor), ""))
    for node in k.nodes:
        data = node["data"]
        if data["label"] == "PERSON":
            candidates.append(("person", data["name"], ""))
        elif data["label"] == "MARKET_EVENT":
            candidates.append(("news", data["name"], data.get("url") or ""))
    for item in k.intel.values():
        if item.get("sourceType") == "NEWS":
            candidates.append(("news", item.get("title") or "", item.get("url") or ""))
    reasons = (
        junk_reason(place, name, url, described.get((place, name), ""))
        for place, name, url in candidates
    )
    return sorted({r for r in reasons if r})


def score(knowledge: Knowledge, facts: list[Any]) -> list[tuple[Any, Record | None]]:
    results = []
    for fact in facts:
        match = next(
            (r for r in knowledge.records if r.evidenced and fact.matches(r)),
            None,
        )
        results.append((fact, match))
    return results


def sites() -> list[tuple[str, Any, Any]]:
    from bench import quality_facts

    found = []
    for name, facts in quality_facts.SITES.items():
        if name in FIXTURE_SITES:
            if FIXTURE_SITES[name].is_dir():
                found.append((name, functools.partial(serve_folder, FIXTURE_SITES[name]), facts))
        elif (REALSITES / name).is_dir():
            found.append((name, functools.partial(serve_realsite, REALSITES / name), facts))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.quality", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--site", action="append", help="only these sites (repeatable)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--verbose", action="store_true", help="list every fact and record")
    parser.add_argument(
        "--corpus",
        action="store_true",
        help="the development corpus (bench/corpus) by group: tuning and check",
    )
    parser.add_argument("--group", choices=("tuning", "check"), help="with --corpus: one group")
    parser.add_argument(
        "--jobs", type=int, default=2, help="with --corpus: sites collected at once (processes)"
    )
    args = parser.parse_args(argv)
    if args.corpus:
        from bench.corpus.score import corpus_main

        return corpus_main(args)
    report, failed = [], False
    with loopback_env(), tempfile.TemporaryDirectory(prefix="ci-quality-") as tmp:
        for name, server, facts in sites():
            if args.site and name not in args.site:
                continue
            with server() as url:
                knowledge, run = collect_site(name, url, Path(tmp))
            scored = score(knowledge, facts)
            status = knowledge.competitor.get("status")
            failed = failed or status != "COMPLETE"
            report.append(site_report(name, knowledge, run, scored))
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for site in report:
            print_site(site, verbose=args.verbose)
    return 1 if failed else 0


def site_report(name: str, k: Knowledge, run: dict[str, Any], scored: list) -> dict[str, Any]:
    kinds: dict[str, list[int]] = {}
    for fact, match in scored:
        counts = kinds.setdefault(fact.kind, [0, 0])
        counts[0] += match is not None
        counts[1] += 1
    items = []
    for section, item in battlecard_items(k.battlecard):
        items.append(
            {
                "section": section,
                "text": item.get("title") or item.get("objection") or "",
                "evidenceResolves": _evidenced(item, k.intel),
            }
        )
    return {
        "site": name,
        "status": k.competitor.get("status"),
        "job": run["job"]["status"],
        "jobError": run["job"].get("error"),
        "seconds": run["seconds"],
        "facts": {kind: {"found": f, "listed": n} for kind, (f, n) in kinds.items()},
        "found": sum(f for f, _ in kinds.values()),
        "listed": sum(n for _, n in kinds.values()),
        "missed": [fact.text for fact, match in scored if match is None],
        "matched": [(fact.text, match.place, match.text[:120]) for fact, match in scored if match],
        "battlecard": items,
        "junk": junk_items(k),
        "records": [(r.place, r.text[:160], r.evidenced) for r in k.records],
    }


def print_site(site: dict[str, Any], verbose: bool = False) -> None:
    share = site["found"] / site["listed"] if site["listed"] else 0
    print(
        f"\n== {site['site']}: competitor {site['status']}, job {site['job']} "
        f"in {site['seconds']} s; facts {site['found']}/{site['listed']} ({share:.0%})"
    )
    if site["jobError"]:
        print(f"   job error: {site['jobError']}")
    for kind, counts in site["facts"].items():
        print(f"   {kind:<12} {counts['found']}/{counts['listed']}")
    for text in site["missed"]:
        print(f"   missed: {text}")
    print(f"   junk: {len(site['junk'])} item(s)")
    for reason in site["junk"]:
        print(f"     junk: {reason}")
    resolving = sum(1 for i in site["battlecard"] if i["evidenceResolves"])
    print(f"   battlecard: {len(site['battlecard'])} item(s), {resolving} with resolving evidence")
    for item in site["battlecard"]:
        mark = "ok " if item["evidenceResolves"] else "NO "
        print(f"     {mark}[{item['section']}] {item['text'][:150]}")
    if verbose:
        for text, place, record in site["matched"]:
            print(f"   found: {text}  <- {place}: {record}")
        for place, text, evidenced in site["records"]:
            print(f"   record {'+' if evidenced else '-'} {place}: {text}")


if __name__ == "__main__":
    sys.exit(main())
