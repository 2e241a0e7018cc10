"""The excerpt of a search result (services/search/excerpt.py): made from the match's
neighbourhood where it can, it is exactly the excerpt made from the whole text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ci_service.services.search.excerpt import _around_match, excerpt


def whole_text_excerpt(text: str, needle: str, width: int = 120) -> str:
    """The excerpt as it was made before issue 31 (the definition)."""
    flat = " ".join((text or "").split())
    at = flat.casefold().find(needle.casefold())
    if at < 0:
        return flat[:width]
    start = max(0, at - width // 3)
    piece = flat[start : start + width]
    return ("…" if start else "") + piece + ("…" if start + width < len(flat) else "")


WORD = st.text(alphabet="abcXYZ0ß.-", min_size=1, max_size=12)
SPACE = st.one_of(
    st.text(alphabet=" \t\n\r\x0b\x0c\x1c", min_size=1, max_size=3),
    st.text(alphabet=" \n", min_size=100, max_size=300),  # longer than a window
)
NEEDLE = st.sampled_from(
    ["abc", "ab", "ABC", "x0", "z.", "ß", "c a", "C X", "a b c", "c\ta", "c  a", "zz", "ss", " ab"]
)


@st.composite
def texts(draw):
    parts = draw(st.lists(st.tuples(WORD, SPACE), max_size=120))
    lead = draw(st.sampled_from(["", " ", "\n\n  "]))
    return lead + "".join(word + space for word, space in parts)


@settings(max_examples=3000, deadline=None)
@given(texts(), NEEDLE, st.sampled_from([120, 80, 7, 3]))
def test_the_same_excerpt_as_from_the_whole_text(text, needle, width):
    assert excerpt(text, needle, width) == whole_text_excerpt(text, needle, width)


def test_long_texts_are_cut_around_the_match_without_the_whole_text():
    words = " ".join(f"word{n}" for n in range(400))
    text = f"{words} Runs on   Kubernetes,\n\tin every region. {words}"
    expected = whole_text_excerpt(text, "kubernetes")
    assert _around_match(text, "kubernetes", 120) == expected  # the fast path answered
    assert expected.startswith("…") and expected.endswith("…")
    assert "Runs on Kubernetes, in every region." in expected
    near_the_start = "Kubernetes first. " + words
    assert excerpt(near_the_start, "KUBERNETES") == whole_text_excerpt(
        near_the_start, "k8s"[:0] + "KUBERNETES"
    )
    assert not excerpt(near_the_start, "kubernetes").startswith("…")


def test_what_the_fast_path_leaves_to_the_whole_text():
    for long_gap in (
        "Acme" + " " * 500 + "pricing" + " " * 500 + "tail",
        "Acme" + " " * 500 + "pricing and plans, " * 20,
        "Acme pricing" + " " * 500 + "tail",
    ):
        assert _around_match(long_gap, "pricing", 120) is None  # whitespace past a window
        assert excerpt(long_gap, "pricing") == whole_text_excerpt(long_gap, "pricing")
    assert excerpt("Straße und Preis", "STRASSE") == whole_text_excerpt(
        "Straße und Preis", "STRASSE"
    )
    assert excerpt("two  words here", "two words") == "two words here"
    text = "Words before. " * 20 + "Encryption\n\t Audit logs " * 3
    assert _around_match(text, "encryption audit", 120) == whole_text_excerpt(
        text, "encryption audit"
    )
    assert _around_match(text, "encryption  audit", 120) is None  # two spaces: never flat
    assert excerpt("no match here", "zzz") == "no match here"
    assert excerpt(None, "abc") == ""
