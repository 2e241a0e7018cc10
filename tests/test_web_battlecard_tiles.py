"""The battlecard page as tiles: the kill shot first, one tile per section with its count,
one claim a line, each item's evidence behind one disclosure, and one Edit per tile whose
form saves the tile's items together (all or none), with and without JavaScript."""

from __future__ import annotations

import lxml.html
import pytest

from ci_service.store.analysis import Battlecard
from ci_service.store.db import connection
from ci_service.store.identity import Workspace
from tests.analysis_support import seed_rival
from tests.resource_helpers import ok

pytest_plugins = ["tests.jobs_fixtures"]

HOSTILE = "<script>alert(1)</script>"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"


@pytest.fixture
def seeded(make_web, runner):
    """An OWNER and a generated ATTACK card: (web, card id)."""
    web = make_web()
    product, competitor, _pages = seed_rival(web.api)
    body = {"productId": product["id"], "mode": "ATTACK"}
    started = ok(web.api.post(f"/api/battlecards/{competitor['id']}/generate", json=body))
    runner.run_until_idle()
    return web, started["battlecard"]["id"]


def read(web, card_id):
    return ok(web.api.get(f"/api/battlecards/{card_id}?includeEvidence=true"))["battlecard"]


def page_of(web, path):
    answer = web.get(path)
    assert answer.status_code == 200, answer.get_data(as_text=True)[:2000]
    return answer.get_data(as_text=True), lxml.html.fromstring(answer.get_data(as_text=True))


def squash(text):
    return " ".join(text.split())


def tile_form(card, section):
    """The tile form's fields as the page fills them (every item, as shown)."""
    form = {"section": section, "index": []}
    for index, item in enumerate(card["content"][section]):
        form["index"].append(str(index))
        if section == "objections":
            form[f"objection-{index}"] = item["objection"]
            form[f"response-{index}"] = item["response"]
        elif section == "landmines":
            form[f"text-{index}"] = item
        else:
            form[f"title-{index}"] = item["title"]
            form[f"description-{index}"] = item["description"]
    return form


def test_tiles_with_counts_kill_shot_first_and_one_line_per_claim(seeded):
    web, card_id = seeded
    card = read(web, card_id)
    content = card["content"]
    text, doc = page_of(web, f"/battlecards/{card_id}")
    tiles = doc.xpath("//div[@class='bc-tiles']/section")
    keys = [t.get("id") for t in tiles]
    assert keys[0] == "killShot" and "bc-hero" in tiles[0].get("class")
    assert squash(tiles[0].xpath(".//p[@class='bc-text']")[0].text_content()) == content["killShot"]
    filled = [k for k in keys[1:] if content.get(k)]
    assert keys[1 : 1 + len(filled)] == filled  # empty tiles, if any, come last
    assert sorted(keys) == sorted(
        ["killShot", "whyWeWin", "whyWeLose", "objections", "talkingPoints", "landmines"]
        + ["pricingWedge"]
    )
    for key in ("whyWeWin", "whyWeLose", "objections", "talkingPoints", "landmines"):
        tile = doc.get_element_by_id(key)
        count = tile.xpath(".//h2/span[@class='bc-count']")[0]
        n = len(content[key])
        assert squash(count.text_content()) == f"{n} {'item' if n == 1 else 'items'}"
        items = tile.xpath(".//ul[contains(@class,'bc-lines')]/li")
        assert len(items) == n
        # one Edit per tile, none under the items
        assert len(tile.xpath(".//button[contains(@class,'bc-edit-toggle')]")) == 1
        assert not tile.xpath(".//li//form") and not tile.xpath(".//li//*[text()='Edit']")
        for index, li in enumerate(items):
            entry = content[key][index]
            line = li.xpath("./p[@class='bc-line']")[0]
            claim = entry if key == "landmines" else entry.get("title") or entry["objection"]
            assert claim in squash(line.text_content())
            controls = li.xpath("./details[@class='bc-evidence']")
            if key == "landmines":
                assert not controls
                continue
            assert len(controls) == 1  # one control per item
            summary = squash(controls[0].xpath("./summary")[0].text_content())
            assert summary.startswith(f"Evidence {len(entry['quotes'])}") and claim in summary
            body = controls[0].xpath("./div[@class='bc-ev-body']")[0]
            for quote in entry["quotes"]:
                assert f"“{quote['quote']}”" in body.text_content()
                assert quote["url"] in [a.get("href") for a in body.xpath(".//a")]
            if key != "objections":  # the description is behind the disclosure
                assert squash(entry["description"]) in squash(body.text_content())
                assert entry["description"] not in line.text_content()
    # an objection's answer shows under it, outside the disclosure
    answer = doc.get_element_by_id("objections-0").xpath("./p[contains(@class,'bc-answer')]")
    assert content["objections"][0]["response"] in answer[0].text_content()
    assert "onclick" not in text and 'style="' not in text and "<script>" not in text


