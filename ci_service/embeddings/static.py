"""The default embedding provider: a static (model2vec-style) model, numpy only.

The model file ``data/static-minilm-256.npz`` holds one 256-dimensional vector per
WordPiece token of all-MiniLM-L6-v2, distilled by ``scripts/distill_static_embeddings.py``
(SIF/Zipf token weights are baked into the vectors). A text embedding is the mean of the
vectors of its tokens, L2-normalised. Unknown tokens (``[UNK]``) are skipped, as model2vec
does; a text without known tokens gives a zero vector.

Tokenization reproduces BERT's uncased tokenizer (``BertTokenizer``/``tokenizers``
BertNormalizer + BertPreTokenizer + WordPiece) in pure Python:

* drop NUL, U+FFFD and control/format characters (Cc, Cf) other than whitespace;
* put spaces around CJK ideographs, split on whitespace;
* lowercase, strip accents (NFD, drop Mn), split off every punctuation character
  (ASCII symbols and Unicode P*);
* greedy longest-match-first WordPiece with ``##`` continuations; a word longer than 100
  characters or with no complete segmentation becomes ``[UNK]``.

One deliberate difference: Python's ``str.split`` finds the whitespace, so U+2028/U+2029,
U+0085 and the ASCII separators U+001C-U+001F split words where BERT would drop or keep
them. bench/static_vs_minilm.py checks parity with the reference tokenizer.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .base import EmbeddingError, EmbeddingProvider, check_texts

if TYPE_CHECKING:
    import numpy as np

DATA_DIR = Path(__file__).resolve().parent / "data"
DEFAULT_MODEL_PATH = DATA_DIR / "static-minilm-256.npz"
# The public all-MiniLM-L6-v2 weights the shipped file was distilled from.
SOURCE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
SOURCE_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
DEFAULT_MAX_TOKENS = 512

UNK_TOKEN = "[UNK]"
MAX_WORD_CHARS = 100

_ASCII_PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
# Words and single ASCII punctuation marks of an already lowercased ASCII chunk.
_ASCII_SPLIT = re.compile(r"[^" + re.escape(_ASCII_PUNCT) + r"]+|[" + re.escape(_ASCII_PUNCT) + "]")
# ASCII control characters BERT removes (\t \n \r are whitespace and never reach a chunk).
_ASCII_CONTROL = {cp: None for cp in [*range(0, 32), 127]}


def _is_cjk(cp: int) -> bool:
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


def _is_punctuation(char: str) -> bool:
    cp = ord(char)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def basic_tokenize(text: str) -> list[str]:
    """BERT basic tokenization (uncased): the words WordPiece then splits."""
    words: list[str] = []
    for chunk in text.split():
        words.extend(_basic_chunk(chunk))
    return words


def _basic_chunk(chunk: str) -> list[str]:
    """Basic tokenization of one whitespace-free chunk."""
    if chunk.isascii():
        chunk = chunk.lower()
        if not chunk.isprintable():
            chunk = chunk.translate(_ASCII_CONTROL)
        return _ASCII_SPLIT.findall(chunk)
    kept = []
    for char in chunk:
        cp = ord(char)
        if cp == 0 or cp == 0xFFFD or unicodedata.category(char) in ("Cc", "Cf"):
            continue
        kept.append(f" {char} " if _is_cjk(cp) else char)
    words = []
    for piece in "".join(kept).split():
        piece = unicodedata.normalize("NFD", piece.lower())
        piece = "".join(c for c in piece if unicodedata.category(c) != "Mn")
        start = 0
        for i, char in enumerate(piece):
            if _is_punctuation(char):
                if start < i:
                    words.append(piece[start:i])
                words.append(char)
                start = i + 1
        if start < len(piece):
            words.append(piece[start:])
    return words


class WordPieceTokenizer:
    """BERT uncased tokenizer over a WordPiece vocabulary (list index = token id)."""

    def __init__(self, vocab: Sequence[str], *, cache_size: int = 1 << 16) -> None:
        self.vocab = list(vocab)
        self.token_to_id = {token: i for i, token in enumerate(self.vocab)}
        if UNK_TOKEN not in self.token_to_id:
            raise EmbeddingError(f"vocabulary has no {UNK_TOKEN} token")
        self.unk_id = self.token_to_id[UNK_TOKEN]
        self._max_piece = max(len(token) for token in self.vocab)
        # Chunk (whitespace-delimited text) -> token ids; natural text repeats chunks a lot.
        self._chunk_ids = lru_cache(maxsize=cache_size)(self._chunk_ids_uncached)

    def tokenize(self, text: str) -> list[str]:
        """WordPiece tokens of ``text`` (``[UNK]`` included)."""
        return [self.vocab[i] for i in self.encode(text)]

    def encode(self, text: str, *, drop_unknown: bool = False) -> list[int]:
        """Token ids of ``text`` without [CLS]/[SEP]; ``drop_unknown`` removes [UNK] ids."""
        ids: list[int] = []
        for chunk in text.split():
            ids.extend(self._chunk_ids(chunk))
        if drop_unknown:
            unk = self.unk_id
            ids = [i for i in ids if i != unk]
        return ids

    def _chunk_ids_uncached(self, chunk: str) -> tuple[int, ...]:
        ids: list[int] = []
        for word in _basic_chunk(chunk):
            ids.extend(self.wordpiece(word))
        return tuple(ids)

    def wordpiece(self, word: str) -> list[int]:
        """Greedy longest-match-first WordPiece ids of one basic-tokenized word."""
        vocab = self.token_to_id
        whole = vocab.get(word)
        if whole is not None:
            return [whole]
        if len(word) > MAX_WORD_CHARS:
            return [self.unk_id]
        ids = []
        start, length = 0, len(word)
        while start < length:
            end = min(length, start + self._max_piece)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                found = vocab.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return [self.unk_id]
            ids.append(found)
            start = end
        return ids

    def cache_info(self) -> Any:
        return self._chunk_ids.cache_info()


def load_static_model(path: Path | str = DEFAULT_MODEL_PATH) -> tuple[np.ndarray, list[str], dict]:
    """Read a model file: (float16 vectors, vocabulary, metadata). numpy only, no pickle."""
    import numpy as np

    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as archive:
            vectors = archive["vectors"]
            vocab = archive["vocab"].tobytes().decode("utf-8").split("\n")
            metadata = json.loads(archive["metadata"].tobytes().decode("utf-8"))
    except (OSError, KeyError, ValueError) as exc:
        raise EmbeddingError(f"cannot read static embedding model {path}: {exc}") from exc
    if vectors.ndim != 2 or vectors.shape[0] != len(vocab):
        raise EmbeddingError(
            f"static embedding model {path}: {vectors.shape} vectors for {len(vocab)} tokens"
        )
    if int(metadata.get("dimension", -1)) != vectors.shape[1]:
        raise EmbeddingError(f"static embedding model {path}: metadata dimension mismatch")
    return vectors, vocab, metadata


class StaticEmbeddingProvider(EmbeddingProvider):
    """Mean of distilled token vectors; loads the model file when constructed.

    ``max_tokens`` truncates each text to its first N known tokens (model2vec's default is
    512); pass ``None`` to use the whole text. Long documents are better embedded in
    chunks by the caller.
    """

    def __init__(
        self, path: Path | str = DEFAULT_MODEL_PATH, *, max_tokens: int | None = DEFAULT_MAX_TOKENS
    ) -> None:
        import numpy as np

        vectors, vocab, metadata = load_static_model(path)
        self.path = Path(path)
        self.metadata = metadata
        self.name = str(metadata["name"])
        self.dimension = int(vectors.shape[1])
        self.max_tokens = max_tokens
        # Kept as float16 (15 MB for 30k×256; float32 doubled it in every process's RSS,
        # issue 31); ``embed`` sums them in float32, which gives the same vectors as summing
        # a float32 copy, and a little faster (less memory to read per token).
        self._vectors = np.ascontiguousarray(vectors, dtype=np.float16)
        self.tokenizer = WordPieceTokenizer(vocab)

    def token_ids(self, text: str) -> list[int]:
        ids = self.tokenizer.encode(text, drop_unknown=True)
        if self.max_tokens is not None:
            ids = ids[: self.max_tokens]
        return ids

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        texts = check_texts(texts)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        per_text = [self.token_ids(text) for text in texts]  # lru_cache is thread-safe
        lengths = np.fromiter((len(ids) for ids in per_text), dtype=np.int64, count=len(texts))
        rows = np.flatnonzero(lengths)
        if rows.size == 0:
            return out
        flat = np.fromiter(_chain(per_text), dtype=np.int64, count=int(lengths.sum()))
        offsets = np.concatenate(([0], np.cumsum(lengths[rows])[:-1]))
        sums = np.add.reduceat(self._vectors[flat], offsets, axis=0, dtype=np.float32)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        np.divide(sums, norms, out=sums, where=norms > 0)
        out[rows] = sums
        return out


def _chain(lists: Iterable[list[int]]) -> Iterable[int]:
    for ids in lists:
        yield from ids
