"""Mutes: REST create/list/delete, validation (unknown fields, nothing to mute, nobody to
mute it for), another workspace's ids, the role rules, the matching rule ``muted`` and its
one-query form, and the ``ci-service alerts mute|mutes|unmute`` commands."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from ci_service.errors import Forbidden
from ci_service.services.alerts import mutes
from ci_service.store.alerts import Mute, Subscription
from ci_service.store.db import connection, database
from ci_service.store.events import Event
from tests.resource_helpers import make_competitor

HOOK = "https://hooks.acme.example/ci"
CAREERS = "https://globex.example/careers"


def subscription(api, **extra):
    body = {"name": "Hook", "channel": "webhook", "target": HOOK, **extra}
    answer = api.post("/api/subscriptions", json=body)
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()["subscription"]["id"]


def post(api, body, status=200):
    answer = api.post("/api/mutes", json=body)
    assert answer.status_code == status, answer.get_json()
    return answer.get_json()


def field_error(answer_body, field):
    error = answer_body["error"]
    assert error["code"] == "VALIDATION_ERROR", error
    assert field in error["details"]["fields"], error


# -- REST ----------------------------------------------------------------------------------


def test_crud_through_rest(api):
    rival = make_competitor(api, "Globex", "https://globex.example")["competitor"]["id"]
    sub = subscription(api)
    wide = post(api, {"competitorId": rival, "url": CAREERS + "/"})["mute"]
    assert wide["competitorId"] == rival and wide["subscriptionId"] is None
    assert wide["url"] == CAREERS and wide["eventType"] is None  # trailing slash dropped
    assert wide["createdBy"] == api.user_id and wide["createdAt"]
    mine = post(api, {"subscriptionId": sub, "eventType": "competitor.news"})["mute"]
    # the same mute again is the same row
    assert post(api, {"subscriptionId": sub, "eventType": "competitor.news"})["mute"] == mine

    listed = api.get("/api/mutes").get_json()["mutes"]
    assert [m["id"] for m in listed] == [wide["id"], mine["id"]]
    by_sub = api.get("/api/mutes", query_string={"subscriptionId": sub}).get_json()["mutes"]
    assert [m["id"] for m in by_sub] == [mine["id"]]
    by_rival = api.get("/api/mutes", query_string={"competitorId": rival}).get_json()["mutes"]
    assert [m["id"] for m in by_rival] == [wide["id"]]

    assert api.delete(f"/api/mutes/{wide['id']}").get_json() == {"success": True}
    assert api.delete(f"/api/mutes/{wide['id']}").status_code == 404
    # a subscription's mutes go with it
    assert api.delete(f"/api/subscriptions/{sub}").status_code == 200
    assert api.get("/api/mutes").get_json() == {"mutes": []}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"eventType": "competitor.news", "subscriptionId": "@sub", "muteAll": True}, "muteAll"),
        ({"subscriptionId": "@sub"}, "eventType"),  # nothing to mute
        ({"eventType": "competitor.news"}, "subscriptionId"),  # nobody to mute it for
        ({"subscriptionId": "@sub", "eventType": "competitor.gossip"}, "eventType"),
        ({"subscriptionId": "@sub", "url": "ftp://globex.example/x"}, "url"),
        ({"subscriptionId": "@sub", "url": "careers"}, "url"),
        ({"competitorId": "nope", "url": CAREERS}, "competitorId"),
        ({"subscriptionId": 5, "url": CAREERS}, "subscriptionId"),
    ],
)
def test_bad_bodies_are_400_naming_the_field(api, body, field):
    sub = subscription(api)
    sent = {k: (sub if v == "@sub" else v) for k, v in body.items()}
    field_error(post(api, sent, status=400), field)
    assert api.get("/api/mutes").get_json() == {"mutes": []}


def test_another_workspaces_ids(make_api):
    owner, intruder = make_api(), make_api()
    rival = make_competitor(owner)["competitor"]["id"]
    sub = subscription(owner)
    made = post(owner, {"subscriptionId": sub, "url": CAREERS})["mute"]
    answer = post(intruder, {"subscriptionId": sub, "url": CAREERS}, status=404)
    assert answer["error"]["code"] == "NOT_FOUND"
    field_error(post(intruder, {"competitorId": rival, "url": CAREERS}, status=400), "competitorId")
    assert intruder.delete(f"/api/mutes/{made['id']}").status_code == 404
    for query in ({}, {"subscriptionId": sub}, {"competitorId": rival}):
        assert intruder.get("/api/mutes", query_string=query).get_json() == {"mutes": []}
    assert [m["id"] for m in owner.get("/api/mutes").get_json()["mutes"]] == [made["id"]]


def test_role_rules(make_api, make_workspace):
    ws = make_workspace()
    owner = make_api(workspace=ws, role="OWNER")
    editor = make_api(workspace=ws, role="EDITOR")
    editor2 = make_api(workspace=ws, role="EDITOR")
    viewer = make_api(workspace=ws, role="VIEWER")
    rival = make_competitor(owner)["competitor"]["id"]
    personal = subscription(editor)
    shared = subscription(owner, scope="workspace")

    news = {"eventType": "competitor.news"}
    assert viewer.post("/api/mutes", json={"competitorId": rival, **news}).status_code == 403
    assert viewer.get("/api/mutes").status_code == 200  # everyone reads
    # a subscription's mutes: whoever may change the subscription
    assert post(editor2, {"subscriptionId": personal, **news}, status=403)
    assert post(editor, {"subscriptionId": shared, **news}, status=403)
    mine = post(editor, {"subscriptionId": personal, **news})["mute"]
    post(owner, {"subscriptionId": shared, **news})
    # a competitor's mutes reach everyone's subscriptions: EDITOR
    wide = post(editor2, {"competitorId": rival, **news})["mute"]
    assert editor2.delete(f"/api/mutes/{mine['id']}").status_code == 403
    assert viewer.delete(f"/api/mutes/{wide['id']}").status_code == 403
    assert owner.delete(f"/api/mutes/{mine['id']}").status_code == 200
    assert editor.delete(f"/api/mutes/{wide['id']}").status_code == 200
    # the service holds the rule too, whatever calls it
    with connection(), pytest.raises(Forbidden):
        mutes.create_mute(ws.id, SimpleNamespace(role="VIEWER", user_id=None), {
            "competitorId": rival, **news
        })  # fmt: skip


# -- the rule ------------------------------------------------------------------------------


@pytest.fixture
def world(make_workspace):
    """Two subscriptions, two competitors, and these mutes:
    Globex careers page for everyone; news for sub A; Initech page changes for sub A."""
    ws = make_workspace()
    from tests.jobs_support import competitor

    globex, initech = competitor(ws, "Globex"), competitor(ws, "Initech")
    with connection():
        a, b = (
            Subscription.create(workspace=ws, name=n, channel="webhook", target_encrypted="x")
            for n in ("A", "B")
        )
        mutes.create_mute(ws.id, None, {"competitorId": globex.id, "url": CAREERS + "/"})
        mutes.create_mute(ws.id, None, {"subscriptionId": a.id, "eventType": "competitor.news"})
        mutes.create_mute(
            ws.id,
            None,
            {
                "subscriptionId": a.id,
                "competitorId": initech.id,
                "eventType": "competitor.page_changed",
            },
        )
    return SimpleNamespace(ws=ws, a=a, b=b, globex=globex.id, initech=initech.id)


CASES = [
    # (event type, competitor, data.url, muted for A, muted for B)
    ("competitor.page_changed", "globex", CAREERS, True, True),
    ("competitor.page_changed", "globex", "https://GLOBEX.example/careers/#:~:text=x", True, True),
    ("competitor.person_added", "globex", CAREERS, True, True),  # any type on that page
    ("competitor.page_changed", "globex", "https://globex.example/pricing", False, False),
    ("competitor.page_changed", "initech", CAREERS, True, False),  # A's Initech pages
    ("competitor.price_changed", "initech", CAREERS, False, False),
    ("competitor.news", "initech", None, True, False),  # A: no news at all
    ("competitor.news", None, None, True, False),
    ("deal.recorded", None, None, False, False),
    ("competitor.page_changed", None, CAREERS, False, False),  # no competitor: not Globex's
]


@pytest.mark.parametrize(("kind", "who", "url", "for_a", "for_b"), CASES)
def test_muted_rule(world, kind, who, url, for_a, for_b):
    cid = getattr(world, who) if who else None
    event = Event(workspace=world.ws.id, type=kind, competitor_id=cid, data={"url": url})
    with connection():
        assert mutes.muted(world.a, event) is for_a
        assert mutes.muted(world.b, event) is for_b
        assert [e.type for e in mutes.unmuted(world.a, [event])] == ([] if for_a else [kind])


def test_muted_for_reads_once_for_any_number_of_subscriptions(world, monkeypatch):
    event = Event(workspace=world.ws.id, type="competitor.news", competitor_id=world.globex)
    calls = []
    real = database.obj.execute_sql

    def counting(sql, *args, **kwargs):
        calls.append(sql)
        return real(sql, *args, **kwargs)

    with connection():
        monkeypatch.setattr(database.obj, "execute_sql", counting)
        is_muted = mutes.muted_for(event)
        answers = [is_muted(s) for s in [world.a, world.b] * 50]
        monkeypatch.undo()
    assert len(calls) == 1
    assert answers[:2] == [True, False]


def test_a_deleted_competitor_takes_its_mutes(world):
    from ci_service.store.competitors import Competitor

    with connection():
        Competitor.delete().where(Competitor.id == world.initech).execute()
        assert {m.competitor_id for m in Mute.select()} == {world.globex, None}


# -- CLI -----------------------------------------------------------------------------------


def test_cli_commands(run):
    assert run("workspaces", "create", "acme", "--plan", "ENTERPRISE").exit_code == 0
    made = run(
        "alerts", "create", "--workspace", "acme", "--name", "Hook", "--channel", "webhook",
        "--target", HOOK,
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    sub = json.loads(run("alerts", "list", "--workspace", "acme", "--json").stdout)[0]["id"]

    muted = run(
        "alerts", "mute", "--workspace", "acme", "--subscription", sub,
        "--type", "competitor.news", "--url", CAREERS,
    )  # fmt: skip
    assert muted.exit_code == 0, muted.output
    assert f"Muted competitor.news on {CAREERS} for subscription {sub}" in muted.stdout
    [row] = json.loads(run("alerts", "mutes", "--workspace", "acme", "--json").stdout)
    assert (row["subscriptionId"], row["eventType"], row["url"]) == (
        sub,
        "competitor.news",
        CAREERS,
    )
    assert row["id"] in run("alerts", "mutes", "--workspace", "acme").stdout

    nothing = run("alerts", "mute", "--workspace", "acme", "--subscription", sub)
    assert nothing.exit_code == 1 and "eventType" in nothing.output
    nobody = run("alerts", "mute", "--workspace", "acme", "--type", "competitor.news")
    assert nobody.exit_code == 1 and "subscriptionId" in nobody.output

    assert run("alerts", "unmute", row["id"]).exit_code == 0
    assert run("alerts", "mutes", "--workspace", "acme").stdout.strip() == "(none)"
    gone = run("alerts", "unmute", row["id"])
    assert gone.exit_code == 1 and "not found" in gone.output
