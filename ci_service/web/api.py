"""flask-smorest glue: a Blueprint whose argument errors are 400s in our envelope, and a
helper that documents error responses on a route."""

from __future__ import annotations

import threading
from copy import deepcopy
from typing import Any

import marshmallow as ma
from flask_smorest import Api as SmorestApi
from flask_smorest import Blueprint as SmorestBlueprint
from webargs.flaskparser import FlaskParser

from ci_service.errors import ValidationFailed
from ci_service.services.common.fields import LoadedBody, schema_instance


def flatten_messages(messages: Any) -> dict[str, list[str]]:
    """webargs messages ``{location: {field: [..]}}`` to ``{field: [..]}``."""
    fields: dict[str, list[str]] = {}

    def add(name: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                add(f"{name}.{key}" if name else str(key), inner)
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            fields.setdefault(name or "body", []).extend(value)
        elif isinstance(value, list):
            for item in value:
                add(name, item)
        else:
            fields.setdefault(name or "body", []).append(str(value))

    if isinstance(messages, dict):
        for location_messages in messages.values():
            if isinstance(location_messages, dict):
                for field, value in location_messages.items():
                    add(str(field), value)
            else:
                add("body", location_messages)
    else:
        add("body", messages)
    return fields


def validation_error(fields: dict[str, list[str]]) -> ValidationFailed:
    message = "Invalid request: " + ", ".join(f"{k} ({'; '.join(v)})" for k, v in fields.items())
    return ValidationFailed(message[:500], {"fields": fields})


class Parser(FlaskParser):
    DEFAULT_VALIDATION_STATUS = 400

    def handle_error(self, error, req, schema, *, error_status_code, error_headers):
        raise validation_error(flatten_messages(error.messages))

    def parse(self, argmap, req=None, *, location=None, **kwargs):
        """webargs' parse; a JSON body loaded with a schema comes back marked as such, so
        the service the route calls does not load it again (``LoadedBody``)."""
        data = super().parse(argmap, req, location=location, **kwargs)
        if type(data) is dict and isinstance(argmap, ma.Schema) and location in (None, "json"):
            data = LoadedBody(data)
            data.schema = argmap
        return data

    def _handle_invalid_json_error(self, error, req, *args, **kwargs):
        raise ValidationFailed("Malformed JSON body", {"fields": {"body": ["invalid JSON"]}})


class Blueprint(SmorestBlueprint):
    ARGUMENTS_PARSER = Parser()

    def arguments(self, schema, *args, **kwargs):
        """flask-smorest's ``arguments``, given a shared instance of a schema class:
        webargs would make a new one on every request (services/common/fields.py says why not)."""
        if isinstance(schema, type):
            schema = schema_instance(schema)
        return super().arguments(schema, *args, **kwargs)

    def errors(self, *statuses: int):
        """Document the error responses a route can give (all share the envelope).

        Written into the route's ``_apidoc`` as ``alt_response(status, response=...)``
        would write them, without its wrapper: each wrapper is a call, a lookup of
        ``current_app`` and a coroutine check on every request (six of them on
        ``POST /api/deals``; issue 31), and a deep copy of the route's doc at start-up."""

        def decorate(fn):
            doc = deepcopy(getattr(fn, "_apidoc", {}))
            responses = doc.setdefault("response", {}).setdefault("responses", {})
            for status in statuses:
                responses.setdefault(status, []).append(f"ERROR_{status}")
            fn._apidoc = doc
            return fn

        return decorate

    def _store_endpoint_docs(self, endpoint, obj, parameters, tags, **options):
        # flask-smorest deep-copies a route's doc as the route is declared, on import: 79
        # routes, about 50 ms of serve's start-up. Kept as given until documenting
        # (``Api.spec``), then stored as flask-smorest would have, in the same order.
        self.__dict__.setdefault("_undocumented", []).append(
            (endpoint, obj, parameters, tags, options)
        )

    def _store_pending_docs(self) -> None:
        pending = self.__dict__.pop("_undocumented", [])
        for endpoint, obj, parameters, tags, options in pending:
            super()._store_endpoint_docs(endpoint, obj, parameters, tags, **options)

    def register_views_in_doc(self, api, app, spec, *, name, parameters):
        self._store_pending_docs()
        return super().register_views_in_doc(api, app, spec, name=name, parameters=parameters)

    def register_blueprint(self, blueprint, **options):
        if isinstance(blueprint, Blueprint):  # flask-smorest copies a nested one's docs now
            blueprint._store_pending_docs()
        return super().register_blueprint(blueprint, **options)


class Schema(ma.Schema):
    """Base for request schemas: unknown fields are ignored, not rejected."""

    class Meta:
        unknown = ma.EXCLUDE


class ErrorBodySchema(ma.Schema):
    code = ma.fields.String(required=True)
    message = ma.fields.String(required=True)
    details = ma.fields.Dict()
    requiredPlan = ma.fields.String()
    currentPlan = ma.fields.String()
    limit = ma.fields.Integer()
    currentCount = ma.fields.Integer()


class ErrorSchema(ma.Schema):
    error = ma.fields.Nested(ErrorBodySchema, required=True)


class SuccessSchema(ma.Schema):
    success = ma.fields.Boolean(required=True)


ERROR_STATUSES = {
    400: "Invalid request",
    401: "Missing or invalid API key",
    403: "Insufficient scope, role or plan",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict with the resource's current state",
    413: "Request body too large",
    415: "Unsupported media type",
    429: "Rate limit exceeded",
    431: "Request line and headers too large (a very long query string)",
    500: "Internal error",
}


class Api(SmorestApi):
    """flask-smorest's Api whose OpenAPI document is written when first read (issue 31).

    Registering a blueprint routes its views at once but leaves its part of the document
    (the views' schemas converted to JSON schema: about a fifth of ``serve``'s start-up)
    until something reads ``spec``: ``/openapi.json``, ``/docs``, a test. The blueprints
    are then documented in the order they were registered, so the document is the same."""

    ERROR_SCHEMA = ErrorSchema
    # No catch-all "default" response: each route lists the statuses it can answer, so a
    # status nobody documented fails the fuzzer's status code check.
    DEFAULT_ERROR_RESPONSE_NAME = None

    @property
    def spec(self):
        self._document_pending()
        return self._spec

    @spec.setter
    def spec(self, value) -> None:
        self._spec = value

    def register_blueprint(self, blp, *, parameters=None, **options):
        # flask-smorest's own, with the documentation step left for ``spec`` to run.
        name = options.get("name", blp.name)
        self._app.extensions["flask-smorest"]["blp_name_to_api"][name] = self
        self._app.register_blueprint(blp, **options)
        if "_pending_docs" not in self.__dict__:
            self._pending_docs: list = []
            self._docs_lock = threading.RLock()
            self._documenting = False
        self._pending_docs.append((blp, name, parameters))

    def _document_pending(self) -> None:
        if not self.__dict__.get("_pending_docs"):
            return
        with self._docs_lock:
            if self._documenting:
                return  # the documenting below reads ``spec`` itself
            self._documenting = True
            try:
                while self._pending_docs:
                    blp, name, parameters = self._pending_docs[0]
                    blp.register_views_in_doc(
                        self, self._app, self._spec, name=name, parameters=parameters
                    )
                    self._spec.tag({"name": name, "description": blp.description})
                    self._pending_docs.pop(0)
            finally:
                self._documenting = False

    def _register_responses(self):
        super()._register_responses()
        for status, description in ERROR_STATUSES.items():
            self._spec.components.response(
                f"ERROR_{status}",
                {"description": description, "content": {"application/json": {"schema": "Error"}}},
            )

    def handle_http_exception(self, error):
        # Replace flask-smorest's payload with the service envelope.
        from ci_service.web.errors import http_exception_response

        return http_exception_response(error)
