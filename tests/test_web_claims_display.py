"""Matrix cells and battlecard items show the matched features and their quotes.

A matrix cell's ``features`` (matched, theirs alone, ours alone with what was read, coming
soon) and a battlecard item's ``feature`` / ``state`` / ``matched`` / ``read`` /
``pagesRead`` are written here straight into the database, as the services store them:
the pages show every name, quote and note, escaped, with links only to http(s)
addresses; cells and items without those fields (older rows) show as before.
"""

from __future__ import annotations

import lxml.html
import pytest

from ci_service.store.analysis import Battlecard, MatrixCell
from ci_service.store.db import connection, transaction
from ci_service.timeutil import utcnow
from tests.analysis_support import seed_rival

HOSTILE = "<script>alert(1)</script>"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"


def quote(evidence_id, sentence, url):
    return {"evidenceId": evidence_id, "quote": sentence, "url": url}


SAML = "Rival does not support SAML single sign-on."
DASHBOARDS = "Rival offers real-time analytics dashboards and custom reports for every team."
ZAPIER = "Connect Rival with Slack and Zapier through the integrations marketplace and API."
READ = "not on their product or pricing pages, 4 pages read"


def features(pages):
    sec = quote(
        pages["security"], SAML, "https://rival.example/security#:~:text=Rival%20does%20not"
    )
    api = quote(pages["integrations"], ZAPIER, "https://rival.example/integrations#:~:text=Connect")
    dash = quote(pages["analytics"], DASHBOARDS, "https://rival.example/analytics#:~:text=Rival")
    return {
        "matched": [
            {"ours": "REST API", "theirs": "Integrations marketplace and API", "quotes": [api]},
            {"ours": f"Audit {HOSTILE}", "theirs": "Change history", "quotes": []},
        ],
        "theirsOnly": [{"name": "Analytics dashboards", "quotes": [dash]}],
        "oursOnly": [{"name": "Single sign-on", "read": READ, "quotes": []}],
        "soon": [
            {
                "ours": "Single sign-on",
                "theirs": "SAML (coming soon)",
                # a crawled link may be javascript: -> the evidence item's address instead
                "quotes": [quote(pages["security"], SAML, "javascript:alert(2)"), sec],
            }
        ],
    }


def seed_cells(web, product, rival, pages):
    """A cell with features (security) and one without (analytics, features null)."""
    with connection(), transaction():
        common = {"workspace": web.workspace_id, "competitor": rival["id"], "product": product}
        MatrixCell.create(
            **common,
            category_id="security-compliance",
            category_name="Security & Compliance",
            summary=["We have SSO; they do not."],
            capability_status="SUPERIOR",
            evidence_ids=[pages["security"]],
            features=features(pages),
        )
        MatrixCell.create(
            **common,
            category_id="analytics-reporting",
            category_name="Analytics & Reporting",
            summary=["Their dashboards lead."],
            capability_status="INFERIOR",
            evidence_ids=[pages["analytics"]],
            features=None,
        )


@pytest.fixture
def rival(make_web):
    web = make_web(plan="PRO")
    product, rival, pages = seed_rival(web.api)
    seed_cells(web, product["id"], rival, pages)
    return web, product, rival, pages


def cell_of(doc, category_id, competitor_id):
    found = doc.xpath(
        f"//tr[@data-category='{category_id}']/td[@data-competitor='{competitor_id}']"
    )
    assert found, (category_id, competitor_id)
    return found[0]


def page_text(response):
    text = response.get_data(as_text=True)
    assert response.status_code == 200, text[:2000]
    return text


