"""Issue 29: replay and honesty about delivery.

Retry of a failed or missed delivery (REST, CLI, settings page) with its 409s and 404s;
events missed while a subscription is paused, and resuming with or without them;
``subscription.disabled`` after a 410; unknown fields refused; retries leaving at their
time; digests on demand and without repeats. Receivers are real local HTTP servers
(``tests/test_delivery.py``'s ``Receiver``); time moves with the runner's clock, except in
the timing test, which measures a real threaded runner.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from click.testing import CliRunner

from ci_service.cli import cli
from ci_service.jobs.runner import JobRunner
from ci_service.jobs.scheduler import digest_scan
from ci_service.services.alerts import delivery, events
from ci_service.services.alerts.digest import build_digest, last_period
from ci_service.services.workspace.workspaces import create_workspace
from ci_service.store.alerts import Delivery, Subscription
from ci_service.store.db import connection, open_database, transaction
from ci_service.store.events import Event
from ci_service.store.jobs import Job
from ci_service.store.secrets_box import encrypt
from ci_service.timeutil import parse_datetime, utcnow
from tests.test_delivery import Receiver, new_secret
from tests.waiting import wait_for

pytest_plugins = ["tests.alert_fixtures"]


@pytest.fixture
def runner(app, clock):
    made = JobRunner(0, clock=clock)
    yield made
    made.stop(5)


def subscribe(workspace_id, target, secret=None, **fields) -> Subscription:
    """A workspace-wide subscription straight in the table (loopback targets are refused by
    the API unless the service allows them)."""
    with connection():
        return Subscription.create(
            workspace=workspace_id,
            name=fields.pop("name", "Globex hook"),
            scope="workspace",
            channel="webhook",
            target_encrypted=encrypt(target),
            target_hint="http://127.0.0.1",
            secret_encrypted=encrypt(secret or new_secret()),
            **fields,
        )


def emit(workspace_id, event_type="competitor.news", title="Rival news", **options) -> Event:
    with connection(), transaction():
        return events.emit(workspace_id, event_type, title, "Something happened.", **options)


def deliveries(sub_id) -> list[Delivery]:
    with connection():
        query = Delivery.select().where(Delivery.subscription == sub_id)
        return list(query.order_by(Delivery.created_at, Delivery.id))


def one(delivery_id) -> Delivery:
    with connection():
        return Delivery.get_by_id(delivery_id)


def scripted(*answers):
    """A receiver script answering the n-th request of a webhook-id with ``answers[n]``."""
    return lambda wid, n: (answers[min(n, len(answers) - 1)], {})


def error_code(answer, status):
    assert answer.status_code == status, answer.get_json()
    return answer.get_json()["error"]["code"]


# -- retry by REST ---------------------------------------------------------------------------


def test_retry_by_api_resends_the_same_message(api, private_ok, runner, clock):
    secret = new_secret()
    with Receiver(secret, scripted(500, 400, 200)) as receiver:
        sub = subscribe(api.workspace_id, receiver.url, secret)
        emit(api.workspace_id)
        runner.run_until_idle()
        [row] = deliveries(sub.id)
        assert (row.status, row.last_status) == ("pending", 500)  # a 500 is retried anyway
        path = f"/api/subscriptions/{sub.id}/deliveries/{row.id}/retry"
        answer = api.post(path)
        assert error_code(answer, 409) == "CONFLICT"
        assert "pending" in answer.get_json()["error"]["message"]

        clock.advance(minutes=2)
        runner.run_until_idle()  # the job armed for the retry's time runs: a 400 fails it
        assert one(row.id).status == "failed" and one(row.id).last_status == 400

        answer = api.post(path)
        assert answer.status_code == 200, answer.get_json()
        shown = answer.get_json()["delivery"]
        assert (shown["id"], shown["status"], shown["messageId"]) == (
            row.id,
            "pending",
            row.message_id,
        )
        assert abs(parse_datetime(shown["nextAttemptAt"]) - utcnow()) < timedelta(seconds=5)
        runner.run_until_idle()
    done = one(row.id)
    assert (done.status, done.attempts, done.last_status) == ("delivered", 3, 200)
    assert [r["id"] for r in receiver.requests] == [row.message_id] * 3  # same webhook-id
    assert all(r["verified"] for r in receiver.requests)
    again = api.post(path)
    assert error_code(again, 409) == "CONFLICT"
    assert "delivered" in again.get_json()["error"]["message"]


def test_retry_404s_and_permissions(api, make_api, make_workspace):
    from ci_service.store.identity import Workspace

    sub = subscribe(api.workspace_id, "https://hooks.globex.example/in")
    other_sub = subscribe(api.workspace_id, "https://hooks.globex.example/other")
    with connection():
        row = Delivery.create(
            workspace=api.workspace_id,
            subscription=other_sub,
            kind="test",
            message_id=delivery.new_message_id(),
            status="failed",
        )
        mine = Delivery.create(
            workspace=api.workspace_id,
            subscription=sub,
            kind="test",
            message_id=delivery.new_message_id(),
            status="failed",
        )
        workspace = Workspace.get_by_id(api.workspace_id)
    # a delivery of another subscription, and an unknown one: 404
    assert error_code(api.post(f"/api/subscriptions/{sub.id}/deliveries/{row.id}/retry"), 404)
    assert error_code(api.post(f"/api/subscriptions/{sub.id}/deliveries/nope/retry"), 404)
    # another workspace: every replay route is a 404, as a missing subscription
    stranger = make_api()
    for path in (
        f"/api/subscriptions/{sub.id}/deliveries/{mine.id}/retry",
        f"/api/subscriptions/{sub.id}/send-missed",
        f"/api/subscriptions/{sub.id}/digest",
    ):
        assert error_code(stranger.post(path), 404) == "NOT_FOUND", path
    # "send test"'s permission: an EDITOR may not touch a workspace-wide subscription
    editor = make_api(role="EDITOR", workspace=workspace)
    retry = f"/api/subscriptions/{sub.id}/deliveries/{mine.id}/retry"
    assert error_code(editor.post(retry), 403) == "FORBIDDEN"
    assert one(mine.id).status == "failed"
    assert api.post(retry).get_json()["delivery"]["status"] == "pending"


def test_a_stopped_subscription_must_be_resumed_first_except_for_tests(api):
    sub = subscribe(api.workspace_id, "https://hooks.globex.example/in", status="paused")
    with connection():
        made = {
            kind: Delivery.create(
                workspace=api.workspace_id,
                subscription=sub,
                kind=kind,
                message_id=delivery.new_message_id(),
                status="failed",
            )
            for kind in ("event", "test")
        }
    base = f"/api/subscriptions/{sub.id}/deliveries"
    refused = api.post(f"{base}/{made['event'].id}/retry")
    assert error_code(refused, 409) == "CONFLICT"
    assert "resume the subscription first" in refused.get_json()["error"]["message"]
    assert api.post(f"{base}/{made['test'].id}/retry").status_code == 200
    assert error_code(api.post(f"/api/subscriptions/{sub.id}/send-missed"), 409) == "CONFLICT"
    assert error_code(api.post(f"/api/subscriptions/{sub.id}/digest"), 409) == "CONFLICT"


# -- missed while paused ---------------------------------------------------------------------


def test_missed_while_paused_and_resume_with_or_without_them(api, private_ok, runner):
    secret = new_secret()
    with Receiver(secret) as receiver:
        sub = subscribe(api.workspace_id, receiver.url, secret)
        digest = subscribe(api.workspace_id, receiver.url + "/digest", secret, digest="daily")
        path = f"/api/subscriptions/{sub.id}"
        api.patch(path, json={"status": "paused"})
        api.patch(f"/api/subscriptions/{digest.id}", json={"status": "paused"})
        first = emit(api.workspace_id, title="While paused")
        runner.run_until_idle()
        assert receiver.requests == []
        [row] = deliveries(sub.id)
        assert (row.event_id, row.status, row.attempts) == (first.id, "missed", 0)
        assert deliveries(digest.id) == []  # digests keep no per-event rows
        listed = {s["id"]: s for s in api.get("/api/subscriptions").get_json()["subscriptions"]}
        assert listed[sub.id]["missedCount"] == 1 and listed[digest.id]["missedCount"] == 0

        # without sendMissed: active again, the missed one stays missed and unsent
        resumed = api.patch(path, json={"status": "active"}).get_json()["subscription"]
        assert (resumed["status"], resumed["missedCount"]) == ("active", 1)
        runner.run_until_idle()
        assert receiver.requests == [] and one(row.id).status == "missed"

        # sendMissed only goes with status active
        bad = api.patch(path, json={"sendMissed": True})
        assert error_code(bad, 400) == "VALIDATION_ERROR"
        assert "sendMissed" in bad.get_json()["error"]["details"]["fields"]

        api.patch(path, json={"status": "paused"})
        second = emit(api.workspace_id, title="Paused again")
        answer = api.patch(path, json={"status": "active", "sendMissed": True})
        assert answer.status_code == 200, answer.get_json()
        assert answer.get_json()["subscription"]["missedCount"] == 0
        runner.run_until_idle()
    sent = {json.loads(r["body"])["data"]["event"]["id"] for r in receiver.requests}
    assert sent == {first.id, second.id}
    assert {d.status for d in deliveries(sub.id)} == {"delivered"}


def test_pausing_turns_pending_into_missed_and_send_missed_queues_them(
    api, private_ok, runner, clock
):
    with Receiver(script=scripted(503, 200)) as receiver:
        sub = subscribe(api.workspace_id, receiver.url)
        emit(api.workspace_id)
        runner.run_until_idle()
        [row] = deliveries(sub.id)
        assert row.status == "pending"  # waiting for its retry
        api.patch(f"/api/subscriptions/{sub.id}", json={"status": "paused"})
        assert one(row.id).status == "missed"
        clock.advance(minutes=5)
        runner.run_until_idle()
        assert len(receiver.requests) == 1  # a missed one is not picked up by the sender
        api.patch(f"/api/subscriptions/{sub.id}", json={"status": "active"})
        answer = api.post(f"/api/subscriptions/{sub.id}/send-missed")
        assert answer.get_json() == {"queued": 1}
        assert api.post(f"/api/subscriptions/{sub.id}/send-missed").get_json() == {"queued": 0}
        runner.run_until_idle()
    assert one(row.id).status == "delivered" and len(receiver.requests) == 2


# -- 410 -------------------------------------------------------------------------------------


def test_a_410_disables_and_raises_subscription_disabled(api, private_ok, runner):
    secret = new_secret()
    with Receiver(script=scripted(410)) as gone, Receiver(secret) as watcher:
        sub = subscribe(api.workspace_id, gone.url, event_types=[])  # every type
        subscribe(api.workspace_id, watcher.url, secret, event_types=["subscription.disabled"])
        emit(api.workspace_id, "deal.recorded", "Deal with Globex")
        runner.run_until_idle()
    with connection():
        stopped = Subscription.get_by_id(sub.id)
        [event] = list(Event.select().where(Event.type == "subscription.disabled"))
    assert stopped.status == "disabled" and "410" in stopped.status_reason
    assert event.importance == "high"
    assert event.data == {"subscriptionId": sub.id, "reason": stopped.status_reason}
    # its own notice is not "missed" by the subscription it is about
    assert [d.status for d in deliveries(sub.id)] == ["failed"]
    [note] = watcher.requests
    assert note["verified"] and json.loads(note["body"])["type"] == "subscription.disabled"


# -- unknown fields --------------------------------------------------------------------------


def test_unknown_fields_are_a_400_naming_them(api):
    body = {"name": "Prices", "channel": "webhook", "target": "https://hooks.globex.example/x"}
    made = api.post("/api/subscriptions", json={**body, "eventType": ["competitor.news"]})
    assert error_code(made, 400) == "VALIDATION_ERROR"
    assert set(made.get_json()["error"]["details"]["fields"]) == {"eventType"}
    assert "eventType" in made.get_json()["error"]["message"]
    assert api.get("/api/subscriptions").get_json() == {"subscriptions": []}

    sub = api.post("/api/subscriptions", json=body).get_json()["subscription"]
    changed = api.patch(
        f"/api/subscriptions/{sub['id']}", json={"name": "X", "minImportanse": "high"}
    )
    assert error_code(changed, 400) == "VALIDATION_ERROR"
    assert set(changed.get_json()["error"]["details"]["fields"]) == {"minImportanse"}
    assert api.get(f"/api/subscriptions/{sub['id']}").get_json()["subscription"]["name"] == "Prices"


# -- retry timing ----------------------------------------------------------------------------


def test_a_retry_leaves_at_its_time(api, private_ok, app):
    """A 503 asking for 2 s: the second try arrives at its next_attempt_at (the job waits in
    the queue for it, the runner's default poll interval), not at the next 30-second scan."""
    arrivals = []

    def script(wid, n):
        arrivals.append(utcnow())
        return (503, {"Retry-After": "2"}) if n == 0 else (200, {})

    workers = JobRunner(1)
    with Receiver(script=script) as receiver:
        sub = subscribe(api.workspace_id, receiver.url)
        workers.start()
        try:
            emit(api.workspace_id)
            wait_for(lambda: deliveries(sub.id)[0].status == "delivered", timeout=20)
        finally:
            assert workers.stop(10)
    [row] = deliveries(sub.id)
    first, second = arrivals
    due = row.next_attempt_at  # left as the 503 set it: delivery does not move it
    assert 1.5 <= (due - first).total_seconds() <= 3
    late = (second - due).total_seconds()
    print(f"retry due +{(due - first).total_seconds():.3f} s, sent {late * 1000:+.0f} ms off")
    # the idle worker waits for the job's run_after, not for its next poll (2 s)
    assert -0.05 <= late < 1.0, late
    assert len(receiver.requests) == 2


def test_the_scan_arms_a_later_retry_and_a_new_event_brings_it_forward(app, api, runner, clock):
    sub = subscribe(api.workspace_id, "https://hooks.globex.example/in")
    due = clock.now + timedelta(seconds=45)
    with connection():
        Delivery.create(
            workspace=api.workspace_id,
            subscription=sub,
            kind="test",
            message_id=delivery.new_message_id(),
            next_attempt_at=due,
        )
        [job] = delivery.wake(clock.now)  # within the horizon: queued for its time
        assert job.run_after == due
        assert delivery.wake(clock.now) == []  # armed once
    assert runner.run_once() is None  # not before its time
    emit(api.workspace_id, title="Due now")  # a new event: the waiting job runs now
    with connection():
        [waiting] = list(Job.select().where(Job.type == delivery.JOB_TYPE))
    assert waiting.id == job.id and waiting.run_after is None


# -- digests ---------------------------------------------------------------------------------


def test_digest_now_by_api_dedupes_and_keeps_the_scheduled_one(api, private_ok, runner, clock):
    secret = new_secret()
    start = clock.now - timedelta(hours=2)
    with Receiver(secret) as receiver:
        sub = subscribe(api.workspace_id, receiver.url, secret, digest="daily", created_at=start)
        path = f"/api/subscriptions/{sub.id}/digest"
        assert api.post(path).get_json()["delivery"] is None
        made = [
            emit(api.workspace_id, "battlecard.updated", "Card v1", data={"battlecardId": "b1"}),
            emit(api.workspace_id, "battlecard.updated", "Other card", data={"battlecardId": "b2"}),
            emit(api.workspace_id, "battlecard.updated", "Card v2", data={"battlecardId": "b1"}),
            emit(api.workspace_id, "competitor.page_changed", "Page v1", data={"url": "https://rival.example/p"}),
            emit(api.workspace_id, "competitor.page_changed", "Page v2", data={"url": "https://rival.example/p"}),
            emit(api.workspace_id, "competitor.news", "News"),
        ]  # fmt: skip
        with connection():
            for minutes, event in enumerate(made):
                Event.update(created_at=start + timedelta(minutes=minutes)).where(
                    Event.id == event.id
                ).execute()
        answer = api.post(path)
        assert answer.status_code == 200, answer.get_json()
        shown = answer.get_json()["delivery"]
        assert shown["kind"] == "digest" and shown["digestKey"].startswith("now:")
        runner.run_until_idle()
        nothing = api.post(path).get_json()  # since that digest, nothing happened
        assert nothing["delivery"] is None and "No matching events since" in nothing["reason"]
        [sent] = receiver.requests
        digest = json.loads(sent["body"])["data"]["digest"]
        titles = sorted(e["title"] for g in digest["competitors"] for e in g["events"])
        assert titles == ["Card v2", "News", "Other card", "Page v2"]
        assert digest["eventCount"] == 4 and digest["period"] == "daily"
        # the scheduled digest of the period still comes, with its whole day: the day of
        # the events, which is yesterday when this runs before 02:00 UTC
        key, _start, end = last_period("daily", start + timedelta(days=1))
        with connection():
            digest_scan(end + timedelta(minutes=1))
        keys = {d.digest_key for d in deliveries(sub.id)}
        assert key in keys and len(keys) == 2


def test_build_digest_keeps_the_latest_of_one_thing(api):
    sub = subscribe(api.workspace_id, "https://hooks.globex.example/in", digest="weekly")
    now = utcnow()
    page = {"url": "https://rival.example/pricing"}
    made = [
        Event(id=f"e{i}", workspace=api.workspace_id, type=kind, title=title, importance="low",
              data=data, created_at=now + timedelta(seconds=i), evidence_ids=[])
        for i, (kind, title, data) in enumerate([
            ("competitor.page_changed", "Later", page),
            ("competitor.page_changed", "Earlier", page),
            ("competitor.page_changed", "No url", {}),
            ("competitor.page_changed", "No url either", {}),
        ])
    ]  # fmt: skip
    made[1].created_at = now - timedelta(minutes=1)  # listed first, happened first
    with connection():
        payload = build_digest(sub, "k", now, now, made, "https://ci.example.com")
    titles = [e["title"] for g in payload["data"]["digest"]["competitors"] for e in g["events"]]
    assert sorted(titles) == ["Later", "No url", "No url either"]


# -- CLI -------------------------------------------------------------------------------------


@pytest.fixture
def cli_db(make_database_url, private_ok):
    """A database the CLI and the test share (no app: the CLI opens it itself)."""
    database = make_database_url(name="cli.db")
    open_database(database)
    with connection():
        workspace = create_workspace("globex", "ENTERPRISE")
    return database, workspace.id


def alerts(database, *args):
    result = CliRunner().invoke(cli, ["--database", database, "alerts", *args])
    assert "Traceback" not in result.output
    return result


def test_cli_retry_and_digest_now(cli_db):
    database, workspace_id = cli_db
    runner = JobRunner(0)
    with Receiver(script=scripted(400, 200)) as receiver, Receiver() as inbox:
        sub = subscribe(workspace_id, receiver.url)
        digest = subscribe(workspace_id, inbox.url + "/digest", digest="daily")
        emit(workspace_id)
        runner.run_until_idle()
        [row] = deliveries(sub.id)
        assert row.status == "failed"
        assert alerts(database, "retry", sub.id).exit_code == 2  # which one?
        retried = alerts(database, "retry", sub.id, row.id)
        assert retried.exit_code == 0, retried.output
        assert "Queued again" in retried.output and row.message_id in retried.output
        runner.run_until_idle()
        assert one(row.id).status == "delivered"
        refused = alerts(database, "retry", sub.id, row.id)
        assert refused.exit_code == 1 and "delivered already" in refused.output
        assert "No failed deliveries" in alerts(database, "retry", sub.id, "--all-failed").output

        now = alerts(database, "digest", digest.id, "--now", "--json")
        assert now.exit_code == 0, now.output
        made = json.loads(now.stdout)["delivery"]
        assert made["kind"] == "digest" and made["digestKey"].startswith("now:")
        runner.run_until_idle()
        empty = alerts(database, "digest", digest.id, "--now")
        assert empty.exit_code == 0 and "No digest: No matching events since" in empty.output
        assert "last scheduled digest" in alerts(database, "digest", digest.id).output
    assert [r["id"] for r in receiver.requests] == [row.message_id] * 2
    [sent] = inbox.requests
    assert sent["path"] == "/digest"
    assert json.loads(sent["body"])["data"]["digest"]["eventCount"] == 1


# -- settings page ---------------------------------------------------------------------------


def text(response) -> str:
    return response.get_data(as_text=True)


def test_page_lists_deliveries_with_retry_and_offers_missed_alerts(web, make_web):
    from ci_service.store.identity import Workspace

    sub = subscribe(web.workspace_id, "https://hooks.globex.example/in", name="Globex hook")
    with connection():
        failed, delivered = (
            Delivery.create(
                workspace=web.workspace_id,
                subscription=sub,
                kind="test",
                message_id=delivery.new_message_id(),
                status=status,
                last_status=code,
            )
            for status, code in (("failed", 400), ("delivered", 200))
        )
        workspace = Workspace.get_by_id(web.workspace_id)
    listing = f"/settings/alerts/{sub.id}/deliveries"
    assert f'href="{listing}"' in text(web.get("/settings/alerts"))
    page = text(web.get(listing))
    assert page.count(">Retry<") == 1 and f"/deliveries/{failed.id}/retry" in page
    assert f"/deliveries/{delivered.id}/retry" not in page
    answer = web.post_form(f"{listing}/{failed.id}/retry", csrf_from=listing)
    assert answer.status_code == 302
    assert one(failed.id).status == "pending"
    assert "queued again" in text(web.get(answer.headers["Location"]))
    again = web.post_form(f"{listing}/{failed.id}/retry", csrf_from=listing)
    assert again.status_code == 409 and "still pending" in text(again)

    viewer = make_web(role="VIEWER", workspace=workspace)
    assert ">Retry<" not in text(viewer.get(listing))
    assert viewer.post_form(f"{listing}/{delivered.id}/retry", csrf_from=listing).status_code == 403
    stranger = make_web()
    assert stranger.get(listing).status_code == 404

    # missed while paused: resuming offers them
    web.api.patch(f"/api/subscriptions/{sub.id}", json={"status": "paused"})
    emit(web.workspace_id)
    emit(web.workspace_id, title="Second")
    page = text(web.get("/settings/alerts"))
    assert "2 alerts were missed while paused" in page
    assert "Send them" in page and "Don’t send" in page
    kept = web.post_form(
        f"/settings/alerts/{sub.id}/resume", {"sendMissed": "no"}, csrf_from="/settings/alerts"
    )
    assert kept.status_code == 302
    assert {d.status for d in deliveries(sub.id) if d.kind == "event"} == {"missed"}
    page = text(web.get("/settings/alerts"))
    assert "Send 2 missed" in page and "Resume" not in page
    sent = web.post_form(f"/settings/alerts/{sub.id}/send-missed", csrf_from="/settings/alerts")
    assert sent.status_code == 302
    assert {d.status for d in deliveries(sub.id) if d.kind == "event"} == {"pending"}
    assert re.search(r"missed alerts are being sent", text(web.get(sent.headers["Location"])))
