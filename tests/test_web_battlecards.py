"""The battlecard page: tiles with evidence one click away, hand edits kept on
regeneration, copy as Markdown, print layout, live note, access and escaping (the tiles'
layout and the tile edit form: test_web_battlecard_tiles.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ci_service.store.analysis import Battlecard
from ci_service.store.db import connection
from ci_service.store.identity import Workspace
from tests.analysis_support import seed_rival
from tests.resource_helpers import ok

pytest_plugins = ["tests.jobs_fixtures"]

HEADINGS = (
    "Why we win",
    "Why we lose",
    "Objections and answers",
    "Talking points",
    "Kill shot",
    "Landmines",
    "Pricing wedge",
)


def generate(web, runner, competitor_id, product_id, mode="ATTACK"):
    body = {"productId": product_id, "mode": mode}
    started = ok(web.api.post(f"/api/battlecards/{competitor_id}/generate", json=body))
    runner.run_until_idle()
    return started["battlecard"]["id"]


def read(web, card_id):
    return ok(web.api.get(f"/api/battlecards/{card_id}?includeEvidence=true"))


@pytest.fixture
def seeded(make_web, runner):
    """An OWNER and a generated ATTACK card: (web, card id, product, competitor)."""
    web = make_web()
    product, competitor, _pages = seed_rival(web.api)
    card_id = generate(web, runner, competitor["id"], product["id"])
    return web, card_id, product, competitor


def workspace_of(web):
    with connection():
        return Workspace.get_by_id(web.workspace_id)


def text_of(response):
    return response.get_data(as_text=True)


def unescape(html):
    return html.replace("&#39;", "'").replace("&#34;", '"').replace("&amp;", "&")


def test_page_shows_every_section_with_its_evidence(seeded):
    web, card_id, _, _ = seeded
    body = read(web, card_id)
    card, evidence = body["battlecard"], body["evidence"]
    page = web.get(f"/battlecards/{card_id}")
    assert page.status_code == 200
    html = text_of(page)
    assert 'Rival <span class="muted">vs</span> Acme Cloud' in html
    assert '<span class="badge READY">READY</span>' in html and ">ATTACK<" in html
    for heading in HEADINGS:
        assert re.search(rf'<h2 id="h-\w+">{heading}( <span class="bc-count">|</h2>)', html), (
            heading
        )
    content = card["content"]
    shown = unescape(html)
    cited = 0
    for key in ("whyWeWin", "whyWeLose", "objections", "talkingPoints"):
        assert content[key], key
        for index, item in enumerate(content[key]):
            block = shown.split(f'id="{key}-{index}"', 1)[1].split('class="bc-item"', 1)[0]
            assert (item.get("title") or item["objection"]) in block
            assert '<details class="bc-evidence">' in block  # one click away, without JS
            for quote in item["quotes"]:
                record = evidence[quote["evidenceId"]]
                assert f"“{quote['quote']}”" in block
                assert f'href="{quote["url"]}"' in block and "#:~:text=" in quote["url"]
                assert f'<time datetime="{record["collectedAt"][:10]}">' in block
                cited += 1
    assert cited >= 6
    assert content["killShot"] in shown and content["landmines"][0] in shown
    for quote in content["killShotQuotes"]:
        assert f"“{quote['quote']}”" in shown
    # print: short sources under each item; JS-only buttons hidden until the script runs
    assert '<p class="bc-sources print-only">Sources: rival.example/security</p>' in html
    assert 'id="bc-copy" data-source="bc-markdown" hidden>Copy as Markdown' in html
    assert 'id="bc-print" hidden>Print' in html
    assert "/static/battlecard.css" in html and "/static/battlecard.js" in html
    assert "onclick" not in html and "<script>" not in html and 'style="' not in html


def test_markdown_textarea_is_the_export(seeded):
    web, card_id, _, _ = seeded
    html = text_of(web.get(f"/battlecards/{card_id}"))
    area = re.search(r'<textarea id="bc-markdown" rows="14" readonly>(.*?)</textarea>', html, re.S)
    exported = text_of(web.api.get(f"/api/battlecards/{card_id}/export"))
    assert area and unescape(area.group(1)).replace("&lt;", "<").replace("&gt;", ">") == exported
    assert '<label for="bc-markdown">' in html
    download = web.get(f"/battlecards/{card_id}/export?format=markdown")
    assert download.status_code == 200 and text_of(download) == exported
    assert download.headers["Content-Disposition"].startswith("attachment;")
    assert web.get(f"/battlecards/{card_id}/export?format=pdf").status_code == 400


def print_stylesheet() -> tuple[str, str]:
    """battlecard.css, and its part from ``@media print`` on."""
    from ci_service.web.pages import bp

    text = (Path(bp.static_folder) / "battlecard.css").read_text()
    return text, text.split("@media print", 1)[-1]


@pytest.mark.parametrize(
    "hidden",
    [
        ".bc-toolbar",
        ".bc-edit",
        ".bc-evidence > summary",
        ".bc-quotes",
        ".bc-markdown",
        ".no-print",
    ],
)
def test_print_hides_what_only_the_screen_needs(hidden):
    _, printed = print_stylesheet()
    assert hidden in printed.split("display: none")[0]


def test_print_stylesheet_fits_the_card_on_paper():
    text, printed = print_stylesheet()
    assert "@media print" in text and "@page" in text and "column-count: 2" in text
    # every tile expanded: the disclosures' bodies (descriptions) print while closed
    assert ".bc-evidence::details-content { content-visibility: visible" in printed


def test_editor_edit_is_marked_and_kept_on_regeneration(seeded, make_web, runner):
    owner, card_id, product, competitor = seeded
    editor = make_web(role="EDITOR", workspace=workspace_of(owner))
    before = read(owner, card_id)["battlecard"]["content"]
    page = f"/battlecards/{card_id}"
    form = {
        "section": "whyWeWin",
        "index": "0",
        "title": "SSO on every plan; Rival has none",
        "description": before["whyWeWin"][0]["description"],
    }
    answer = editor.post_form(f"{page}/edit", form, csrf_from=page)
    assert answer.status_code == 303 and answer.headers["Location"].endswith("#whyWeWin-0")
    landmine = {"section": "landmines", "index": "1", "text": "Ask Rival for their SOC 2 report."}
    assert editor.post_form(f"{page}/edit", landmine, csrf_from=page).status_code == 303
    wedge = {"section": "pricingWedge", "index": "0", "text": "Rival charges per seat; we do not."}
    assert editor.post_form(f"{page}/edit", wedge, csrf_from=page).status_code == 303

    def check(body):
        content = body["battlecard"]["content"]
        item = content["whyWeWin"][0]
        assert item["title"] == "SSO on every plan; Rival has none"
        assert item["edited"] is True and item["editedBy"] == editor.email
        assert item["editedAt"].endswith("Z") and item["quotes"] and item["evidenceIds"]
        assert "edited" not in content["whyWeWin"][1]
        assert content["landmines"][1] == "Ask Rival for their SOC 2 report."
        assert content["pricingWedge"] == "Rival charges per seat; we do not."
        edits = {(e["section"], e["index"]) for e in body["battlecard"]["edits"]}
        assert edits == {("whyWeWin", 0), ("landmines", 1), ("pricingWedge", 0)}
        html = text_of(owner.get(page))
        assert html.count('<span class="badge bc-edited"') == 3
        assert "SSO on every plan; Rival has none" in html

    check(read(owner, card_id))
    assert generate(owner, runner, competitor["id"], product["id"]) == card_id
    after = read(owner, card_id)
    assert after["battlecard"]["status"] == "READY"
    check(after)
    # the edited item still rests on the freshly written evidence
    assert (
        after["battlecard"]["content"]["whyWeWin"][0]["evidenceIds"]
        == (before["whyWeWin"][0]["evidenceIds"])
    )


def test_edit_of_an_item_the_new_mode_lacks_is_kept(seeded, runner):
    web, card_id, product, competitor = seeded
    page = f"/battlecards/{card_id}"
    form = {"section": "talkingPoints", "index": "0", "title": "Open with SSO"}
    assert web.post_form(f"{page}/edit", form, csrf_from=page).status_code == 303
    generate(web, runner, competitor["id"], product["id"], mode="DEFENSE")
    content = read(web, card_id)["battlecard"]["content"]
    assert read(web, card_id)["battlecard"]["mode"] == "DEFENSE"
    assert content["talkingPoints"][0]["title"] == "Open with SSO"
    assert content["talkingPoints"][0]["edited"] is True
    assert any(not t.get("edited") for t in content["talkingPoints"][1:])


def test_invalid_edit_shows_the_form_again_with_the_message(seeded):
    web, card_id, _, _ = seeded
    page = f"/battlecards/{card_id}"
    answer = web.post_form(
        f"{page}/edit", {"section": "whyWeWin", "index": "0", "title": " "}, csrf_from=page
    )
    assert answer.status_code == 400
    html = text_of(answer)
    assert 'role="alert"' in html and "title" in html
    # the tile's form is open again (its lines hidden), the other tiles' forms are not
    assert 'class="bc-edit stack no-print" id="edit-whyWeWin">' in html
    assert 'class="bc-edit stack no-print" id="edit-whyWeLose" hidden>' in html
    assert '<div class="bc-view" id="view-whyWeWin" hidden>' in html
    missing = web.post_form(
        f"{page}/edit", {"section": "whyWeWin", "index": "99", "title": "x"}, csrf_from=page
    )
    assert missing.status_code == 400 and "index" in text_of(missing)
    assert read(web, card_id)["battlecard"]["edits"] == []


def test_viewer_sees_no_edit_forms_and_cannot_post(seeded, make_web):
    owner, card_id, _, _ = seeded
    viewer = make_web(role="VIEWER", workspace=workspace_of(owner))
    page = f"/battlecards/{card_id}"
    html = text_of(viewer.get(page))
    assert 'Evidence <span class="bc-n">' in html  # the evidence, read-only
    assert "bc-edit-toggle" not in html and "?edit=" not in html
    assert 'name="section"' not in html and "Regenerate" not in html
    form = {"section": "whyWeWin", "index": "0", "title": "Hijacked"}
    assert viewer.post_form(f"{page}/edit", form, csrf_from=page).status_code == 403
    assert (
        viewer.post_form(f"{page}/generate", {"mode": "DEFENSE"}, csrf_from=page).status_code == 403
    )
    assert read(owner, card_id)["battlecard"]["edits"] == []
    assert viewer.get(f"{page}/export?format=html").status_code == 200


def test_missing_csrf_is_400_and_changes_nothing(seeded):
    web, card_id, _, _ = seeded
    answer = web.client.post(
        f"/battlecards/{card_id}/edit", data={"section": "whyWeWin", "index": "0", "title": "x"}
    )
    assert answer.status_code == 400
    assert read(web, card_id)["battlecard"]["edits"] == []


@pytest.mark.parametrize(
    "path",
    [
        "/battlecards/{card}",
        "/battlecards/{card}/status.json",
        "/battlecards/{card}/export?format=markdown",
        "/battlecards/missing",
    ],
)
def test_another_workspaces_card_is_the_404_page(seeded, make_web, path):
    _, card_id, _, _ = seeded
    answer = make_web().get(path.format(card=card_id))
    assert answer.status_code == 404
    assert "not in your workspace" in text_of(answer)


def test_another_workspaces_card_cannot_be_edited_or_exported(seeded, make_web):
    _, card_id, _, _ = seeded
    stranger = make_web()
    form = {"section": "whyWeWin", "index": "0", "title": "Hijacked"}
    assert (
        stranger.post_form(f"/battlecards/{card_id}/edit", form, csrf_from="/").status_code == 404
    )
    error = stranger.api.get(f"/api/battlecards/{card_id}/export")
    assert error.status_code == 404 and error.get_json()["error"]["code"] == "NOT_FOUND"


def test_generating_card_has_a_live_note(make_web, runner):
    web = make_web()
    product, competitor, _ = seed_rival(web.api)
    body = {"productId": product["id"], "mode": "DEFENSE"}
    started = ok(web.api.post(f"/api/battlecards/{competitor['id']}/generate", json=body))
    card_id = started["battlecard"]["id"]
    html = text_of(web.get(f"/battlecards/{card_id}"))
    assert 'class="notice bc-live" id="bc-live" role="status"' in html
    assert f'data-status-url="/battlecards/{card_id}/status.json"' in html
    assert "<noscript>" in html and '<span class="badge GENERATING">GENERATING</span>' in html
    status = web.get(f"/battlecards/{card_id}/status.json").get_json()
    assert (
        status["battlecard"]["status"] == "GENERATING" and status["battlecard"]["mode"] == "DEFENSE"
    )
    runner.run_until_idle()
    assert (
        web.get(f"/battlecards/{card_id}/status.json").get_json()["battlecard"]["status"] == "READY"
    )
    assert "bc-live" not in text_of(web.get(f"/battlecards/{card_id}"))


def test_regenerate_button_starts_a_job(seeded, runner):
    web, card_id, _, _ = seeded
    page = f"/battlecards/{card_id}"
    answer = web.post_form(f"{page}/generate", {"mode": "DEFENSE"}, csrf_from=page)
    assert answer.status_code == 303
    assert read(web, card_id)["battlecard"]["status"] == "GENERATING"
    assert web.post_form(f"{page}/generate", {"mode": "attack"}, csrf_from=page).status_code == 400
    runner.run_until_idle()
    assert read(web, card_id)["battlecard"]["mode"] == "DEFENSE"


def test_hostile_text_and_links_are_inert(seeded):
    web, card_id, _, competitor = seeded
    hostile = "<script>alert(1)</script>"
    ok(web.api.patch(f"/api/competitors/{competitor['id']}", json={"name": hostile}))
    page = f"/battlecards/{card_id}"
    form = {"section": "whyWeLose", "index": "0", "title": hostile, "description": hostile}
    assert web.post_form(f"{page}/edit", form, csrf_from=page).status_code == 303
    with connection():
        row = Battlecard.get_by_id(card_id)
        content = dict(row.content)
        content["killShotQuotes"] = [
            {"evidenceId": "x", "quote": hostile, "url": "javascript:alert(1)"}
        ]
        Battlecard.update(content=content).where(Battlecard.id == card_id).execute()
    html = text_of(web.get(page))
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "javascript:" not in html


def test_page_is_quick(seeded):
    import time

    web, card_id, _, _ = seeded
    web.get(f"/battlecards/{card_id}")
    started = time.perf_counter()
    for _ in range(10):
        assert web.get(f"/battlecards/{card_id}").status_code == 200
    assert (time.perf_counter() - started) / 10 < 0.2
