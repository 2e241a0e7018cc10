"""Bulk import of competitors from a CSV file (issue 31): the service (parsing, duplicates in
the workspace and in the file, per-row errors, limits, hostile files, one analysis job per
competitor created), ``ci-service competitors import`` and the web app's upload → preview →
confirm pages."""

from __future__ import annotations

import html
import json
import re
import secrets
from pathlib import Path

import pytest

from ci_service.errors import ValidationFailed
from ci_service.services.workspace import competitor_import, competitors, products
from ci_service.store.competitors import Competitor
from ci_service.store.db import connection
from ci_service.store.jobs import Job

HEADER = "name,website,tier,relevantProducts\n"


def product(workspace_id: str, name: str) -> str:
    body = {"name": name, "description": "ours", "audience": "teams"}
    with connection():
        return products.create_product(workspace_id, body).id


def preview(workspace_id: str, data, **limits):
    with connection():
        return competitor_import.preview(workspace_id, data, **limits)


def apply(workspace_id: str, data, **limits):
    with connection():
        return competitor_import.apply(workspace_id, data, **limits)


def stored(workspace_id: str) -> list[Competitor]:
    with connection():
        query = Competitor.select().where(Competitor.workspace == workspace_id)
        return list(query.order_by(Competitor.created_at, Competitor.id))


def jobs_of(workspace_id: str) -> list[Job]:
    with connection():
        return list(Job.select().where(Job.workspace == workspace_id))


def actions(plan) -> list[tuple[int, str]]:
    return [(r.row, r.action) for r in plan.rows]


def errors_of(plan, row: int) -> dict[str, str]:
    found = next(r for r in plan.rows if r.row == row)
    return {e["field"]: e["message"] for e in found.errors}


# -- the service ----------------------------------------------------------------------------


def test_preview_reads_header_spellings_bom_and_products_and_creates_nothing(make_workspace):
    ws = make_workspace()
    desk, crm = product(ws.id, "OurDesk"), product(ws.id, "Our CRM")
    data = (
        "\ufeffName, Website URL ,TIER,Relevant Products,Notes\r\n"
        "Globex,globex.example,tier 1,ourdesk ; OUR CRM,met at a fair\r\n"
        "\r\n"
        f"Initech,https://initech.example/,,{crm}|ourdesk\r\n"
    ).encode()
    plan = preview(ws.id, data)
    assert actions(plan) == [(2, "create"), (4, "create")]  # the blank line keeps its number
    globex, initech = plan.rows
    assert globex.website_url == "https://globex.example"  # https:// added
    assert globex.tier == "TIER_1" and globex.product_ids == [desk, crm]
    assert initech.tier is None and initech.product_ids == [crm, desk]
    assert plan.ignored_columns == ["Notes"] and not plan.applied
    assert stored(ws.id) == [] and jobs_of(ws.id) == []
    body = plan.to_dict()
    assert body["summary"] == {"rows": 2, "create": 2, "duplicate": 0, "error": 0}
    assert body["rows"][0]["relevantProducts"] == ["OurDesk", "Our CRM"]  # their own names


def test_apply_creates_each_row_with_its_analysis_job(make_workspace):
    ws = make_workspace()
    desk = product(ws.id, "OurDesk")
    data = HEADER + "".join(
        f"Rival {i},https://rival-{i}.example,TIER_2,OurDesk\n" for i in range(5)
    )
    plan = apply(ws.id, data)
    assert plan.applied and plan.count("create") == 5
    rows = stored(ws.id)
    assert [c.name for c in rows] == [f"Rival {i}" for i in range(5)]
    assert {c.status for c in rows} == {"PENDING"}
    assert {(c.tier, c.refresh_rate) for c in rows} == {("TIER_2", 30)}
    assert all(c.relevant_product_ids == [desk] for c in rows)
    # Adding N competitors queues N analyses, one per competitor, as POST /api/competitors.
    jobs = jobs_of(ws.id)
    assert sorted(j.competitor_id for j in jobs) == sorted(c.id for c in rows)
    assert {j.type for j in jobs} == {"collect"}
    assert {r.job_id for r in plan.rows} == {j.id for j in jobs}
    assert {r.competitor_id for r in plan.rows} == {c.id for c in rows}


