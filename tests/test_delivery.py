"""Delivery of events to subscriptions, against REAL local receivers (no HTTP mocks).

A threaded HTTP server verifies every Standard Webhooks signature with the
``standardwebhooks`` package and answers from a script (503, Retry-After, 410, 400 ...);
Apprise posts to it through ``json://`` and ``form://``; a local aiosmtpd server receives
the e-mail digests. Time is moved forward with the job runner's clock, never with sleeps.
"""

from __future__ import annotations

import base64
import json
import secrets
import threading
from datetime import timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import pytest
from standardwebhooks import Webhook

from ci_service.jobs.runner import JobRunner
from ci_service.jobs.scheduler import delivery_scan, digest_scan
from ci_service.services.alerts import delivery, events
from ci_service.services.alerts.digest import last_period
from ci_service.services.alerts.send import classify, retry_after_seconds
from ci_service.store.alerts import Delivery, Subscription
from ci_service.store.db import connection, transaction
from ci_service.store.events import Event
from ci_service.store.jobs import Job
from ci_service.store.secrets_box import encrypt
from ci_service.timeutil import utcnow
from tests.jobs_support import competitor

pytest_plugins = ["tests.jobs_fixtures", "tests.alert_fixtures"]


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


class Receiver:
    """A local HTTP endpoint. ``script(webhook_id, n)`` -> (status, headers) for the n-th
    request (0-based) carrying that id; every request is recorded with whether its
    signature verified against ``secret`` (when one is given)."""

    def __init__(self, secret: str | None = None, script=None, hold: threading.Event | None = None):
        self.secret = secret
        self.script = script or (lambda wid, n: (200, {}))
        self.hold = hold  # when set on arrival: wait for it before answering
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self.arrived = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                receiver.handle(self, body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def handle(self, request, body: bytes) -> None:
        headers = {k.lower(): v for k, v in request.headers.items()}
        verified = None
        if self.secret is not None:
            try:
                Webhook(self.secret).verify(body, headers)
                verified = True
            except Exception:
                verified = False
        wid = headers.get("webhook-id")
        with self.lock:
            n = sum(1 for r in self.requests if r["id"] == wid)
            status, extra = self.script(wid, n)
            entry = {
                "id": wid,
                "path": request.path,
                "headers": headers,
                "body": body,
                "verified": verified,
                "status": status,
            }
            self.requests.append(entry)
        self.arrived.set()
        if self.hold is not None:
            self.hold.wait(30)
        request.send_response(status)
        for name, value in extra.items():
            request.send_header(name, value)
        request.send_header("content-length", "2")
        request.end_headers()
        request.wfile.write(b"ok")

    def accepted(self) -> list[str]:
        return [r["id"] for r in self.requests if 200 <= r["status"] < 300]

    def __enter__(self) -> Receiver:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.hold is not None:
            self.hold.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def runner_at(app, clock):
    made = JobRunner(0, clock=clock)
    yield made
    made.stop(5)


def subscribe(ws, target, channel="webhook", secret=None, **fields) -> Subscription:
    with connection():
        return Subscription.create(
            workspace=ws,
            name=fields.pop("name", "alerts"),
            channel=channel,
            target_encrypted=encrypt(target),
            target_hint=target.split("?")[0][:40],
            secret_encrypted=encrypt(secret) if secret else None,
            **fields,
        )


def emit(ws, event_type="competitor.news", title="News", **options) -> Event:
    with connection(), transaction():
        return events.emit(ws.id, event_type, title, "Something happened.", **options)


def rows(model, *where):
    with connection():
        query = model.select()
        return list(query.where(*where) if where else query)


def pass_at(runner, clock):
    """One delivery pass at the clock's time: the scan queues jobs, the runner runs them."""
    with connection():
        delivery.wake(clock())
    runner.run_until_idle()


def test_matching_rules(make_workspace):
    ws = make_workspace()
    rival = competitor(ws, "Rival")
    with connection():
        event = Event(
            workspace=ws.id, type="competitor.news", competitor_id=rival.id, importance="normal"
        )

        def sub(**fields):
            base = {"workspace": ws.id, "status": "active", "min_importance": "low"}
            return Subscription(**{**base, **fields})

        assert delivery.matches(sub(), event)
        assert delivery.matches(sub(event_types=["competitor.news"]), event)
        assert not delivery.matches(sub(event_types=["deal.recorded"]), event)
        assert delivery.matches(sub(competitor_ids=[rival.id]), event)
        assert not delivery.matches(sub(competitor_ids=["other"]), event)
        assert delivery.matches(sub(min_importance="normal"), event)
        assert not delivery.matches(sub(min_importance="high"), event)
        assert not delivery.matches(sub(status="paused"), event)
        assert not delivery.matches(sub(workspace="elsewhere"), event)
        workspace_event = Event(workspace=ws.id, type="deal.recorded", importance="normal")
        assert delivery.matches(sub(), workspace_event)
        assert not delivery.matches(sub(competitor_ids=[rival.id]), workspace_event)


def test_signed_webhook_is_delivered_and_verified(make_workspace, private_ok, runner_at, clock):
    ws = make_workspace()
    rival = competitor(ws, "Rival")
    secret = new_secret()
    with Receiver(secret) as receiver:
        sub = subscribe(ws, receiver.url + "/hook", secret=secret)
        digest_sub = subscribe(ws, receiver.url + "/digest", secret=secret, digest="daily")
        event = emit(ws, competitor_id=rival.id, link=f"/competitors/{rival.id}")
        # The delivery and its job committed with the event; nothing was sent yet.
        [row] = rows(Delivery)
        assert (row.subscription_id, row.event_id, row.kind) == (sub.id, event.id, "event")
        assert row.message_id.startswith("msg_") and len(row.message_id) == 36
        assert [j.type for j in rows(Job)] == [delivery.JOB_TYPE]
        assert receiver.requests == []
        emit(ws, title="Second")  # a job is already queued: no second one
        assert len(rows(Job)) == 1
        runner_at.run_until_idle()
    assert digest_sub.id not in {r.subscription_id for r in rows(Delivery)}
    assert [r["verified"] for r in receiver.requests] == [True, True]
    first = receiver.requests[0]
    assert first["path"] == "/hook"
    assert first["id"] == row.message_id
    assert first["headers"]["content-type"] == "application/json"
    assert first["headers"]["user-agent"].startswith("ci-service/")
    assert first["headers"]["webhook-signature"].startswith("v1,")
    payload = json.loads(first["body"])
    assert payload["type"] == "competitor.news"
    assert payload["data"]["event"]["id"] == event.id
    assert payload["data"]["event"]["competitorId"] == rival.id
    assert payload["data"]["url"] == f"https://ci.example.com/competitors/{rival.id}"
    assert payload["timestamp"] == payload["data"]["event"]["createdAt"]
    with connection():
        done = Delivery.get_by_id(row.id)
    assert (done.status, done.attempts, done.last_status, done.last_error) == (
        "delivered",
        1,
        200,
        None,
    )
    assert {j.status for j in rows(Job)} == {"completed"}


def test_rotation_signs_with_both_secrets(make_workspace, private_ok, runner_at, clock):
    ws = make_workspace()
    old, new = new_secret(), new_secret()
    with Receiver(old) as receiver:
        sub = subscribe(ws, receiver.url, secret=new)
        with connection():
            Subscription.update(
                previous_secret_encrypted=encrypt(old),
                previous_secret_expires_at=utcnow() + timedelta(hours=1),
            ).where(Subscription.id == sub.id).execute()
        emit(ws)
        runner_at.run_until_idle()
        with connection():  # the rotation window is over: only the current secret signs
            Subscription.update(previous_secret_expires_at=utcnow() - timedelta(seconds=1)).where(
                Subscription.id == sub.id
            ).execute()
        emit(ws)
        runner_at.run_until_idle()
    during, after = receiver.requests
    assert len(during["headers"]["webhook-signature"].split(" ")) == 2
    assert during["verified"] is True  # the receiver still only knows the old secret
    Webhook(new).verify(during["body"], during["headers"])
    assert len(after["headers"]["webhook-signature"].split(" ")) == 1
    assert after["verified"] is False
    Webhook(new).verify(after["body"], after["headers"])


def test_failing_receiver_gets_every_event_exactly_once(
    make_workspace, private_ok, runner_at, clock
):
    secret = new_secret()
    http_date = format_datetime(clock.now + timedelta(minutes=10), usegmt=True)

    order: list[str] = []

    def script(wid, n):
        # 503, then 503 asking for a pause (seconds for the first two events, an HTTP date
        # for the others), then success.
        if wid not in order:
            order.append(wid)
        asked = "120" if order.index(wid) < 2 else http_date
        return [(503, {}), (503, {"Retry-After": asked}), (200, {})][min(n, 2)]

    ws = make_workspace()
    with Receiver(secret, script) as receiver:
        subscribe(ws, receiver.url, secret=secret)
        made = [emit(ws, title=f"Event {i}") for i in range(4)]
        # The clock is real time plus an offset: the wait was drawn at some moment between
        # these two, so it is read against each bound's worst case.
        before = clock.now
        runner_at.run_until_idle()
        after = clock.now
        first = {r.id: r for r in rows(Delivery)}
        for row in first.values():
            assert (row.status, row.attempts, row.last_status) == ("pending", 1, 503)
            assert (row.next_attempt_at - before).total_seconds() >= 24  # 30 s +-20 %
            assert (row.next_attempt_at - after).total_seconds() <= 36
        pass_at(runner_at, clock)  # nothing is due yet: nothing sent
        assert len(receiver.requests) == 4
        clock.advance(seconds=40)
        pass_at(runner_at, clock)
        for row in rows(Delivery):
            wait = (row.next_attempt_at - clock.now).total_seconds()
            expected = 120 if order.index(row.message_id) < 2 else 600
            assert expected - 2 <= wait <= expected + 2, (row.message_id, wait)
        for _ in range(3):
            clock.advance(minutes=11)
            pass_at(runner_at, clock)
    ids = [r.message_id for r in rows(Delivery)]
    assert sorted(receiver.accepted()) == sorted(ids)  # each exactly once
    assert all(r["verified"] for r in receiver.requests)
    assert len(receiver.requests) == 12  # three tries each, same webhook-id every time
    assert {r["id"] for r in receiver.requests} == set(ids)
    for row in rows(Delivery):
        assert (row.status, row.attempts, row.last_status) == ("delivered", 3, 200)
    with connection():
        assert Subscription.get().failing_since is None  # a success clears it
    assert len(made) == 4


def test_410_disables_the_subscription(make_workspace, private_ok, runner_at, clock):
    ws = make_workspace()
    with Receiver(script=lambda wid, n: (410, {})) as receiver:
        sub = subscribe(ws, receiver.url, secret=new_secret())
        emit(ws)
        runner_at.run_until_idle()
        later = emit(ws)  # after the 410: recorded as missed, not sent (issue 29)
        runner_at.run_until_idle()
    with connection():
        sub = Subscription.get_by_id(sub.id)
        row, missed = list(Delivery.select().order_by(Delivery.created_at, Delivery.id))
    assert sub.status == "disabled" and "410" in sub.status_reason
    assert (row.status, row.last_status, row.attempts) == ("failed", 410, 1)
    assert (missed.event_id, missed.status, missed.attempts) == (later.id, "missed", 0)
    assert len(receiver.requests) == 1


def test_400_fails_without_retry(make_workspace, private_ok, runner_at, clock):
    ws = make_workspace()
    with Receiver(script=lambda wid, n: (400, {})) as receiver:
        sub = subscribe(ws, receiver.url, secret=new_secret())
        emit(ws)
        runner_at.run_until_idle()
        clock.advance(days=1)
        pass_at(runner_at, clock)
    [row] = rows(Delivery)
    assert (row.status, row.last_status, row.attempts) == ("failed", 400, 1)
    assert "400" in row.last_error
    assert len(receiver.requests) == 1
    with connection():
        assert Subscription.get_by_id(sub.id).status == "active"  # one 400 is not a 410


def test_loopback_is_refused_without_the_override(make_workspace, monkeypatch, runner_at):
    monkeypatch.delenv("CI_SERVICE_ALERTS_ALLOW_PRIVATE_URLS", raising=False)
    ws = make_workspace()
    with Receiver() as receiver:
        subscribe(ws, receiver.url + "/hook?token=s3cret", secret=new_secret())
        subscribe(ws, f"json://127.0.0.1:{receiver.port}/chat?token=s3cret", channel="apprise")
        subscribe(ws, f"json://localhost:{receiver.port}/chat", channel="apprise")
        emit(ws)
        runner_at.run_until_idle()
    assert receiver.requests == []
    found = rows(Delivery)
    assert len(found) == 3
    for row in found:
        assert row.status == "failed", row.last_error
        assert "loopback" in row.last_error
        assert "CI_SERVICE_ALERTS_ALLOW_PRIVATE_URLS=1" in row.last_error
        for leak in ("s3cret", str(receiver.port), "localhost", "/hook", "/chat"):
            assert leak not in row.last_error


def test_failing_for_days_pauses_and_the_pause_is_an_event(
    make_workspace, private_ok, runner_at, clock
):
    ws = make_workspace()
    secret = new_secret()
    with Receiver(script=lambda wid, n: (503, {})) as down, Receiver(secret) as watcher:
        sub = subscribe(ws, down.url, secret=new_secret(), event_types=["competitor.news"])
        subscribe(ws, watcher.url, secret=secret, event_types=["subscription.paused"])
        emit(ws)
        runner_at.run_until_idle()
        with connection():
            assert Subscription.get_by_id(sub.id).failing_since is not None
        for _ in range(30):
            clock.advance(hours=6)
            pass_at(runner_at, clock)
            with connection():
                if Subscription.get_by_id(sub.id).status == "paused":
                    break
        pass_at(runner_at, clock)
    with connection():
        paused = Subscription.get_by_id(sub.id)
        [event] = list(Event.select().where(Event.type == "subscription.paused"))
        [row] = list(Delivery.select().where(Delivery.subscription == sub.id))
    assert paused.status == "paused" and "failed since" in paused.status_reason
    assert event.data == {"subscriptionId": sub.id, "reason": paused.status_reason}
    assert event.importance == "high"
    assert row.status == "failed" and row.last_status == 503
    assert clock.now - paused.failing_since >= timedelta(days=3)
    [note] = watcher.requests
    assert note["verified"] and json.loads(note["body"])["type"] == "subscription.paused"


def test_apprise_json_and_form_targets(make_workspace, private_ok, runner_at):
    ws = make_workspace()
    rival = competitor(ws, "Rival Corp")
    with Receiver() as chat:
        subscribe(ws, f"json://127.0.0.1:{chat.port}/json", channel="apprise")
        subscribe(ws, f"form://127.0.0.1:{chat.port}/form", channel="apprise")
        emit(ws, title="Rival Corp raised prices", competitor_id=rival.id, link="/deals")
        runner_at.run_until_idle()
    by_path = {r["path"]: r for r in chat.requests}
    assert set(by_path) == {"/json", "/form"}
    sent = json.loads(by_path["/json"]["body"])
    assert sent["title"] == "[Rival Corp] Rival Corp raised prices"
    assert "https://ci.example.com/deals" in sent["message"]
    assert "Something happened." in sent["message"]
    form = parse_qs(by_path["/form"]["body"].decode())
    assert "https://ci.example.com/deals" in form["message"][0]
    assert {r.status for r in rows(Delivery)} == {"delivered"}


def backdate(event: Event, when) -> None:
    with connection():
        Event.update(created_at=when).where(Event.id == event.id).execute()


def test_daily_digest_by_email(make_workspace, private_ok, runner_at, clock, smtp):
    ws = make_workspace()
    alpha, beta = competitor(ws, "Alpha"), competitor(ws, "Beta")
    key, start, end = last_period("daily", clock.now)
    target = (
        f"mailto://127.0.0.1:{smtp.port}?from=alerts@example.com&to=team@example.com&mode=insecure"
    )
    sub = subscribe(
        ws, target, channel="apprise", digest="daily", created_at=start - timedelta(days=2)
    )
    made = [
        emit(ws, title="Alpha news", competitor_id=alpha.id),
        emit(ws, "competitor.price_changed", "Beta raised Pro", competitor_id=beta.id),
        emit(ws, "competitor.page_changed", "Alpha page", competitor_id=alpha.id),
        emit(ws, title="Today, not yesterday", competitor_id=alpha.id),
    ]
    assert rows(Delivery) == []  # digest subscriptions get nothing per event
    for event, hours in zip(made[:3], (1, 2, 3), strict=True):
        backdate(event, start + timedelta(hours=hours))
    with connection():
        # Scan times from the period, not the wall clock: a run at 23:30 must not see
        # its second scan land in the next day.
        digest_scan(end + timedelta(minutes=1))
        digest_scan(end + timedelta(minutes=59))  # once per period
    [row] = rows(Delivery)
    assert (row.kind, row.digest_key) == ("digest", key)
    runner_at.run_until_idle()
    [message] = smtp.messages
    assert message["Subject"] == f"Daily digest {key.split(':')[1]}: 3 changes"
    assert message.get_content_type() == "multipart/alternative"
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    # Beta (a high-importance change) comes first, then Alpha's normal before its low.
    assert html.index("Beta raised Pro") < html.index("Alpha news") < html.index("Alpha page")
    assert "Today, not yesterday" not in html
    assert "Beta raised Pro" in text and "Alpha news" in text
    assert f"https://ci.example.com/competitors/{alpha.id}" in html
    with connection():
        assert Delivery.get_by_id(row.id).status == "delivered"
        assert Subscription.get_by_id(sub.id).last_digest_at == end


def test_webhook_digest_and_quiet_periods(make_workspace, private_ok, runner_at, clock):
    ws = make_workspace()
    rival = competitor(ws, "Rival")
    secret = new_secret()
    key, start, end = last_period("weekly", clock.now)
    assert key.startswith("weekly:") and "-W" in key and start.weekday() == 0
    created = start - timedelta(days=1)
    with Receiver(secret) as receiver:
        quiet = subscribe(
            ws,
            receiver.url + "/quiet",
            secret=secret,
            digest="daily",
            created_at=created,
            competitor_ids=["nobody"],
        )
        weekly = subscribe(
            ws,
            receiver.url + "/weekly",
            secret=secret,
            digest="weekly",
            created_at=created,
            min_importance="normal",
        )
        low = emit(ws, "competitor.page_changed", "Low", competitor_id=rival.id)
        normal = emit(ws, title="Workspace-wide")
        high = emit(ws, "competitor.price_changed", "High", competitor_id=rival.id)
        for event in (low, normal, high):
            backdate(event, start + timedelta(days=1))
        with connection():
            digest_scan(end + timedelta(minutes=1))
        runner_at.run_until_idle()
    [row] = rows(Delivery)  # the quiet subscription had nothing: nothing made or sent
    assert row.subscription_id == weekly.id
    [sent] = receiver.requests
    assert sent["path"] == "/weekly" and sent["verified"]
    body = json.loads(sent["body"])
    assert body["type"] == "digest.weekly"
    digest = body["data"]["digest"]
    assert (digest["key"], digest["eventCount"], digest["omitted"]) == (key, 2, 0)
    assert [g["competitorName"] for g in digest["competitors"]] == ["Rival", "Workspace"]
    assert [e["title"] for e in digest["competitors"][0]["events"]] == ["High"]
    with connection():
        assert Subscription.get_by_id(quiet.id).last_digest_at is not None


def test_scan_requeues_after_an_interrupted_job(make_workspace, private_ok, runner_at, clock):
    ws = make_workspace()
    secret = new_secret()
    with Receiver(secret) as receiver:
        subscribe(ws, receiver.url, secret=secret)
        emit(ws)
        with connection():  # what recover_orphans leaves after a crash
            Job.update(status="failed", current_step="Interrupted").execute()
            assert delivery_scan(clock.now) and delivery_scan(clock.now) == []
        runner_at.run_until_idle()
    assert len(receiver.accepted()) == 1


def test_retry_after_and_classification():
    assert retry_after_seconds("120") == 120
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0
    assert retry_after_seconds("soon") is None
    assert classify(204).ok
    assert classify(429, "5").retry and classify(429, "5").retry_after == 5
    assert classify(500).retry and classify(504).retry and classify(408).retry
    assert classify(410).gone and not classify(410).retry
    assert not classify(404).retry and not classify(301).retry


def test_a_receiver_that_hangs_times_out_and_is_retried(
    make_workspace, private_ok, monkeypatch, runner_at, clock
):
    monkeypatch.setenv("CI_SERVICE_DELIVERY_TIMEOUT_SECONDS", "0.5")
    ws = make_workspace()
    hold = threading.Event()
    with Receiver(hold=hold) as receiver:
        subscribe(ws, receiver.url, secret=new_secret())
        emit(ws)
        runner_at.run_until_idle()
        hold.set()
    [row] = rows(Delivery)
    assert (row.status, row.attempts, row.last_status) == ("pending", 1, None)
    assert row.last_error == "timed out after 0.5s"
    assert len(receiver.requests) == 1


def test_chat_digest_renders_markdown(make_workspace, private_ok, clock):
    from ci_service.services.alerts.digest import build_digest
    from ci_service.services.alerts.messages import render

    ws = make_workspace()
    rival = competitor(ws, "Rival")
    key, start, end = last_period("daily", clock.now)
    sub = subscribe(ws, "json://chat.example.com/x", channel="apprise", digest="daily")
    made = [
        emit(ws, title="Quiet change", competitor_id=rival.id, importance="low"),
        emit(ws, "competitor.price_changed", "Price up", competitor_id=rival.id),
    ]
    with connection():
        payload = build_digest(sub, key, start, end, made, "https://ci.example.com")
        title, body, body_format = render(payload, html=False)
    assert body_format == "markdown"
    assert title == f"Daily digest {key.split(':')[1]}: 2 changes"
    assert "**Rival** (https://ci.example.com/competitors/" in body
    assert body.index("[high] Price up") < body.index("[low] Quiet change")


def test_targets_and_secrets_stay_out_of_the_log(make_workspace, private_ok, runner_at, caplog):
    import logging

    caplog.set_level(logging.INFO)  # DEBUG is peewee's SQL (encrypted targets only)
    ws = make_workspace()
    secret = new_secret()
    with Receiver(secret, script=lambda wid, n: (503, {})) as receiver:
        subscribe(ws, receiver.url + "/hook/tok3n", secret=secret)
        subscribe(ws, f"json://127.0.0.1:{receiver.port}/chat/tok3n", channel="apprise")
        emit(ws)
        runner_at.run_until_idle()
    assert len(receiver.requests) == 2
    assert "attempt 1: retry" in caplog.text
    for leak in ("tok3n", secret, f":{receiver.port}"):
        assert leak not in caplog.text