def test_matrix_cell_shows_matched_features_with_quotes(rival):
    web, product, competitor, _ = rival
    text = page_text(web.get(f"/matrix?productId={product['id']}"))
    doc = lxml.html.fromstring(text)
    cell = cell_of(doc, "security-compliance", competitor["id"])
    details = cell.xpath(".//details")[0]
    assert "1 source" in details.xpath("./summary")[0].text_content()
    assert "2 matched" in details.xpath("./summary")[0].text_content()
    groups = {
        g.get("class").split()[-1]: g for g in details.xpath(".//div[contains(@class,'fgroup')]")
    }
    assert list(groups) == ["matched", "theirs-only", "ours-only", "soon"]
    heads = [g.xpath("./p[@class='fh']")[0].text_content().strip() for g in groups.values()]
    assert heads == ["Matched ours ↔ Rival", "Only Rival", "Only ours", "Coming soon at Rival"]

    first = groups["matched"].xpath(".//li")[0]
    pair = " ".join(first.xpath("./p[@class='pair']")[0].text_content().split())
    assert pair == "REST API ↔matches Integrations marketplace and API"
    assert first.xpath(".//blockquote")[0].text_content() == f"“{ZAPIER}”"
    link = first.xpath(".//a")[0]
    assert link.get("href") == "https://rival.example/integrations#:~:text=Connect"
    assert link.text_content() == "Rival Integrations"  # the evidence item's title
    assert "noopener" in link.get("rel")

    only_theirs = groups["theirs-only"]
    assert "Analytics dashboards" in only_theirs.text_content()
    assert only_theirs.xpath(".//blockquote")[0].text_content() == f"“{DASHBOARDS}”"
    assert "#:~:text=" in only_theirs.xpath(".//a")[0].get("href")

    only_ours = groups["ours-only"]
    assert "Single sign-on" in only_ours.text_content()
    assert only_ours.xpath(".//p[contains(@class,'read')]")[0].text_content() == READ
    assert not only_ours.xpath(".//blockquote")

    soon = groups["soon"]
    assert "SAML (coming soon)" in soon.text_content()
    quotes = soon.xpath(".//blockquote")
    assert [q.text_content() for q in quotes] == [f"“{SAML}”", f"“{SAML}”"]
    hrefs = [a.get("href") for a in soon.xpath(".//a")]
    assert hrefs == [
        "https://rival.example/security",
        "https://rival.example/security#:~:text=Rival%20does%20not",
    ]
    assert "javascript:" not in text

    # features sit above the summary and the evidence, which are still there
    body = details.xpath("./div[@class='cell-body']")[0]
    order = [child.get("class") for child in body]
    assert order.index("features") < order.index("summary") < order.index("evidence")
    assert "does not support SAML" in body.xpath(".//div[@class='evidence']")[0].text_content()


def test_matrix_escapes_feature_names_and_renders_cells_without_features(rival):
    web, product, competitor, _ = rival
    text = page_text(web.get(f"/matrix?productId={product['id']}"))
    assert HOSTILE not in text and f"Audit {ESCAPED}" in text
    doc = lxml.html.fromstring(text)
    plain = cell_of(doc, "analytics-reporting", competitor["id"])
    assert not plain.xpath(".//div[contains(@class,'features')]")
    assert "matched" not in plain.xpath(".//summary")[0].text_content()
    assert "Their dashboards lead." in plain.text_content()
    assert DASHBOARDS in plain.xpath(".//blockquote")[0].text_content()
    # a features object with nothing in it, or junk, shows nothing either
    with connection(), transaction():
        MatrixCell.update(
            features={"matched": [], "theirsOnly": None, "oursOnly": ["x", {"name": ""}]}
        ).where(MatrixCell.category_id == "security-compliance").execute()
    doc = lxml.html.fromstring(page_text(web.get(f"/matrix?productId={product['id']}")))
    cell = cell_of(doc, "security-compliance", competitor["id"])
    assert not cell.xpath(".//div[contains(@class,'features')]")
    assert "We have SSO; they do not." in cell.text_content()


def test_solution_matrix_drill_down_shows_the_cell_features(rival):
    web, product, competitor, _ = rival
    body = {
        "name": "Secure rollout",
        "productIds": [product["id"]],
        "categoryMappings": [
            {"categoryId": "security-compliance", "productId": product["id"], "weight": 1}
        ],
    }
    assert web.api.post("/api/solutions", json=body).status_code == 201
    from ci_service.services.analysis.solution_matrix import recompute_solution_cells

    with connection():
        recompute_solution_cells(web.workspace_id, competitor_id=competitor["id"])
    text = page_text(web.get("/matrix/solutions"))
    assert "Integrations marketplace and API" in text and f"“{ZAPIER}”" in text
    assert "Only Rival" in text and READ in text
    assert HOSTILE not in text


# -- battlecard ---------------------------------------------------------------------------


