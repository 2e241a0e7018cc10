"""How ``serve`` sits behind a reverse proxy (issue 25): which peer's ``X-Forwarded-*``
headers waitress believes, and the public address every absolute link and the OAuth issuer
name (``Settings.base_url``); and what waitress's busy-server warning says in the log."""

from __future__ import annotations

import ipaddress
import logging
import os
import threading
import time
from collections.abc import Callable

from flask import Flask
from waitress.task import ThreadedTaskDispatcher

from ci_service.settings import Settings

log = logging.getLogger("ci_service")

FORWARDED_HEADERS = frozenset(
    {"x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-port"}
)


def proxy_options(settings: Settings) -> dict:
    """waitress's options for a trusted reverse proxy. From that peer only, the client's
    address (X-Forwarded-For: ``allowedIps`` and per-address limits see the real client),
    scheme, host and port are believed; from any other peer those headers are dropped."""
    if not settings.trusted_proxy:
        return {}
    return {
        "trusted_proxy": settings.trusted_proxy,
        "trusted_proxy_count": settings.trusted_proxy_count,
        "trusted_proxy_headers": set(FORWARDED_HEADERS),
        "clear_untrusted_proxy_headers": True,
    }


def own_address(host: str, port: int) -> str:
    """``http://host:port`` of a listening socket, as a browser on this machine reaches it."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return f"http://{host}:{port}"  # a host name
    if address.is_unspecified:  # 0.0.0.0 or ::: no one address names the server
        log.warning(
            "serving on every address without a public URL: OAuth, invites and alert links "
            "name http://127.0.0.1:%s; set --public-url (CI_SERVICE_PUBLIC_URL)",
            port,
        )
        return f"http://127.0.0.1:{port}"
    return f"http://[{host}]:{port}" if address.version == 6 else f"http://{host}:{port}"


def publish_address(app: Flask, settings: Settings, host: str, port: int) -> Settings:
    """The settings with ``public_url`` decided (as configured, else this server's own
    address), given to the app and published to the process's environment: the parts that
    read the settings themselves (jobs, alert links) then name the same address."""
    if settings.public_url:
        if settings.trusted_proxy and not settings.public_is_https:
            log.warning("a trusted proxy is set but the public URL is not https://")
    else:
        if settings.trusted_proxy:
            log.warning("a trusted proxy is set without a public URL (--public-url)")
        settings = settings.with_overrides(public_url=own_address(host, port))
    os.environ["CI_SERVICE_PUBLIC_URL"] = settings.base_url
    app.config["CI_SETTINGS"] = settings
    return settings


class HandOverDispatcher(ThreadedTaskDispatcher):
    """waitress's task dispatcher, whose loop thread lets go of the GIL right after it
    queues a request, so the worker thread it has just woken starts on it at once instead
    of waiting until the loop thread blocks in ``select``. Issue 31: with 4 threads and 8
    connections, ``GET /api/competitors`` served 1.2x the requests at 0.8x the CPU each
    (alternating rounds side by side). Until then a log line did the same by accident: the
    "Task queue depth" warning, written on every queued request, let go of the GIL in its
    ``write``; without it (``QueueDepthSummary``) the same reads ran at 0.78x."""

    def add_task(self, task) -> None:
        super().add_task(task)
        time.sleep(0)  # releases the GIL; the woken worker takes it


def task_dispatcher(threads: int) -> HandOverDispatcher:
    """The dispatcher ``serve`` gives waitress (``create_server(_dispatcher=...)``, which
    then leaves the thread count to us); its queue warnings go through the summary."""
    dispatcher = HandOverDispatcher()
    dispatcher.queue_logger = QueueWarnings(
        logging.getLogger("waitress.queue"), summarize_queue_warnings()
    )
    dispatcher.set_thread_count(threads)
    return dispatcher


class QueueDepthSummary(logging.Filter):
    """On ``waitress.queue``: its "Task queue depth is N" warning, at most once per
    ``interval`` seconds. waitress warns on every request that finds all its threads busy,
    so under steady load the log had a line per request (at 250 deals a second, 900,000
    lines an hour) and drowned everything else. The signal stays: the first warning
    passes, and the next one due says how many were folded into it and the deepest queue
    seen meanwhile."""

    def __init__(self, interval: float = 60.0, clock: Callable[[], float] = time.monotonic):
        super().__init__()
        self.interval = interval
        self._clock = clock
        self._lock = threading.Lock()
        self._next = None  # monotonic time the next warning may pass; None: now
        self._folded = 0
        self._deepest = 0

    def admit(self, depth: int) -> tuple[int, int] | None:
        """None: fold this warning into the next one; else (warnings folded since the last
        one that passed, the deepest queue among them and this one) to say with it."""
        with self._lock:
            now = self._clock()
            if self._next is not None and now < self._next:
                self._folded += 1
                self._deepest = max(self._deepest, depth)
                return None
            folded, deepest = self._folded, max(self._deepest, depth)
            self._folded = self._deepest = 0
            self._next = now + self.interval
        return folded, deepest

    def summary(self, depth: int, folded: int, deepest: int) -> tuple[str, tuple]:
        """The message and arguments of a warning that passes with ``folded`` before it."""
        if not folded:
            return QUEUE_MESSAGE, (depth,)
        noun = "warning" if folded == 1 else "warnings"
        return SUMMARY_MESSAGE, (depth, folded, noun, self.interval, deepest)

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "queue_summarized", False):
            return True  # QueueWarnings decided already
        depth = queue_depth(record.args if isinstance(record.args, tuple) else ())
        if depth is None:
            return True  # not the queue warning: waitress may log more here one day
        admitted = self.admit(depth)
        if admitted is None:
            return False
        if admitted[0]:
            record.msg, record.args = self.summary(depth, *admitted)
        return True


QUEUE_MESSAGE = "Task queue depth is %d"


def queue_depth(args: tuple) -> int | None:
    """The depth of waitress's "Task queue depth is %d" warning from its arguments; None
    for anything else logged on its queue logger."""
    return args[0] if len(args) == 1 and isinstance(args[0], int) else None


SUMMARY_MESSAGE = (
    "Task queue depth is %d; %d more such %s in the last %.0f s, the deepest %d "
    "(every thread was busy: see serve --threads)"
)


class QueueWarnings:
    """What serve's dispatcher logs its queue depth through (its ``queue_logger``): the
    summary's decision first, so a warning it folds costs no log record. Under load that
    was every request: making and filtering the record took about 2% of serve's CPU."""

    def __init__(self, logger: logging.Logger, summary: QueueDepthSummary) -> None:
        self.logger = logger
        self.summary = summary

    def warning(self, msg: str, *args) -> None:
        depth = queue_depth(args)
        if depth is None:
            self.logger.warning(msg, *args)
            return
        admitted = self.summary.admit(depth)
        if admitted is not None:
            msg, args = self.summary.summary(depth, *admitted)
            self.logger.warning(msg, *args, extra={"queue_summarized": True})

    def __getattr__(self, name: str):
        return getattr(self.logger, name)


def summarize_queue_warnings(interval: float = 60.0) -> QueueDepthSummary:
    """Install :class:`QueueDepthSummary` on waitress's queue logger (once)."""
    logger = logging.getLogger("waitress.queue")
    for existing in logger.filters:
        if isinstance(existing, QueueDepthSummary):
            return existing
    summary = QueueDepthSummary(interval)
    logger.addFilter(summary)
    return summary
