"""The diff of two versions of a page, for the Changes page (issue 29): side by side (old
left, new right) and inline (one column, − removed, + added), changed lines marked down to
the words, unchanged text collapsed to a few lines around each change, as
changedetection.io shows a change.

Rules:

- **Units**: the text is cut into lines, and a line holding several sentences into its
  sentences (extracted page text keeps a paragraph on one line; a changed price should mark
  its sentence, not the paragraph). Blank lines are dropped and spaces collapsed, so a
  re-wrapped paragraph is no change.
- **Bounded**: page text is hostile input, and a huge page must not make a huge page of
  ours nor a slow one. Each side is read up to ``MAX_CHARS`` characters and
  ``MAX_UNITS`` units, a unit is cut at ``MAX_UNIT_CHARS`` characters, words are compared
  only in lines shorter than ``MAX_WORD_DIFF_CHARS``, each view stops at ``MAX_ROWS`` rows;
  ``truncated`` says when a cap cut something. ``difflib.SequenceMatcher`` keeps its
  "popular line" heuristic (``autojunk``): without it, a page of one repeated line ("Learn
  more") took minutes; with it, a popular line still matches next to the lines around it.
- **Plain text out**: rows hold text segments flagged changed or not, never markup; the
  template escapes them like any other text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher

MAX_CHARS = 300_000  # per side
MAX_UNITS = 3_000  # per side
MAX_UNIT_CHARS = 1_000
MAX_WORD_DIFF_CHARS = 600
CONTEXT = 2  # unchanged units shown around each change
MAX_ROWS = 1_500  # per view: a page rewritten from top to bottom is not a page of 6,000 rows

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=\S)")
_WORDS = re.compile(r"\s+|[^\s\w]|\w+")


@dataclass(frozen=True)
class Segment:
    text: str
    changed: bool = False


@dataclass(frozen=True)
class SideRow:
    """One row of the side-by-side view. ``kind``: ``same``, ``changed`` (old and new
    both), ``removed`` (old only), ``added`` (new only) or ``gap`` (``skipped`` unchanged
    units not shown)."""

    kind: str
    old_no: int | None = None
    new_no: int | None = None
    old: tuple[Segment, ...] = ()
    new: tuple[Segment, ...] = ()
    skipped: int = 0


@dataclass(frozen=True)
class InlineRow:
    """One row of the inline view. ``kind``: ``same``, ``removed``, ``added`` or ``gap``."""

    kind: str
    old_no: int | None = None
    new_no: int | None = None
    text: tuple[Segment, ...] = ()
    skipped: int = 0


@dataclass
class PageDiff:
    side: list[SideRow] = field(default_factory=list)
    inline: list[InlineRow] = field(default_factory=list)
    added: int = 0  # units only in the new version (a changed unit counts in both)
    removed: int = 0
    unchanged: int = 0
    truncated: bool = False

    @property
    def identical(self) -> bool:
        return not self.added and not self.removed


def split_units(text: str | None) -> tuple[list[str], bool]:
    """The text's units (lines, long ones cut into sentences) and whether a cap cut any."""
    text = str(text or "")
    truncated = len(text) > MAX_CHARS
    units: list[str] = []
    for line in text[:MAX_CHARS].splitlines():
        for sentence in _SENTENCE_END.split(line):
            unit = " ".join(sentence.split())
            if not unit:
                continue
            if len(unit) > MAX_UNIT_CHARS:
                unit, truncated = unit[: MAX_UNIT_CHARS - 1] + "…", True
            if len(units) == MAX_UNITS:
                return units, True
            units.append(unit)
    return units, truncated


def _word_segments(old: str, new: str) -> tuple[tuple[Segment, ...], tuple[Segment, ...]]:
    """``old`` and ``new`` cut into runs of words that are the same or changed."""
    if len(old) > MAX_WORD_DIFF_CHARS or len(new) > MAX_WORD_DIFF_CHARS:
        return (Segment(old, True),), (Segment(new, True),)
    a, b = _WORDS.findall(old), _WORDS.findall(new)
    left: list[Segment] = []
    right: list[Segment] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b).get_opcodes():
        if i2 > i1:
            left.append(Segment("".join(a[i1:i2]), tag != "equal"))
        if j2 > j1:
            right.append(Segment("".join(b[j1:j2]), tag != "equal"))
    return _runs(left), _runs(right)


