"""Partners a company states in a sentence of its own rather than in a row of logos.

- a partner level: "Acme is a Globex Gold Partner", "We are a Certified Initech Partner",
  "Acme er Microsoft Gold Partner", or the badge line alone ("Globex Premier Partner"): the
  vendor is the capitalised name before (or after) the level words;
- a partnership: "in partnership with Globex", "we partner with Globex and Initech",
  "official reseller of Globex", "authorised dealer for Globex", in several languages;
- a membership: "member of the Example Guild", "Mitglied der Beispiel-Gesellschaft", "a
  Vision Example member practice".

A name is one to five capitalised words (joined by "&", "of", "für", "de" ...), never the
company itself, a sentence's first word alone ("We", "Our") or a generic word ("Partner",
"Program"). The quote is the sentence.
"""

from __future__ import annotations

import re

from ci_service.pipeline.evidence import sentences
from ci_service.pipeline.subject import about_us

_CAP = r"[A-ZÀ-Þ0-9][\w&.+'’-]*"
_JOIN = r"(?:\s+(?:&|of|für|der|des|de|du|van|for)\s+|\s+)"
NAME = rf"{_CAP}(?:{_JOIN}{_CAP}){{0,4}}"
_LEVEL = (
    r"(?i:gold|silver|platinum|bronze|premier|premium|certified|authori[sz]ed|official|"
    r"preferred|advanced|select|elite|registered|accredited|consulting|solutions?|technology|"
    r"channel|strategic|zertifizierter?|offizieller?|certifi[ée]e?|officiel(?:le)?)"
)
_SELF = (
    r"(?i:we\s+are|we['’]re|(?:is|er|ist|est|är|es|è|jest|zijn|sind|som)\b)\s+"
    r"(?:an?|een|ein|eine|une?|en|et|uno?|una)?\s*"
)
# "Acme is a Globex Gold Partner" / a badge line "Globex Premier Partner".
_LEVEL_PARTNER = re.compile(
    rf"(?P<name>{NAME})\s+(?:{_LEVEL}\s+){{1,3}}(?i:partner|reseller|dealer|distributor)\b|"
    rf"(?:{_LEVEL}\s+){{1,2}}(?P<after>{NAME})\s+(?i:partner|reseller|dealer|distributor)\b"
)
_PARTNERSHIP = re.compile(
    rf"\b(?i:in\s+partnership\s+with|partner(?:s|ed)?\s+with|partnering\s+with|"
    rf"(?:official|authori[sz]ed)\s+(?:reseller|dealer|distributor|partner)\s+(?:of|for)|"
    rf"in\s+Partnerschaft\s+mit|en\s+partenariat\s+avec|en\s+colaboraci[óo]n\s+con|"
    rf"in\s+samenwerking\s+met|i\s+samarbete\s+med|i\s+samarbeid\s+med)\s+(?i:the\s+)?"
    rf"(?P<name>{NAME})"
)
_MEMBER = re.compile(
    rf"\b(?i:(?:a\s+)?member\s+of\s+(?:the\s+)?|Mitglied\s+(?:der|des|im)\s+|"
    rf"lid\s+van\s+(?:de\s+|het\s+)?|membre\s+(?:de\s+la\s+|de\s+l['’]|du\s+|de\s+)|"
    rf"miembro\s+de\s+(?:la\s+)?)(?P<name>{NAME})|"
    rf"\b(?i:an?)\s+(?P<org>{NAME})\s+(?i:member\s+(?:practice|company|firm|clinic|office))\b"
)
_GENERIC = frozenset(
    "we our us you me today the a an partner partners program programme team company "
    "member members and or all".split()
)
MAX_PER_PAGE = 10


def _name(raw: str) -> str:
    words = raw.split()
    while words and words[-1].casefold() in _GENERIC | {"&", "of", "for", "der", "de", "van"}:
        words.pop()
    while words and words[0].casefold() in _GENERIC:
        words.pop(0)
    name = " ".join(words).strip(" .,;:'’")
    return name if name and any(c.isalpha() for c in name) else ""


_THIRD_PERSON = re.compile(
    r"\b(?:he|she|his|her|they|their|er|sie|il|elle|hij|zij|han|hon)\b", re.I
)


def _ours_or_badge(before: str, aliases: list[str]) -> bool:
    """The company speaks ("We are ...", "Acme works in partnership with") or the line is
    a badge ("Proud member of"); never a person's biography ("He is a member of")."""
    if _THIRD_PERSON.search(before):
        return False
    return len(before.split()) <= 3 or about_us(before, aliases, True)


def prose_partners(text: str, aliases: list[str]) -> list[tuple[str, str]]:
    """(name, sentence) of the partners the page's sentences state (see the module
    docstring), never the company itself (``aliases``, case-folded)."""
    found: list[tuple[str, str]] = []
    for sentence in sentences(text):
        if len(sentence) > 400:
            continue
        names: list[str] = []
        for match in _LEVEL_PARTNER.finditer(sentence):
            before = sentence[: match.start()]
            badge = not before.strip() and match.end() >= len(sentence.rstrip(" .!"))
            ours = re.search(_SELF + r"$", before, re.IGNORECASE) and about_us(
                before, aliases, True
            )
            if badge or ours:
                names.append(match.group("name") or match.group("after"))
        if sum(c.isupper() for c in sentence) > 0.6 * sum(c.isalpha() for c in sentence):
            continue  # a banner in capitals ("PARTNER WITH US TODAY")
        for match in [*_PARTNERSHIP.finditer(sentence), *_MEMBER.finditer(sentence)]:
            if _ours_or_badge(sentence[: match.start()], aliases):
                names.append(match.group("name") or match.groupdict().get("org") or "")
        parts = [part for each in names for part in re.split(r"\s+and\s+|,\s*", each)]
        for part in parts:
            name = _name(part)
            if name and not about_us(name, aliases) and len(found) < MAX_PER_PAGE:
                found.append((name, sentence))
    return found
