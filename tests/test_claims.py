"""Claims a salesperson can say out loud (issue 27): presence by meaning, coming soon,
absence only after a complete reading, quotes that state the claim, matrix cells that
compare features, objections written from facts, clean money."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from ci_service.services.analysis import feature_presence as fp
from ci_service.services.analysis import matrix_features
from ci_service.services.analysis.claims import Facts
from ci_service.services.analysis.feature_terms import concepts, feature_terms
from ci_service.services.battlecards.facts import FactBuilder, format_money, states_amount
from ci_service.services.battlecards.objections import Answers, objections


def page(key: str, kind: str | None, content: str, source: str = "WEB_PAGE"):
    return SimpleNamespace(
        id=key,
        page_kind=kind,
        content=content,
        title=key.title(),
        url=f"https://rival.example/{key}",
        source_type=source,
        credibility_score=0.8,
        seq=1,
        published_at=None,
    )


def offering(features=(), pricing=()):
    return SimpleNamespace(
        name="Rival", features=list(features), capabilities=[], pricing=list(pricing)
    )


def feature(name: str, item, quote: str, description: str = "") -> dict:
    return {
        "name": name,
        "description": description,
        "quotes": [{"evidenceId": item.id, "quote": quote}],
    }


PRODUCT = page("product", "product", "Rival builds forms and dashboards.\nShare forms by link.")
PRICING = page("pricing", "pricing", "Starter $10 per user/month\nTeam $20 per user/month")


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        ("PostgreSQL connector", "PostgreSQL data source"),
        ("REST connectors", "REST API integrations"),
        ("Single sign-on", "SAML"),
        ("SSO", "single sign-on"),
        ("Self-hosting", "on-premise deployment"),
        ("Self-hosted", "host it on your own servers"),
    ],
)
def test_synonyms_name_the_same_concepts(ours, theirs):
    terms = feature_terms(ours)
    assert terms.strong <= concepts(theirs), (terms, concepts(theirs))


def test_a_feature_of_theirs_with_other_words_is_a_match():
    reading = fp.Reading(
        [
            offering(
                [
                    feature(
                        "PostgreSQL", PRODUCT, "Rival builds forms and dashboards.", "Integration"
                    )
                ]
            )
        ],
        [PRODUCT, PRICING, page("pg", "product", "Connect Rival to your Postgres database.")],
    )
    found = fp.presence("PostgreSQL connector", "", reading)
    assert found.state == fp.HAS
    # The stored quote does not name it: the sentence of that page that does is cited.
    assert found.matches[0].citations[0]["quote"] == "Connect Rival to your Postgres database."


def test_coming_soon_beta_and_roadmap_are_their_own_state():
    table = page("pricing", "pricing", "Plans\nAudit logs\nComing soon\nSSO in beta for teams.")
    reading = fp.Reading([], [PRODUCT, table])
    assert fp.presence("Audit logs", "", reading).state == fp.SOON_STATE
    assert fp.presence("Single sign-on", "", reading).state == fp.SOON_STATE
    roadmap = page("roadmap", None, "Dark mode for every dashboard.")
    assert fp.presence("Dark mode", "", fp.Reading([], [roadmap])).state == fp.SOON_STATE
    plans = page("plans", "pricing", "Pro $5 per user/month\nComing soon\n✓ Offline mode")
    plan = {
        "name": "Pro",
        "price": 5,
        "comingSoon": True,
        "features": ["✓ Offline mode"],
        "quotes": [{"evidenceId": plans.id, "quote": "Pro $5 per user/month"}],
    }
    reading = fp.Reading([offering(pricing=[plan])], [PRODUCT, plans])
    found = fp.presence("Offline mode", "", reading)
    assert found.state == fp.SOON_STATE
    # The page's copy of the plan's line is the plan's: not a separate "has it".
    assert [m.source for m in found.matches] == ["plan"]
    assert found.matches[0].citations[0]["quote"] == "✓ Offline mode"


def test_absence_only_after_product_and_pricing_pages_are_read():
    assert fp.presence("Barcode scanning", "", fp.Reading([], [PRODUCT])).state == fp.UNSURE
    found = fp.presence("Barcode scanning", "", fp.Reading([], [PRODUCT, PRICING]))
    assert found.state == fp.LACKS and not found.matches
    assert found.read == "not on their product or pricing pages, 2 pages read"
    assert [p.id for p in found.pages] == ["product", "pricing"]


def test_a_blog_post_never_shows_a_capability_but_makes_absence_unsafe():
    post = page("post", "post", "We will look at barcode scanning apps next year.")
    found = fp.presence("Barcode scanning", "", fp.Reading([], [PRODUCT, PRICING, post]))
    assert found.state == fp.UNSURE  # not HAS (a post), not LACKS (they wrote about it)
    bio = page("team", "team", "Ann built barcode scanning systems for ten years.")
    assert fp.presence("Barcode scanning", "", fp.Reading([], [PRODUCT, PRICING, bio])).state == (
        fp.UNSURE
    )


def test_a_partial_mention_is_no_claim():
    home = page("home", "home", "Rival apps are mobile-friendly.")
    found = fp.presence("Native mobile apps", "", fp.Reading([], [PRODUCT, PRICING, home]))
    assert found.state == fp.UNSURE


def test_their_own_denial_is_a_lack_with_its_sentence_and_loose_negations_are_not():
    security = page("security", "product", "Rival does not support SAML single sign-on.")
    found = fp.presence("Single sign-on", "", fp.Reading([], [security]))
    assert found.state == fp.LACKS
    assert found.matches[0].citations[0]["quote"] == "Rival does not support SAML single sign-on."
    loose = page("data", "product", "Without writing code, connect to PostgreSQL in a minute.")
    assert fp.presence("PostgreSQL connector", "", fp.Reading([], [loose])).state == fp.HAS


def test_their_market_word_does_not_decide():
    pages = [
        page(f"p{i}", "product", f"Make a quiz number {i} for your readers.") for i in range(6)
    ]
    reading = fp.Reading([], [*pages, PRICING])
    assert "quiz" in reading.domain
    assert fp.presence("Quiz leaderboards", "", reading).state == fp.LACKS


def _builder(their_features=(), pricing=(), intel=(), ours=(), our_pricing=()):
    competitor = SimpleNamespace(name="Rival", company_profile={}, key_messaging=[])
    product = SimpleNamespace(
        name="Acme", features=list(ours), capabilities=[], pricing=list(our_pricing)
    )
    items = [PRODUCT, PRICING, *intel]
    return FactBuilder(competitor, product, [offering(their_features, pricing)], None, items)


def test_no_only_we_claim_for_what_they_list_in_other_words():
    pg = page("pg", "product", "PostgreSQL Integration")
    facts = _builder(
        [feature("PostgreSQL", pg, "PostgreSQL Integration", "Integration")],
        intel=[pg],
        ours=[{"name": "PostgreSQL connector"}, {"name": "Barcode scanning"}],
    ).build()
    wins = {w.title: w for w in facts.wins}
    assert list(wins) == ["Barcode scanning: only Acme offers it"]
    win = wins["Barcode scanning: only Acme offers it"]
    assert win.item()["read"] == "not on their product or pricing pages, 3 pages read"
    assert win.item()["evidenceIds"] == ["product", "pg", "pricing"] and not win.citations
    assert facts.matched == [("PostgreSQL connector", "PostgreSQL", facts.matched[0][2])]
    assert not any("PostgreSQL" in loss.title for loss in facts.losses)


def test_a_coming_soon_plan_is_never_their_cheapest():
    soon = {
        "name": "Lite",
        "price": 5,
        "currency": "USD",
        "period": "month",
        "unit": "per user",
        "comingSoon": True,
        "quotes": [{"evidenceId": "pricing", "quote": "Starter $10 per user/month"}],
    }
    starter = {**soon, "name": "Starter", "price": 10, "comingSoon": False}
    ours = [{"name": "Team", "price": 30, "currency": "USD", "period": "month", "unit": "per user"}]
    facts = _builder(pricing=[soon, starter], our_pricing=ours).build()
    (loss,) = [c for c in facts.losses if c.topic == "pricing"]
    assert "Starter $10 per user/month" in loss.description and "$5" not in loss.description
    # A quote that does not state the plan's price is not its evidence.
    assert not [p for _, p in facts.their_plans if p["name"] == "Lite"]


def test_money_has_its_currency_and_no_point_zero():
    assert format_money(300000.0, "GBP") == "£300,000"
    assert format_money(2500.5, "CHF") == "2,500.50 CHF"
    assert states_amount("raised £300,000 in December", 300000.0)
    assert not states_amount("15,000 signups", 300000.0)


def test_objections_come_from_facts_and_answers_only_when_a_fact_answers():
    facts = Facts()
    builder = _builder(
        [feature("Kanban boards", PRODUCT, "Rival builds forms and dashboards.")],
        ours=[{"name": "Barcode scanning"}],
        our_pricing=[{"name": "Team", "price": 30, "currency": "USD", "period": "month"}],
    )
    facts = builder.build()
    answers = Answers(facts, "Rival", "Acme", [{"name": "Barcode scanning"}])
    items = objections(facts, answers, [], [], "ATTACK")
    texts = [i["objection"] for i in items]
    assert len(texts) == len(set(texts))
    responses = [i["response"] for i in items]
    assert not any("pivot" in r.lower() for r in responses)
    assert all(i["quotes"] for i in items)


def test_a_matrix_cell_without_their_features_is_unknown():
    reading = fp.Reading([], [PRODUCT, PRICING])
    ours = [{"name": "Single sign-on", "description": "SAML"}]
    presences = {"Single sign-on": fp.presence("Single sign-on", "SAML", reading)}
    category = {"id": "security-compliance", "name": "Security & Compliance"}
    comparison = matrix_features.compare(category, ours, presences, reading)
    assert [row["name"] for row in comparison.ours_only] == ["Single sign-on"]
    assert matrix_features.status(comparison, our_features=True, strong=False, weak=False) == (
        "UNKNOWN"
    )


def test_we_lack_nothing_we_never_described_and_one_objection_for_what_we_lack():
    page_with_both = page("features", "product", "Kanban boards for every team.\nGantt charts.")
    theirs = [
        feature("Kanban boards", page_with_both, "Kanban boards for every team."),
        feature("Gantt charts", page_with_both, "Gantt charts."),
    ]
    # Our product lists no features: "we have no matching feature" would be a guess.
    undescribed = _builder(theirs, intel=[page_with_both]).build()
    assert not [c for c in undescribed.losses if c.topic == "feature"]
    facts = _builder(theirs, intel=[page_with_both], ours=[{"name": "Barcode scanning"}]).build()
    assert [c.title for c in facts.losses] == [
        "Rival offers Kanban boards",
        "Rival offers Gantt charts",
    ]
    answers = Answers(facts, "Rival", "Acme", [{"name": "Barcode scanning"}])
    (item,) = [i for i in objections(facts, answers, [], [], "ATTACK") if i.get("state")]
    assert item["objection"] == "Rival has Kanban boards and Gantt charts; does Acme?"
    assert [q["quote"] for q in item["quotes"]] == [
        "Kanban boards for every team.",
        "Gantt charts.",
    ]
    assert item["response"] == ""  # no fact of ours answers a feature we lack


def test_an_answer_is_worded_apart_from_the_win_it_uses():
    security = page("security", "product", "Rival does not support SAML single sign-on.")
    facts = _builder(intel=[security], ours=[{"name": "Single sign-on"}]).build()
    (win,) = facts.wins
    answers = Answers(facts, "Rival", "Acme", [{"name": "Single sign-on"}])
    answer = answers.by_concepts("Rival says its SSO is the most secure")
    assert answer is not None and answer.description != win.description
    assert answer.description == "Answer with Single sign-on, which Rival says it does not offer."
    assert answer.evidence_ids == ["security"]
