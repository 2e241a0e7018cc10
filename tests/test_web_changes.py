"""The Changes page (issue 29): the feed of events with its filters, one change's diff side
by side and inline (crawled text never becomes markup), read marks per person (VIEWERs
too), the unread count in the header, and another workspace's event as the 404 page."""

from __future__ import annotations

import re

import pytest

from ci_service.services.alerts import change_diff, events
from ci_service.services.alerts import reads as event_reads
from ci_service.services.intel import items as intel
from ci_service.store.db import connection

pytest_plugins = ["tests.jobs_fixtures"]

OLD_PAGE = """Acme Pricing
Plans for every team.
Starter costs $19 per user per month. Billed yearly.
Pro costs $49 per user per month. SSO included.
Contact our sales team.
Footer one
Footer two
Footer three
Footer four
Footer five
Footer six"""
NEW_PAGE = OLD_PAGE.replace("$49", "$59").replace(
    "Contact our sales team.", "Contact our sales team.\n<script>alert('x')</script>"
)


def text(answer) -> str:
    return answer.get_data(as_text=True)


def add_competitor(web, name: str) -> str:
    answer = web.api.post(
        "/api/competitors", json={"name": name, "websiteUrl": f"https://{name.lower()}.example"}
    )
    assert answer.status_code == 200, answer.json
    return answer.json["competitor"]["id"]


def page_change(workspace_id: str, competitor_id: str, old: str = OLD_PAGE, new: str = NEW_PAGE):
    """Two versions of a pricing page and the page_changed event between them."""
    url = "https://acme.example/pricing"
    with connection():
        first = intel.record_evidence(
            workspace_id,
            source_type="WEB_PAGE",
            url=url,
            title="Acme pricing",
            content=old,
            competitor_id=competitor_id,
        ).item
        second = intel.record_evidence(
            workspace_id,
            source_type="WEB_PAGE",
            url=url,
            title="Acme pricing",
            content=new,
            competitor_id=competitor_id,
        ).item
        return events.emit(
            workspace_id,
            "competitor.page_changed",
            "Acme: “Acme pricing” changed",
            f"The page {url} now says two new lines and no longer says one.",
            competitor_id=competitor_id,
            evidence_ids=[second.id, first.id],
            link=f"/competitors/{competitor_id}",
            data={
                "intelId": second.id,
                "previousItemId": first.id,
                "url": url,
                "added": ["Pro costs $59 per user per month.", "<b>bold claim</b>"],
                "removed": ["Pro costs $49 per user per month."],
            },
        )


def price_change(workspace_id: str, competitor_id: str):
    with connection():
        return events.emit(
            workspace_id,
            "competitor.price_changed",
            "Rival: Pro plan $49 → $59 per user/month",
            "Rival changed the price of its Pro plan from $49 to $59 per user/month.",
            competitor_id=competitor_id,
            data={
                "plan": "Pro",
                "change": "price_changed",
                "old": {"price": 49, "currency": "USD", "period": "month"},
                "new": {"price": 59, "currency": "USD", "period": "month"},
                "url": "https://rival.example/pricing",
                "quoteUrl": "https://rival.example/pricing#:~:text=Pro%20%2459",
                "quote": "Pro $59 per user per month",
            },
        )


def news(workspace_id: str, competitor_id: str, title: str, url: str = "https://globex.example/n"):
    with connection():
        return events.emit(
            workspace_id,
            "competitor.news",
            title,
            f"Globex published “{title}”.",
            competitor_id=competitor_id,
            data={"intelId": None, "url": url, "publishedAt": None},
        )


def feed_titles(body: str) -> list[str]:
    return re.findall(r'<h2 class="ch-title"><a href="/changes/[^"]+">([^<]+)</a>', body)


def unread_badge(body: str) -> str | None:
    match = re.search(r'class="badge nav-count">([^<]+)<', body)
    return match.group(1) if match else None


@pytest.fixture
def world(make_web):
    owner = make_web()
    acme = add_competitor(owner, "Acme")
    rival = add_competitor(owner, "Rival")
    globex = add_competitor(owner, "Globex")
    page = page_change(owner.workspace_id, acme)
    price = price_change(owner.workspace_id, rival)
    story = news(owner.workspace_id, globex, "Globex opens a Madrid office")
    return {
        "web": owner,
        "acme": acme,
        "rival": rival,
        "globex": globex,
        "page": page.id,
        "price": price.id,
        "news": story.id,
    }


