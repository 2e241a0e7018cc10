"""The SSRF guard on alert targets (issue 25): a webhook or Apprise target that points at a
private address is refused when a subscription is saved (REST create and edit, the settings
page, the CLI), not only when it is sent; and the allowance for private addresses is
``alerts_allow_private_urls``, separate from the crawler's ``allow_private_urls``."""

from __future__ import annotations

import ipaddress
import threading
import time

import pytest

from ci_service.intel.netguard import host_problem, parse_ip
from ci_service.jobs.runner import JobRunner
from ci_service.services.alerts import subscriptions as subs
from ci_service.store.alerts import Delivery, Subscription
from ci_service.store.db import connection
from tests.test_delivery import Receiver, emit, new_secret, subscribe

PUBLIC_HOOK = "https://hooks.acme.example/ci/token-1"

# (channel, target, refused even with the allowance on)
REFUSED = [
    ("webhook", "http://169.254.169.254/latest/meta-data/", True),
    ("webhook", "http://10.1.2.3/hook", False),
    ("webhook", "https://192.168.1.10:8443/hook", False),
    ("webhook", "http://0.0.0.0:8000/hook", True),
    ("webhook", "http://2130706433/hook", False),
    ("webhook", "http://0x7f.1/hook", False),
    ("webhook", "http://[::1]:8000/hook", False),
    ("webhook", "http://[::ffff:127.0.0.1]/hook", False),
    ("webhook", "http://localhost:8080/hook", False),
    ("apprise", "json://169.254.169.254/latest/meta-data/", True),
    ("apprise", "form://10.1.2.3/in", False),
    ("apprise", "json://192.168.1.10/x", False),
    ("apprise", "json://0.0.0.0/x", True),
    ("apprise", "json://2130706433/x", False),
    ("apprise", "json://[::1]:8000/x", False),
    ("apprise", "xml://[::ffff:127.0.0.1]/x", False),
    ("apprise", "json://localhost:8025/inbox", False),
    ("apprise", "mmost://10.1.2.3/abcdefTOKEN", False),
    ("apprise", "mailto://ana:pw@acme.example?smtp=192.168.1.2&to=team@acme.example", False),
]
CHANNELS = ("webhook", "apprise")


def targets(channel: str) -> list[tuple[str, bool]]:
    return [(target, always) for kind, target, always in REFUSED if kind == channel]


def body(channel: str, target: str) -> dict:
    return {"name": "Alerts", "channel": channel, "target": target}


def public_target(channel: str) -> str:
    return PUBLIC_HOOK if channel == "webhook" else "json://receiver.acme.example/in"


def assert_target_error(answer, target: str = "") -> str:
    assert answer.status_code == 400, (target, answer.get_data(as_text=True))
    error = answer.get_json()["error"]
    assert error["code"] == "VALIDATION_ERROR", target
    assert list(error["details"]["fields"]) == ["target"], (target, error)
    return " ".join(error["details"]["fields"]["target"])


def allow_private(app, on: bool = True) -> None:
    settings = app.config["CI_SETTINGS"]
    app.config["CI_SETTINGS"] = settings.with_overrides(alerts_allow_private_urls=on)


def stored_target(subscription_id: str) -> str:
    with connection():
        return subs.read_target(Subscription.get_by_id(subscription_id))


def nothing_stored(api) -> bool:
    return api.get("/api/subscriptions").get_json() == {"subscriptions": []}


# One app per channel and door, each walking the whole table (an app per row costs a second).


@pytest.mark.parametrize("channel", CHANNELS)
def test_private_targets_are_refused_at_create(api, channel):
    for target, always in targets(channel):
        answer = api.post("/api/subscriptions", json=body(channel, target))
        message = assert_target_error(answer, target)
        assert "SSRF" in message, (target, message)
        assert ("CI_SERVICE_ALERTS_ALLOW_PRIVATE_URLS=1" in message) is not always, message
        assert nothing_stored(api), target


@pytest.mark.parametrize("channel", CHANNELS)
def test_private_targets_are_refused_at_edit(api, channel):
    made = api.post("/api/subscriptions", json=body(channel, public_target(channel)))
    assert made.status_code == 200, made.get_json()
    sub = made.get_json()["subscription"]
    for target, _always in targets(channel):
        edited = api.patch(f"/api/subscriptions/{sub['id']}", json={"target": target, "name": "B"})
        assert_target_error(edited, target)
        after = api.get(f"/api/subscriptions/{sub['id']}").get_json()["subscription"]
        assert (after["name"], after["targetHint"]) == ("Alerts", sub["targetHint"]), target
        assert stored_target(sub["id"]) == public_target(channel), target


@pytest.mark.parametrize("channel", CHANNELS)
def test_private_targets_are_refused_by_the_settings_form(web, channel):
    for target, _always in targets(channel):
        page = web.post_form("/settings/alerts", body(channel, target))
        assert page.status_code == 400, target
        assert "SSRF" in page.get_data(as_text=True), target
        assert nothing_stored(web.api), target


