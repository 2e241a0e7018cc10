"""Deterministic text extractors for the graph: recurring topics and named people.

``extract_topics(texts)``: candidate terms are words (3+ letters, not stop words, not
numbers) and two-word phrases of consecutive such words (a stop word or punctuation ends a
phrase). A term is a topic when it occurs at least twice and, given several texts, in at
least two of them. Score = 2 × texts containing it + occurrences, phrases × 1.5; ties by
alphabet. A word is dropped when a chosen phrase containing it covers half its
occurrences. Lower case out; at most ``max_topics``.

``extract_people(text, json_ld=None)`` (kept for callers of this text-only form; the
pipeline reads people with ``ci_service.pipeline.people``, which also understands cards,
definition lists, headings and humans.txt and cites each person's line): conservative
patterns only: a name of 2 to 4
capitalised words followed by a separator (comma, dash, en/em dash, pipe, colon) and a
job title from a known vocabulary ("Jane Doe, CEO", "Jane Doe — Chief Technology
Officer", "John Smith | VP of Sales"), or JSON-LD ``Person`` objects (``name`` and
``jobTitle``), anywhere inside the given JSON-LD blocks.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

STOP_WORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each few
    for from further get got had has have having he her here hers herself him himself his how
    i if in into is it its itself just let like made make many may me more most much must my
    myself new no nor not now of off on once one only or other our ours ourselves out over own
    per same see she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up upon us use used using very via was we
    well were what when where which while who whom why will with within without would yes yet
    you your yours yourself yourselves all-in-one across along already always among another
    anyone anything around available based best better build built click com contact cookie
    cookies copyright day days every find first free get help home inc including learn less
    ltd menu more need next off online page pages policy privacy read register reserved right
    rights sign start team terms today top way ways web website www year years""".split()
)

_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9+\-']*[A-Za-z0-9+]|[A-Za-z]|[.,;:!?()\[\]{}|/\"]")


def _runs(text: str) -> list[list[str]]:
    """Runs of consecutive content words (lower case)."""
    runs: list[list[str]] = [[]]
    for token in _TOKEN.findall(text or ""):
        word = token.lower()
        if len(word) < 3 or word in STOP_WORDS or not word[0].isalpha():
            if runs[-1]:
                runs.append([])
            continue
        runs[-1].append(word)
    return [run for run in runs if run]


def extract_topics(texts: list[str], *, max_topics: int = 10) -> list[str]:
    """Recurring topics of ``texts`` (see the module docstring for the rule)."""
    texts = [t for t in texts if t and t.strip()]
    occurrences: Counter[str] = Counter()
    documents: Counter[str] = Counter()
    for text in texts:
        seen: set[str] = set()
        for run in _runs(text):
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
