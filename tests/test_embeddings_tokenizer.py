"""The pure-Python BERT WordPiece tokenizer of the static embedding model.

Expected tokens below were produced by the model's own tokenizer.json run with the Rust
``tokenizers`` library (bench/static_vs_minilm.py checks the same parity).
"""

from __future__ import annotations

import pytest

from ci_service.embeddings.base import EmbeddingError
from ci_service.embeddings.static import (
    DEFAULT_MODEL_PATH,
    WordPieceTokenizer,
    basic_tokenize,
    load_static_model,
)


@pytest.fixture(scope="module")
def tokenizer():
    _, vocab, _ = load_static_model(DEFAULT_MODEL_PATH)
    return WordPieceTokenizer(vocab)


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Hello, World!", ["hello", ",", "world", "!"]),
        ("Café naïve résumé — coöperate", ["cafe", "naive", "resume", "—", "cooperate"]),
        ("Ünïcödé ÀÉÎÕÜ", ["unicode", "ae", "##io", "##u"]),
        ("don't it's", ["don", "'", "t", "it", "'", "s"]),
        (
            "e-mail: sales@example.com",
            ["e", "-", "mail", ":", "sales", "@", "example", ".", "com"],
        ),
        ("$1,299.99 (USD)", ["$", "1", ",", "299", ".", "99", "(", "usd", ")"]),
        ("tabs\tand\nnewlines\r\n  spaces", ["tab", "##s", "and", "new", "##lines", "spaces"]),
        (
            "zero\u200bwidth soft\u00adhyphen",
            ["zero", "##wi", "##dt", "##h", "soft", "##hy", "##ph", "##en"],
        ),
        ("a\x07b control\x01chars", ["ab", "control", "##cha", "##rs"]),
        ("emoji 🚀🔥 rocket", ["em", "##oj", "##i", "[UNK]", "rocket"]),
        ("北京欢迎你 and 東京", ["北", "京", "[UNK]", "[UNK]", "[UNK]", "and", "東", "京"]),
        ("“smart quotes” «x»", ["“", "smart", "quotes", "”", "«", "x", "»"]),
        ("C++ and C#", ["c", "+", "+", "and", "c", "#"]),
        ("naïve_bayes CamelCaseWord", ["naive", "_", "bay", "##es", "camel", "##case", "##word"]),
        ("unaffordable pricing", ["una", "##ff", "##ord", "##able", "pricing"]),
        ("Ⅻ ① ² ½", ["[UNK]", "[UNK]", "²", "½"]),
        ("x" * 120, ["[UNK]"]),
        ("", []),
        (" \t\n ", []),
    ],
)
def test_matches_reference_tokenizer(tokenizer, text, tokens):
    assert tokenizer.tokenize(text) == tokens


def test_basic_tokenize_splits_punctuation_and_strips_accents():
    assert basic_tokenize("Über-cool, déjà vu!") == ["uber", "-", "cool", ",", "deja", "vu", "!"]
    assert basic_tokenize("日本語") == ["日", "本", "語"]


def test_wordpiece_on_a_tiny_vocabulary():
    tok = WordPieceTokenizer(["[UNK]", "un", "##aff", "##able", "a", "##b", "b"])
    assert tok.tokenize("unaffable") == ["un", "##aff", "##able"]
    # Greedy longest-match-first: no segmentation of the whole word means one [UNK].
    assert tok.tokenize("unaffablex") == ["[UNK]"]
    assert tok.tokenize("ab b, a") == ["a", "##b", "b", "[UNK]", "a"]  # "," is not in it
    assert tok.tokenize("abab ba") == ["[UNK]", "[UNK]"]  # "##a" is not in it


def test_words_over_100_characters_are_unknown():
    tok = WordPieceTokenizer(["[UNK]", "a", "##a"])
    assert tok.tokenize("a" * 100) == ["a"] + ["##a"] * 99
    assert tok.tokenize("a" * 101) == ["[UNK]"]


def test_encode_can_drop_unknown_ids(tokenizer):
    ids = tokenizer.encode("rocket 🚀")
    assert tokenizer.unk_id in ids
    assert tokenizer.encode("rocket 🚀", drop_unknown=True) == [
        i for i in ids if i != tokenizer.unk_id
    ]


def test_chunk_cache_is_used(tokenizer):
    tokenizer.encode("repeated repeated repeated")
    assert tokenizer.cache_info().hits >= 2


def test_vocabulary_needs_unk():
    with pytest.raises(EmbeddingError):
        WordPieceTokenizer(["a", "b"])
