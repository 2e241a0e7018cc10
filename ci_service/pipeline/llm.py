"""The optional language-model provider: summaries and classification for the pipeline.

Two implementations of one small interface (:class:`LLMProvider`):

- :class:`DeterministicProvider`, the default: no network. ``summarize`` keeps the first
  sentences up to the length asked; ``classify`` picks the labels whose name or keywords
  (``taxonomy.CATEGORY_KEYWORDS``) occur in the text.
- :class:`OpenAICompatProvider`: ``POST {base_url}/chat/completions`` on any
  OpenAI-compatible server (OpenAI, vLLM, llama.cpp, Ollama ``/v1``, LiteLLM...), chosen
  when ``CI_SERVICE_LLM_BASE_URL`` and ``CI_SERVICE_LLM_MODEL`` are set
  (``CI_SERVICE_LLM_API_KEY`` is sent as a bearer token, ``CI_SERVICE_LLM_TIMEOUT``
  seconds bound each call, default 30). It asks for a JSON object and validates it: a
  summary must be a non-empty string, labels must be a list drawn from the labels offered.
  A failed call, a timeout or an invalid answer is logged (the reason, never the answer)
  and the deterministic result is used instead, so nothing unvalidated is ever stored.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Mapping

from ci_service.pipeline import taxonomy

log = logging.getLogger("ci_service.pipeline.llm")

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
MAX_INPUT_CHARS = 6000


class LLMProvider:
    """What the pipeline asks a language model for."""

    name = "base"

    def summarize(self, text: str, *, max_chars: int = 400) -> str:
        raise NotImplementedError

    def classify(self, text: str, labels: list[str]) -> list[str]:
        raise NotImplementedError

    def extract_facts(self, text: str, *, company: str = "") -> list[dict] | None:
        """Structured facts of a page, each with the ``quote`` that states it (see
        ``pipeline/llm_facts.py``); None when this provider extracts none."""
        return None

    def rewrite(self, text: str, quotes: list[str]) -> str:
        """``text`` as plain sales prose, saying nothing the quotes do not."""
        return text


class DeterministicProvider(LLMProvider):
    name = "deterministic"

    def summarize(self, text: str, *, max_chars: int = 400) -> str:
        text = " ".join((text or "").split())
        out = ""
        for sentence in _SENTENCE.split(text):
            if out and len(out) + 1 + len(sentence) > max_chars:
                break
            out = f"{out} {sentence}".strip()
        if len(out) > max_chars:
            out = out[:max_chars].rsplit(" ", 1)[0].rstrip(",;:") + "…"
        return out

    def classify(self, text: str, labels: list[str]) -> list[str]:
        found = set(taxonomy.categories_for(text))
        lowered = taxonomy.normalize(text)
        out = []
        for label in labels:
            name = taxonomy.normalize(label)
            if label in found or (name and re.search(rf"\b{re.escape(name)}\b", lowered)):
                out.append(label)
        return out


class InvalidAnswer(Exception):
    """The model's answer failed validation (the message says why, without the answer)."""


