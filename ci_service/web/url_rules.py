"""URL rules whose URL-building code is written on first use, not when the rule is added.

werkzeug compiles two builder functions for every rule as it is added (Python source made
with ``ast``, then ``compile``), whether or not anything ever builds that URL. With the
app's 168 rules that was about a sixth of ``serve``'s start-up (issue 31: start to first
answer), while most rules are never built (the API answers with ids, not URLs). Matching
a request does not use the builders: only ``url_for`` does, and its first call of a rule
now compiles that rule's builder and keeps it.
"""

from __future__ import annotations

from typing import Any

from werkzeug.routing import Rule


class LazyBuildRule(Rule):
    """A ``Rule`` that compiles each builder the first time it builds a URL."""

    def _compile_builder(self, append_unknown: bool = True):
        compile_now = super()._compile_builder
        name = "_build_unknown" if append_unknown else "_build"

        def build_first(rule: Rule, *args: Any, **kwargs: Any):
            # Two threads may both get here: each compiles the same function, and the
            # attribute ends up holding one of them. Harmless, so no lock.
            built = compile_now(append_unknown).__get__(rule, None)
            setattr(rule, name, built)
            return built(*args, **kwargs)

        return build_first  # werkzeug binds it to the rule, as it does the real builder