def test_duplicates_of_the_workspace_and_of_the_file_are_skipped(make_workspace):
    ws = make_workspace()
    with connection():
        existing, _job = competitors.create_competitor(
            ws.id, {"name": "Globex", "websiteUrl": "https://www.globex.example/"}
        )
    data = HEADER + (
        "Globex again,http://GLOBEX.example,,\n"  # 2: the workspace's Globex
        "Initech,initech.example,,\n"  # 3
        "Initech twice,https://www.initech.example/,,\n"  # 4: row 3's site
        "Hooli,https://hooli.example,GOLD,\n"  # 5: an error does not claim the site
        "Hooli,https://hooli.example/,,\n"  # 6: so this one is created
    )
    plan = preview(ws.id, data)
    assert actions(plan) == [
        (2, "duplicate"),
        (3, "create"),
        (4, "duplicate"),
        (5, "error"),
        (6, "create"),
    ]
    assert plan.rows[0].duplicate_of == {"id": existing.id, "name": "Globex"}
    assert plan.rows[2].note == "same website as row 3"
    applied = apply(ws.id, data)
    assert applied.count("create") == 2
    assert [c.name for c in stored(ws.id)] == ["Globex", "Initech", "Hooli"]
    # Run again: everything it created is now a duplicate, nothing more is created.
    again = apply(ws.id, data)
    assert again.count("create") == 0 and again.count("duplicate") == 4
    assert len(stored(ws.id)) == 3 and len(jobs_of(ws.id)) == 3


LONG = "x" * 5000


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        (",https://a.example,,", "name", "is empty (required)"),
        ("A,,,", "website", "is empty (required)"),
        ("A,ftp://a.example,,", "website", "valid http or https URL"),
        ("A,javascript:alert(1),,", "website", "valid http or https URL"),
        ("A,mailto:me@a.example,,", "website", "valid http or https URL"),
        ("A,/just/a/path,,", "website", "valid http or https URL"),
        ("A,https://a.example,GOLD,", "tier", "must be one of TIER_1, TIER_2, TIER_3"),
        ("A,https://a.example,,Nope", "products", "unknown product “Nope”"),
        ("A,https://a.example,,OurDesk;Nope", "products", "unknown product “Nope”"),
        ("A,https://a.example,,Twin", "products", "“Twin” names 2 products: use its id"),
        ("N" * 201 + ",https://a.example,,", "name", "Length must be between 1 and 200"),
        (LONG + ",https://a.example,,", "name", "is too long (5,000 characters)"),
        ("A,https://" + LONG + ".example,,", "website", "is too long"),
        ('"A\nB",https://a.example,,', "name", "control characters"),
        ("A\x1b[31m,https://a.example,,", "name", "control characters"),
        ("A,https://a.example,,,surprise", "row", "has 5 values for 4 columns"),
    ],
)
def test_a_bad_row_is_an_error_and_never_blocks_the_others(make_workspace, line, field, message):
    ws = make_workspace()
    product(ws.id, "OurDesk")
    product(ws.id, "Twin")
    product(ws.id, "twin")
    data = HEADER + "Good,https://good.example,,OurDesk\n" + line + "\n"
    plan = apply(ws.id, data)
    assert actions(plan) == [(2, "create"), (3, "error")]
    assert message in errors_of(plan, 3)[field]
    bad = plan.rows[1].to_dict()
    assert (
        len(bad["name"]) <= competitor_import.SHOWN
        and len(bad["websiteUrl"]) <= competitor_import.SHOWN
    )
    assert [c.name for c in stored(ws.id)] == ["Good"]


def test_formula_like_names_are_stored_as_text(make_workspace):
    ws = make_workspace()
    names = ["=cmd|' /C calc'!A0", "+1+1", "@SUM(A1)", "-2", "<script>alert(1)</script>"]
    data = HEADER + "".join(
        f'"{name}",https://site-{i}.example,,\n' for i, name in enumerate(names)
    )
    apply(ws.id, data)
    assert [c.name for c in stored(ws.id)] == names


