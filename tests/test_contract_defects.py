"""Issue 12: answers that contradicted each other or the request, each through REST and
the tools where both exist.

1. ``productId`` / ``offeringId`` keeps only competitors whose ``relevantProductIds`` name
   the product, in the competitors list and in the matrix alike.
2. ``cells`` and ``cellMap`` hold the same cells: those of the selected categories for the
   listed competitors, each reachable as ``cellMap[categoryId][competitorId]``.
3. Generating a card in a mode answers with that mode, even when the card had another.
"""

from __future__ import annotations

import pytest

from ci_service.services.analysis import matrix
from ci_service.services.battlecards import cards as battlecards
from ci_service.services.battlecards import content as battlecard_content
from ci_service.store.analysis import MatrixCell
from ci_service.store.db import connection
from tests.analysis_support import seed_rival
from tests.resource_helpers import make_competitor, make_product, make_solution, ok, tool

pytest_plugins = ["tests.jobs_fixtures"]


def build(api, *competitor_ids):
    with connection():
        for competitor_id in competitor_ids:
            matrix.build_matrix(api.workspace_id, competitor_id)


def assert_cells_agree(body):
    """Every cell of ``cells`` is ``cellMap[categoryId][competitorId]``; cellMap holds
    nothing else, only the selected categories and only the listed competitors."""
    category_ids = [c["id"] for c in body["categories"]]
    competitor_ids = {c["id"] for c in body["competitors"]}
    assert list(body["cellMap"]) == category_ids
    for cell in body["cells"]:
        assert body["cellMap"][cell["categoryId"]][cell["competitorId"]] == cell
    mapped = [cell for row in body["cellMap"].values() for cell in row.values()]
    assert len(mapped) == len(body["cells"])
    assert {c["competitorId"] for c in mapped} <= competitor_ids
    for category_id, row in body["cellMap"].items():
        assert all(cell["categoryId"] == category_id for cell in row.values())


# -- 1. one meaning of productId ---------------------------------------------------------


@pytest.fixture
def three_competitors(make_api):
    """Rival names our product; Anywhere names none (empty list); Elsewhere names another.
    All three are scored (an empty list is scored against every product)."""
    api = make_api()  # ENTERPRISE: REST and tools
    product, rival, _ = seed_rival(api)
    other = make_product(api, name="Other")
    anywhere = make_competitor(api, name="Anywhere", url="https://anywhere.example")
    elsewhere = make_competitor(
        api,
        name="Elsewhere",
        url="https://elsewhere.example",
        relevantProductIds=[other["id"]],
    )
    ids = [rival["id"], anywhere["competitor"]["id"], elsewhere["competitor"]["id"]]
    build(api, *ids)
    return api, product, ids


def test_matrix_product_filter_lists_what_the_competitors_list_does(three_competitors):
    api, product, (rival_id, anywhere_id, _elsewhere_id) = three_competitors
    with connection():  # Anywhere really has cells for the product: only the filter differs
        assert MatrixCell.select().where(MatrixCell.competitor == anywhere_id).count() > 0
    listed = ok(api.get(f"/api/competitors?productId={product['id']}"))["competitors"]
    assert [c["id"] for c in listed] == [rival_id]
    body = ok(api.get(f"/api/matrix?productId={product['id']}"))
    assert [c["id"] for c in body["competitors"]] == [rival_id]
    assert {c["competitorId"] for c in body["cells"]} == {rival_id}
    assert_cells_agree(body)
    # competitorIds narrows within the filter; it does not add a competitor back
    body = ok(api.get(f"/api/matrix?productId={product['id']}&competitorIds={anywhere_id}"))
    assert body["competitors"] == [] and body["cells"] == []
    # without productId every competitor is listed
    body = ok(api.get("/api/matrix"))
    assert len(body["competitors"]) == 3


def test_tools_offering_filter_lists_what_list_competitors_does(three_competitors):
    api, product, (rival_id, anywhere_id, _elsewhere_id) = three_competitors
    listed = tool(api, "list_competitors", {"offeringId": product["id"]})["competitors"]
    assert [c["id"] for c in listed] == [rival_id]
    cells = tool(api, "get_matrix", {"offeringId": product["id"]})["cells"]
    assert cells and {c["competitorId"] for c in cells} == {rival_id}
    view = tool(api, "get_matrix", {"offeringId": product["id"], "competitorIds": [anywhere_id]})
    assert view["cells"] == []


