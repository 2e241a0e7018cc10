"""The tool registry: name, description, JSON Schema for arguments, access rule, handler.

Handlers receive a ``ToolContext`` and the validated arguments and call service functions;
they never implement a rule of their own. Argument problems become ``InvalidArguments``
naming the argument, which the protocol layer turns into -32602 (or an ``isError`` result
inside ``tools/call``).

This module imports no tool: ``catalog`` registers the service-backed tools with ``tool``
and answers ``get_tool``/``list_tools``, so the arrow runs one way (catalog -> tools).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ci_service.errors import ValidationFailed
from ci_service.services.identity.auth import READ, Access, Principal, check_access

# What every transport checks before any tool: the tool server is an Enterprise feature.
TOOL_SERVER = Access(
    plan="ENTERPRISE", plan_message="The tool server is only available for Enterprise customers"
)


class InvalidArguments(ValidationFailed):
    """Arguments that do not match a tool's input schema (JSON-RPC -32602)."""


@dataclass
class ToolContext:
    principal: Principal
    settings: Any
    extras: dict[str, Any] = field(default_factory=dict)  # e.g. the job runner to nudge

    @property
    def workspace_id(self) -> str:
        return self.principal.workspace_id


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    input_schema: dict[str, Any]
    handler: Callable[[ToolContext, dict[str, Any]], Any]
    access: Access = READ
    # structuredContent must be an object: list results are wrapped under this key.
    result_key: str = "result"

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
        }

    def validate(self, arguments: Any) -> dict[str, Any]:
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise InvalidArguments(
                "Arguments must be an object", {"arguments": ["must be an object"]}
            )
        # Imported here, not at module level: jsonschema costs ~50 ms of serve's start-up
        # (cli._warm_up_imports loads it once serving).
        from jsonschema import Draft202012Validator

        errors = sorted(
            Draft202012Validator(self.input_schema).iter_errors(arguments),
            key=lambda e: list(e.absolute_path),
        )
        if not errors:
            return arguments
        details: dict[str, list[str]] = {}
        for error in errors:
            name = ".".join(str(p) for p in error.absolute_path)
            if error.validator == "required":
                name = error.message.split("'")[1]
                message = "is required"
            elif error.validator == "additionalProperties":
                extra = sorted(set(arguments) - set(self.input_schema.get("properties", {})))
                for argument in extra:
                    details.setdefault(argument, []).append("is not an argument of this tool")
                continue
            else:
                message = error.message
            details.setdefault(name or "arguments", []).append(message)
        summary = "; ".join(f"{k}: {', '.join(v)}" for k, v in details.items())
        raise InvalidArguments(f"Invalid arguments for {self.name}: {summary}", details)

    def call(self, context: ToolContext, arguments: Any) -> Any:
        check_access(context.principal, self.access)
        return self.handler(context, self.validate(arguments))


TOOLS: dict[str, Tool] = {}


def tool(
    name: str,
    description: str,
    *,
    properties: dict[str, Any] | None = None,
    required: tuple[str, ...] = (),
    access: Access = READ,
    result_key: str = "result",
):
    """Register the decorated handler as tool ``name``."""

    def register(handler):
        schema: dict[str, Any] = {
            "type": "object",
            "properties": properties or {},
            "additionalProperties": False,
        }
        if required:
            schema["required"] = list(required)
        TOOLS[name] = Tool(name, description, schema, handler, access, result_key)
        return handler

    return register
