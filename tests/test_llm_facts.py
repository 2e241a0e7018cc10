"""The LLM option's grounding rule, against a local fake OpenAI-compatible server: a fact
is kept only when its quote is found verbatim in the page (and in the stored evidence);
an invented quote is dropped; a malformed answer loses nothing the rules found; battlecard
prose from the model may not state a number its item and quotes do not."""

from __future__ import annotations

import json

import pytest

from ci_service.pipeline import llm_facts
from ci_service.pipeline.evidence import EvidenceMap
from ci_service.pipeline.site import SitePage, SiteSnapshot
from tests.test_pipeline_llm import FakeLLM, provider

PAGE_TEXT = (
    "About Rival\n"
    "Rival was founded in 2014 by two engineers in Singapore.\n"
    "Our Team plan costs $9 per user per month, billed monthly.\n"
    "Acme Corp and Initech rely on Rival every day."
)


@pytest.fixture
def fake_llm(monkeypatch):
    with FakeLLM() as server:
        monkeypatch.setenv("CI_SERVICE_LLM_BASE_URL", server.base)
        monkeypatch.setenv("CI_SERVICE_LLM_MODEL", "test-model")
        yield server


def snapshot_and_evidence() -> tuple[SiteSnapshot, EvidenceMap]:
    page = SitePage(
        url="https://rival.example/about/",
        title="About Rival",
        description="",
        text=PAGE_TEXT,
        sections=[("About Rival", 1, PAGE_TEXT)],
        json_ld=[],
        links=[],
        depth=1,
    )
    evidence = EvidenceMap()
    evidence.add(page.url, "ev-about", PAGE_TEXT)
    return SiteSnapshot(start_url="https://rival.example/", pages=[page]), evidence


def answer(*facts: dict) -> str:
    return json.dumps({"facts": list(facts)})


FOUNDED = {
    "kind": "yearFounded",
    "year": 2014,
    "quote": "Rival was founded in 2014 by two engineers in Singapore.",
}
PLAN = {
    "kind": "plan",
    "name": "Team",
    "price": 9,
    "currency": "USD",
    "period": "month",
    "unit": "per user",
    "quote": "Our Team plan costs $9 per user per month, billed monthly.",
}


def test_a_grounded_answer_is_kept_with_its_citation(fake_llm):
    fake_llm.answer = answer(FOUNDED, PLAN, {"kind": "customer", "name": "Initech", **_q(3)})
    snapshot, evidence = snapshot_and_evidence()
    learned = llm_facts.learn(snapshot, evidence, company_name="Rival")
    assert learned is not None and learned.dropped == 0
    year, citation = learned.profile["yearFounded"]
    assert year == 2014
    assert citation["evidenceId"] == "ev-about" and citation["quote"] == FOUNDED["quote"]
    assert "#:~:text=" in citation["url"]
    assert [p["name"] for p in learned.plans] == ["Team"] and learned.plans[0]["price"] == 9
    merged = llm_facts.merge_profile({}, learned)
    assert merged["yearFounded"] == 2014 and merged["sources"]["yearFounded"] == ["ev-about"]
    assert [c["name"] for c in merged["customers"]] == ["Initech"]
    sent = fake_llm.requests[0]["body"]["messages"]
    assert "Rival" in sent[0]["content"] and PAGE_TEXT in sent[1]["content"]


def _q(line: int) -> dict:
    return {"quote": PAGE_TEXT.splitlines()[line]}


def test_an_invented_quote_is_dropped_and_the_grounded_facts_stay(fake_llm):
    invented = {**FOUNDED, "year": 2012, "quote": "Rival was founded in 2012 in London."}
    wrong_value = {**FOUNDED, "year": 2019}  # a real quote that does not state the value
    fake_llm.answer = answer(invented, wrong_value, PLAN)
    snapshot, evidence = snapshot_and_evidence()
    learned = llm_facts.learn(snapshot, evidence, company_name="Rival")
    assert learned.dropped == 2
    assert "yearFounded" not in learned.profile
    assert [p["name"] for p in learned.plans] == ["Team"]


def test_a_quote_missing_from_the_stored_evidence_is_dropped(fake_llm):
    fake_llm.answer = answer(FOUNDED)
    snapshot, _ = snapshot_and_evidence()
    stale = EvidenceMap()
    stale.add(snapshot.pages[0].url, "ev-old", "About Rival\nAn older version of the page.")
    learned = llm_facts.learn(snapshot, stale, company_name="Rival")
    assert learned.dropped == 1 and not learned.profile


@pytest.mark.parametrize(
    "content",
    ["not json at all", '{"facts": "a string"}', '{"facts": [1, 2]}', '{"other": []}', 500],
)
def test_a_malformed_answer_loses_only_the_models_facts(fake_llm, content):
    fake_llm.answer = content
    snapshot, evidence = snapshot_and_evidence()
    learned = llm_facts.learn(snapshot, evidence, company_name="Rival")
    assert learned is not None
    assert not (learned.profile or learned.plans or learned.customers or learned.people)
    rules = {"yearFounded": 2014, "sources": {"yearFounded": ["ev-about"]}}
    merged = llm_facts.merge_profile(dict(rules), learned)
    assert merged["yearFounded"] == 2014 and merged["sources"] == rules["sources"]
    assert "funding" not in merged and "customers" not in merged


def test_without_a_model_nothing_is_asked(monkeypatch):
    monkeypatch.delenv("CI_SERVICE_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("CI_SERVICE_LLM_MODEL", raising=False)
    snapshot, evidence = snapshot_and_evidence()
    assert llm_facts.learn(snapshot, evidence) is None


def test_battlecard_prose_may_not_add_a_number(fake_llm):
    item = "Rival charges $9 per user per month; Acme charges $8."
    quotes = [PLAN["quote"]]
    fake_llm.answer = json.dumps({"text": "Rival costs $9 a user each month, Acme only $8."})
    assert provider(fake_llm).rewrite(item, quotes).startswith("Rival costs $9 a user")
    fake_llm.answer = json.dumps({"text": "Rival costs $19 a user each month."})
    assert provider(fake_llm).rewrite(item, quotes) == item  # invented number: rule's text
    fake_llm.answer = "garbage"
    assert provider(fake_llm).rewrite(item, quotes) == item
