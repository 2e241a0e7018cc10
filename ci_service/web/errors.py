"""One error body for REST: ``{"error": {"code", "message", "details"?}}``."""

from __future__ import annotations

import json
import logging

from flask import Flask, Response, g, jsonify, request
from werkzeug.exceptions import HTTPException

from ci_service.errors import ServiceError, ServiceUnavailable
from ci_service.store.connection_health import LOST
from ci_service.store.db import connection_lost, outage
from ci_service.web import outages

log = logging.getLogger("ci_service.web")

HTTP_CODES = {
    400: "VALIDATION_ERROR",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    413: "PAYLOAD_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    429: "RATE_LIMITED",
    431: "REQUEST_HEADER_FIELDS_TOO_LARGE",
}
HTTP_MESSAGES = {
    400: "Invalid request",
    404: "Not found",
    405: "Method not allowed",
    413: "Request body too large",
    415: "Unsupported media type",
}


def error_response(status: int, body: dict, headers: dict | None = None):
    response = jsonify({"error": body})
    response.status_code = status
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


# Paths that always answer JSON, whatever a client accepts.
MACHINE_PATHS = ("/api/", "/mcp", "/openapi.json", "/docs", "/healthz", "/.well-known/")


def wants_html() -> bool:
    """A page request, or a browser asking for a path no machine route owns: an HTML page."""
    try:
        if request.blueprint == "pages":
            return True
        if request.path.startswith(MACHINE_PATHS):
            return False
        best = request.accept_mimetypes.best_match(["application/json", "text/html"])
        return best == "text/html" and request.accept_mimetypes["text/html"] > 0
    except RuntimeError:  # outside a request
        return False


def _html_error(error: BaseException, status: int):
    from ci_service.web.pages.context import render_error

    return render_error(error, status)


def service_error_response(error: ServiceError):
    if wants_html():
        return _html_error(error, error.status)
    return error_response(error.status, error.to_dict(), error.headers)


def http_exception_response(error: HTTPException):
    status = error.code or 500
    if status >= 500:
        return internal_error_response(error)
    if wants_html():
        return _html_error(error, status)
    code = HTTP_CODES.get(status, "HTTP_ERROR")
    message = HTTP_MESSAGES.get(status) or error.name
    headers = {}
    valid_methods = getattr(error, "valid_methods", None)
    if status == 405 and valid_methods:
        headers["Allow"] = ", ".join(valid_methods)
    return error_response(status, {"code": code, "message": message}, headers)


def database_outage_response(error: BaseException):
    """The answer when ``error`` means the database went away (web/outages.py says which
    request gets what), else None."""
    kind = outage(error)
    if kind is None:
        return None
    what = f"{request.method} {request.path} (request {getattr(g, 'request_id', None)})"
    if kind == LOST:
        connection_lost()  # broken: the next statement opens a new one
        if outages.ask_retry():
            log.warning("database connection lost in %s; running it again: %s", what, error)
            return Response(status=503)  # dropped: the second run answers
    committed = outages.committed()
    log.warning("database unavailable (%s) in %s: %s", kind, what, error)
    if committed:
        message = "The database became unavailable after this request's changes were saved"
    else:
        message = "The database is unavailable for a moment; try again shortly"
    unavailable = ServiceUnavailable(
        message, details={"committed": committed}, headers={"Retry-After": "1"}
    )
    return service_error_response(unavailable)


def internal_error_response(error: BaseException):
    request_id = getattr(g, "request_id", None)
    original = getattr(error, "original_exception", None) or error
    answer = database_outage_response(original)
    if answer is not None:
        return answer
    log.error(
        "unhandled error request_id=%s %s %s",
        request_id,
        request.method,
        request.path,
        exc_info=(type(original), original, original.__traceback__),
    )
    if wants_html():
        return _html_error(error, 500)
    body = {"code": "INTERNAL_ERROR", "message": "Internal server error"}
    if request_id:
        body["details"] = {"requestId": request_id}
    return error_response(500, body)


def register_error_handlers(app: Flask) -> None:
    app.register_error_handler(ServiceError, service_error_response)
    app.register_error_handler(HTTPException, http_exception_response)
    app.register_error_handler(Exception, internal_error_response)
    use_envelope_for_server_errors()


def _server_error_response(self, ident=None):
    """waitress's ``Error.to_response``, answering in the envelope instead of text/plain."""
    code = HTTP_CODES.get(self.code) or ("INTERNAL_ERROR" if self.code >= 500 else "HTTP_ERROR")
    error = {"code": code, "message": self.reason}
    if self.body:
        error["details"] = {"reason": str(self.body)}
    body = json.dumps({"error": error}).encode("utf-8")
    return f"{self.code} {self.reason}", [("Content-Type", "application/json")], body


def use_envelope_for_server_errors() -> None:
    """waitress answers requests it cannot parse (an oversized header section: 431, a
    malformed request line or chunked body: 400, ...) itself, before the app runs, with a
    text/plain body. Give those the JSON error envelope too. Idempotent."""
    try:
        from waitress import utilities
    except ImportError:  # pragma: no cover - waitress is a dependency
        return
    utilities.Error.to_response = _server_error_response
