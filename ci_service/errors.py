"""The service's exception hierarchy.

Services raise these; the REST layer turns them into ``{"error": {...}}`` bodies with the
status named on each class, and the tool server into JSON-RPC errors. Nothing else decides
what an error looks like.
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """Base class. Becomes HTTP ``status`` with error ``code``."""

    status = 500
    code = "INTERNAL_ERROR"

    def __init__(
        self,
        message: str,
        details: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ):
        super().__init__(message)
        self.message = message
        self.details = details
        self.headers = headers or {}
        self.extra = extra  # extra top-level fields inside "error" (e.g. requiredPlan)

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details is not None:
            body["details"] = self.details
        body.update(self.extra)
        return body


class ValidationFailed(ServiceError):
    """400 VALIDATION_ERROR. ``details`` is ``{"fields": {name: [messages]}}``."""

    status = 400
    code = "VALIDATION_ERROR"

    @classmethod
    def field(cls, name: str, message: str) -> ValidationFailed:
        return cls(f"Invalid value for '{name}': {message}", {"fields": {name: [message]}})


class Unauthorized(ServiceError):
    """401 UNAUTHORIZED: missing, malformed, unknown, revoked or expired key."""

    status = 401
    code = "UNAUTHORIZED"


class Forbidden(ServiceError):
    """403 FORBIDDEN: the key's role is too low."""

    status = 403
    code = "FORBIDDEN"


class InsufficientScope(ServiceError):
    """403 INSUFFICIENT_SCOPE: the key lacks the scope the operation needs."""

    status = 403
    code = "INSUFFICIENT_SCOPE"


class IpNotAllowed(ServiceError):
    """403 IP_NOT_ALLOWED: request from outside the key's allowedIps."""

    status = 403
    code = "IP_NOT_ALLOWED"


class UpgradeRequired(ServiceError):
    """403 UPGRADE_REQUIRED; carries ``requiredPlan`` (and limit fields) inside ``error``."""

    status = 403
    code = "UPGRADE_REQUIRED"


class NotFound(ServiceError):
    """404 NOT_FOUND. Another workspace's resource is reported exactly like a missing one."""

    status = 404
    code = "NOT_FOUND"

    @classmethod
    def of(cls, kind: str) -> NotFound:
        return cls(f"{kind} not found")


class MethodNotAllowed(ServiceError):
    """405 METHOD_NOT_ALLOWED."""

    status = 405
    code = "METHOD_NOT_ALLOWED"


class Conflict(ServiceError):
    """409 CONFLICT: the request does not fit the resource's state now (retrying a
    delivery that was delivered, say); the message says what would."""

    status = 409
    code = "CONFLICT"


class PayloadTooLarge(ServiceError):
    """413 PAYLOAD_TOO_LARGE."""

    status = 413
    code = "PAYLOAD_TOO_LARGE"


class UnsupportedMediaType(ServiceError):
    """415 UNSUPPORTED_MEDIA_TYPE."""

    status = 415
    code = "UNSUPPORTED_MEDIA_TYPE"


class RateLimited(ServiceError):
    """429 RATE_LIMITED with ``details.retryAfter`` seconds and a Retry-After header."""

    status = 429
    code = "RATE_LIMITED"


class ServiceUnavailable(ServiceError):
    """503 SERVICE_UNAVAILABLE with a Retry-After header: the database could not be reached,
    or stayed locked, for this request; the same request may succeed a moment later."""

    status = 503
    code = "SERVICE_UNAVAILABLE"
