#!/usr/bin/env python3
"""Compare the shipped static model with the full all-MiniLM-L6-v2 it was distilled from.

Needs the distillation venv plus sentence-transformers (see
scripts/distill_static_embeddings.py), with the repository on the path:

    /tmp/distill-venv/bin/pip install "sentence-transformers>=3,<6" torch==2.13.0
    PYTHONPATH=. /tmp/distill-venv/bin/python -m bench.static_vs_minilm

Prints:
* tokenizer parity: our pure-Python WordPiece tokenizer against the model's
  ``tokenizer.json`` run by the Rust ``tokenizers`` library;
* Spearman correlation of all pairwise cosine similarities of a small corpus;
* retrieval: top-1 accuracy of each model on labelled queries and how often the two
  agree on the top document.
"""

from __future__ import annotations

import itertools
import sys
import time

import numpy as np

from ci_service.embeddings.minilm import MiniLMEmbeddingProvider, local_model_path
from ci_service.embeddings.static import StaticEmbeddingProvider

DOCUMENTS = [
    "Pricing starts at $49 per user per month, billed annually; the Enterprise plan is custom.",
    "Acme raised a $120 million Series C led by Sequoia to expand into Europe.",
    "The company opened a new engineering office in Berlin and plans to hire 200 people.",
    "Version 5.2 adds single sign-on with SAML and SCIM user provisioning.",
    "Customers report frequent outages and slow support response times during peak hours.",
    "The CEO stepped down after three years; the CFO becomes interim chief executive.",
    "A free tier includes up to three projects and community support.",
    "The platform is SOC 2 Type II certified and supports data residency in the EU.",
    "Globex acquired the analytics startup Initech for an undisclosed sum.",
    "The mobile app now supports offline mode and dark theme on iOS and Android.",
    "Revenue grew 35% year over year to $410 million in the fiscal fourth quarter.",
    "The integration marketplace lists connectors for Salesforce, HubSpot and Slack.",
    "Layoffs affected roughly 10% of staff, mostly in sales and marketing.",
    "A patent lawsuit alleges the search feature infringes on three existing patents.",
    "The new API rate limit is 1,000 requests per minute for paid accounts.",
]

# (query, index of the document that answers it)
QUERIES = [
    ("how much does it cost per month", 0),
    ("funding round investors", 1),
    ("where are they hiring engineers", 2),
    ("SSO support", 3),
    ("reliability problems and downtime complaints", 4),
    ("leadership change at the top", 5),
    ("is there a free plan", 6),
    ("security compliance certifications", 7),
    ("mergers and acquisitions", 8),
    ("new features in the phone app", 9),
    ("annual revenue growth", 10),
    ("third-party integrations with CRM tools", 11),
    ("job cuts", 12),
    ("legal dispute over intellectual property", 13),
    ("API throttling limits", 14),
]

TOKENIZER_CASES = [
    "Hello, World!",
    "Café naïve résumé — coöperate",
    "Ünïcödé ÀÉÎÕÜ ﬁne ﬂow",
    "don't won't it's O'Reilly",
    "e-mail: sales@example.com, https://example.com/pricing?plan=pro#top",
    "北京欢迎你 and 東京 and 서울",
    "Ελληνικά και Русский текст",
    "$1,299.99 (USD) / 12 months = 108.33/mo",
    "tabs\tand\nnewlines\r\nand  double  spaces",
    "zero\u200bwidth and soft\u00adhyphen",
    "emoji 🚀🔥 rocket",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "x" * 120,
    "GPT-4o vs. Claude-3.5: benchmark #1",
    "C++ and C# and F# and .NET",
    "naïve_bayes snake_case CamelCaseWord ALLCAPS",
    "“smart quotes” and ‘single’ and «guillemets»",
    "1st 2nd 3rd 10,000 3.14159 1e-9",
    "Ⅻ ① ² ½",
    "a\x07b control\x01chars",
]


def tokenizer_parity(static: StaticEmbeddingProvider) -> tuple[int, int, list[str]]:
    from tokenizers import Tokenizer

    reference = Tokenizer.from_file(str(local_model_path() / "tokenizer.json"))
    reference.no_padding()
    reference.no_truncation()
    cases = TOKENIZER_CASES + DOCUMENTS + [q for q, _ in QUERIES]
    mismatches = []
    for text in cases:
        ours = static.tokenizer.tokenize(text)
        theirs = reference.encode(text, add_special_tokens=False).tokens
        if ours != theirs:
            mismatches.append(f"{text!r}: ours={ours} reference={theirs}")
    return len(cases) - len(mismatches), len(cases), mismatches


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    ra = np.argsort(np.argsort(a)).astype(float)
    rb = np.argsort(np.argsort(b)).astype(float)
    return float(np.corrcoef(ra, rb)[0, 1])


def main() -> int:
    static = StaticEmbeddingProvider()
    started = time.monotonic()
    minilm = MiniLMEmbeddingProvider(threads=2)
    print(f"MiniLM loaded in {time.monotonic() - started:.1f} s")

    ok, total, mismatches = tokenizer_parity(static)
    print(f"tokenizer parity: {ok}/{total} texts tokenized identically")
    for line in mismatches:
        print("  MISMATCH", line)

    texts = DOCUMENTS + [q for q, _ in QUERIES]
    s, m = static.embed(texts), minilm.embed(texts)
    pairs = list(itertools.combinations(range(len(texts)), 2))
    cs = np.array([s[i] @ s[j] for i, j in pairs])
    cm = np.array([m[i] @ m[j] for i, j in pairs])
    rho = spearman(cs, cm)
    print(f"pairwise cosine Spearman (static vs MiniLM, {len(pairs)} pairs): {rho:.3f}")

    docs_s, docs_m = s[: len(DOCUMENTS)], m[: len(DOCUMENTS)]
    queries_s, queries_m = s[len(DOCUMENTS) :], m[len(DOCUMENTS) :]
    top_s = (queries_s @ docs_s.T).argmax(1)
    top_m = (queries_m @ docs_m.T).argmax(1)
    gold = np.array([g for _, g in QUERIES])
    print(
        f"retrieval top-1: static {int((top_s == gold).sum())}/{len(gold)}, "
        f"MiniLM {int((top_m == gold).sum())}/{len(gold)}, "
        f"agreement {int((top_s == top_m).sum())}/{len(gold)}"
    )
    for (query, g), ts, tm in zip(QUERIES, top_s, top_m, strict=True):
        if ts != g or tm != g:
            print(f"  {query!r}: gold {g}, static {ts}, MiniLM {tm}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