def test_products_and_competitors_of_another_workspace_are_not_seen(make_workspace):
    ours, theirs = make_workspace(), make_workspace()
    product(theirs.id, "SecretSuite")
    with connection():
        competitors.create_competitor(
            theirs.id, {"name": "Their Globex", "websiteUrl": "https://globex.example"}
        )
    plan = preview(ours.id, HEADER + "Globex,https://globex.example,,\nA,a.example,,SecretSuite\n")
    assert actions(plan) == [(2, "create"), (3, "error")]  # their site is not our duplicate
    assert "Their Globex" not in json.dumps(plan.to_dict())
    assert errors_of(plan, 3) == {"products": "unknown product “SecretSuite”"}


def test_the_plan_limit_makes_the_rows_past_it_errors(make_workspace):
    ws = make_workspace(plan="STARTER")
    with connection():
        competitors.create_competitor(ws.id, {"name": "One", "websiteUrl": "https://one.example"})
    data = HEADER + "".join(f"R{i},https://r{i}.example,,\n" for i in range(4))
    plan = preview(ws.id, data, plan="STARTER", limit=3)
    assert actions(plan) == [(2, "create"), (3, "create"), (4, "error"), (5, "error")]
    assert "the STARTER plan allows 3 competitors" in errors_of(plan, 4)["plan"]
    applied = apply(ws.id, data, plan="STARTER", limit=3)
    assert applied.count("create") == 2
    assert len(stored(ws.id)) == 3


def test_apply_checks_the_limit_again_as_it_creates(make_workspace, monkeypatch):
    """``apply`` trusts no preview: a competitor added between its check and its create
    (here: by the preview step's own count, made stale) still stops at the limit."""
    ws = make_workspace(plan="STARTER")
    monkeypatch.setattr(competitor_import, "_mark_over_limit", lambda *args: None)
    data = HEADER + "".join(f"R{i},https://r{i}.example,,\n" for i in range(3))
    plan = apply(ws.id, data, plan="STARTER", limit=2)
    assert actions(plan) == [(2, "create"), (3, "create"), (4, "error")]
    assert "allows 2 competitors" in errors_of(plan, 4)["plan"]
    assert len(stored(ws.id)) == 2


def _too_many_rows() -> bytes:
    rows = "".join(f"R{i},https://r{i}.example\n" for i in range(competitor_import.MAX_ROWS + 1))
    return ("name,website\n" + rows).encode()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "The file is empty"),
        (b"\xef\xbb\xbf \r\n\n,,\n", "The file is empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary data"),
        (b"PK\x03\x04\x14\x00\x06\x00", "binary data"),
        (b"name,website\nCaf\xe9,https://cafe.example\n", "not UTF-8 text (line 2)"),
        (b"name;website\nA;https://a.example\n", "not comma-separated"),
        (b"name\twebsite\nA\thttps://a.example\n", "not comma-separated"),
        (b"Globex,https://globex.example\n", "must be a header naming the columns"),
        (b"name,tier\nGlobex,TIER_1\n", "must be a header naming the columns"),
        (b"name,website\n", "no rows under it"),
        (b"name,url,website\nA,https://a.example,https://b.example\n", "website column twice"),
        (b'name,website\n"' + b"x" * 200_000 + b'",https://a.example\n', "cannot be read as CSV"),
        (b"name,website\n" + b"x" * competitor_import.MAX_BYTES, "can be imported at once"),
        (_too_many_rows(), "more than 5,000 rows"),
    ],
    ids=lambda value: value[:12] if isinstance(value, bytes) else None,
)
def test_a_file_that_cannot_be_used_is_refused_whole(make_workspace, data, message):
    ws = make_workspace()
    for run in (preview, apply):
        with pytest.raises(ValidationFailed) as caught:
            run(ws.id, data)
        assert message in caught.value.message
        assert caught.value.details == {"fields": {"file": [caught.value.message]}}
    assert stored(ws.id) == []


