#!/usr/bin/env python3
"""Benchmark VectorIndex (and the static embedder) with the project venv.

    /tmp/venv/bin/python -m bench.vector_index                    # 100k x 256
    /tmp/venv/bin/python -m bench.vector_index --n 20000 --embed

Prints the build time (upserts in batches, as a reindex would), memory, and p50/p95
latency of top-10 searches: unfiltered, with an allowed-id set of 1% and with a
predicate filter. ``--embed`` also measures the static provider's load time and
throughput.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from ci_service.embeddings.index import VectorIndex


def percentiles(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p50 = statistics.median(ms)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    return f"p50 {p50:.2f} ms, p95 {p95:.2f} ms"


def bench_index(n: int, dim: int, queries: int, batch: int) -> None:
    rng = np.random.default_rng(0)
    data = rng.standard_normal((n, dim), dtype=np.float32)
    index = VectorIndex(dim)
    started = time.perf_counter()
    for start in range(0, n, batch):
        stop = min(n, start + batch)
        index.upsert(range(start, stop), data[start:stop])
    build = time.perf_counter() - started
    print(
        f"build {n} x {dim} in batches of {batch}: {build:.2f} s "
        f"({index.nbytes / 1e6:.0f} MB, capacity {index.capacity})"
    )

    one = time.perf_counter()
    index.upsert([n], rng.standard_normal((1, dim), dtype=np.float32))
    print(f"single upsert: {(time.perf_counter() - one) * 1e6:.0f} us")

    qs = rng.standard_normal((queries, dim), dtype=np.float32)
    index.search(qs[0], 10)  # warm-up
    for label, kwargs in (
        ("search k=10", {}),
        ("search k=10, allowed set of 1%", {"filter_ids": set(range(0, n, 100))}),
        ("search k=10, predicate (even ids)", {"filter_ids": lambda i: i % 2 == 0}),
    ):
        samples = []
        for q in qs:
            t = time.perf_counter()
            index.search(q, 10, **kwargs)
            samples.append(time.perf_counter() - t)
        print(f"{label}: {percentiles(samples)} over {queries} queries")


def bench_embed() -> None:
    from ci_service.embeddings.static import StaticEmbeddingProvider

    started = time.perf_counter()
    provider = StaticEmbeddingProvider()
    print(f"static model load: {(time.perf_counter() - started) * 1000:.0f} ms")
    words = provider.tokenizer.vocab[2000:12000]
    rng = np.random.default_rng(0)
    texts = [" ".join(rng.choice(words, size=int(rng.integers(8, 40)))) for _ in range(5000)]
    for label, batch in (("cold cache", texts), ("warm cache", texts)):
        t = time.perf_counter()
        for start in range(0, len(batch), 256):
            provider.embed(batch[start : start + 256])
        elapsed = time.perf_counter() - t
        print(
            f"static embed ({label}): {len(batch) / elapsed:.0f} texts/s "
            f"(~{sum(len(x.split()) for x in batch) / len(batch):.0f} words/text)"
        )
    doc = " ".join(texts[:40])
    t = time.perf_counter()
    provider.embed_query(doc)
    print(f"one {len(doc.split())}-word document: {(time.perf_counter() - t) * 1000:.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.vector_index", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=256)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--embed", action="store_true", help="also benchmark the static model")
    args = parser.parse_args()
    bench_index(args.n, args.dim, args.queries, args.batch)
    if args.embed:
        bench_embed()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