def _runs(segments: list[Segment]) -> tuple[Segment, ...]:
    """Neighbours of the same kind joined, and the spaces between two changed words made
    part of the change: "success manager" is one highlight, not two."""
    out: list[Segment] = []
    for n, seg in enumerate(segments):
        changed = seg.changed
        if not changed and not seg.text.strip() and 0 < n < len(segments) - 1:
            changed = segments[n - 1].changed and segments[n + 1].changed
        if out and out[-1].changed == changed:
            out[-1] = Segment(out[-1].text + seg.text, changed)
        else:
            out.append(Segment(seg.text, changed))
    return tuple(out)


def _whole(text: str, changed: bool = False) -> tuple[Segment, ...]:
    return (Segment(text, changed),)


def diff_texts(old: str | None, new: str | None, context: int = CONTEXT) -> PageDiff:
    """The diff of ``old`` and ``new`` page text (see the module docstring)."""
    a, cut_a = split_units(old)
    b, cut_b = split_units(new)
    result = PageDiff(truncated=cut_a or cut_b)
    matcher = SequenceMatcher(None, a, b)
    opcodes = matcher.get_opcodes()
    result.unchanged = sum(i2 - i1 for tag, i1, i2, _, _ in opcodes if tag == "equal")
    result.removed = sum(i2 - i1 for tag, i1, i2, _, _ in opcodes if tag != "equal")
    result.added = sum(j2 - j1 for tag, _, _, j1, j2 in opcodes if tag != "equal")
    if result.identical:
        return result
    shown_to = 0  # old units before this index are shown or counted in a gap
    for group in matcher.get_grouped_opcodes(context):
        first = group[0][1]
        if first > shown_to:
            _gap(result, first - shown_to)
        for tag, i1, i2, j1, j2 in group:
            _rows(result, a, b, tag, i1, i2, j1, j2)
        shown_to = group[-1][2]
    if len(a) > shown_to:
        _gap(result, len(a) - shown_to)
    if len(result.side) > MAX_ROWS or len(result.inline) > MAX_ROWS:
        result.side, result.inline = result.side[:MAX_ROWS], result.inline[:MAX_ROWS]
        result.truncated = True
    return result


def _gap(result: PageDiff, skipped: int) -> None:
    result.side.append(SideRow("gap", skipped=skipped))
    result.inline.append(InlineRow("gap", skipped=skipped))


def _rows(result: PageDiff, a, b, tag: str, i1: int, i2: int, j1: int, j2: int) -> None:
    side, inline = result.side, result.inline
    if tag == "equal":
        for n in range(i2 - i1):
            text = _whole(a[i1 + n])
            side.append(SideRow("same", i1 + n + 1, j1 + n + 1, text, text))
            inline.append(InlineRow("same", i1 + n + 1, j1 + n + 1, text))
        return
    removed, added = [], []
    for n in range(max(i2 - i1, j2 - j1)):
        i, j = i1 + n, j1 + n
        if i < i2 and j < j2:  # a line replaced by another: pair them, mark the words
            old, new = _word_segments(a[i], b[j])
            side.append(SideRow("changed", i + 1, j + 1, old, new))
            removed.append(InlineRow("removed", i + 1, None, old))
            added.append(InlineRow("added", None, j + 1, new))
        elif i < i2:
            side.append(SideRow("removed", i + 1, None, _whole(a[i], True)))
            removed.append(InlineRow("removed", i + 1, None, _whole(a[i], True)))
        else:
            side.append(SideRow("added", None, j + 1, (), _whole(b[j], True)))
            added.append(InlineRow("added", None, j + 1, _whole(b[j], True)))
    inline.extend(removed)
    inline.extend(added)