def test_a_file_at_the_row_limit_is_accepted(make_workspace):
    ws = make_workspace()
    data = HEADER + "".join(
        f"Rival {i},https://rival-{i}.example,TIER_3,\n" for i in range(competitor_import.MAX_ROWS)
    )
    plan = preview(ws.id, data)
    assert plan.count("create") == competitor_import.MAX_ROWS


def test_the_documented_example_imports(make_workspace):
    docs = (Path(__file__).resolve().parent.parent / "docs" / "web-app.md").read_text()
    section = docs[docs.index("### Bulk import") :]
    example = re.findall(r"```\n(name,website.*?)```", section, flags=re.S)[0]
    ws = make_workspace()
    product(ws.id, "OurDesk")
    product(ws.id, "OurCRM")
    plan = preview(ws.id, example)
    assert [(r.action, r.name) for r in plan.rows] == [
        ("create", "Globex"),
        ("create", "Initech"),
        ("create", "Hooli, Inc."),
    ]


# -- the command line -----------------------------------------------------------------------


def write(tmp_path, text: str | bytes, name: str = "rivals.csv") -> str:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return str(path)


def collect_jobs(run) -> list[dict]:
    listed = json.loads(run("jobs", "list", "--workspace", "acme", "--json").stdout)
    return [j for j in listed if j["type"] == "collect"]


def test_cli_dry_run_then_import(run, tmp_path):
    run("workspaces", "create", "acme", "--plan", "ENTERPRISE")
    path = write(
        tmp_path,
        HEADER
        + "Globex,globex.example,TIER_1,\nInitech,ftp://x,,\nGlobex 2,www.globex.example,,\n",
    )
    dry = run("competitors", "import", path, "--workspace", "acme", "--dry-run")
    assert dry.exit_code == 0, dry.output
    lines = dry.output.splitlines()
    assert re.match(r"row\s+action\s+name\s+website\s+tier\s+products\s+note", lines[0])
    assert re.match(r"2\s+create\s+Globex\s+https://globex.example\s+TIER_1", lines[1])
    assert re.match(r"3\s+error\s+Initech\s+ftp://x\s+website: must be", lines[2])
    assert re.match(r"4\s+skip duplicate\s+Globex 2.*same website as row 2", lines[3])
    assert "would create 1, skip 1 duplicate(s), 1 error(s); nothing was changed" in lines[-1]
    assert collect_jobs(run) == []

    done = run("competitors", "import", path, "--workspace", "acme", "--json")
    assert done.exit_code == 0, done.output
    body = json.loads(done.stdout)
    assert body["applied"] is True
    assert body["summary"] == {"rows": 3, "create": 1, "duplicate": 1, "error": 1}
    created = body["rows"][0]
    assert created["action"] == "create" and created["competitorId"] and created["jobId"]
    jobs = collect_jobs(run)
    assert [(j["id"], j["competitorId"]) for j in jobs] == [
        (created["jobId"], created["competitorId"])
    ]
    again = run("competitors", "import", path, "--workspace", "acme")
    assert again.exit_code == 0
    assert "Created 0 competitor(s)" in again.output and "skipped 2 duplicate(s)" in again.output


def test_cli_reads_standard_input_and_exits_1_when_every_row_failed(run):
    run("workspaces", "create", "acme")
    from click.testing import CliRunner

    from ci_service.cli import cli

    result = CliRunner().invoke(
        cli,
        ["--database", run.database, "competitors", "import", "-", "--workspace", "acme"],
        input="name,website\nA,ftp://a.example\nB,\n",
    )
    assert result.exit_code == 1, result.output
    assert "Created 0 competitor(s)" in result.output and "2 error(s)" in result.output


@pytest.mark.parametrize(
    ("args", "content", "message"),
    [
        (["--workspace", "acme"], b"\x00\x01binary", "binary data"),
        (["--workspace", "acme"], b"name;website\nA;b\n", "not comma-separated"),
        (["--workspace", "nope"], HEADER.encode() + b"A,https://a.example,,\n", "not found"),
        ([], HEADER.encode(), "Missing option '--workspace'"),
    ],
)
def test_cli_file_and_usage_errors_exit_2(run, tmp_path, args, content, message):
    run("workspaces", "create", "acme")
    result = run("competitors", "import", write(tmp_path, content), *args)
    assert result.exit_code == 2 and message in result.output
    missing = run("competitors", "import", str(tmp_path / "absent.csv"), "--workspace", "acme")
    assert missing.exit_code == 2 and "No such file or directory" in missing.output
    assert collect_jobs(run) == []