# -- 2. cells and cellMap agree -----------------------------------------------------------


def test_product_categories_selected_cells_of_the_competitors_own_are_not_listed(make_api):
    api = make_api()
    product = make_product(api, categories=[{"id": "p1", "name": "Security"}])
    rival = make_competitor(api, relevantProductIds=[product["id"]])["competitor"]
    ok(
        api.patch(
            f"/api/competitors/{rival['id']}",
            json={"categories": [{"id": "m1", "name": "Mobile"}]},
        )
    )
    build(api, rival["id"])
    with connection():  # scored: the product's category and the competitor's own
        assert {c.category_id for c in MatrixCell.select()} == {"p1", "m1"}
    body = ok(api.get(f"/api/matrix?productId={product['id']}&competitorIds={rival['id']}"))
    assert body["categories"] == [{"id": "p1", "name": "Security"}]
    assert [c["categoryId"] for c in body["cells"]] == ["p1"]
    assert_cells_agree(body)
    cells = tool(api, "get_matrix", {"offeringId": product["id"]})["cells"]
    assert [c["categoryId"] for c in cells] == ["p1"]


def test_competitor_categories_selected_cells_match_by_name_under_the_shown_id(make_api):
    """Without productId the first competitor's categories are shown. Its "Security" was
    scored under the product's "Security" (same name, other id): the cell is shown in
    that row and carries the row's id, so it is reachable; the product-only category
    ("Audit") is not listed."""
    api = make_api()
    make_product(
        api,
        categories=[{"id": "p-sec", "name": "Security"}, {"id": "p-audit", "name": "Audit"}],
    )
    rival = make_competitor(api)["competitor"]
    ok(
        api.patch(
            f"/api/competitors/{rival['id']}",
            json={
                "categories": [{"id": "c-sec", "name": "security"}, {"id": "m1", "name": "Mobile"}]
            },
        )
    )
    build(api, rival["id"])
    with connection():
        assert {c.category_id for c in MatrixCell.select()} == {"p-sec", "p-audit", "m1"}
    body = ok(api.get("/api/matrix"))
    assert [c["id"] for c in body["categories"]] == ["c-sec", "m1"]
    assert_cells_agree(body)
    shown = body["cellMap"]["c-sec"][rival["id"]]
    with connection():
        stored = MatrixCell.get(MatrixCell.category_id == "p-sec")
    assert shown["id"] == stored.id and shown["categoryName"] == "security"
    assert sorted(c["categoryId"] for c in body["cells"]) == ["c-sec", "m1"]
    cells = tool(api, "get_matrix", {})["cells"]
    assert sorted(c["categoryId"] for c in cells) == ["c-sec", "m1"]


def test_solution_matrix_cells_and_drill_down_agree(make_api):
    api = make_api()
    product, rival, _ = seed_rival(api)
    second = make_competitor(
        api, name="Second", url="https://second.example", relevantProductIds=[product["id"]]
    )["competitor"]
    build(api, rival["id"], second["id"])
    mappings = [
        {"categoryId": category, "productId": product["id"], "weight": 1.0}
        for category in ("security-compliance", "analytics-reporting", "no-such-category")
    ]
    solution = make_solution(api, product["id"], categoryMappings=mappings)
    make_solution(api, product["id"], name="Other", categoryMappings=mappings[1:2])
    for query in ("", f"?solutionIds={solution['id']}", f"?competitorIds={rival['id']}"):
        body = ok(api.get(f"/api/matrix/solutions{query}"))
        solution_ids = [s["id"] for s in body["solutions"]]
        competitor_ids = {c["id"] for c in body["competitors"]}
        assert list(body["cellMap"]) == solution_ids
        for cell in body["cells"]:
            assert body["cellMap"][cell["solutionId"]][cell["competitorId"]] == cell
        mapped = [c for row in body["cellMap"].values() for c in row.values()]
        assert len(mapped) == len(body["cells"]) and body["cells"]
        contributing = {i for c in body["cells"] for i in c["contributingCategoryIds"]}
        drill = [c for row in body["categoryCellMap"].values() for c in row.values()]
        assert {c["id"] for c in drill} == contributing and len(drill) == len(contributing)
        for category_id, row in body["categoryCellMap"].items():
            for competitor_id, cell in row.items():
                assert cell["categoryId"] == category_id
                assert cell["competitorId"] == competitor_id and competitor_id in competitor_ids
    via_tool = tool(api, "get_solution_matrix", {"solutionIds": [solution["id"]]})
    assert via_tool["cells"] and all(
        via_tool["cellMap"][c["solutionId"]][c["competitorId"]] == c for c in via_tool["cells"]
    )