class OpenAICompatProvider(LLMProvider):
    """Chat completions on an OpenAI-compatible server, validated, with fallback."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        fallback: LLMProvider | None = None,
        transport=None,
    ):
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.fallback = fallback or DeterministicProvider()
        self.transport = transport
        self.name = f"openai:{model}"

    # -- the protocol ----------------------------------------------------------------------

    def _chat(self, system: str, user: str) -> dict:
        import httpx

        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        body = {
            "model": self.model,
            "temperature": 0,
            "response_format": {"type": "json_object"},
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user[:MAX_INPUT_CHARS]},
            ],
        }
        with httpx.Client(timeout=self.timeout, transport=self.transport, trust_env=False) as c:
            response = c.post(f"{self.base_url}/chat/completions", json=body, headers=headers)
        if response.status_code != 200:
            raise InvalidAnswer(f"HTTP {response.status_code}")
        try:
            content = response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise InvalidAnswer("not a chat completion response") from None
        if not isinstance(content, str):
            raise InvalidAnswer("message content is not text")
        content = content.strip()
        if content.startswith("```"):  # some models wrap JSON in a code fence anyway
            content = content.strip("`").removeprefix("json").strip()
        try:
            data = json.loads(content)
        except ValueError:
            raise InvalidAnswer("message content is not JSON") from None
        if not isinstance(data, dict):
            raise InvalidAnswer("message content is not a JSON object")
        return data

    def _fallback(self, task: str, exc: Exception) -> None:
        reason = str(exc) if isinstance(exc, InvalidAnswer) else type(exc).__name__
        log.warning(
            "LLM provider %s: %s failed (%s); using the deterministic extractor",
            self.name,
            task,
            reason,
        )

    # -- the interface -----------------------------------------------------------------------

    def summarize(self, text: str, *, max_chars: int = 400) -> str:
        try:
            data = self._chat(
                "You summarise web page text for a competitive intelligence database. "
                f'Answer with a JSON object {{"summary": "..."}}, at most {max_chars} '
                "characters, factual, no marketing superlatives, no invented facts.",
                text,
            )
            summary = data.get("summary")
            if not isinstance(summary, str) or not summary.strip():
                raise InvalidAnswer("summary missing or empty")
            summary = " ".join(_CONTROL.sub(" ", summary).split())
            if len(summary) > max_chars * 2:
                raise InvalidAnswer("summary far too long")
            return summary[:max_chars]
        except Exception as exc:  # network, protocol or validation: fall back
            self._fallback("summarize", exc)
            return self.fallback.summarize(text, max_chars=max_chars)

    def classify(self, text: str, labels: list[str]) -> list[str]:
        if not labels:
            return []
        try:
            data = self._chat(
                "You classify product features into categories. Answer with a JSON object "
                '{"labels": [...]} using only labels from this list: '
                + json.dumps(labels, ensure_ascii=False),
                text,
            )
            chosen = data.get("labels")
            if not isinstance(chosen, list) or not all(isinstance(c, str) for c in chosen):
                raise InvalidAnswer("labels is not a list of strings")
            canonical = {label.casefold(): label for label in labels}
            unknown = [c for c in chosen if c.casefold() not in canonical]
            if unknown:
                raise InvalidAnswer(f"{len(unknown)} label(s) not among those offered")
            return list(dict.fromkeys(canonical[c.casefold()] for c in chosen))
        except Exception as exc:
            self._fallback("classify", exc)
            return self.fallback.classify(text, labels)

    def extract_facts(self, text: str, *, company: str = "") -> list[dict] | None:
        try:
            data = self._chat(FACTS_PROMPT.replace("{company}", company or "the company"), text)
            facts = data.get("facts")
            if not isinstance(facts, list) or not all(isinstance(f, dict) for f in facts):
                raise InvalidAnswer("facts is not a list of objects")
            return facts[:MAX_FACTS]
        except Exception as exc:
            self._fallback("extract_facts", exc)
            return None

    def rewrite(self, text: str, quotes: list[str]) -> str:
        try:
            data = self._chat(
                "You edit battlecard items for salespeople. Rewrite the item as one or two "
                "plain sentences a salesperson would say out loud. Use only facts in the item "
                "and the quotes; add no number, name or claim of your own. Answer with a "
                'JSON object {"text": "..."}.',
                json.dumps({"item": text, "quotes": quotes[:3]}, ensure_ascii=False),
            )
            prose = data.get("text")
            if not isinstance(prose, str) or not prose.strip():
                raise InvalidAnswer("text missing or empty")
            prose = " ".join(_CONTROL.sub(" ", prose).split())
            if len(prose) > max(2 * len(text), 300):
                raise InvalidAnswer("text far too long")
            source = " ".join([text, *quotes])
            if any(number not in source for number in re.findall(r"\d[\d,.]*\d|\d", prose)):
                raise InvalidAnswer("text states a number the item and quotes do not")
            return prose
        except Exception as exc:
            self._fallback("rewrite", exc)
            return text


MAX_FACTS = 60
FACTS_PROMPT = (
    "You read one page of {company}'s website for a competitive intelligence database. "
    'Answer with a JSON object {"facts": [...]}. Each fact is an object with "kind" and '
    '"quote", where "quote" is the exact sentence of the page (copied verbatim, same '
    "words and punctuation) that states the fact, plus the fields of its kind: "
    'yearFounded {"year"}; headquarters {"value"}; employeeCount {"value"}; funding '
    '{"round", "amount", "currency", "date", "investors"}; customer {"name"}; person '
    '{"name", "title"}; product {"name", "description"}; feature {"product", "name", '
    '"description"}; plan {"name", "price", "currency", "period", "unit", "onRequest"}. '
    "Only facts the page states about {company}; no guesses, no marketing slogans, no "
    "navigation or footer text. An empty list is a good answer for a page with no facts."
)


def get_provider(environ: Mapping[str, str] | None = None) -> LLMProvider:
    """The configured provider: OpenAI-compatible when base URL and model are set."""
    env = os.environ if environ is None else environ
    base_url = env.get("CI_SERVICE_LLM_BASE_URL", "").strip()
    model = env.get("CI_SERVICE_LLM_MODEL", "").strip()
    if not base_url or not model:
        return DeterministicProvider()
    try:
        timeout = float(env.get("CI_SERVICE_LLM_TIMEOUT", "30") or 30)
    except ValueError:
        timeout = 30.0
    return OpenAICompatProvider(
        base_url, model, api_key=env.get("CI_SERVICE_LLM_API_KEY") or None, timeout=timeout
    )
