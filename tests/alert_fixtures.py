"""Fixtures shared by the alert tests (``pytest_plugins = ["tests.alert_fixtures"]``): a
movable clock, loopback receivers allowed, and a local SMTP server that keeps what it gets.
"""

from __future__ import annotations

import email
import email.policy
import socket
from datetime import timedelta

import pytest

from ci_service.timeutil import utcnow


class Clock:
    """Real time plus an offset that tests move forward."""

    def __init__(self):
        self.offset = timedelta(0)

    @property
    def now(self):
        return utcnow() + self.offset

    def __call__(self):
        return self.now

    def advance(self, **delta):
        self.offset += timedelta(**delta)


@pytest.fixture
def private_ok(monkeypatch):
    """The receivers are on loopback: alert targets may be private (the delivery job reads
    the environment, as a worker does)."""
    monkeypatch.setenv("CI_SERVICE_ALERTS_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.setenv("CI_SERVICE_PUBLIC_URL", "https://ci.example.com")


@pytest.fixture
def clock():
    return Clock()


class Mailbox:
    def __init__(self):
        self.messages = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(
            email.message_from_bytes(envelope.content, policy=email.policy.default)
        )
        return "250 OK"


@pytest.fixture
def smtp():
    from aiosmtpd.controller import Controller

    box = Mailbox()
    with socket.socket() as probe:  # a free port (the controller checks it by connecting)
        probe.bind(("127.0.0.1", 0))
        box.port = probe.getsockname()[1]
    controller = Controller(box, hostname="127.0.0.1", port=box.port)
    controller.start()
    yield box
    controller.stop()
