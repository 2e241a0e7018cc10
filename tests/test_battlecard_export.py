"""GET /api/battlecards/{id}/export (Markdown and HTML) and the hand-edits service."""

from __future__ import annotations

import pytest

from ci_service.errors import NotFound, ValidationFailed
from ci_service.services.battlecards import editing as battlecard_editing
from ci_service.services.battlecards import edits as battlecard_edits
from ci_service.services.battlecards import export as battlecard_export
from ci_service.store.analysis import Battlecard
from ci_service.store.db import connection
from ci_service.store.identity import Workspace
from ci_service.web.routes.battlecards import BattlecardResponseSchema
from tests.analysis_support import seed_rival
from tests.resource_helpers import error, ok

pytest_plugins = ["tests.jobs_fixtures"]

HOSTILE = "<script>alert(1)</script>"


def generate(api, runner, competitor_id, product_id, mode="ATTACK"):
    body = {"productId": product_id, "mode": mode}
    started = ok(api.post(f"/api/battlecards/{competitor_id}/generate", json=body))
    runner.run_until_idle()
    return started["battlecard"]["id"]


def read(api, card_id):
    return ok(api.get(f"/api/battlecards/{card_id}?includeEvidence=true"))


@pytest.fixture
def rival(make_api, runner):
    api = make_api(plan="PRO")
    product, competitor, pages = seed_rival(api)
    card_id = generate(api, runner, competitor["id"], product["id"])
    return api, card_id, product, competitor


def edit(api, card_id, section, index, fields):
    with connection():
        return battlecard_editing.edit_item(
            api.workspace_id, card_id, section, index, fields, api.user_id
        )


def test_markdown_is_the_default(rival):
    api, card_id, _, _ = rival
    answer = api.get(f"/api/battlecards/{card_id}/export")
    assert answer.status_code == 200
    assert answer.headers["Content-Type"] == "text/markdown; charset=utf-8"
    assert f'filename="battlecard-{card_id}.md"' in answer.headers["Content-Disposition"]
    text = answer.get_data(as_text=True)
    assert api.get(f"/api/battlecards/{card_id}/export?format=markdown").get_data() == (
        answer.get_data()
    )
    body = read(api, card_id)
    content, evidence = body["battlecard"]["content"], body["evidence"]
    assert text.startswith("# Battlecard: Rival vs Acme Cloud\n")
    assert "Mode: ATTACK · Status: READY" in text
    for heading in ("Why we win", "Why we lose", "Objections", "Talking points", "Kill shot"):
        assert f"\n## {heading}\n" in text
    assert "\n## Landmines\n" in text and "\n## Pricing wedge\n\n_Nothing yet._" in text
    win = content["whyWeWin"][0]
    quote = win["quotes"][0]
    collected = evidence[quote["evidenceId"]]["collectedAt"][:10]
    assert f"- **{win['title']}**: " in text
    assert (
        f"  - Evidence: “{quote['quote']}” ([Rival Security]({quote['url']}), "
        f"collected {collected})"
    ) in text


def test_html_is_a_standalone_document_with_the_same_sections(rival):
    api, card_id, _, _ = rival
    answer = api.get(f"/api/battlecards/{card_id}/export?format=html")
    assert answer.status_code == 200
    assert answer.headers["Content-Type"] == "text/html; charset=utf-8"
    csp = answer.headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "style-src 'sha256-" in csp and "script" not in csp
    html = answer.get_data(as_text=True)
    assert html.startswith("<!doctype html>") and html.rstrip().endswith("</html>")
    assert "<title>Battlecard: Rival vs Acme Cloud</title>" in html and "<script" not in html
    content = read(api, card_id)["battlecard"]["content"]
    for heading in ("Why we win", "Objections", "Kill shot", "Landmines", "Pricing wedge"):
        assert f"<h2>{heading}</h2>" in html
    for item in content["whyWeLose"] + content["objections"]:
        for quote in item["quotes"]:
            assert f'<a href="{quote["url"]}" rel="noopener noreferrer">' in html