# -- 3. generate answers with the requested mode ---------------------------------------------


@pytest.fixture
def attack_card(make_api, runner, monkeypatch):
    """An ATTACK card, written (READY). The content rules are not under test here (they
    have their own tests): the stub writes a kill shot naming the mode it was asked for."""

    def content(workspace_id, competitor, product, mode, offerings, intel):
        return {**battlecards.EMPTY_CONTENT, "killShot": f"{mode} kill shot"}

    monkeypatch.setattr(battlecard_content, "generate_content", content)
    api = make_api()
    product, rival, _ = seed_rival(api)
    body = {"productId": product["id"], "mode": "ATTACK"}
    ok(api.post(f"/api/battlecards/{rival['id']}/generate", json=body))
    runner.run_until_idle()
    (card,) = ok(api.get("/api/battlecards"))["battlecards"]
    assert card["mode"] == "ATTACK" and card["status"] == "READY"
    assert card["content"]["killShot"] == "ATTACK kill shot"
    return api, product, rival, card


def test_generate_answers_the_requested_mode(attack_card, runner):
    api, product, rival, card = attack_card
    body = {"productId": product["id"], "mode": "DEFENSE"}
    started = ok(api.post(f"/api/battlecards/{rival['id']}/generate", json=body))
    initial = started["battlecard"]
    assert initial["id"] == card["id"] and initial["status"] == "GENERATING"
    assert initial["mode"] == "DEFENSE" and initial["requestedMode"] == "DEFENSE"
    assert initial["content"] == card["content"]  # the old content until the job writes
    # the card reads the same while it is being generated
    assert ok(api.get(f"/api/battlecards/{card['id']}"))["battlecard"]["mode"] == "DEFENSE"
    runner.run_until_idle()
    done = ok(api.get(f"/api/battlecards/{card['id']}"))["battlecard"]
    assert done["mode"] == "DEFENSE" and done["status"] == "READY"
    assert done["content"]["killShot"] == "DEFENSE kill shot"


def test_a_cancelled_generation_shows_the_mode_of_the_content_again(attack_card):
    api, product, rival, card = attack_card
    body = {"productId": product["id"], "mode": "DEFENSE"}
    started = ok(api.post(f"/api/battlecards/{rival['id']}/generate", json=body))
    ok(api.post(f"/api/jobs/{started['jobId']}/cancel"))
    failed = ok(api.get(f"/api/battlecards/{card['id']}"))["battlecard"]
    assert failed["status"] == "FAILED" and failed["mode"] == "ATTACK"
    assert failed["content"] == card["content"]


def test_generate_battlecard_tool_takes_and_answers_the_mode(attack_card, runner):
    api, product, rival, card = attack_card
    ids = {"competitorId": rival["id"], "offeringId": product["id"]}
    started = tool(api, "generate_battlecard", {**ids, "mode": "DEFENSE"})
    assert started["battlecardId"] == card["id"] and started["mode"] == "DEFENSE"
    pending = tool(api, "get_battlecard", ids)
    assert pending["mode"] == "DEFENSE" and pending["status"] == "GENERATING"
    runner.run_until_idle()
    assert tool(api, "get_battlecard", ids)["mode"] == "DEFENSE"
    # without a mode the card keeps its own (now DEFENSE)
    again = tool(api, "generate_battlecard", ids)
    assert again["mode"] == "DEFENSE"
    runner.run_until_idle()
    assert tool(api, "get_battlecard", ids)["mode"] == "DEFENSE"
    # an invalid mode names the argument
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "generate_battlecard",
        "params": {**ids, "mode": "attack"},
    }
    answer = ok(api.post("/mcp", json=body))
    assert answer["error"]["code"] == -32602 and "mode" in answer["error"]["data"]["details"]