def test_the_feed_lists_newest_first_with_source_links_prices_and_passages(world):
    web = world["web"]
    answer = web.get("/changes")
    assert answer.status_code == 200
    body = text(answer)
    assert feed_titles(body) == [
        "Globex opens a Madrid office",
        "Rival: Pro plan $49 → $59 per user/month",
        "Acme: “Acme pricing” changed",
    ]
    assert f'href="/competitors/{world["rival"]}">Rival</a>' in body
    # the source opens the page at the quote; the price old → new; the quote itself
    assert 'href="https://rival.example/pricing#:~:text=Pro%20%2459"' in body
    assert re.search(r"<del>\$49/month</del>.*?<ins>\$59/month</ins>", body, re.S)
    assert "“Pro $59 per user per month”" in body
    # a page change's passages inline, escaped
    assert "<ins>Pro costs $59 per user per month.</ins>" in body
    assert "<del>Pro costs $49 per user per month.</del>" in body
    assert "&lt;b&gt;bold claim&lt;/b&gt;" in body and "<b>bold claim</b>" not in body
    assert 'class="badge imp-high">High' in body and 'class="badge imp-low">Low' in body


def test_only_http_source_links_are_links(world):
    web = world["web"]
    news(web.workspace_id, world["globex"], "Hostile link", url="javascript:alert(1)")
    body = text(web.get("/changes"))
    assert "javascript:" not in body


@pytest.mark.parametrize(
    "query, expected",
    [
        ("type=competitor.price_changed", ["Rival: Pro plan $49 → $59 per user/month"]),
        ("importance=high", ["Rival: Pro plan $49 → $59 per user/month"]),
        ("importance=normal", ["Globex opens a Madrid office", "Rival: Pro plan"]),
        ("competitorId={acme}", ["Acme: “Acme pricing” changed"]),
        ("competitorId={globex}&type=competitor.page_changed", []),
    ],
)
def test_filters(world, query, expected):
    body = text(world["web"].get("/changes?" + query.format(**world)))
    titles = feed_titles(body)
    assert len(titles) == len(expected)
    assert all(t.startswith(e) for t, e in zip(titles, expected, strict=True))


@pytest.mark.parametrize(
    "query, status", [("type=nope", 400), ("importance=urgent", 400), ("page=0", 400)]
)
def test_bad_filters_are_the_400_page(world, query, status):
    assert world["web"].get("/changes?" + query).status_code == status


def test_pages_of_fifty(make_web):
    web = make_web()
    cid = add_competitor(web, "Globex")
    for n in range(53):
        news(web.workspace_id, cid, f"Story {n:02d}")
    first = text(web.get("/changes"))
    assert len(feed_titles(first)) == 50 and feed_titles(first)[0] == "Story 52"
    assert 'href="/changes?page=2" rel="next"' in first and 'rel="prev"' not in first
    second = text(web.get("/changes?page=2"))
    assert feed_titles(second) == ["Story 02", "Story 01", "Story 00"]
    assert 'href="/changes" rel="prev"' in second and 'rel="next"' not in second


def test_the_diff_side_by_side_and_inline(world):
    web = world["web"]
    side = text(web.get(f"/changes/{world['page']}"))
    assert 'aria-current="page">Side by side</a>' in side
    table = side[side.index('<table class="diff-table diff-side">') :]
    # the changed line, paired, its changed word marked on each side
    assert re.search(
        r'<tr class="changed">.*?Pro costs \$<del>49</del> per user per month\..*?'
        r"Pro costs \$<ins>59</ins> per user per month\.",
        table,
        re.S,
    )
    # the added line, escaped, on the right only
    assert re.search(
        r'<tr class="added">\s*<td class="no"></td>\s*<td class="old"></td>\s*'
        r'<td class="no">\d+</td>\s*<td class="new"><span class="visually-hidden">Added: </span>'
        r"<ins>&lt;script&gt;alert\(&#39;x&#39;\)&lt;/script&gt;</ins>",
        table,
    )
    assert "<script>alert" not in side
    # unchanged lines far from a change are collapsed
    assert re.findall(r"⋯ (\d+) unchanged line", table) == ["2", "4"]
    assert "Footer two" in table and "Footer three" not in table and "Plans for" not in table
    inline = text(web.get(f"/changes/{world['page']}?view=inline"))
    assert 'aria-current="page">Inline</a>' in inline
    rows = inline[inline.index('<table class="diff-table diff-inline">') :]
    removed = rows.index("Pro costs $<del>49</del>")
    added = rows.index("Pro costs $<ins>59</ins>")
    assert removed < added
    assert '<tr class="removed">' in rows and '<tr class="added">' in rows
    assert "<script>alert" not in inline
    assert web.get(f"/changes/{world['page']}?view=fancy").status_code == 400