def test_html_escapes_hostile_text_and_drops_unsafe_links(rival):
    api, card_id, _, competitor = rival
    ok(api.patch(f"/api/competitors/{competitor['id']}", json={"name": HOSTILE}))
    edit(api, card_id, "whyWeWin", 0, {"title": HOSTILE, "description": f'"{HOSTILE}"'})
    with connection():
        row = Battlecard.get_by_id(card_id)
        content = dict(row.content)
        content["killShotQuotes"] = [{"evidenceId": "x", "quote": HOSTILE, "url": "javascript:1"}]
        Battlecard.update(content=content).where(Battlecard.id == card_id).execute()
    html = api.get(f"/api/battlecards/{card_id}/export?format=html").get_data(as_text=True)
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "javascript:" not in html
    markdown = api.get(f"/api/battlecards/{card_id}/export").get_data(as_text=True)
    assert "<script>" not in markdown and r"\<script\>alert(1)\</script\>" in markdown
    assert "(javascript:" not in markdown


@pytest.mark.parametrize("fmt", ["pdf", "MARKDOWN", "md"])
def test_unknown_format_is_400_naming_format(rival, fmt):
    api, card_id, _, _ = rival
    body = error(
        api.get(f"/api/battlecards/{card_id}/export?format={fmt}"), 400, "VALIDATION_ERROR"
    )
    assert "format" in body["details"]["fields"]


def test_foreign_or_missing_card_is_404_and_viewer_may_export(rival, make_api):
    api, card_id, _, _ = rival
    stranger = make_api()
    error(stranger.get(f"/api/battlecards/{card_id}/export"), 404, "NOT_FOUND")
    error(stranger.get(f"/api/battlecards/{card_id}/export?format=html"), 404, "NOT_FOUND")
    error(api.get("/api/battlecards/missing/export"), 404, "NOT_FOUND")
    with connection():
        workspace = Workspace.get_by_id(api.workspace_id)
    viewer = make_api(role="VIEWER", workspace=workspace, scopes=["read"])
    assert viewer.get(f"/api/battlecards/{card_id}/export").status_code == 200


def test_export_is_built_from_the_rest_dict(rival):
    api, card_id, _, _ = rival
    body = read(api, card_id)
    with connection():
        view = battlecard_export.card_view(api.workspace_id, card_id)
    assert view["battlecard"] == body["battlecard"] and view["evidence"] == body["evidence"]
    exported = api.get(f"/api/battlecards/{card_id}/export").get_data(as_text=True)
    assert battlecard_export.to_markdown(view) == exported


def test_edits_show_in_rest_and_exports_and_survive_regeneration(rival, runner):
    api, card_id, product, competitor = rival
    edit(api, card_id, "objections", 1, {"response": "Our list price includes SSO."})
    edit(api, card_id, "killShot", 0, {"text": "Ask them to demo SAML SSO."})
    edit(api, card_id, "landmines", 0, {"text": "Ask Rival for a live SSO demo."})
    for _ in range(2):
        body = read(api, card_id)
        assert BattlecardResponseSchema().validate(body) == {}
        content = body["battlecard"]["content"]
        objection = content["objections"][1]
        assert objection["response"] == "Our list price includes SSO." and objection["edited"]
        assert objection["objection"].startswith("Rival says:") and objection["quotes"]
        assert content["killShot"] == "Ask them to demo SAML SSO." and content["killShotQuotes"]
        assert content["landmines"][0] == "Ask Rival for a live SSO demo."
        assert [(e["section"], e["index"]) for e in body["battlecard"]["edits"]] == [
            ("objections", 1),
            ("killShot", 0),
            ("landmines", 0),
        ]
        markdown = api.get(f"/api/battlecards/{card_id}/export").get_data(as_text=True)
        assert "**Response:** Our list price includes SSO. _(edited)_" in markdown
        assert "Ask them to demo SAML SSO. _(edited)_" in markdown
        html = api.get(f"/api/battlecards/{card_id}/export?format=html").get_data(as_text=True)
        assert html.count('<span class="edited">(edited)</span>') == 3
        generate(api, runner, competitor["id"], product["id"])
    # searchable as shown
    found = ok(api.get("/api/search?q=live SSO demo"))["results"]
    assert any(r["id"] == card_id for r in found)