@pytest.mark.parametrize("channel", CHANNELS)
def test_the_alerts_allowance_lets_private_targets_in(api, app, channel):
    allow_private(app)
    made = api.post("/api/subscriptions", json=body(channel, public_target(channel)))
    sub_id = made.get_json()["subscription"]["id"]
    for target, always in targets(channel):
        created = api.post("/api/subscriptions", json=body(channel, target))
        edited = api.patch(f"/api/subscriptions/{sub_id}", json={"target": target})
        if always:  # link-local (cloud metadata) and unspecified: never, as for the crawler
            for answer in (created, edited):
                message = assert_target_error(answer, target)
                assert "CI_SERVICE_ALERTS_ALLOW_PRIVATE_URLS" not in message
            continue
        assert (created.status_code, edited.status_code) == (200, 200), target
        assert stored_target(created.get_json()["subscription"]["id"]) == target
        assert stored_target(sub_id) == target


def test_the_crawler_allowance_does_not_admit_alert_targets(api, app):
    app.config["CI_SETTINGS"] = app.config["CI_SETTINGS"].with_overrides(
        allow_private_urls=True, alerts_allow_private_urls=False
    )
    assert_target_error(api.post("/api/subscriptions", json=body("webhook", "http://10.0.0.9/")))


def test_names_that_do_not_resolve_are_accepted_and_credentials_are_refused(api):
    made = api.post("/api/subscriptions", json=body("webhook", "https://no-such-host.invalid/x"))
    assert made.status_code == 200, made.get_json()
    message = assert_target_error(
        api.post("/api/subscriptions", json=body("webhook", "https://u:p@hooks.acme.example/"))
    )
    assert "credentials" in message and "u:p" not in message


def test_the_cli_checks_targets_with_the_environment_allowance(run, monkeypatch):
    monkeypatch.delenv("CI_SERVICE_ALERTS_ALLOW_PRIVATE_URLS", raising=False)
    assert run("workspaces", "create", "acme", "--plan", "ENTERPRISE").exit_code == 0
    args = ("alerts", "create", "--workspace", "acme", "--name", "Local", "--channel", "webhook")
    refused = run(*args, "--target", "http://127.0.0.1:9/hook")
    assert refused.exit_code == 1 and "target" in refused.output and "loopback" in refused.output
    monkeypatch.setenv("CI_SERVICE_ALERTS_ALLOW_PRIVATE_URLS", "1")
    accepted = run(*args, "--target", "http://127.0.0.1:9/hook")
    assert accepted.exit_code == 0, accepted.output


def test_at_send_time_only_the_alerts_allowance_counts(make_workspace, monkeypatch):
    """Crawler allowance on, alerts allowance off: a webhook to 127.0.0.1 (stored before the
    rule, or while the allowance was on) is not sent, and the delivery says why."""
    monkeypatch.setenv("CI_SERVICE_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.delenv("CI_SERVICE_ALERTS_ALLOW_PRIVATE_URLS", raising=False)
    ws = make_workspace()
    runner = JobRunner(0)
    try:
        with Receiver() as receiver:
            subscribe(ws, receiver.url + "/hook?token=s3cret", secret=new_secret())
            subscribe(ws, f"json://127.0.0.1:{receiver.port}/chat", channel="apprise")
            emit(ws)
            runner.run_until_idle()
        assert receiver.requests == []
    finally:
        runner.stop(5)
    with connection():
        found = list(Delivery.select())
    assert len(found) == 2
    for row in found:
        assert row.status == "failed" and "loopback" in row.last_error
        assert "CI_SERVICE_ALERTS_ALLOW_PRIVATE_URLS=1" in row.last_error


def test_at_send_time_the_alerts_allowance_lets_loopback_through(make_workspace, monkeypatch):
    monkeypatch.delenv("CI_SERVICE_ALLOW_PRIVATE_URLS", raising=False)
    monkeypatch.setenv("CI_SERVICE_ALERTS_ALLOW_PRIVATE_URLS", "1")
    ws = make_workspace()
    runner = JobRunner(0)
    try:
        with Receiver() as receiver:
            subscribe(ws, receiver.url + "/hook", secret=new_secret())
            emit(ws)
            runner.run_until_idle()
        assert len(receiver.requests) == 1
    finally:
        runner.stop(5)


# -- the address rules underneath (intel/netguard.py) ------------------------------------------


@pytest.mark.parametrize(
    "host, address",
    [
        ("2130706433", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("0x7F.0.0.1", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("127.0.0.1.", "127.0.0.1"),
        ("0", "0.0.0.0"),
        ("[::1]", "::1"),
        ("::ffff:127.0.0.1", "::ffff:127.0.0.1"),
        ("fe80::1%eth0", "fe80::1"),
        ("hooks.acme.example", None),
        ("4294967296", None),
        ("1.2.3.4.5", None),
        ("0x7f.1 x", None),
        ("T1JJ3T3L2", None),
    ],
)
def test_ip_literals_in_every_spelling(host, address):
    expected = ipaddress.ip_address(address) if address else None
    assert parse_ip(host) == expected


def test_a_slow_lookup_is_bounded_and_not_refused():
    release = threading.Event()

    def hanging(host, port):
        release.wait(10)
        return ["127.0.0.1"]

    started = time.monotonic()
    try:
        assert host_problem("slow.example", timeout=0.2, resolver=hanging) is None
        assert time.monotonic() - started < 5
    finally:
        release.set()
    blocked = host_problem("fast.example", timeout=5, resolver=lambda h, p: ["10.0.0.1"])
    assert blocked is not None and blocked.overridable and "private" in blocked.reason
    allowed = host_problem(
        "fast.example", allow_private=True, timeout=5, resolver=lambda h, p: ["10.0.0.1"]
    )
    assert allowed is None