# -- the web app ----------------------------------------------------------------------------

FIELD = re.compile(r'<input type="hidden" name="csv" value="([^"]*)">')


def upload(web, data: bytes, filename: str = "rivals.csv"):
    """POST the upload form as a browser does: multipart, the page's CSRF token, the file.
    Encoded here: the test client spools a big body to a temporary file it never closes."""
    boundary = "----ci-import-" + secrets.token_hex(8)
    token = web.csrf("/competitors/import")
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="csrf_token"\r\n\r\n{token}\r\n',
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"'
        "\r\nContent-Type: text/csv\r\n\r\n",
    ]
    body = "".join(parts).encode() + data + f"\r\n--{boundary}--\r\n".encode()
    return web.client.post(
        "/competitors/import",
        data=body,
        content_type=f"multipart/form-data; boundary={boundary}",
    )


def listed(web) -> list[dict]:
    return web.api.get("/api/competitors").json["competitors"]


def test_web_upload_preview_confirm(web):
    home = web.get("/").get_data(as_text=True)
    assert 'href="/competitors/import"' in home
    form = web.get("/competitors/import")
    assert form.status_code == 200 and 'enctype="multipart/form-data"' in form.get_data(True)
    web.api.post(
        "/api/competitors", json={"name": "Globex", "websiteUrl": "https://globex.example"}
    )
    data = (
        HEADER + "Globex again,globex.example,,\n"
        "Initech,https://initech.example,TIER_1,\n"
        "<b>Hooli</b>,https://hooli.example,,Nope\n"
    ).encode()
    page = upload(web, data)
    body = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "Preview of" in body and "rivals.csv" in body and "Nothing has been created yet" in body
    assert "Import 1 competitor</button>" in body
    assert "already tracked as <a href=" in body and "unknown product “Nope”" in body
    assert "&lt;b&gt;Hooli&lt;/b&gt;" in body and "<b>Hooli</b>" not in body
    assert [c["name"] for c in listed(web)] == ["Globex"]  # the preview created nothing

    text = html.unescape(FIELD.search(body).group(1))
    assert text == data.decode()
    done = web.post_form(
        "/competitors/import/confirm",
        {"csv": text, "filename": "rivals.csv"},
        csrf_from="/competitors/import",
    )
    result = done.get_data(as_text=True)
    assert done.status_code == 200
    assert "Created 1 competitor and queued 1 analysis job" in result
    assert [c["name"] for c in listed(web)] == ["Globex", "Initech"]
    initech = listed(web)[1]
    assert initech["tier"] == "TIER_1"
    assert f'href="/competitors/{initech["id"]}"' in result
    jobs = web.api.get(f"/api/jobs?competitorId={initech['id']}").json["jobs"]
    assert [j["type"] for j in jobs] == ["collect"]

    # Sent again (a reload): every row it created is now a duplicate.
    again = web.post_form(
        "/competitors/import/confirm", {"csv": text}, csrf_from="/competitors/import"
    )
    assert "Created 0 competitors" in again.get_data(as_text=True)
    assert len(listed(web)) == 2


