"""Query helpers shared by the matrix, battlecard and search blueprints."""

from __future__ import annotations

import marshmallow as ma

from ci_service.web.routes.resource_common import Citations

_TRUE = {"true", "True", "TRUE", "1"}
_FALSE = {"false", "False", "FALSE", "0"}


def Flag(**kwargs) -> ma.fields.Boolean:  # noqa: N802 - reads like a field class
    """A query boolean: true/1 or false/0 (anything else is a 400), default false."""
    return ma.fields.Boolean(truthy=_TRUE, falsy=_FALSE, load_default=False, **kwargs)


def IdList(**kwargs) -> ma.fields.String:  # noqa: N802
    return ma.fields.String(
        validate=ma.validate.Length(max=70_000),
        metadata={"description": "comma-separated ids (unknown ids are ignored)"},
        **kwargs,
    )


def split_ids(value: str | None) -> list[str] | None:
    """``"a, b,,c"`` -> ``["a", "b", "c"]``; None when the parameter was not given."""
    if value is None:
        return None
    return list(dict.fromkeys(i.strip() for i in value.split(",") if i.strip()))


class MatchedSchema(ma.Schema):
    """One of our features and what of theirs matched it (by meaning), with quotes."""

    ours = ma.fields.String(metadata={"description": "our feature"})
    theirs = ma.fields.String(metadata={"description": "what of theirs matched it"})
    quotes = Citations()
