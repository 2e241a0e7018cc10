"""An exact cache of REST GET answers, with ETags and 304s (issue 16).

An entry is keyed by the workspace, its data version (``workspace.data_version``, bumped by
database triggers in every writer's transaction: store/data_version.py), the caller's role,
plan and scopes, and the path with its query string (pairs sorted by name). A write
commits a new version, so the next read builds a new key: nothing is ever invalidated
by hand and a read after a write always sees it, in every process (the version lives in
the database). Entries of old versions simply age out of the LRU.

Runs after authentication, the IP allowlist, the rate limit and the scope/role/plan checks
(web/auth.py), which stay per request; only the route's work and serialization are skipped.
The version is read before the route runs and again before an answer is stored: when a
write committed in between, the answer is sent but neither stored nor tagged.

The ETag is a hash of the key (version included) and the service version, so a matching
``If-None-Match`` is answered 304 without running the route, even after a restart.

Only routes in ``CACHED_ENDPOINTS`` are cached: JSON list and detail reads whose answer is
a function of the workspace's data and the query. Not cached: /api/api-keys (shows
``lastUsedAt``, written behind per request), /api/jobs (``startedAt`` is stamped by claims,
which do not bump the version), battlecard exports, and /api/search (queries rarely repeat;
it keeps exact windows of the texts it searches instead: services/search/window.py).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from operator import attrgetter

from flask import Flask, Response, g, request

from ci_service import __version__
from ci_service.sized_lru import SizedLRU
from ci_service.store.data_version import read_version

CACHED_ENDPOINTS = frozenset(
    {
        "products.list_products",
        "products.get_product",
        "offerings.list_offerings",
        "offerings.get_offering",
        "competitors.list_competitors",
        "competitors.get_competitor",
        "deals.list_deals",
        "deals.get_deal",
        "organizations.get_own_organization",
        "organizations.get_organization",
        "solutions.list_solutions",
        "solutions.get_solution",
        "knowledge-graph.get_knowledge_graph",
        "intel.list_intel",
        "intel.get_intel",
        "knowledge-trees.offering_tree",
        "knowledge-trees.offering_tree_metadata",
        "knowledge-trees.organization_tree",
        "knowledge-trees.organization_tree_metadata",
        "knowledge-trees.get_nodes",
        "knowledge-trees.get_tree",
        "knowledge-trees.tree_nodes",
        "matrix.get_matrix",
        "matrix.get_solution_matrix",
        "battlecards.list_battlecards",
        "battlecards.get_battlecard",
        "events.list_events",
        "subscriptions.list_subscriptions",
        "subscriptions.get_subscription",
        "subscriptions.list_deliveries",
    }
)
ENTRY_OVERHEAD = 300  # bytes per entry besides the body: key, tuple, dict slot


@dataclass(frozen=True)
class Entry:
    body: bytes
    status: int
    content_type: str
    etag: str

    @property
    def size(self) -> int:
        return len(self.body) + ENTRY_OVERHEAD


class ResponseCache(SizedLRU):
    """The answers, least recently used first out, bounded by bytes."""

    def __init__(self, max_bytes: int):
        super().__init__(max_bytes, size=attrgetter("size"))

    def put(self, key: tuple, entry: Entry) -> None:
        if entry.size > self.max_bytes // 4:
            return  # one huge answer must not flush everything else
        super().put(key, entry)


@dataclass
class _Pending:
    key: tuple
    hit: bool = False

    @property
    def etag(self) -> str:
        return _etag(self.key)  # only when sent: a hit sends its entry's


def _query(req) -> tuple:
    if not req.query_string:
        return ()
    # Sorted by name only: the order of one name's repeated values can matter to a route.
    return tuple(sorted(req.args.items(multi=True), key=lambda pair: pair[0]))


def _etag(key: tuple) -> str:
    digest = hashlib.blake2b(repr((__version__, key)).encode(), digest_size=16).hexdigest()
    return f'"{digest}"'


def lookup(cache: ResponseCache):
    """before_request, after web/auth.py's checks: a 304, a cached answer, or None."""
    ctx = g._get_current_object()
    principal = getattr(ctx, "principal", None)
    if principal is None:
        return None
    req = request._get_current_object()
    if req.method != "GET" or req.endpoint not in CACHED_ENDPOINTS:
        return None
    # Read with the key in the same statement (services/identity/auth.py), else now.
    version = getattr(principal, "data_version", None)
    if version is None:
        version = read_version(principal.workspace_id)
    if version is None:
        return None
    key = (
        principal.workspace_id,
        version,
        principal.role,
        principal.plan,
        tuple(sorted(principal.scopes)),
        req.path,
        _query(req),
    )
    pending = ctx.response_cache = _Pending(key)
    # The header parsed only when sent (most clients send none).
    if "HTTP_IF_NONE_MATCH" in req.environ:
        etag = pending.etag
        if req.if_none_match.contains(etag.strip('"')):
            pending.hit = True
            response = Response(status=304)
            response.headers.pop("Content-Type", None)
            response.headers["ETag"] = etag
            return response
    entry = cache.get(key)
    if entry is None:
        return None
    pending.hit = True
    response = Response(entry.body, status=entry.status, content_type=entry.content_type)
    response.headers.add("ETag", entry.etag)
    return response


def store(cache: ResponseCache, response: Response) -> Response:
    """after_request: keep a fresh 200 JSON answer and tag it with its ETag."""
    pending: _Pending | None = getattr(g, "response_cache", None)
    if pending is None or pending.hit:
        return response
    if response.status_code != 200 or response.direct_passthrough or not response.is_json:
        return response
    principal = g.principal
    if read_version(principal.workspace_id) != pending.key[1]:
        return response  # a write committed while this answer was built: not this version
    etag = pending.etag
    cache.put(pending.key, Entry(response.get_data(), 200, response.content_type, etag))
    response.headers["ETag"] = etag
    return response


def install(app: Flask, megabytes: float) -> ResponseCache | None:
    """The cache of up to ``megabytes`` of answers in this process (0: none, no ETags);
    the app's request hooks call ``lookup`` and ``store`` with it (web/app.py)."""
    if megabytes <= 0:
        return None
    cache = app.extensions["ci_response_cache"] = ResponseCache(int(megabytes * 1024 * 1024))
    return cache
