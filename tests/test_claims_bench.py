"""The claims benchmark (``python -m bench.claims``) over each real website copy in
``../shared/realsites`` that has a hand-checked table (skipped when the folder is not beside
the repository): the ATTACK and DEFENSE cards and the matrix make no false claim, cite no
quote that fails to state its item's fact, repeat no item, and still make at least one true
"they lack" or "we lack" claim on every site (the cure is not silence)."""

from __future__ import annotations

import pytest

from bench import claims

SITES = claims.sites()


@pytest.fixture(scope="module")
def tallies(tmp_path_factory):
    out = {}
    with claims.loopback_env():
        for site in SITES:
            with claims.serve_realsite(claims.REALSITES / site) as url:
                for tally in claims.run_site(site, url, tmp_path_factory.mktemp(site)):
                    out[(site, tally.mode)] = tally
    return out


def test_every_table_names_a_site_and_checks_each_state():
    for path in sorted(claims.TABLES.glob("*.json")):
        table = claims.load_table(path.stem)
        states = [row["state"] for row in table["pairs"]]
        assert states.count("has") >= 2 and states.count("lacks") >= 2, path.name
        assert all(row["terms"] and row["page"].startswith("/") for row in table["pairs"])


@pytest.mark.skipif(not SITES, reason="../shared/realsites is not beside the repository")
@pytest.mark.parametrize("mode", ["ATTACK", "DEFENSE", "matrix"])
@pytest.mark.parametrize("site", SITES)
def test_no_false_claims_no_unsupported_quotes_no_duplicates(tallies, site, mode):
    tally = tallies[(site, mode)]
    assert not any(n.startswith("collect") for n in tally.notes), tally.notes
    assert tally.false == 0, [n for n in tally.notes if n.startswith("FALSE")]
    assert tally.unsupported == 0, [n for n in tally.notes if n.startswith("unsupported")]
    assert tally.duplicates == 0, [n for n in tally.notes if n.startswith("duplicate")]


@pytest.mark.skipif(not SITES, reason="../shared/realsites is not beside the repository")
@pytest.mark.parametrize("mode", ["ATTACK", "DEFENSE"])
@pytest.mark.parametrize("site", SITES)
def test_each_card_still_says_what_a_side_lacks(tallies, site, mode):
    """Not silence: each card says at least one true "they lack" or "we lack"."""
    assert tallies[(site, mode)].true_lacks >= 1


def test_the_checker_catches_a_false_claim_and_an_unsupported_quote():
    checker = claims.Checker(
        {
            "pairs": [
                {"feature": "Audit logs", "state": "has", "page": "/", "terms": ["audit"]},
                {"feature": "Dark mode", "state": "lacks", "page": "/", "terms": ["dark mode"]},
            ]
        }
    )
    assert checker.judge("THEY_LACK", "Audit logs")[0] is False
    assert checker.judge("THEY_LACK", "Dark mode")[0] is True
    assert checker.judge("WE_LACK", "Audit trail")[0] is False  # one of ours
    assert checker.judge("WE_LACK", "Kanban boards")[0] is True
    item = {"state": "THEY_LACK", "feature": "Dark mode"}
    assert not checker.quote_supports(item, "Dark mode for every dashboard.")  # no denial
    assert checker.quote_supports(item, "We do not offer a dark mode.")
    card = {
        "content": {
            "whyWeWin": [{"title": "A", "description": "same"}],
            "objections": [{"objection": "B", "response": "same"}],
            "killShot": "",
        }
    }
    tally = claims.Tally("x", "ATTACK")
    claims.check_card(card, checker, tally)
    assert tally.duplicates == 1