def card_content(pages):
    sec = quote(pages["security"], SAML, "https://rival.example/security#:~:text=Rival")
    api = quote(pages["integrations"], ZAPIER, "https://rival.example/integrations#:~:text=C")
    dash = quote(pages["analytics"], DASHBOARDS, "https://rival.example/analytics#:~:text=R")
    read_pages = [
        {"evidenceId": pages["security"], "title": "Rival Security", "pageKind": "PRODUCT",
         "url": "https://rival.example/security"},
        {"evidenceId": pages["pricing"], "title": f"Pricing {HOSTILE}", "pageKind": "PRICING",
         "url": "javascript:alert(3)"},
    ]  # fmt: skip
    return {
        "whyWeWin": [
            {
                "title": "SSO on every plan",
                "description": "Rival has no single sign-on.",
                "quotes": [sec],
                "evidenceIds": [pages["security"]],
                "feature": f"Single sign-on {HOSTILE}",
                "state": "THEY_LACK",
                "read": READ,
                "pagesRead": read_pages,
            },
            {
                # an item of before: no claim fields
                "title": "Audit log",
                "description": "Every change recorded.",
                "quotes": [sec],
                "evidenceIds": [pages["security"]],
            },
        ],
        "whyWeLose": [
            {
                "title": "Their dashboards",
                "description": "Rival's analytics are stronger.",
                "quotes": [dash],
                "feature": "Reports",
                "state": "WE_LACK",
                "matched": [],
            }
        ],
        "objections": [
            {
                "objection": "Rival integrates with everything",
                "response": "So do we, through our REST API.",
                "quotes": [api],
                "feature": "REST API",
                "state": "THEY_HAVE",
                "matched": [
                    {
                        "ours": "REST API",
                        "theirs": f"Integrations marketplace {HOSTILE}",
                        "quotes": [api],
                    }
                ],
            }
        ],
        "talkingPoints": [
            {
                "title": "SAML is only on their roadmap",
                "description": "They announced it; we ship it.",
                "quotes": [sec],
                "feature": "Single sign-on",
                "state": "COMING_SOON",
                "matched": [{"ours": "Single sign-on", "theirs": "SAML", "quotes": [sec]}],
            }
        ],
        "killShot": "We have SSO today.",
        "killShotQuotes": [sec],
        "landmines": ["Ask them about SAML."],
        "pricingWedge": "",
    }


@pytest.fixture
def card(make_web):
    web = make_web()
    product, competitor, pages = seed_rival(web.api)
    with connection(), transaction():
        row = Battlecard.create(
            workspace=web.workspace_id,
            competitor=competitor["id"],
            my_product=product["id"],
            mode="ATTACK",
            status="READY",
            content=card_content(pages),
            # the integrations page is cited only by a matched pair: read by the page
            evidence_ids=[pages["security"], pages["analytics"]],
            generated_at=utcnow(),
        )
    return web, row.id


def item_of(doc, item_id):
    found = doc.xpath(f"//li[@id='{item_id}']")
    assert found, item_id
    return found[0]


def squash(text):
    return " ".join(text.split())


