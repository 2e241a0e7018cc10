"""Building a :class:`~ci_service.embeddings.mapped.MappedVectorIndex` from scratch: its
rows written in a temporary directory, renamed into place when complete."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from .mapped import FORMAT, MEAN_SAMPLE, MappedVectorIndex, _normalised


def build(
    path: Path | str,
    dimension: int,
    batches: Iterable[tuple[list[int], list[str], np.ndarray]],
    *,
    model: str | None,
    stamp: int,
    checks: int = 8,
) -> MappedVectorIndex:
    """Write a new index at ``path`` from ``(keys, ids, vectors)`` batches in increasing key
    order, in a temporary directory renamed into place at the end (a half-built index is
    never opened). ``mean`` is the centre of the first ``MEAN_SAMPLE`` rows (held until it
    is known, then written; the rest streams through)."""
    import shutil
    import tempfile

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = Path(tempfile.mkdtemp(prefix=path.name + ".build-", dir=path.parent))
    try:
        index = MappedVectorIndex(temp, dimension, model=model)
        sample: list[np.ndarray] = []
        pending: list[tuple[list[int], list[str], np.ndarray]] = []
        mean_set = False
        for keys, ids, vectors in batches:
            if not mean_set:
                matrix = _normalised(vectors, len(keys), dimension)
                sample.append(matrix)
                pending.append((keys, ids, matrix))
                if sum(len(s) for s in sample) < MEAN_SAMPLE:
                    continue
                index._mean = np.concatenate(sample).mean(axis=0).astype(np.float32)
                index._meta = {"mean": index._mean.tolist()}
                mean_set = True
                for keys_, ids_, matrix_ in pending:
                    index.upsert(keys_, matrix_, ids_)
                pending = []
                continue
            index.upsert(keys, vectors, ids)
        if not mean_set and sample:
            index._mean = np.concatenate(sample).mean(axis=0).astype(np.float32)
            index._meta = {"mean": index._mean.tolist()}
            for keys_, ids_, matrix_ in pending:
                index.upsert(keys_, matrix_, ids_)
        meta = index.read_meta() or {
            "format": FORMAT, "dimension": dimension, "model": model, "count": 0,
            "sorted": 0, "id_width": 32, "mean": index._mean.tolist(),
        }  # fmt: skip
        n = int(meta["count"])
        picks = sorted({int(i) for i in np.linspace(0, n - 1, min(n, checks))}) if n else []
        meta["stamp"] = int(stamp)
        meta["checks"] = [
            [int(index._seq[i]), index._ids[i].decode("ascii", "replace")] for i in picks
        ]
        index._write_meta(meta)
        del index
        old = path.with_name(path.name + f".old-{os.getpid()}")
        if path.exists():
            os.replace(path, old)
        os.replace(temp, path)
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise
    return MappedVectorIndex(path, dimension, model=model)