def test_web_confirm_needs_the_csrf_token_and_checks_the_text_again(web):
    text = HEADER + "Initech,https://initech.example,,\n"
    forged = web.client.post("/competitors/import/confirm", data={"csv": text})
    assert forged.status_code == 400 and listed(web) == []
    # The confirm step trusts nothing the preview said: the text is checked again.
    for bad, message in [
        ("", "The file is empty"),
        ("name;website\nA;https://a.example\n", "not comma-separated"),
        ("name,website\n" + "x" * competitor_import.MAX_BYTES, "can be imported at once"),
    ]:
        answer = web.post_form(
            "/competitors/import/confirm", {"csv": bad}, csrf_from="/competitors/import"
        )
        assert answer.status_code == 400 and message in answer.get_data(as_text=True)
    tampered = web.post_form(
        "/competitors/import/confirm",
        {"csv": HEADER + "A,javascript:alert(1),,\n"},
        csrf_from="/competitors/import",
    )
    assert tampered.status_code == 200 and listed(web) == []
    assert "Created 0 competitors" in tampered.get_data(as_text=True)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "The file is empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe", "binary data"),
        (b"\xff\xfe\x00n\x00a", "binary data"),
        (b"Globex,https://globex.example\n", "must be a header"),
        (b"name,website\n" + b"y" * (competitor_import.MAX_BYTES + 10), "can be imported"),
    ],
    ids=lambda value: value[:8] if isinstance(value, bytes) else None,
)
def test_web_garbage_uploads_are_clear_400s(web, data, message):
    page = upload(web, data, "garbage.csv")
    assert page.status_code == 400
    body = page.get_data(as_text=True)
    assert message in body and 'role="alert"' in body and 'type="file"' in body
    assert listed(web) == []


def test_web_the_largest_file_goes_through_preview_and_confirm(web):
    """The preview carries the text to the confirm step in a urlencoded field: a file at the
    limits (2 MB, 5,000 rows) comes back whole (all but one row have a bad tier)."""
    rows = "".join(
        f"{'N' * 180} {i},https://r{i}.example/{'p' * 180},{'TIER_1' if i == 0 else 'GOLD'},\n"
        for i in range(competitor_import.MAX_ROWS)
    )
    data = (HEADER + rows).encode()
    assert competitor_import.MAX_BYTES - 200_000 < len(data) <= competitor_import.MAX_BYTES
    page = upload(web, data)
    body = page.get_data(as_text=True)
    assert page.status_code == 200 and "Rows with errors (4999)" in body
    text = html.unescape(FIELD.search(body).group(1))
    assert text == data.decode()
    done = web.post_form(
        "/competitors/import/confirm", {"csv": text}, csrf_from="/competitors/import"
    )
    assert done.status_code == 200 and "Created 1 competitor " in done.get_data(as_text=True)
    assert len(listed(web)) == 1


def test_web_upload_without_a_file_is_a_400(web):
    answer = web.post_form("/competitors/import", {}, content_type="multipart/form-data")
    assert answer.status_code == 400
    assert "Choose a CSV file" in answer.get_data(as_text=True)


def test_web_viewers_cannot_import_and_see_no_link(make_web):
    owner = make_web()
    viewer = make_web(role="VIEWER", workspace=_workspace_of(owner))
    assert "/competitors/import" not in viewer.get("/").get_data(as_text=True)
    assert viewer.get("/competitors/import").status_code == 403
    text = HEADER + "A,https://a.example,,\n"
    token = viewer.csrf("/")
    answer = viewer.client.post(
        "/competitors/import/confirm", data={"csrf_token": token, "csv": text}
    )
    assert answer.status_code == 403 and listed(owner) == []


def _workspace_of(web):
    from ci_service.store.identity import Workspace

    with connection():
        return Workspace.get_by_id(web.workspace_id)


def test_web_another_workspace_is_never_visible(make_web):
    ours, theirs = make_web(), make_web()
    theirs.api.post(
        "/api/products", json={"name": "SecretSuite", "description": "d", "audience": "a"}
    )
    theirs.api.post(
        "/api/competitors", json={"name": "Their Globex", "websiteUrl": "https://globex.example"}
    )
    page = upload(ours, (HEADER + "Globex,globex.example,,\nA,a.example,,SecretSuite\n").encode())
    body = page.get_data(as_text=True)
    assert "Their Globex" not in body and "already tracked as" not in body
    assert "unknown product “SecretSuite”" in body
    text = html.unescape(FIELD.search(body).group(1))
    ours.post_form("/competitors/import/confirm", {"csv": text}, csrf_from="/competitors/import")
    assert [c["name"] for c in listed(ours)] == ["Globex"]
    assert [c["name"] for c in listed(theirs)] == ["Their Globex"]
