"""Apprise, loaded once and kept quiet while it parses a URL we validate.

Apprise logs a URL it cannot parse in full (tokens included), and loads every plugin on
first use (one imports the deprecated ``imghdr``): ``services.alerts.subscriptions`` validates
targets through here.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import threading
import warnings
from typing import Any

_quiet = contextvars.ContextVar("subscriptions_quiet_apprise", default=False)


class _QuietFilter(logging.Filter):
    """Apprise logs a URL it cannot parse in full (tokens included): drop those records
    while we validate (a context variable, so other threads still log)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not _quiet.get()


_apprise_logger = logging.getLogger("apprise")
_apprise_logger.addFilter(_QuietFilter())


@contextlib.contextmanager
def quiet_apprise():
    """Drop Apprise's log records in this context (other threads still log)."""
    token = _quiet.set(True)
    try:
        yield
    finally:
        _quiet.reset(token)


_load_lock = threading.Lock()
_loaded: list[Any] = []


def load_apprise():
    """The ``apprise`` module with its plugins loaded. Apprise loads every plugin on first
    use, and one of them imports the deprecated ``imghdr``: load them once, here, with that
    warning silenced (tests turn warnings into errors)."""
    with _load_lock:
        if not _loaded:
            with warnings.catch_warnings(), quiet_apprise():
                warnings.simplefilter("ignore", DeprecationWarning)
                import apprise

                apprise.Apprise().add("json://localhost")
            _loaded.append(apprise)
        return _loaded[0]


def apprise_accepts(url: str) -> bool:
    """True when Apprise parses ``url`` into one of its notification services."""
    apprise = load_apprise()
    with quiet_apprise():
        try:
            return bool(apprise.Apprise().add(url))
        except Exception:  # a hostile URL must not raise out of validation
            return False


__all__ = ["apprise_accepts", "load_apprise", "quiet_apprise"]