def test_battlecard_items_show_state_matched_pairs_and_pages_read(card):
    web, card_id = card
    text = page_text(web.get(f"/battlecards/{card_id}"))
    doc = lxml.html.fromstring(text)

    win = item_of(doc, "whyWeWin-0")
    # on the item's line: where they stand, as a badge, then the claim
    line = win.xpath("./p[@class='bc-line']")[0]
    badge = line.xpath(".//span[contains(@class,'badge')]")[0]
    assert badge.text_content() == "They lack it" and "bc-they-lack" in badge.get("class")
    assert "SSO on every plan" in line.text_content()
    # behind the item's one disclosure: the description, the feature, what was read, pages
    disclosure = win.xpath("./details[@class='bc-evidence']")
    assert len(disclosure) == 1
    claim = disclosure[0].xpath(".//div[@class='bc-claim']")[0]
    assert f"Feature: Single sign-on {HOSTILE}" in squash(claim.text_content())
    assert squash(claim.xpath(".//p[@class='bc-read']")[0].text_content()) == f"Checked: {READ}"
    pages = claim.xpath(".//details[@class='bc-pages']")[0]
    assert squash(pages.xpath("./summary")[0].text_content()) == "Pages read (2)"
    links = pages.xpath(".//a")
    assert [a.get("href") for a in links] == ["https://rival.example/security"]
    assert links[0].text_content() == "Rival Security"
    assert f"Pricing {HOSTILE}" in pages.text_content() and "pricing" in pages.text_content()
    # the item's own quotes follow the claim in the same disclosure
    assert "Rival has no single sign-on." in disclosure[0].text_content()
    assert disclosure[0].xpath(".//ul[@class='plain bc-quotes']//blockquote")
    own = lxml.html.tostring(disclosure[0], encoding="unicode")
    assert own.index('class="bc-desc"') < own.index('class="bc-claim"') < own.index("bc-quotes")

    assert not item_of(doc, "whyWeWin-1").xpath(".//div[@class='bc-claim']")  # an old item

    lose = item_of(doc, "whyWeLose-0")
    assert lose.xpath(".//span[contains(@class,'badge')]")[0].text_content() == "We lack it"
    # a feature the claim does not name shows as a chip on its line
    assert lose.xpath("./p[@class='bc-line']/span[@class='bc-chip']")[0].text_content() == "Reports"
    chip = item_of(doc, "objections-0").xpath("./p[@class='bc-line']/span[@class='bc-chip']")
    assert chip[0].text_content() == "REST API"
    assert win.xpath(".//span[@class='bc-chip']")[0].text_content() == f"Single sign-on {HOSTILE}"
    assert not lose.xpath(".//ul[contains(@class,'bc-matched')]")

    objection = item_of(doc, "objections-0")
    assert "They have it" in objection.text_content()
    pair = objection.xpath(".//ul[contains(@class,'bc-matched')]/li")[0]
    assert squash(pair.xpath("./p[@class='bc-pair']")[0].text_content()) == (
        f"REST API ↔matches their Integrations marketplace {HOSTILE}"
    )
    assert pair.xpath(".//blockquote")[0].text_content() == f"“{ZAPIER}”"
    # the item's quote is the pair's: shown once, under the pair
    assert objection.text_content().count(ZAPIER) == 1
    assert not objection.xpath(".//ul[contains(@class,'bc-quotes')]")
    link = pair.xpath(".//a")[0]
    assert link.get("href") == "https://rival.example/integrations#:~:text=C"
    # evidence outside the card's own ids is read for the title and date
    assert link.text_content() == "Open “Rival Integrations” at this sentence"
    assert pair.xpath(".//time")

    soon = item_of(doc, "talkingPoints-0")
    assert "Coming soon" in soon.xpath(".//span[contains(@class,'badge')]")[0].text_content()
    assert "Matches at Rival" in soon.text_content()


def test_battlecard_claims_are_escaped_and_link_only_to_http(card):
    web, card_id = card
    text = page_text(web.get(f"/battlecards/{card_id}"))
    assert HOSTILE not in text
    assert f"Single sign-on {ESCAPED}" in text and f"Integrations marketplace {ESCAPED}" in text
    assert "javascript:" not in text
    assert "onclick" not in text and 'style="' not in text


def test_battlecard_with_odd_claim_fields_still_renders(card):
    web, card_id = card
    with connection(), transaction():
        row = Battlecard.get_by_id(card_id)
        content = dict(row.content)
        content["whyWeWin"] = [
            {**content["whyWeWin"][0], "state": "MAYBE", "feature": 7, "read": None,
             "pagesRead": "x", "matched": [None, {"ours": "", "theirs": ""}, "y"]},
        ]  # fmt: skip
        row.content = content
        row.save()
    doc = lxml.html.fromstring(page_text(web.get(f"/battlecards/{card_id}")))
    win = item_of(doc, "whyWeWin-0")
    assert not win.xpath(".//div[@class='bc-claim']")
    assert "SSO on every plan" in win.text_content()


@pytest.mark.parametrize("category_id", ["security-compliance", "analytics-reporting"])
def test_matrix_shows_the_features_the_service_answers(rival, monkeypatch, category_id):
    """The page shows the ``features`` of the cell dict the matrix service answers."""
    from ci_service.services.analysis import matrix

    plain = matrix.cell_to_dict

    def with_features(cell):
        out = plain(cell)
        out["features"] = {"matched": [{"ours": "Served", "theirs": "By the service"}]}
        return out

    monkeypatch.setattr(matrix, "cell_to_dict", with_features)
    web, product, competitor, _ = rival
    doc = lxml.html.fromstring(page_text(web.get(f"/matrix?productId={product['id']}")))
    cell = cell_of(doc, category_id, competitor["id"])
    assert "Served ↔matches By the service" in squash(cell.text_content())
    assert "Integrations marketplace and API" not in cell.text_content()
