"""Crash safety of delivery: a real ``ci-service serve`` is SIGKILLed after an event is
committed and while its webhook is in flight; after a restart the delivery happens.

The event comes from an ordinary API action (recording a deal emits ``deal.recorded``); the
receiver holds the first request open, so the kill lands between the commit and the
recorded send. At restart the orphaned job is failed "Interrupted" and the scheduler's
delivery scan queues a new one, which sends the still-pending delivery (same webhook-id:
receivers deduplicate by it).
"""

from __future__ import annotations

import threading

import httpx
from cryptography.fernet import Fernet

from ci_service.services.identity import api_keys as apikeys
from ci_service.services.workspace.workspaces import create_workspace
from ci_service.store.alerts import Delivery, Subscription
from ci_service.store.db import connection, open_database
from ci_service.store.jobs import Job
from ci_service.store.secrets_box import encrypt
from tests.live import LiveServer
from tests.test_delivery import Receiver, new_secret
from tests.waiting import wait_for


def test_sigkill_between_event_and_delivery_then_restart_delivers(
    tmp_path, monkeypatch, make_database_url, backend
):
    key = Fernet.generate_key().decode()
    env = {"CI_SERVICE_ALERTS_ALLOW_PRIVATE_URLS": "1", "CI_SERVICE_SECRET_KEY": key}
    # One attempt per job: the killed server's job fails and the delivery scan's new job
    # sends (a retried job would send too, after its back-off; tests/test_jobs_retry*.py).
    env["CI_SERVICE_JOB_MAX_ATTEMPTS"] = "1"
    if backend == "postgresql":
        # Other processes may be alive: the killed server's job is failed once its lease
        # ends (not at the next start), then the next delivery scan sends.
        env["CI_SERVICE_JOB_LEASE_SECONDS"] = "2"
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    database = make_database_url(name="live.db")
    secret = new_secret()
    hold = threading.Event()
    with Receiver(secret, hold=hold) as receiver:
        open_database(database)
        with connection():
            workspace = create_workspace("alerts", "ENTERPRISE")
            user = apikeys.ensure_user(workspace, None, "OWNER")
            _, api_key = apikeys.create_key(user, name="live")
            sub = Subscription.create(
                workspace=workspace,
                name="hook",
                channel="webhook",
                event_types=["deal.recorded"],
                target_encrypted=encrypt(receiver.url + "/hook"),
                secret_encrypted=encrypt(secret),
            )
        first = LiveServer(database, "--no-scheduler", "--job-workers", "1", env=env).start()
        try:
            answer = httpx.post(
                first.url + "/api/deals",
                headers={"X-API-Key": api_key},
                json={
                    "prospectCompanyName": "Globex",
                    "outcome": "WON",
                    "decisionDate": "2026-03-31",
                    "arguments": ["faster onboarding"],
                },
                timeout=30,
            )
            assert answer.status_code == 200, answer.text
            assert receiver.arrived.wait(30), "the webhook was never sent"
            first.kill()  # the send is in flight: not recorded
        finally:
            first.kill()
        hold.set()
        with connection():
            [row] = list(Delivery.select().where(Delivery.subscription == sub.id))
        assert (row.status, row.attempts) == ("pending", 0)
        assert receiver.requests[0]["id"] == row.message_id

        with LiveServer(database, "--job-workers", "1", env=env):

            def delivered():
                with connection():
                    return Delivery.get_by_id(row.id).status == "delivered"

            # PostgreSQL: up to one delivery scan period (30 s) after the lease ends.
            wait_for(delivered, timeout=30 if backend == "sqlite" else 75)
            # Read while the server still runs: stopping it interrupts whatever delivery
            # scan it is running at that moment, which is not the killed server's job.
            with connection():
                interrupted = list(
                    Job.select().where(Job.type == "deliver-notifications", Job.status == "failed")
                )
    with connection():
        done = Delivery.get_by_id(row.id)
    assert (done.attempts, done.last_status) == (1, 200)
    assert [j.current_step for j in interrupted] == ["Interrupted"]
    assert {r["id"] for r in receiver.requests} == {row.message_id}
    assert len(receiver.requests) == 2  # at least once: the cut-off send and the resend
    assert all(r["verified"] for r in receiver.requests)
