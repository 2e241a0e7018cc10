"""The search page (issue 28): grouped by kind, whole words before parts of words, the
competitor of every result, decoded text, highlighting that never lets crawled text be markup;
and REST /api/search unchanged (the contract's substring rule)."""

from __future__ import annotations

import re

from ci_service.services.intel import items as intel
from ci_service.services.search.page import _phrase_pattern, highlight, snippet, synonyms
from ci_service.store.db import connection


def text(response) -> str:
    return response.get_data(as_text=True)


def add_competitor(web, name: str, url: str) -> str:
    answer = web.api.post("/api/competitors", json={"name": name, "websiteUrl": url})
    assert answer.status_code == 200, answer.json
    return answer.json["competitor"]["id"]


def add_item(web, cid: str, title: str, content: str, n: int) -> str:
    with connection():
        return intel.record_evidence(
            web.workspace_id,
            source_type="WEB_PAGE",
            url=f"https://vandelay.example/page-{n}",
            title=title,
            content=content,
            competitor_id=cid,
        ).item.id


def hit(body: str, item_id: str) -> str:
    """The <li> of the result linking to ``item_id``."""
    match = re.search(
        rf'<li class="search-hit"[^>]*>\s*<a class="hit-title" href="/intel/{item_id}".*?</li>',
        body,
        re.S,
    )
    assert match, f"no result for {item_id}"
    return match.group(0)


def heading(body: str, label: str) -> int:
    """Where the group heading ``label`` is (not its link in the jump list)."""
    match = re.search(rf'<h2 id="group-\d+">{label} <', body)
    assert match, f"no group {label}"
    return match.start()


def seed(web) -> dict:
    cid = add_competitor(web, "Vandelay Industries", "https://vandelay.example")
    return {
        "cid": cid,
        "sso": add_item(web, cid, "Security", "Vandelay adds SSO to the Team plan.", 1),
        "words": add_item(web, cid, "Sign in", "Single sign-on now comes with every plan.", 2),
        "processor": add_item(
            web, cid, "Reports", "A faster report processor for large exports.", 3
        ),
    }


def test_whole_words_and_synonyms_rank_before_parts_of_words(web):
    ids = seed(web)
    page = web.get("/search?q=SSO")
    assert page.status_code == 200
    body = text(page)
    intel_heading = heading(body, "Intel")
    partial_heading = heading(body, "Partial word matches")
    assert intel_heading < partial_heading
    sso, words, processor = (
        body.index(f'href="/intel/{ids[k]}"') for k in ("sso", "words", "processor")
    )
    # "SSO" and "single sign-on" are in the Intel group, "processor" only in the last one
    assert intel_heading < sso < partial_heading and intel_heading < words < partial_heading
    assert processor > partial_heading
    assert "adds <mark>SSO</mark> to" in hit(body, ids["sso"])
    assert "<mark>Single sign-on</mark> now" in hit(body, ids["words"])
    assert "report proce<mark>sso</mark>r for" in hit(body, ids["processor"])
    for key in ids.keys() - {"cid"}:  # each result names its competitor, linked
        assert f'Competitor: <a href="/competitors/{ids["cid"]}">Vandelay Industries</a>' in hit(
            body, ids[key]
        )


def test_rest_search_keeps_the_substring_rule(web):
    ids = seed(web)
    results = web.api.get("/api/search?q=SSO").json["results"]
    assert [(r["type"], r["id"]) for r in results] == [
        ("intel", ids["processor"]),  # newest first, substrings included
        ("intel", ids["sso"]),
    ]
    assert all(r["score"] is None and r["url"] == f"/intel/{r['id']}" for r in results)
    assert web.api.get("/api/search?q=a").status_code == 400


def test_groups_by_kind_with_competitors_first(web):
    ids = seed(web)
    other = add_competitor(web, "SSO Cloud", "https://ssocloud.example")
    body = text(web.get("/search?q=sso"))
    competitors = heading(body, "Competitors")
    assert competitors < body.index(f'href="/competitors/{other}"') < heading(body, "Intel")
    assert f'<a class="hit-title" href="/competitors/{other}"><mark>SSO</mark> Cloud</a>' in body
    assert heading(body, "Intel") < body.index(f'href="/intel/{ids["sso"]}"')
    # a prefix ("vande" for "Vandelay") stays in its kind's group, not with parts of words
    prefix = text(web.get("/search?q=vande"))
    assert heading(prefix, "Competitors") and "Partial word matches" not in prefix
    assert "<mark>Vande</mark>lay Industries" in prefix


def test_hostile_text_is_escaped_and_entities_decoded(web):
    cid = add_competitor(web, "Kramerica", "https://kramerica.example")
    item = add_item(
        web,
        cid,
        "R&amp;D &#8220;news&#8221;",
        "<script>alert(1)</script> Kramerica&#8217;s widgets &amp; gadgets ship <b>today</b>.",
        4,
    )
    body = text(web.get("/search?q=widgets"))
    li = hit(body, item)
    assert "<script>" not in li and "<b>" not in li
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in li
    assert "Kramerica’s <mark>widgets</mark> &amp; gadgets ship &lt;b&gt;today&lt;/b&gt;." in li
    assert "R&amp;D “news”" in li  # the title decoded once, then escaped
    assert "&#8217;" not in li and "&amp;amp;" not in li and "&amp;#" not in li
    # a hostile query is text too
    evil = text(web.get("/search?q=%3Cscript%3E"))
    assert "<script>alert" not in evil and "<mark>&lt;script&gt;</mark>" in evil


def test_short_and_empty_queries_show_a_message(web):
    short = web.get("/search?q=a")
    assert short.status_code == 400  # as the API answers, but on the search page
    body = text(short)
    assert "at least 2 characters" in body and 'id="search-q"' in body
    assert 'class="error-page"' not in body
    empty = web.get("/search?q=+")
    assert empty.status_code == 200 and "then press Search" in text(empty)


def test_another_workspace_sees_none_of_it(web, make_web):
    seed(web)
    stranger = make_web()
    body = text(stranger.get("/search?q=SSO"))
    assert "Nothing matches" in body and "Vandelay" not in body


def test_highlight_escapes_first_then_marks():
    patterns = [_phrase_pattern("sso")]
    assert (
        str(highlight("<i>SSO</i> & sso2", patterns))
        == "&lt;i&gt;<mark>SSO</mark>&lt;/i&gt; &amp; sso2"
    )
    assert str(highlight('"x" <mark>', patterns)) == "&#34;x&#34; &lt;mark&gt;"
    assert _phrase_pattern("single sign on").search("Single Sign-On here")
    assert "single sign on" in synonyms("SSO") and "sso" in synonyms("single sign-on")
    assert synonyms("pricing") == []
    long = "word " * 60 + "the SSO part " + "tail " * 60
    cut = snippet(long.strip(), patterns)
    assert cut.startswith("… ") and cut.endswith(" …") and "the SSO part" in cut
    assert len(cut) <= 190
