"""Requests while the database goes away (issue 25: after a PostgreSQL restart ``serve``
answered 500 to everything until it was restarted itself).

Before each request the thread's connection is checked without a round trip and replaced
if the server has closed it (``store.db.open_checked``), so the requests after a restart
simply run. A request that meets the loss anyway (the server went away after that check,
while the request was running) is answered by ``web/errors.py`` as follows:

- a GET or HEAD without a body that has committed nothing yet runs once more, from the
  start, on a new connection (``RetryReads``); its rate-limit count is kept from the first
  run, not counted twice (``begin_request``);
- anything else gets 503 SERVICE_UNAVAILABLE with ``Retry-After: 1`` in the error envelope:
  a write (never re-run here: it may have done things outside the database), a read that
  had committed something, or a read whose second run failed too. ``details.committed``
  says whether this request had committed a transaction before the loss.
- On SQLite a connection does not break, but another process may hold the file's write
  lock past the busy timeout: that write gets the same 503 (no re-run: it already waited).
"""

from __future__ import annotations

from flask import g, request

from ci_service.store.db import commit_count, open_checked

IDEMPOTENT = frozenset({"GET", "HEAD"})
MAY_RETRY = "ci.may_retry"  # environ: RetryReads will run this request again if asked
RETRY = "ci.retry"  # environ: the error handler asks for that
COUNTED = "ci.rate_counted"  # environ: rate-limit decisions of this request, by key
REQUEST_ID = "ci.request_id"  # environ: kept for the second run, for the logs


def _has_body(environ: dict) -> bool:
    length = environ.get("CONTENT_LENGTH") or "0"
    chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
    return length != "0" or chunked


def _no_write(data: bytes) -> None:
    raise RuntimeError("RetryReads does not support the WSGI write() callable")


class RetryReads:
    """WSGI middleware: runs a GET/HEAD again when the app asks (``environ[RETRY]``) after
    losing its database connection. The first run's answer is held back (Flask calls
    ``start_response`` before returning its body) and dropped; the second run answers."""

    def __init__(self, wsgi_app):
        self.wsgi_app = wsgi_app

    def __call__(self, environ, start_response):
        if environ.get("REQUEST_METHOD") not in IDEMPOTENT or _has_body(environ):
            return self.wsgi_app(environ, start_response)
        pristine = dict(environ)
        environ[MAY_RETRY] = True
        held: list = []

        def hold(status, headers, exc_info=None):
            held[:] = [status, headers]
            return _no_write

        body = self.wsgi_app(environ, hold)
        if not environ.get(RETRY):
            start_response(*held)
            return body
        close = getattr(body, "close", None)
        if close is not None:
            close()
        carried = {name: environ[name] for name in (COUNTED, REQUEST_ID) if name in environ}
        return self.wsgi_app({**pristine, **carried}, start_response)


def request_id(new_id) -> str:
    """This request's id (the first run's, for a second run)."""
    environ = request.environ
    found = environ.get(REQUEST_ID)
    if found is None:
        found = environ[REQUEST_ID] = new_id()
    return found


def begin_request(usage) -> None:
    """before_request: note the commits so far, have the rate limit count this request once
    however often it runs, and check (or open) the thread's connection."""
    g.commits_at_start = commit_count()
    environ = request.environ
    counted = environ.get(COUNTED)
    if counted is None:
        counted = environ[COUNTED] = {}
    usage.begin_request(counted)
    open_checked()


def end_request(usage) -> None:
    usage.end_request()


def committed() -> bool:
    """Whether this request has committed a transaction."""
    return commit_count() != g.get("commits_at_start", commit_count())


def ask_retry() -> bool:
    """Ask ``RetryReads`` to run this request again; False when it may not (not a plain
    read, already the second run, or something was committed)."""
    environ = request.environ
    if not environ.get(MAY_RETRY) or committed():
        return False
    environ[RETRY] = True
    return True
