"""Deterministic text extractors for the graph: recurring topics and named people.

``extract_topics(texts, languages=None)``: candidate terms are words (3+ letters of any
script, not stop words, not numbers; a French or Italian elision such as "l'" dropped) and
two-word phrases of consecutive such words (a stop word or punctuation ends a phrase). The
stop words are those of every language among the texts (``languages[i]`` is the ISO 639-1
code of ``texts[i]``; a text without one is detected, ``pipeline.language``) and English's,
so a Serbian site's "ili", "koje" and "kao" never become topics. A term is a topic when it
occurs at least twice and, given several texts, in at least two of them. Score = 2 × texts
containing it + occurrences, phrases × 1.5; ties by alphabet. A word is dropped when a
chosen phrase containing it covers half its occurrences. Lower case out; at most
``max_topics``.

``extract_people(text, json_ld=None)`` (kept for callers of this text-only form; the
pipeline reads people with ``ci_service.pipeline.people.extract``, which also understands cards,
definition lists, headings and humans.txt and cites each person's line): conservative
patterns only: a name of 2 to 4
capitalised words followed by a separator (comma, dash, en/em dash, pipe, colon) and a
job title from a known vocabulary ("Jane Doe, CEO", "Jane Doe — Chief Technology
Officer", "John Smith | VP of Sales"), or JSON-LD ``Person`` objects (``name`` and
``jobTitle``), anywhere inside the given JSON-LD blocks.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from typing import Any

from ci_service.pipeline.language import combined_stop_words, detect_language, stop_words

# English stop words (``pipeline/language_data/en.txt``); other languages' lists come from
# ``pipeline.language.stop_words``.
STOP_WORDS = stop_words("en")

# A word: a letter, then letters, digits, "+", "-" or an apostrophe, ending on a letter, digit
# or "+" (any script: "mesečno", "Überblick"); punctuation ends a phrase.
_TOKEN = re.compile(r"[^\W\d_][\w+\-'’]*(?:[^\W_]|\+)|[^\W\d_]|[.,;:!?()\[\]{}|/\"«»„“”]")
# French and Italian elisions: "l'entreprise" is "entreprise".
_ELISION = re.compile(
    r"^(?:l|d|j|m|n|s|t|c|qu|jusqu|lorsqu|puisqu|quoiqu|dell|dall|nell|sull|all|un)['’]"
)


def _runs(text: str, stop: frozenset[str] = STOP_WORDS) -> list[list[str]]:
    """Runs of consecutive content words (lower case)."""
    runs: list[list[str]] = [[]]
    for token in _TOKEN.findall(text or ""):
        word = _ELISION.sub("", unicodedata.normalize("NFC", token.casefold())).replace("’", "'")
        if len(word) < 3 or word in stop or not word[0].isalpha():
            if runs[-1]:
                runs.append([])
            continue
        runs[-1].append(word)
    return [run for run in runs if run]


def topic_stop_words(texts: list[str], languages: list[str] | None = None) -> frozenset[str]:
    """The stop words topics of ``texts`` are read without: those of every language among
    the texts (``languages[i]`` is that of ``texts[i]``; "" or missing: detected), and
    English."""
    given = list(languages or [])
    codes = {
        (given[i] if i < len(given) and given[i] else "") or detect_language(text)
        for i, text in enumerate(texts)
    }
    return combined_stop_words(codes)


def extract_topics(
    texts: list[str], *, max_topics: int = 10, languages: list[str] | None = None
) -> list[str]:
    """Recurring topics of ``texts`` (see the module docstring for the rule)."""
    pairs = [
        (text, languages[i] if languages and i < len(languages) else "")
        for i, text in enumerate(texts)
        if text and text.strip()
    ]
    texts = [text for text, _code in pairs]
    stop = topic_stop_words(texts, [code for _text, code in pairs])
    occurrences: Counter[str] = Counter()
    documents: Counter[str] = Counter()
    for text in texts:
        seen: set[str] = set()
        for run in _runs(text, stop):
            terms = run + [f"{a} {b}" for a, b in zip(run, run[1:], strict=False)]
            occurrences.update(terms)
            seen.update(terms)
        documents.update(seen)
    min_docs = 2 if len(texts) >= 2 else 1

    def score(term: str) -> float:
        base = 2 * documents[term] + occurrences[term]
        return base * 1.5 if " " in term else base

    candidates = [t for t, n in occurrences.items() if n >= 2 and documents[t] >= min_docs]
    candidates.sort(key=lambda t: (-score(t), t))
    chosen: list[str] = []
    phrases: list[str] = []
    for term in candidates:
        if " " not in term and any(
            term in p.split() and occurrences[p] * 2 >= occurrences[term] for p in phrases
        ):
            continue
        chosen.append(term)
        if " " in term:
            phrases.append(term)
        if len(chosen) == max_topics:
            break
    return chosen


ROLE_WORDS = (
    r"(?:Co-?|Vice\s+)?(?:Founder|President|Chairman|Chairwoman|Chair)"
    r"|C[EOTFIMPR]O|CISO|CHRO|CDO|EVP|SVP|VP"
    r"|Chief\s+[A-Z][a-z]+(?:\s+(?:and\s+)?[A-Z][a-z]+){0,3}\s+Officer"
    r"|(?:Senior\s+|Executive\s+)?Vice\s+President"
    r"|(?:Global\s+)?Head"
    r"|(?:Managing\s+|Executive\s+|Senior\s+)?Director"
    r"|General\s+(?:Counsel|Manager|Partner)|Board\s+Member|Partner"
)
_NAME_WORD = r"[A-Z][a-z]+(?:[-'’][A-Z]?[a-z]+)?|[A-Z]\.|Mc[A-Z][a-z]+|O['’][A-Z][a-z]+"
_NAME = rf"(?:{_NAME_WORD})(?:[ \t]+(?:{_NAME_WORD})){{1,3}}"
_PERSON = re.compile(
    rf"(?<![\w.])(?P<name>{_NAME})[ \t]*(?:,|–|—|-|\||:)[ \t]*"
    rf"(?P<role>(?:{ROLE_WORDS})(?:[ \t]*(?:,|&|and|of|for)[ \t]*[A-Z][A-Za-z&]*"
    rf"(?:[ \t]+[A-Z][A-Za-z&]*){{0,3}})?(?:[ \t]*(?:&|and)[ \t]*(?:{ROLE_WORDS}))?)"
    rf"(?![a-z])"
)
NOT_NAMES = frozenset(
    """about our team the leadership meet board contact read more learn privacy policy
    terms cookie home news press careers company products solutions pricing blog view all
    management executive executives directors investors customers partners""".split()
)


def _valid_name(name: str) -> bool:
    words = name.split()
    return not any(w.lower().strip(".") in NOT_NAMES for w in words) and any(
        len(w) > 2 for w in words
    )


def _json_ld_people(blocks: Any) -> list[tuple[str, str | None]]:
    found: list[tuple[str, str | None]] = []

    def walk(value: Any) -> None:
        if isinstance(value, list):
            for inner in value:
                walk(inner)
        elif isinstance(value, dict):
            kind = value.get("@type")
            kinds = kind if isinstance(kind, list) else [kind]
            name = value.get("name")
            if "Person" in kinds and isinstance(name, str) and name.strip():
                role = value.get("jobTitle")
                found.append(
                    (" ".join(name.split()), role.strip() if isinstance(role, str) else None)
                )
            for inner in value.values():
                if isinstance(inner, dict | list):
                    walk(inner)

    walk(blocks)
    return found


def extract_people(text: str, json_ld: Any = None) -> list[tuple[str, str | None]]:
    """``[(name, role)]`` named on an about/leadership page, first mention wins."""
    people: dict[str, tuple[str, str | None]] = {}
    for name, role in _json_ld_people(json_ld or []):
        people.setdefault(name.casefold(), (name, role or None))
    for line in (text or "").splitlines():
        for match in _PERSON.finditer(line):
            name = " ".join(match.group("name").split())
            if not _valid_name(name):
                continue
            role = " ".join(match.group("role").split()).rstrip(",&").strip()
            people.setdefault(name.casefold(), (name, role))
    return list(people.values())