@pytest.mark.parametrize(
    ("section", "index", "fields", "named"),
    [
        ("nope", 0, {"title": "x"}, "section"),
        ("whyWeWin", 99, {"title": "x"}, "index"),
        ("whyWeWin", "first", {"title": "x"}, "index"),
        ("whyWeWin", 0, {}, "fields"),
        ("whyWeWin", 0, {"evidenceIds": ["x"]}, "evidenceIds"),
        ("objections", 0, {"title": "x"}, "title"),
        ("whyWeWin", 0, {"title": "   "}, "title"),
        ("whyWeWin", 0, {"title": 5}, "title"),
        ("killShot", 0, {"text": "x" * 2001}, "text"),
    ],
)
def test_edit_errors_name_the_field(rival, section, index, fields, named):
    api, card_id, _, _ = rival
    with pytest.raises(ValidationFailed) as raised:
        edit(api, card_id, section, index, fields)
    assert named in raised.value.details["fields"]
    assert read(api, card_id)["battlecard"]["edits"] == []


def test_edit_of_another_workspaces_card_is_404(rival, make_api):
    _, card_id, _, _ = rival
    stranger = make_api()
    with pytest.raises(NotFound):
        edit(stranger, card_id, "whyWeWin", 0, {"title": "Hijacked"})


def test_unchanged_fields_store_no_edit(rival):
    api, card_id, _, _ = rival
    item = read(api, card_id)["battlecard"]["content"]["whyWeWin"][0]
    edit(api, card_id, "whyWeWin", 0, {"title": item["title"], "description": item["description"]})
    assert read(api, card_id)["battlecard"]["edits"] == []
    edit(api, card_id, "whyWeWin", 0, {"title": "New", "description": item["description"]})
    edit(api, card_id, "whyWeWin", 0, {"description": "Then the text"})
    body = read(api, card_id)["battlecard"]
    assert len(body["edits"]) == 1
    changed = body["content"]["whyWeWin"][0]
    assert (changed["title"], changed["description"]) == ("New", "Then the text")


def test_reapply_keeps_orphans_at_their_place_and_matches_by_origin():
    fresh = {
        "whyWeWin": [
            {"title": "B", "description": "b", "evidenceIds": ["e2"], "quotes": []},
            {"title": "A", "description": "a2", "evidenceIds": ["e9"], "quotes": []},
        ],
        "landmines": ["x", "y"],
        "killShot": "fresh",
    }
    edits = [
        {
            "section": "whyWeWin",
            "index": 0,
            "origin": "A",
            "fields": {"description": "mine"},
            "editedAt": "2024-01-01T00:00:00Z",
            "editedBy": "a@example.com",
        },
        {
            "section": "whyWeWin",
            "index": 1,
            "origin": "gone",
            "fields": {"title": "kept"},
            "item": {"title": "kept", "description": "old", "evidenceIds": ["e1"]},
            "editedAt": "2024-01-01T00:00:00Z",
            "editedBy": "a@example.com",
        },
        {"section": "landmines", "index": 1, "origin": "y", "fields": {"text": "Y!"}},
        {"section": "killShot", "index": 0, "origin": "", "fields": {"text": "mine"}},
    ]
    content, kept = battlecard_edits.reapply(fresh, edits)
    assert [i["title"] for i in content["whyWeWin"]] == ["B", "kept", "A"]
    assert content["whyWeWin"][2]["description"] == "mine"
    assert content["whyWeWin"][2]["evidenceIds"] == ["e9"]  # the fresh evidence
    assert content["whyWeWin"][2]["edited"] is True
    assert content["landmines"] == ["x", "Y!"] and content["killShot"] == "mine"
    assert sorted((e["section"], e["index"]) for e in kept) == [
        ("killShot", 0),
        ("landmines", 1),
        ("whyWeWin", 1),
        ("whyWeWin", 2),
    ]
    assert fresh["killShot"] == "fresh"  # the input is not changed
