"""Recall of the compact (int8) vector index against float32 (issue 16).

Embeds generated texts with the default static provider, puts the same vectors into a
float32 ``VectorIndex`` (exact) and an int8 one (what the intel index holds), and
measures recall@k: the share of the exact top-k ids that the int8 index also returns in
its top k, averaged over the queries. Also prints the largest score difference.

The texts are "random-ish" intel: sentences of 6 to 20 words drawn (Zipf-weighted) from
the model's own whole-word vocabulary, each text 2 to 12 sentences, with one of 40 topic
words repeated, so the corpus has clusters and near-ties as real intel does. Queries are
2 to 6 words: half taken from a random text (there are close matches), half drawn fresh.

Usage: python -m bench.vector_recall [--docs 2000] [--queries 100] [--k 10] [--seed 16]
tests/test_vector_compact.py runs ``measure()`` at the defaults and asserts recall >= 0.98.
"""

from __future__ import annotations

import argparse
import random


def corpus(docs: int, queries: int, seed: int) -> tuple[list[str], list[str]]:
    from ci_service.embeddings.static import load_static_model

    _vectors, vocab, _meta = load_static_model()
    words = sorted({w for w in vocab if w.isalpha() and w.isascii() and len(w) >= 4})
    rng = random.Random(seed)
    rng.shuffle(words)
    words = words[:6000]
    weights = [1.0 / (rank + 10) for rank in range(len(words))]  # Zipf-like
    topics = words[:40]

    def sentence() -> str:
        return " ".join(rng.choices(words, weights, k=rng.randint(6, 20))) + "."

    texts = []
    for _ in range(docs):
        topic = rng.choice(topics)
        parts = [sentence() for _ in range(rng.randint(2, 12))]
        texts.append(f"{topic} " + " ".join(f"{p} {topic}" for p in parts))
    asked = []
    for n in range(queries):
        if n % 2:
            asked.append(" ".join(rng.choices(words, weights, k=rng.randint(2, 6))))
        else:
            source = rng.choice(texts).split()
            start = rng.randrange(max(1, len(source) - 6))
            asked.append(" ".join(source[start : start + rng.randint(2, 6)]))
    return texts, asked


def measure(docs: int = 2000, queries: int = 100, k: int = 10, seed: int = 16) -> dict:
    """``{"recall", "worst", "max_score_error", "docs", "queries", "k"}``."""
    import numpy as np

    from ci_service.embeddings.index import VectorIndex
    from ci_service.embeddings.static import StaticEmbeddingProvider

    provider = StaticEmbeddingProvider()
    texts, asked = corpus(docs, queries, seed)
    vectors = provider.embed(texts)
    exact = VectorIndex(provider.dimension)
    compact = VectorIndex(provider.dimension, storage="int8")
    ids = list(range(docs))
    exact.upsert(ids, vectors)
    compact.upsert(ids, vectors)
    recalls, error = [], 0.0
    for qv in provider.embed(asked):
        if not np.any(qv):
            continue
        want = exact.search(qv, k)
        got = compact.search(qv, k)
        recalls.append(len({i for i, _ in want} & {i for i, _ in got}) / len(want))
        approx = compact.scores(qv, [i for i, _ in want])
        error = max(error, max(abs(approx[i] - s) for i, s in want))
    return {
        "recall": float(np.mean(recalls)),
        "worst": float(min(recalls)),
        "max_score_error": error,
        "docs": docs,
        "queries": len(recalls),
        "k": k,
        "int8_bytes": compact.nbytes,
        "float32_bytes": exact.nbytes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.vector_recall", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--seed", type=int, default=16)
    args = parser.parse_args()
    r = measure(args.docs, args.queries, args.k, args.seed)
    print(
        f"recall@{r['k']} of int8 vs float32 over {r['docs']} texts, {r['queries']} queries: "
        f"{r['recall']:.4f} (worst query {r['worst']:.2f}); largest score error "
        f"{r['max_score_error']:.4f}; index {r['int8_bytes'] / 1e6:.2f} MB vs "
        f"{r['float32_bytes'] / 1e6:.2f} MB"
    )


if __name__ == "__main__":
    main()