def test_a_non_page_change_shows_its_details_and_evidence(world):
    web = world["web"]
    body = text(web.get(f"/changes/{world['price']}"))
    assert "Plan “Pro”" in body and "<del>$49/month</del>" in body
    assert 'href="https://rival.example/pricing#:~:text=Pro%20%2459"' in body
    assert "diff-table" not in body
    page = text(web.get(f"/changes/{world['page']}"))
    assert "versions: <a" in page


def test_a_page_change_whose_versions_are_gone_shows_its_passages(world):
    web = world["web"]
    with connection():
        event = event_reads.get_event(web.workspace_id, world["page"])
        intel.delete_intel(web.workspace_id, event.data["intelId"])
    body = text(web.get(f"/changes/{world['page']}"))
    assert "no longer stored" in body and "<ins>Pro costs $59 per user per month.</ins>" in body


@pytest.mark.parametrize("path", ["/changes/{page}", "/changes/no-such-event"])
def test_another_workspaces_change_and_a_missing_one_are_the_404_page(world, make_web, path):
    stranger = make_web()
    answer = stranger.get(path.format(page=world["page"]))
    assert answer.status_code == 404
    assert "not in your workspace" in text(answer) and "Acme" not in text(answer)


def test_another_workspaces_changes_cannot_be_marked_read_or_listed(world, make_web):
    stranger = make_web()
    toggled = stranger.post_form(f"/changes/{world['page']}/read", {"read": "1"}, csrf_from="/")
    assert toggled.status_code == 404
    assert stranger.get(f"/changes?competitorId={world['acme']}").status_code == 404
    assert feed_titles(text(stranger.get("/changes"))) == []


def test_read_marks_the_unread_count_and_mark_all(world):
    web = world["web"]
    assert unread_badge(text(web.get("/changes"))) == "3"
    # opening a change marks it read
    web.get(f"/changes/{world['news']}")
    body = text(web.get("/changes"))
    assert unread_badge(body) == "2"
    assert feed_titles(text(web.get("/changes?unread=1"))) == [
        "Rival: Pro plan $49 → $59 per user/month",
        "Acme: “Acme pricing” changed",
    ]
    # the toggle: unread again, then read
    listed = text(web.get("/changes?unread=1&done=read-all&marked=2"))
    back = f"/changes?unread=1#change-{world['price']}"
    assert f'name="next" value="{back}"' in listed  # the list, not the last notice
    answer = web.post_form(
        f"/changes/{world['news']}/read", {"read": "0", "next": "/changes?unread=1"}, "/changes"
    )
    assert answer.status_code == 303 and answer.headers["Location"].endswith("/changes?unread=1")
    assert unread_badge(text(web.get("/"))) == "3"
    web.post_form(f"/changes/{world['price']}/read", {"read": "1"}, "/changes")
    assert unread_badge(text(web.get("/"))) == "2"
    # mark all, narrowed by a filter: only those
    web.post_form("/changes/read-all", {"competitorId": world["acme"]}, "/changes")
    assert unread_badge(text(web.get("/"))) == "1"
    done = web.post_form("/changes/read-all", {}, "/changes")
    assert done.status_code == 303
    after = text(web.get(done.headers["Location"]))
    assert "1 change marked as read." in after and unread_badge(after) is None
    assert feed_titles(text(web.get("/changes?unread=1"))) == []


def test_mark_all_leaves_changes_newer_than_the_list(world):
    web = world["web"]
    page = text(web.get("/changes"))
    until = re.search(r'name="until" value="([^"]+)"', page).group(1)
    news(web.workspace_id, world["globex"], "Arrived after the list was drawn")
    web.post_form("/changes/read-all", {"until": until}, "/changes")
    assert feed_titles(text(web.get("/changes?unread=1"))) == ["Arrived after the list was drawn"]


def test_read_marks_are_per_person_and_a_viewer_may_set_theirs(world, make_web):
    from ci_service.store.identity import Workspace

    web = world["web"]
    with connection():
        workspace = Workspace.get_by_id(web.workspace_id)
    viewer = make_web(role="VIEWER", workspace=workspace)
    assert unread_badge(text(viewer.get("/changes"))) == "3"
    assert viewer.get(f"/changes/{world['page']}").status_code == 200
    answer = viewer.post_form("/changes/read-all", {}, "/changes")
    assert answer.status_code == 303
    assert unread_badge(text(viewer.get("/"))) is None
    assert viewer.post_form(f"/changes/{world['page']}/read", {"read": "0"}, "/").status_code == 303
    assert unread_badge(text(viewer.get("/"))) == "1"
    # the owner's marks are their own
    assert unread_badge(text(web.get("/"))) == "3"


