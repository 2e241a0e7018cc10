"""Subscriptions: REST CRUD and validation, the role rules, secrets shown once and encrypted
at rest, rotation, deliveries and the test action, the CLI and the settings page."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from standardwebhooks import Webhook

from ci_service.services.alerts import subscriptions as subs
from ci_service.store.alerts import Delivery, Subscription
from ci_service.store.db import connection
from ci_service.timeutil import parse_datetime, utcnow
from tests.backends import everything_stored
from tests.resource_helpers import make_competitor

SECRET = re.compile(r"^whsec_[A-Za-z0-9+/]{32}$")
HOOK = "https://hooks.acme.example/ci/path-token-9f8e7d"
SLACK = "slack://T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7FQ/#intel"
HOSTILE = "<script>alert(1)</script>"


def webhook(**extra):
    return {"name": "Pricing hook", "channel": "webhook", "target": HOOK, **extra}


def create(api, body, status=200):
    answer = api.post("/api/subscriptions", json=body)
    assert answer.status_code == status, answer.get_json()
    return answer.get_json()


def field_error(answer, field):
    assert answer.status_code == 400, answer.get_json()
    body = answer.get_json()["error"]
    assert body["code"] == "VALIDATION_ERROR"
    assert any(name.split(".")[0] == field for name in body["details"]["fields"]), body
    return body


# -- REST ------------------------------------------------------------------------------------


def test_crud_through_rest(api):
    rival = make_competitor(api)["competitor"]["id"]
    made = create(
        api,
        webhook(
            eventTypes=["competitor.news", "competitor.price_changed"],
            competitorIds=[rival],
            minImportance="normal",
            digest="daily",
        ),
    )
    sub = made["subscription"]
    assert sub["eventTypes"] == ["competitor.price_changed", "competitor.news"]  # canonical
    assert sub["competitorIds"] == [rival] and sub["minImportance"] == "normal"
    assert sub["scope"] == "personal" and sub["ownerId"] == api.user_id
    assert sub["channel"] == "webhook" and sub["targetHint"] == "https://hooks.acme.example"
    assert sub["hasSecret"] is True and sub["status"] == "active" and sub["digest"] == "daily"
    assert "target" not in sub and "secret" not in sub

    listed = api.get("/api/subscriptions").get_json()["subscriptions"]
    assert [s["id"] for s in listed] == [sub["id"]]
    assert api.get(f"/api/subscriptions/{sub['id']}").get_json()["subscription"] == sub

    changed = api.patch(
        f"/api/subscriptions/{sub['id']}",
        json={"name": "Prices", "eventTypes": [], "target": "https://other.example/x"},
    )
    assert changed.status_code == 200, changed.get_json()
    after = changed.get_json()["subscription"]
    assert after["name"] == "Prices" and after["eventTypes"] == []
    assert after["targetHint"] == "https://other.example" and after["competitorIds"] == [rival]

    paused = api.patch(f"/api/subscriptions/{sub['id']}", json={"status": "paused"})
    assert paused.get_json()["subscription"]["status"] == "paused"
    field_error(
        api.patch(f"/api/subscriptions/{sub['id']}", json={"channel": "apprise"}), "channel"
    )

    assert api.delete(f"/api/subscriptions/{sub['id']}").get_json() == {"success": True}
    assert api.get(f"/api/subscriptions/{sub['id']}").status_code == 404
    assert api.get("/api/subscriptions").get_json() == {"subscriptions": []}


@pytest.mark.parametrize(
    ("url", "hint"),
    [
        (SLACK, "slack://"),
        (
            "https://hooks.slack.com/services/T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazk",
            "https://hooks.slack.com",
        ),
        (
            "workflows://prod-1.westus.logic.azure.com/wf123/sig456",
            "workflows://prod-1.westus.logic.azure.com",
        ),
        ("discord://112233445566778899/abcdefTOKEN", "discord://"),  # ids are snowflakes
        ("mmost://chat.acme.example/abcdefTOKEN", "mmost://chat.acme.example"),
        (
            "mailtos://ana:pa55word@smtp.acme.example?to=team@acme.example",
            "mailtos://smtp.acme.example",
        ),
        ("json://receiver.acme.example:8025/inbox", "json://receiver.acme.example"),
        ("form://receiver.example/in", "form://receiver.example"),
    ],
)
def test_apprise_targets_are_accepted_and_hinted_without_tokens(api, url, hint):
    made = create(api, {"name": "Chat", "channel": "apprise", "target": url})
    assert made["secret"] is None
    sub = made["subscription"]
    assert sub["targetHint"] == hint and sub["hasSecret"] is False
    for secret_part in ("TIiajkdnlazk", "abcdefTOKEN", "pa55word", "sig456"):
        assert secret_part not in json.dumps(made)


def test_validation_errors_name_the_field(api, make_api):
    other = make_api()
    foreign = make_competitor(other, name="Theirs")["competitor"]["id"]
    cases = [
        (webhook(eventTypes=["competitor.nope"]), "eventTypes"),
        (webhook(competitorIds=[foreign]), "competitorIds"),
        (webhook(competitorIds=["missing"]), "competitorIds"),
        (webhook(minImportance="urgent"), "minImportance"),
        (webhook(digest="hourly"), "digest"),
        (webhook(scope="team"), "scope"),
        (webhook(channel="pigeon"), "channel"),
        (webhook(name="   "), "name"),
        (webhook(target="ftp://files.example/x"), "target"),
        (webhook(target="https://"), "target"),
        (webhook(target="not a url"), "target"),
        (webhook(target="http://[::1"), "target"),
        ({"name": "x", "channel": "apprise", "target": "bogus://secret-token@x"}, "target"),
        ({"name": "x", "channel": "apprise", "target": "https://example.com/x"}, "target"),
        ({"name": "x", "channel": "apprise", "target": "slack://"}, "target"),
        ({"name": "x", "channel": "apprise", "target": "windows://"}, "target"),
        ({"name": "x", "channel": "webhook"}, "target"),
    ]
    for body, field in cases:
        error = field_error(api.post("/api/subscriptions", json=body), field)
        assert foreign not in error["message"] or field == "competitorIds"
    assert api.get("/api/subscriptions").get_json() == {"subscriptions": []}


def test_apprise_does_not_log_a_rejected_target(api, caplog):
    with caplog.at_level("DEBUG"):
        api.post(
            "/api/subscriptions",
            json={"name": "x", "channel": "apprise", "target": "bogus://tok-1234@x"},
        )
    assert "tok-1234" not in caplog.text


def test_role_rules(make_api, make_workspace):
    ws = make_workspace()
    owner = make_api(workspace=ws, role="OWNER")
    admin = make_api(workspace=ws, role="ADMIN")
    editor = make_api(workspace=ws, role="EDITOR")
    editor2 = make_api(workspace=ws, role="EDITOR")
    viewer = make_api(workspace=ws, role="VIEWER")

    assert viewer.post("/api/subscriptions", json=webhook()).status_code == 403
    mine = create(editor, webhook())["subscription"]
    assert mine["scope"] == "personal" and mine["ownerId"] == editor.user_id
    assert create(editor, webhook(scope="workspace"), status=403)["error"]["code"] == "FORBIDDEN"
    shared = create(admin, webhook(scope="workspace"))["subscription"]
    assert shared["scope"] == "workspace"

    # everyone reads; only the owner or a manager changes a personal one
    assert len(viewer.get("/api/subscriptions").get_json()["subscriptions"]) == 2
    path = f"/api/subscriptions/{mine['id']}"
    assert viewer.patch(path, json={"name": "v"}).status_code == 403
    assert editor2.patch(path, json={"name": "x"}).status_code == 403
    assert editor2.post(f"{path}/test").status_code == 403
    assert editor2.post(f"{path}/rotate-secret").status_code == 403
    assert editor2.delete(path).status_code == 403
    assert editor.patch(path, json={"name": "Mine"}).status_code == 200
    assert editor.patch(path, json={"scope": "workspace"}).status_code == 403
    # workspace-wide ones: ADMIN/OWNER only
    shared_path = f"/api/subscriptions/{shared['id']}"
    assert editor.patch(shared_path, json={"name": "x"}).status_code == 403
    assert editor.delete(shared_path).status_code == 403
    assert owner.patch(shared_path, json={"name": "Shared"}).status_code == 200
    assert admin.delete(path).status_code == 200  # an ADMIN may remove a personal one
    assert owner.delete(shared_path).status_code == 200
    assert owner.get("/api/subscriptions").get_json() == {"subscriptions": []}


def test_secret_is_shown_once_and_signs(api):
    made = create(api, webhook())
    secret, sub_id = made["secret"], made["subscription"]["id"]
    assert SECRET.match(secret)
    for path in ("/api/subscriptions", f"/api/subscriptions/{sub_id}"):
        assert secret not in api.get(path).get_data(as_text=True)
    patched = api.patch(f"/api/subscriptions/{sub_id}", json={"name": "n"})
    assert secret not in patched.get_data(as_text=True)
    # the stored secret is the one shown, and standardwebhooks signs and verifies with it
    with connection():
        (stored,) = subs.signing_secrets(Subscription.get_by_id(sub_id))
    assert stored == secret
    body = '{"type":"test"}'
    when = utcnow()
    signature = Webhook(secret).sign("msg_1", when, body)
    headers = {
        "webhook-id": "msg_1",
        "webhook-timestamp": str(int(when.timestamp())),
        "webhook-signature": signature,
    }
    assert Webhook(secret).verify(body, headers) == {"type": "test"}


def test_targets_and_secrets_are_encrypted_at_rest(api, settings, backend):
    hooks = [create(api, webhook(target=f"{HOOK}/{i}")) for i in range(2)]
    create(api, {"name": "Chat", "channel": "apprise", "target": SLACK})
    rotated = api.post(f"/api/subscriptions/{hooks[0]['subscription']['id']}/rotate-secret")
    secrets_shown = [h["secret"] for h in hooks] + [rotated.get_json()["secret"]]
    dump, raw = everything_stored(settings.database, backend)
    plain = [HOOK, "path-token-9f8e7d", SLACK, "TIiajkdnlazkcOXrIdevi7FQ"]
    plain += secrets_shown + [s[len("whsec_") :] for s in secrets_shown]
    for value in plain:
        assert value not in dump, value
        assert value.encode() not in raw, value
    assert "hooks.acme.example" in dump  # the hint is stored in clear, so the test can fail


def test_rotation_keeps_the_previous_secret_for_a_day(api):
    made = create(api, webhook())
    sub_id, first = made["subscription"]["id"], made["secret"]
    answer = api.post(f"/api/subscriptions/{sub_id}/rotate-secret")
    assert answer.status_code == 200, answer.get_json()
    second = answer.get_json()["secret"]
    assert SECRET.match(second) and second != first
    expires = parse_datetime(answer.get_json()["subscription"]["previousSecretExpiresAt"])
    assert timedelta(hours=23, minutes=59) < expires - utcnow() <= timedelta(hours=24)
    assert second not in api.get(f"/api/subscriptions/{sub_id}").get_data(as_text=True)
    with connection():
        row = Subscription.get_by_id(sub_id)
        assert subs.signing_secrets(row) == [second, first]
        assert subs.signing_secrets(row, now=expires + timedelta(seconds=1)) == [second]
    chat = create(api, {"name": "Chat", "channel": "apprise", "target": SLACK})
    chat_id = chat["subscription"]["id"]
    field_error(api.post(f"/api/subscriptions/{chat_id}/rotate-secret"), "channel")


def test_deliveries_are_listed_newest_first(api):
    sub_id = create(api, webhook())["subscription"]["id"]
    now = utcnow()
    with connection():
        old = Delivery.create(
            workspace=api.workspace_id,
            subscription=sub_id,
            kind="digest",
            digest_key="daily:2026-01-01",
            message_id="msg_old",
            status="failed",
            attempts=3,
            last_status=503,
            last_error="Service Unavailable",
            created_at=now - timedelta(hours=1),
        )
        new = Delivery.create(
            workspace=api.workspace_id,
            subscription=sub_id,
            kind="test",
            message_id="msg_new",
            status="delivered",
            attempts=1,
            last_status=200,
            delivered_at=now,
            created_at=now,
        )
    rows = api.get(f"/api/subscriptions/{sub_id}/deliveries").get_json()["deliveries"]
    assert [r["id"] for r in rows] == [new.id, old.id]
    assert rows[1]["status"] == "failed" and rows[1]["attempts"] == 3
    assert rows[1]["lastStatus"] == 503 and rows[1]["lastError"] == "Service Unavailable"
    assert rows[0]["messageId"] == "msg_new" and rows[0]["deliveredAt"] is not None
    assert set(rows[0]) >= {"kind", "eventId", "nextAttemptAt", "createdAt"}
    limited = api.get(f"/api/subscriptions/{sub_id}/deliveries?limit=1").get_json()
    assert [r["id"] for r in limited["deliveries"]] == [new.id]


def test_send_test_through_the_delivery_service_queues_its_job(api):
    from ci_service.services.alerts import delivery
    from ci_service.services.alerts import messages as delivery_messages
    from ci_service.store.jobs import Job

    sub_id = create(api, webhook())["subscription"]["id"]
    answer = api.post(f"/api/subscriptions/{sub_id}/test")
    assert answer.status_code == 200, answer.get_json()
    made = answer.get_json()["delivery"]
    assert made["kind"] == "test" and made["status"] == "pending"
    with connection():
        row = Delivery.get_by_id(made["id"])
        jobs = list(
            Job.select().where(Job.workspace == api.workspace_id, Job.type == delivery.JOB_TYPE)
        )
    assert row.payload["type"] == delivery_messages.TEST_TYPE
    assert row.payload["data"]["subscriptionId"] == sub_id
    assert len(jobs) == 1


@pytest.mark.parametrize(
    ("method", "tail"),
    [
        ("get", ""),
        ("patch", ""),
        ("delete", ""),
        ("post", "/rotate-secret"),
        ("post", "/test"),
        ("get", "/deliveries"),
    ],
)
def test_another_workspaces_subscription_is_404(api, make_api, method, tail):
    other = make_api()
    theirs = create(other, webhook())["subscription"]["id"]
    base = f"/api/subscriptions/{theirs}"
    kwargs = {"json": {"name": "Hijack"}} if method == "patch" else {}
    answer = getattr(api, method)(base + tail, **kwargs)
    assert answer.status_code == 404
    assert answer.get_json()["error"]["code"] == "NOT_FOUND"
    assert api.get("/api/subscriptions").get_json() == {"subscriptions": []}
    assert other.get(base).get_json()["subscription"]["name"] == "Pricing hook"


# -- CLI -------------------------------------------------------------------------------------


def test_cli_commands(run):
    assert run("workspaces", "create", "acme", "--plan", "ENTERPRISE").exit_code == 0
    made_key = run(
        "keys", "create", "--workspace", "acme", "--name", "k", "--email", "ana@acme.example"
    )
    assert made_key.exit_code == 0
    result = run(
        "alerts", "create", "--workspace", "acme", "--name", "Prices", "--channel", "webhook",
        "--target", HOOK, "--types", "competitor.price_changed,competitor.news",
        "--min-importance", "high", "--email", "ana@acme.example",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    secret = result.stdout.strip().splitlines()[-1]
    assert SECRET.match(secret)
    chat = run(
        "alerts", "create", "--workspace", "acme", "--name", "Chat", "--channel", "apprise",
        "--target", SLACK, "--digest", "weekly",
    )  # fmt: skip
    assert chat.exit_code == 0 and "whsec_" not in chat.output

    listed = json.loads(run("alerts", "list", "--workspace", "acme", "--json").stdout)
    by_name = {row["name"]: row for row in listed}
    hook = by_name["Prices"]
    assert hook["scope"] == "personal" and hook["minImportance"] == "high"
    assert hook["eventTypes"] == ["competitor.price_changed", "competitor.news"]
    assert by_name["Chat"]["scope"] == "workspace" and by_name["Chat"]["digest"] == "weekly"
    table = run("alerts", "list", "--workspace", "acme").stdout
    assert "Prices" in table and "https://hooks.acme.example" in table and secret not in table

    rotated = run("alerts", "rotate", hook["id"])
    assert rotated.exit_code == 0 and SECRET.match(rotated.stdout.strip().splitlines()[-1])
    assert rotated.stdout.strip().splitlines()[-1] != secret
    assert run("alerts", "rotate", by_name["Chat"]["id"]).exit_code == 1

    tested = run("alerts", "test", hook["id"])
    assert tested.exit_code == 0 and "msg_" in tested.stdout
    deliveries = json.loads(run("alerts", "deliveries", hook["id"], "--json").stdout)
    assert [d["kind"] for d in deliveries] == ["test"]
    assert "test" in run("alerts", "deliveries", hook["id"]).stdout

    bad = run(
        "alerts", "create", "--workspace", "acme", "--name", "x", "--channel", "apprise",
        "--target", "bogus://x",
    )  # fmt: skip
    assert bad.exit_code == 1 and "target" in bad.output
    nobody = run(
        "alerts", "create", "--workspace", "acme", "--name", "x", "--channel", "webhook",
        "--target", HOOK, "--email", "nobody@acme.example",
    )  # fmt: skip
    assert nobody.exit_code == 1 and "not found" in nobody.output

    assert run("alerts", "delete", hook["id"]).exit_code == 0
    assert run("alerts", "delete", hook["id"]).exit_code == 1
    left = json.loads(run("alerts", "list", "--workspace", "acme", "--json").stdout)
    assert [row["name"] for row in left] == ["Chat"]


# -- settings page ---------------------------------------------------------------------------


def text(response) -> str:
    return response.get_data(as_text=True)


def test_settings_page_creates_and_shows_the_secret_once(web):
    page = web.get("/settings/alerts")
    assert page.status_code == 200 and "No subscriptions yet" in text(page)
    assert 'href="/settings/alerts"' in text(web.get("/settings"))  # the settings tab
    answer = web.post_form(
        "/settings/alerts",
        {"name": HOSTILE, "channel": "webhook", "target": HOOK, "eventTypes": "competitor.news"},
    )
    assert answer.status_code == 200, text(answer)
    match = re.search(r'value="(whsec_[^"]+)"', text(answer))
    assert match and SECRET.match(match.group(1))
    secret = match.group(1)
    assert HOSTILE not in text(answer) and "&lt;script&gt;" in text(answer)
    again = text(web.get("/settings/alerts"))
    assert secret not in again and HOOK not in again and "https://hooks.acme.example" in again
    assert "competitor.news" in again

    (sub,) = web.api.get("/api/subscriptions").get_json()["subscriptions"]
    assert sub["ownerId"] == web.user_id
    rotated = web.post_form(f"/settings/alerts/{sub['id']}/rotate", csrf_from="/settings/alerts")
    new = re.search(r'value="(whsec_[^"]+)"', text(rotated)).group(1)
    assert new != secret and "previous one keeps working" in text(rotated)

    tested = web.post_form(f"/settings/alerts/{sub['id']}/test", csrf_from="/settings/alerts")
    assert tested.status_code == 302
    deliveries = web.api.get(f"/api/subscriptions/{sub['id']}/deliveries").get_json()
    assert [d["kind"] for d in deliveries["deliveries"]] == ["test"]

    assert "Resume" not in text(web.get("/settings/alerts"))
    web.api.patch(f"/api/subscriptions/{sub['id']}", json={"status": "paused"})
    assert "Resume" in text(web.get("/settings/alerts"))
    resumed = web.post_form(f"/settings/alerts/{sub['id']}/resume", csrf_from="/settings/alerts")
    assert resumed.status_code == 302
    status = web.api.get(f"/api/subscriptions/{sub['id']}").get_json()["subscription"]["status"]
    assert status == "active"

    removed = web.post_form(f"/settings/alerts/{sub['id']}/delete", csrf_from="/settings/alerts")
    assert removed.status_code == 302
    assert web.api.get("/api/subscriptions").get_json() == {"subscriptions": []}


def test_settings_page_shows_validation_errors(web):
    answer = web.post_form(
        "/settings/alerts", {"name": "Chat", "channel": "apprise", "target": "bogus://x"}
    )
    assert answer.status_code == 400
    assert "target" in text(answer) and 'value="bogus://x"' in text(answer)
    assert web.api.get("/api/subscriptions").get_json() == {"subscriptions": []}
    no_csrf = web.client.post("/settings/alerts", data={"name": "x", "channel": "webhook"})
    assert no_csrf.status_code == 400


def test_settings_page_roles(web, make_web, make_workspace):
    from ci_service.store.identity import Workspace

    with connection():
        ws = Workspace.get_by_id(web.workspace_id)
    create(web.api, webhook(name="Team hook", scope="workspace"))
    viewer = make_web(role="VIEWER", workspace=ws)
    page = text(viewer.get("/settings/alerts"))
    assert "Team hook" in page and "<form" not in page.split("</nav>", 2)[-1]
    assert "Subscribe" not in page and "Delete" not in page
    denied = viewer.post_form(
        "/settings/alerts", {"name": "x", "channel": "webhook", "target": HOOK}
    )
    assert denied.status_code == 403

    editor = make_web(role="EDITOR", workspace=ws)
    page = text(editor.get("/settings/alerts"))
    assert 'value="personal"' in page and 'value="workspace"' not in page
    assert "Delete" not in page  # the workspace-wide one is not theirs to change
    refused = editor.post_form(
        "/settings/alerts",
        {"name": "x", "channel": "webhook", "target": HOOK, "scope": "workspace"},
    )
    assert refused.status_code == 403 and "ADMIN" in text(refused)
    made = editor.post_form(
        "/settings/alerts", {"name": "Mine", "channel": "webhook", "target": HOOK}
    )
    assert made.status_code == 200 and "whsec_" in text(made)
    assert "Delete" in text(editor.get("/settings/alerts"))
