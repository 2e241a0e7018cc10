"""Fuzz every REST operation of the OpenAPI document with schemathesis, against a real
``ci-service serve``.

The run fails on any 5xx, any status, content type, header or body that does not match the
operation's documented responses (every body must be JSON: all responses are documented as
application/json), and on auth that is not enforced. It is deterministic (hypothesis
derandomized), so CI failures reproduce; the command it runs is printed on failure.

Path parameters: schemathesis generates values (which mostly answer 404); a hook swaps in ids
that exist for about half of the cases, so the handlers behind the lookups are fuzzed too.
DELETE operations get ids of a second, expendable copy of the data, so the records the other
operations use survive the run.

Checks not run, and why:
- positive_data_acceptance: schema-valid bodies are still refused by business rules the
  schema cannot express (unknown product ids, LOST without a competitor, ...): 400 is right.
- negative_data_rejection: the API is lenient on purpose where the schema is strict for
  clients: an update without a body changes nothing and answers 200; an oversized body is a
  413, which the check does not count as a rejection.
- allow_header_conformance: Werkzeug's automatic OPTIONS answer lists every method of every
  rule that matches the path (``/api/offerings/discover`` also matches
  ``/api/offerings/{offering_id}``), which is true of the router, not a documentation gap.

One backend: the run takes about two minutes, and what it checks (statuses, schemas, auth)
is the API's, not the store's. PostgreSQL, the stricter of the two: it refuses what SQLite
stores without a word (NUL characters, integers past 32 bits, JSON that is not JSON), so a
value the API forgot to check ends in a 500 there. The rest of the suite covers both backends.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import time

import pytest

from ci_service.web.app import shutdown_app
from tests.live import LiveServer
from tests.workspace_seed import PATH_KINDS, seed_workspace

pytest_plugins = ["tests.jobs_fixtures"]

CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
    "ignored_auth",
    "unsupported_method",
    "missing_required_header",
    "use_after_free",
    "ensure_resource_availability",
)
MAX_EXAMPLES = 10  # per operation and phase; about a minute in all on 2 cores
TIME_LIMIT = 600  # seconds; the whole run takes about a minute


HOOKS = textwrap.dedent(
    """
    import json
    import os

    import schemathesis
    from hypothesis import strategies as st

    IDS = json.loads(os.environ["CI_FUZZ_IDS"])


    @schemathesis.hook
    def flatmap_path_parameters(context, path_parameters):
        if not isinstance(path_parameters, dict):
            return st.just(path_parameters)
        table = IDS["delete" if context.operation.method.upper() == "DELETE" else "keep"]
        real = {name: table[name] for name in path_parameters if table.get(name)}
        if not real:
            return st.just(path_parameters)
        variants = [
            {**path_parameters, **{name: ids[i % len(ids)] for name, ids in real.items()}}
            for i in range(max(len(ids) for ids in real.values()))
        ]
        return st.one_of(st.just(path_parameters), st.sampled_from(variants))


    BODY_KINDS = {
        "competitorId": ("competitor", False),
        "productId": ("product", False),
        "productIds": ("product", True),
        "relevantProductIds": ("product", True),
        "offeringIds": ("offering", True),
        "childOfferingIds": ("offering", True),
    }
    PDF = b"%PDF-1.4\\n1 0 obj << /Type /Catalog >> endobj\\ntrailer << /Root 1 0 R >>\\n%%EOF\\n"


    @schemathesis.hook
    def flatmap_body(context, body):
        # The same for ids in request bodies (and a real PDF for the upload).
        if not isinstance(body, dict):
            return st.just(body)
        ids = IDS["body"]
        variant = dict(body)
        for name, (kind, many) in BODY_KINDS.items():
            if name in variant:
                variant[name] = [ids[kind]] if many else ids[kind]
        if isinstance(variant.get("categoryMappings"), list):
            variant["categoryMappings"] = [
                {**m, "productId": ids["product"]} if isinstance(m, dict) else m
                for m in variant["categoryMappings"]
            ]
        if "file" in variant:
            variant["file"] = PDF
        return st.sampled_from([body, variant])
    """
)


def _path_ids(seeded) -> dict[str, list[str]]:
    return {
        name: [i for kind in kinds for i in seeded.ids.get(kind, [])]
        for name, kinds in PATH_KINDS.items()
    }


def test_path_parameter_table_knows_every_parameter(app):
    names = set()
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/"):  # pages have their own table (test_web_isolation)
            names |= set(rule.arguments)
    assert names - {"filename"} <= set(PATH_KINDS), "add the new path parameter to PATH_KINDS"


@pytest.mark.backends("postgresql")  # one backend: see the module's docstring
def test_schemathesis_finds_nothing(app, settings, make_api, runner, tmp_path):
    api = make_api(plan="ENTERPRISE", rate_limit=1_000_000)
    keep = seed_workspace(api, "Fuzz", runner=runner)
    gone = seed_workspace(api, "Gone", runner=runner)
    shutdown_app(app)
    hooks = tmp_path / "fuzz_hooks.py"
    hooks.write_text(HOOKS)
    env = {
        "SCHEMATHESIS_HOOKS": str(hooks),
        "CI_FUZZ_IDS": json.dumps(
            {
                "keep": _path_ids(keep),
                "delete": _path_ids(gone),
                "body": {kind: ids[0] for kind, ids in keep.ids.items()},
            }
        ),
    }
    # No job workers: jobs the fuzzer starts stay queued, so nothing fetches fuzzed URLs.
    with LiveServer(settings.database, "--no-scheduler", "--job-workers", "0") as server:
        command = [
            sys.executable,
            "-m",
            "schemathesis.cli",
            "run",
            f"{server.url}/openapi.json",
            "--header",
            f"X-API-Key: {api.key}",
            "--checks",
            ",".join(CHECKS),
            "--max-examples",
            str(MAX_EXAMPLES),
            "--generation-deterministic",  # derandomized, and no example database
            "--workers",
            "1",
            "--request-timeout",
            "30",
            "--no-color",
        ]
        started = time.monotonic()
        result = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=TIME_LIMIT,
            cwd=tmp_path,
            env={**os.environ, **env},
        )
        elapsed = time.monotonic() - started
    # Generated values can be megabytes long: cut each line, keep every failure's heading.
    output = "\n".join(line[:300] for line in (result.stdout + result.stderr).splitlines())
    shown = " ".join(command).replace(api.key, "$KEY")
    assert result.returncode == 0, f"{shown}\n({elapsed:.0f}s)\n{output[-30000:]}"
    generated = re.search(r"(\d+) generated", output)
    assert generated and int(generated.group(1)) > 1000, output[-3000:]