def test_mute_a_page_or_a_kind_for_a_competitor(world, make_web):
    from ci_service.services.alerts import mutes
    from ci_service.store.identity import Workspace

    web = world["web"]
    body = text(web.get("/changes"))
    assert "Mute this page" in body and "Mute price changes from Rival" in body
    # "Mute this page" mutes the page's changes, not a price or a person read on it
    html = web.get("/changes").get_data(as_text=True)
    page_form = html[: html.index("Mute this page")].rsplit("<form", 1)[1]
    assert 'name="eventType" value="competitor.page_changed"' in page_form
    answer = web.post_form(
        "/changes/mute",
        {"competitorId": world["acme"], "url": "https://acme.example/pricing/", "next": "/changes"},
        "/changes",
    )
    assert answer.status_code == 303 and answer.headers["Location"].endswith("done=muted")
    assert "alerts no longer tell of it" in text(web.get(answer.headers["Location"]))
    web.post_form(
        "/changes/mute",
        {"competitorId": world["rival"], "eventType": "competitor.price_changed"},
        "/changes",
    )
    with connection():
        made = {(m.competitor_id, m.url, m.event_type) for m in mutes.list_mutes(web.workspace_id)}
    assert made == {
        (world["acme"], "https://acme.example/pricing", None),
        (world["rival"], None, "competitor.price_changed"),
    }
    with connection():
        workspace = Workspace.get_by_id(web.workspace_id)
    viewer = make_web(role="VIEWER", workspace=workspace)
    assert "Mute this page" not in text(viewer.get("/changes"))
    refused = viewer.post_form(
        "/changes/mute", {"competitorId": world["globex"], "eventType": "competitor.news"}, "/"
    )
    assert refused.status_code == 403


def test_forms_need_the_csrf_token(world):
    web = world["web"]
    answer = web.client.post("/changes/read-all", data={})
    assert answer.status_code == 400
    with connection():
        assert event_reads.unread_count(web.workspace_id, web.user_id) == 3


def test_the_unread_count_is_capped(make_web):
    web = make_web()
    cid = add_competitor(web, "Globex")
    with connection():
        for n in range(event_reads.UNREAD_COUNT_CAP + 2):
            events.emit(web.workspace_id, "competitor.news", f"Story {n}", competitor_id=cid)
        assert event_reads.unread_count(web.workspace_id, web.user_id) == 100
    assert unread_badge(text(web.get("/"))) == "99+"


# -- the diff service ----------------------------------------------------------------------


def test_diff_units_are_lines_and_sentences_with_spacing_ignored():
    units, cut = change_diff.split_units("One. Two!\n\n  Three   words  \nFour")
    assert units == ["One.", "Two!", "Three words", "Four"] and not cut
    assert change_diff.diff_texts("a\n\nb  c", "a\nb c").identical


def test_diff_rows_and_collapsed_context():
    old = "\n".join(f"Line {n}." for n in range(1, 21))
    new = old.replace("Line 10.", "Line ten.").replace("Line 20.", "Line 20.\nLine 21.")
    diff = change_diff.diff_texts(old, new, context=2)
    kinds = [r.kind for r in diff.side]
    assert kinds == ["gap", "same", "same", "changed", "same", "same", "gap", "same", "same"] + [
        "added"
    ]
    assert diff.side[0].skipped == 7 and diff.side[6].skipped == 6  # 13-18
    changed = diff.side[3]
    assert (changed.old_no, changed.new_no) == (10, 10)
    assert [s.text for s in changed.old if s.changed] == ["10"]
    assert [s.text for s in changed.new if s.changed] == ["ten"]
    assert (diff.added, diff.removed, diff.unchanged) == (2, 1, 19)
    inline = [r.kind for r in diff.inline]
    assert inline.count("removed") == 1 and inline.count("added") == 2
    assert inline.index("removed") < inline.index("added")


def test_diff_of_huge_and_repetitive_pages_is_bounded():
    huge = "x" * (change_diff.MAX_CHARS * 3)
    diff = change_diff.diff_texts(huge, huge + "y")
    assert diff.truncated and len(diff.side) <= change_diff.MAX_ROWS
    many = "\n".join("Learn more" for _ in range(change_diff.MAX_UNITS * 2))
    other = "\n".join("Learn more" if n % 2 else "Read on" for n in range(change_diff.MAX_UNITS))
    diff = change_diff.diff_texts(many, other)  # minutes without autojunk (see the module)
    assert diff.truncated and len(diff.inline) <= change_diff.MAX_ROWS
    units, cut = change_diff.split_units("word " * change_diff.MAX_UNIT_CHARS)
    assert cut and len(units[0]) == change_diff.MAX_UNIT_CHARS


def test_diff_keeps_text_as_text():
    diff = change_diff.diff_texts("<p>old</p>", "<script>alert(1)</script>")
    [row] = diff.side
    assert row.kind == "changed"
    assert "".join(s.text for s in row.new) == "<script>alert(1)</script>"