def test_tile_form_saves_its_items_together_and_only_what_changed(seeded):
    web, card_id = seeded
    page = f"/battlecards/{card_id}"
    card = read(web, card_id)
    _, doc = page_of(web, page)
    form_el = doc.get_element_by_id("edit-whyWeWin")
    assert form_el.get("hidden") is not None  # until the Edit toggle opens it
    names = form_el.xpath(".//input[@name='index']/@value")
    assert names == [str(i) for i in range(len(card["content"]["whyWeWin"]))]
    form = tile_form(card, "whyWeWin")
    # a textarea sends its lines back with CRLF: not a change
    form["description-0"] = form["description-0"].replace("\n", "\r\n") + "\r\n"
    form["title-1"] = "Cheaper per seat than Rival"
    form["description-1"] = "Line one.\r\nLine two."
    answer = web.post_form(f"{page}/edit", form, csrf_from=page)
    assert answer.status_code == 303 and answer.headers["Location"].endswith("#whyWeWin")
    after = read(web, card_id)
    assert [(e["section"], e["index"]) for e in after["edits"]] == [("whyWeWin", 1)]
    item = after["content"]["whyWeWin"][1]
    assert item["title"] == "Cheaper per seat than Rival" and item["edited"] is True
    assert item["description"] == "Line one.\r\nLine two."
    assert "edited" not in after["content"]["whyWeWin"][0]
    # the form sent again as shown changes nothing
    again = tile_form(after, "whyWeWin")
    assert web.post_form(f"{page}/edit", again, csrf_from=page).status_code == 303
    assert read(web, card_id)["edits"] == after["edits"]


def test_a_bad_item_saves_nothing_and_reopens_the_tile_with_what_was_typed(seeded):
    web, card_id = seeded
    page = f"/battlecards/{card_id}"
    card = read(web, card_id)
    form = tile_form(card, "talkingPoints")
    form["title-0"] = "Kept in the form"
    form["title-1"] = "   "
    answer = web.post_form(f"{page}/edit", form, csrf_from=page)
    assert answer.status_code == 400
    doc = lxml.html.fromstring(answer.get_data(as_text=True))
    alert = doc.xpath("//p[@role='alert']")[0].text_content()
    assert alert.startswith("Item 2:") and "title" in alert
    opened = doc.get_element_by_id("edit-talkingPoints")
    assert opened.get("hidden") is None
    assert doc.get_element_by_id("view-talkingPoints").get("hidden") is not None
    toggle = doc.get_element_by_id("talkingPoints").xpath(".//button[@aria-expanded]")[0]
    assert toggle.get("aria-expanded") == "true"
    assert opened.xpath(".//input[@name='title-0']/@value") == ["Kept in the form"]
    assert doc.get_element_by_id("edit-whyWeLose").get("hidden") is not None
    assert read(web, card_id)["edits"] == []  # item 1 was not saved either


def test_edit_link_without_javascript_opens_the_tile(seeded, make_web):
    web, card_id = seeded
    page = f"/battlecards/{card_id}"
    _, doc = page_of(web, page)
    link = doc.get_element_by_id("objections").xpath(".//a[contains(@class,'bc-edit-link')]")[0]
    assert link.get("href") == f"{page}?edit=objections#objections"
    _, doc = page_of(web, f"{page}?edit=objections")
    assert doc.get_element_by_id("edit-objections").get("hidden") is None
    assert doc.get_element_by_id("view-objections").get("hidden") is not None
    labels = doc.get_element_by_id("edit-objections").xpath(".//label")
    for label in labels:  # every field labelled, its input there
        assert doc.xpath(f"//*[@id='{label.get('for')}']"), label.get("for")
    with connection():
        workspace = Workspace.get_by_id(web.workspace_id)
    viewer = make_web(role="VIEWER", workspace=workspace)
    text, doc = page_of(viewer, f"{page}?edit=objections")
    assert "bc-edit-toggle" not in text and not doc.xpath("//form[contains(@class,'bc-edit')]")
    assert doc.get_element_by_id("view-objections").get("hidden") is None


def test_hostile_text_is_inert_in_lines_disclosures_and_edit_inputs(seeded):
    web, card_id = seeded
    page = f"/battlecards/{card_id}"
    card = read(web, card_id)
    form = tile_form(card, "whyWeLose")
    form["title-0"] = f"Title {HOSTILE}"
    form["description-0"] = f"Description {HOSTILE}"
    assert web.post_form(f"{page}/edit", form, csrf_from=page).status_code == 303
    with connection():
        row = Battlecard.get_by_id(card_id)
        content = dict(row.content)
        content["landmines"] = [f"Ask {HOSTILE}"]
        Battlecard.update(content=content).where(Battlecard.id == card_id).execute()
    text, doc = page_of(web, f"{page}?edit=whyWeLose")
    assert HOSTILE not in text and "javascript:" not in text
    for shown in (f"Title {ESCAPED}", f"Description {ESCAPED}", f"Ask {ESCAPED}"):
        assert shown in text, shown
    # escaped in the line, the disclosure's summary and the edit inputs
    line = doc.get_element_by_id("whyWeLose-0").xpath("./p[@class='bc-line']")[0]
    assert f"Title {HOSTILE}" in line.text_content()
    assert doc.xpath("//form[@id='edit-whyWeLose']//input[@name='title-0']/@value") == [
        f"Title {HOSTILE}"
    ]


def test_another_workspaces_tiles_are_the_404_page(seeded, make_web):
    _, card_id = seeded
    stranger = make_web()
    answer = stranger.get(f"/battlecards/{card_id}?edit=whyWeWin")
    assert answer.status_code == 404 and "not in your workspace" in answer.get_data(as_text=True)
    form = {"section": "whyWeWin", "index": ["0", "1"], "title-0": "Hijacked", "title-1": "x"}
    answer = stranger.post_form(f"/battlecards/{card_id}/edit", form, csrf_from="/")
    assert answer.status_code == 404
