"""The request pipeline for ``/api/*`` (the tool server calls ``authenticate_request`` too).

Every view there declares what it needs with ``@requires(...)``; ``authorize_request``
(called by the app's one before_request hook, web/app.py) runs, in order: key
authentication (401), the key's IP allowlist (403 IP_NOT_ALLOWED), the rate limit (429),
then scope, role and plan (403). A view without a declaration is refused, so
forgetting one fails closed. X-RateLimit-* headers go on every authenticated response.
"""

from __future__ import annotations

from flask import current_app, g, request

from ci_service.errors import PayloadTooLarge, RateLimited, ServiceError, UnsupportedMediaType
from ci_service.services.identity.auth import Access, authenticate, check_access, check_ip
from ci_service.services.identity.oauth_tokens import authenticate_bearer

PUBLIC = object()  # marker: no key needed
PROTECTED_PREFIXES = ("/api/",)


def requires(access: Access, *, upload: bool = False):
    """Declare what a view needs. ``upload``: the view takes multipart form data."""

    def decorate(fn):
        fn.access = access
        fn.accepts_upload = upload
        return fn

    return decorate


def public(fn):
    fn.access = PUBLIC
    return fn


def _has_body() -> bool:
    return bool(request.content_length) or "chunked" in (
        request.headers.get("Transfer-Encoding", "").lower()
    )


def _check_body(view) -> None:
    """Size and media type of a request body, before anything reads it."""
    if request.method not in ("POST", "PUT", "PATCH") or not _has_body():
        return
    settings = current_app.config["CI_SETTINGS"]
    upload = getattr(view, "accepts_upload", False)
    limit = settings.max_upload_bytes if upload else settings.max_json_bytes
    request.max_content_length = limit
    if request.content_length is not None and request.content_length > limit:
        raise PayloadTooLarge(f"Request body exceeds {limit} bytes")
    mimetype = request.mimetype or ""
    if upload:
        if mimetype != "multipart/form-data":
            raise UnsupportedMediaType("Upload a document as multipart/form-data")
    elif not (mimetype == "application/json" or mimetype.endswith("+json")):
        raise UnsupportedMediaType("Send the request body as application/json")


def authorize_request():
    # The request, g and app looked up once each: every use of Flask's proxies is a lookup
    # (a cached read made about 30 of them).
    req, ctx = request._get_current_object(), g._get_current_object()
    ctx.principal = None
    if not req.path.startswith(PROTECTED_PREFIXES) or req.url_rule is None:
        return None  # unknown routes fall through to a 404/405 in the envelope
    view = current_app.view_functions.get(req.endpoint)
    access = getattr(view, "access", None)
    if access is PUBLIC:
        return None
    if not isinstance(access, Access):
        raise ServiceError("Route has no access rule")  # fail closed; a test prevents it
    ctx.principal = authenticate_request(access)
    if req.method in ("POST", "PUT", "PATCH"):
        _check_body(view)
    return None


def bearer_token() -> str | None:
    """The token of an ``Authorization: Bearer ...`` header, if the request has one."""
    scheme, _, value = request.headers.get("Authorization", "").partition(" ")
    return (value.strip() or None) if scheme.lower() == "bearer" else None


def authenticate_request(access: Access, bearer_resource: str | None = None):
    """Key, IP allowlist, rate limit, then scope/role/plan; raises a ServiceError.

    ``bearer_resource``: this route is that OAuth protected resource (the tool server), so
    a bearer token minted for it is accepted as well as a key; ``X-API-Key`` wins when a
    request carries both (issue 17)."""
    req = request._get_current_object()
    raw_key = req.environ.get("HTTP_X_API_KEY")
    token = bearer_token() if bearer_resource is not None and raw_key is None else None
    if token is not None:
        principal = authenticate_bearer(token, bearer_resource)
    else:
        principal = authenticate(raw_key)
    check_ip(principal, req.remote_addr)
    usage = current_app.extensions["ci_usage"]
    decision = usage.hit(principal.key_id, principal.rate_limit)
    g.rate_limit_headers = decision.headers()
    if not decision.allowed:
        retry = decision.retry_after()
        raise RateLimited(
            "Rate limit exceeded for this API key",
            details={"retryAfter": retry},
            headers={"Retry-After": str(retry)},
        )
    check_access(principal, access)
    return principal


def add_rate_limit_headers(response):
    """after_request (web/app.py runs it): the X-RateLimit-* headers of this request's
    decision, added (none of them is set before)."""
    headers = getattr(g, "rate_limit_headers", None)
    if headers:
        response.headers.extend(headers)
    return response


def principal():
    """The authenticated caller of this request."""
    return g.principal
