"""A million intel items (issue 31): the search, list and page reads of a real ``serve``.

    python -m bench.million --items 1000000 --competitors 1000 --backend sqlite
    python -m bench.million --items 1000000 --competitors 1000 --backend postgresql --reuse

Seeds (or with ``--reuse`` reuses) a database of ``--items`` intel items over
``--competitors`` competitors, then starts ``ci-service serve --no-scheduler --threads 8``
on it and measures over HTTP, one request at a time on a keep-alive connection:

- spawn to the first 200 on ``/healthz``, and the first ``search_intel`` after it (cold);
  serve starts without vector files (``--keep-vectors`` keeps them), so its first search
  starts their build in the background; the run waits for ``meta.json`` before the rounds;
- ``/api/search`` p50/p95 over bench/run.py's 8-query mix, ``search_intel`` (``POST /mcp``,
  the 5 semantic queries), ``GET /api/intel?limit=50`` (first page), the same with a
  competitor filter, ``GET /api/competitors/{id}`` and the competitor web page (signed in,
  summary and intel tabs), each ``--rounds`` times after one warm-up round;
- ``search_intel`` with ``2 × --rounds`` queries never asked before (nothing cached);
- serve's VmRSS after the searches.

The GET response cache is off (``CI_SERVICE_RESPONSE_CACHE_MB=0``; ``--response-cache``
keeps it): repeating a request would otherwise time a cache hit, not the read.

Seeding: the workspace, the API key, the competitors and ``--battlecards`` battlecards
through the services (``seed_base`` below), then intel items as bulk inserts of the real
tables: SQLite
``executemany`` in 20,000-row transactions with ``synchronous=OFF`` (the FTS triggers fill
``intel_fts``; then ``ci-service optimize-index``); PostgreSQL ``COPY`` with the trigram
indexes dropped during the load and built again after it, then ``VACUUM ANALYZE``. Item
texts are bench/seed.py's (a vendor's sentences of 9 random words, ~1,000 characters, 1 in
500 items say "Runs on kubernetes."); the vectors are exactly what the static embedding
provider makes of them, computed from per-word token sums (its vector is the normalised sum
of its tokens' vectors), checked against ``provider.embed`` on a sample, stamped 1 (the
code before issue 31 loaded only vectors stamped above 0). Seeded databases
live in ``--dir`` (default ``/tmp/ci-million``; PostgreSQL: database ``ci_million_N_C``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import httpx

from bench import procs
from bench.run import SEARCH_QUERIES, SEMANTIC_QUERIES
from bench.seed import WORDS, vendor_name

PG_URL = "postgresql://postgres@127.0.0.1:5432"
PASSWORD = "bench-million-password"
BATCH = 20_000
COLUMNS = (
    "id seq workspace_id competitor_id scope type source_type url title content "
    "content_hash credibility_score metadata created_at updated_at"
).split()


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


class Texts:
    """Item texts and their exact static-provider vectors, a batch at a time."""

    def __init__(self, provider, competitors: list[list[str]], chars: int, seed: int = 11):
        import numpy as np

        self.np = np
        self.provider = provider
        self.competitors = competitors
        self.rng = np.random.default_rng(seed)
        vec = provider._vectors  # the static model's token vectors (float16)

        def tokens(text: str):
            # Summed in float32, as the provider's embed does.
            return vec[provider.token_ids(text)].sum(axis=0, dtype=np.float32)

        self.tokens = tokens
        self.word_sum = np.stack([tokens(w) for w in WORDS])
        self.vendor_sum = np.stack([tokens(name) + tokens(".") for _, name in competitors])
        self.update_sum = tokens("update")
        self.rare_sum = tokens("Runs on kubernetes.")
        self.words = np.array(WORDS)
        # A sentence is "Vendor0001 w1 ... w9." (~90 characters).
        self.sentences = max(1, round(chars / 90))

    def batch(self, first_seq: int, n: int):
        """``(titles, contents, competitor indexes, vectors)`` of items ``first_seq``..."""
        np, rng, s = self.np, self.rng, self.sentences
        comp = rng.integers(0, len(self.competitors), n)
        picks = np.argsort(rng.random((n * s, len(WORDS))), axis=1)[:, :9]
        title_word = rng.integers(0, len(WORDS), n)
        rare = rng.random(n) < 0.002
        counts = (
            np.bincount(
                (np.repeat(np.arange(n), s * 9) * len(WORDS) + picks.reshape(-1)),
                minlength=n * len(WORDS),
            )
            .reshape(n, len(WORDS))
            .astype(np.float32)
        )
        counts[np.arange(n), title_word] += 1
        sums = counts @ self.word_sum + s * self.vendor_sum[comp]
        sums += self.vendor_sum[comp] - self.tokens(".")  # the title's vendor name
        sums += self.update_sum + rare[:, None] * self.rare_sum
        titles, contents = [], []
        words = self.words[picks].reshape(n, s, 9).tolist()
        for i in range(n):
            vendor = self.competitors[comp[i]][1]
            seq = first_seq + i
            titles.append(f"{vendor} {WORDS[title_word[i]]} update {seq}")
            body = " ".join(f"{vendor} {' '.join(ws)}." for ws in words[i])
            contents.append(body + " Runs on kubernetes." if rare[i] else body)
            sums[i] += self.tokens(str(seq))
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        return titles, contents, comp, (sums / np.where(norms > 0, norms, 1)).astype(np.float32)


def _rows(ws: str, texts: Texts, first_seq: int, n: int, model: str, dim: int):
    from ci_service.services.intel.index import item_text
    from ci_service.store.db import new_id
    from ci_service.timeutil import utcnow

    titles, contents, comp, vectors = texts.batch(first_seq, n)
    now = utcnow()
    items, vecs = [], []
    for i in range(n):
        seq = first_seq + i
        cid, vendor = texts.competitors[comp[i]]
        item_id = new_id()
        items.append(
            (item_id, seq, ws, cid, "competitor", "EVIDENCE", "WEB_PAGE",
             f"https://{vendor.lower()}.example/page/{seq}", titles[i], contents[i],
             f"{seq:064x}", 0.9, "{}", now, now)
        )  # fmt: skip
        vecs.append((item_id, ws, model, dim, vectors[i].tobytes(), 1))
    if first_seq == 1:  # the shortcut is exact: check it against the provider
        check = texts.provider.embed([item_text(titles[i], contents[i]) for i in range(50)])
        worst = float(abs(check - vectors[:50]).max())
        if worst > 1e-4:
            raise procs.BenchError(f"seed vectors differ from the provider's by {worst}")
    return items, vecs


def seed_base(n_comp: int, n_cards: int) -> dict:
    """The workspace, its API key, products, competitors and battlecards through the
    services, as bench/seed.py's ``seed_base``, except that each product is relevant to at
    most 20 competitors: bench/seed.py makes every competitor relevant to one product, and
    the knowledge graph then links every pair of them (``competes_with``), which at 1,000
    competitors is half a million edges and 30+ minutes of seeding."""
    import random

    from bench.seed import RATE_LIMIT, battlecard_content
    from ci_service.services.battlecards.content import search_text
    from ci_service.services.identity import api_keys
    from ci_service.services.workspace import products
    from ci_service.services.workspace.competitors import create_competitor
    from ci_service.services.workspace.workspaces import create_workspace
    from ci_service.store.analysis import Battlecard
    from ci_service.store.db import new_id, transaction
    from ci_service.store.jobs import Job
    from ci_service.timeutil import utcnow

    rng = random.Random(7)
    ws = create_workspace("bench", "ENTERPRISE")
    with transaction():
        user = api_keys.ensure_user(ws, "bench@example.com", "OWNER")
        _, key = api_keys.create_key(user, name="bench", rate_limit=RATE_LIMIT)
    n_products = max(1, -(-n_comp // 20))
    with transaction():
        product_ids = [
            products.create_product(
                ws.id,
                {"name": f"Acme Product {k}", "description": "Hosted platform for IT teams",
                 "audience": "IT teams", "capabilities": [{"name": "Single sign-on"}]},
            ).id
            for k in range(n_products)
        ]  # fmt: skip
    competitors: list[list[str]] = []
    for start in range(0, n_comp, 100):
        with transaction():
            for n in range(start, min(n_comp, start + 100)):
                name = vendor_name(n)
                row, _ = create_competitor(
                    ws.id,
                    {"name": name, "websiteUrl": f"https://{name.lower()}.example",
                     "relevantProductIds": [product_ids[n % n_products]]},
                )  # fmt: skip
                competitors.append([row.id, name])
    with transaction():
        Job.update(
            status="completed", progress=100, current_step="Completed", completed_at=utcnow()
        ).where(Job.workspace == ws.id).execute()
    cards = []
    for i in range(n_cards):
        cid, name = competitors[i % n_comp]
        k = (i % n_comp) % n_products
        content = battlecard_content(rng, name, f"Acme Product {k}")
        cards.append(
            {"id": new_id(), "workspace": ws.id, "competitor": cid, "my_product": product_ids[k],
             "mode": "ATTACK", "status": "READY", "content": content, "evidence_ids": [],
             "search_text": search_text(content), "generated_at": utcnow()}
        )  # fmt: skip
    with transaction():
        for start in range(0, len(cards), 200):
            Battlecard.insert_many(cards[start : start + 200]).execute()
    return {"workspace": ws.id, "key": key, "competitors": competitors}


def seed(args, database: str, log) -> dict:
    """Seed the base through the services, then the intel items in bulk."""
    from ci_service.services.identity import users
    from ci_service.services.intel import index as intel_index
    from ci_service.store.db import connection, is_postgres, open_database
    from ci_service.store.db import database as db

    open_database(database)
    started = time.perf_counter()
    with connection():
        info = seed_base(args.competitors, args.battlecards)
        users.set_password("bench@example.com", PASSWORD)
        log(f"base seeded in {time.perf_counter() - started:.1f} s")
        started = time.perf_counter()
        provider = intel_index.provider()
        texts = Texts(provider, info["competitors"], args.chars)
        model, dim = provider.name, provider.dimension
        if is_postgres():
            _load_postgres(db, info["workspace"], texts, args.items, model, dim, log)
        else:
            _load_sqlite(db, info["workspace"], texts, args.items, model, dim, log)
    db.close()
    info["intel_seconds"] = round(time.perf_counter() - started, 1)
    log(f"{args.items} items in {info['intel_seconds']} s")
    if not is_postgres():
        started = time.perf_counter()
        procs.optimize_index(database)
        log(f"optimize-index in {time.perf_counter() - started:.1f} s")
    return info


def _load_sqlite(db, ws, texts, total, model, dim, log) -> None:
    conn = db.connection()
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute("PRAGMA cache_size=-1000000")
    item_sql = f"INSERT INTO intel_item ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * 15)})"
    vec_sql = (
        "INSERT INTO intel_embedding (item_id, workspace_id, model, dimension, vector, stamp) "
        "VALUES (?, ?, ?, ?, ?, ?)"
    )
    for start in range(0, total, BATCH):
        n = min(BATCH, total - start)
        items, vecs = _rows(ws, texts, start + 1, n, model, dim)
        items = [(*r[:13], r[13].isoformat(), r[14].isoformat()) for r in items]
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(item_sql, items)
        conn.executemany(vec_sql, vecs)
        conn.execute("COMMIT")
        if (start // BATCH) % 10 == 0:
            log(f"  {start + n} items")


def _copy_text(value) -> str:
    if value is None:
        return "\\N"
    if isinstance(value, bytes):
        return "\\\\x" + value.hex()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value).replace("\\", "\\\\").replace("\t", " ").replace("\n", " ")


def _load_postgres(db, ws, texts, total, model, dim, log) -> None:
    import io

    from ci_service.store.intel import PG_TRGM_SQL

    db.execute_sql("DROP INDEX IF EXISTS intel_item_title_trgm")
    db.execute_sql("DROP INDEX IF EXISTS intel_item_content_trgm")
    raw = db.connection()
    raw.commit()
    for start in range(0, total, BATCH):
        n = min(BATCH, total - start)
        items, vecs = _rows(ws, texts, start + 1, n, model, dim)
        with raw.cursor() as cursor:
            for table, columns, rows in (
                ("intel_item", COLUMNS, items),
                ("intel_embedding",
                 ["item_id", "workspace_id", "model", "dimension", "vector", "stamp"], vecs),
            ):  # fmt: skip
                buffer = io.StringIO()
                for row in rows:
                    buffer.write("\t".join(_copy_text(v) for v in row) + "\n")
                buffer.seek(0)
                cursor.copy_expert(f"COPY {table} ({', '.join(columns)}) FROM STDIN", buffer)
        raw.commit()
        if (start // BATCH) % 10 == 0:
            log(f"  {start + n} items")
    started = time.perf_counter()
    with raw.cursor() as cursor:
        cursor.execute("SET maintenance_work_mem = '2GB'")
        for statement in PG_TRGM_SQL:
            cursor.execute(statement)
    raw.commit()
    log(f"  trigram indexes built in {time.perf_counter() - started:.0f} s")
    raw.autocommit = True
    with raw.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE intel_item")
        cursor.execute("VACUUM ANALYZE intel_embedding")
    raw.autocommit = False


def _pg_database(args, name: str, fresh: bool) -> str:
    import psycopg2

    conn = psycopg2.connect(args.pg_url + "/postgres")
    conn.autocommit = True
    with conn.cursor() as cursor:
        if fresh:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            cursor.execute(f'CREATE DATABASE "{name}"')
    conn.close()
    return f"{args.pg_url}/{name}"


def prepare(args, log) -> tuple[str, dict]:
    work = Path(args.dir)
    work.mkdir(parents=True, exist_ok=True)
    name = f"million-{args.items}-{args.competitors}-{args.backend}"
    info_file = work / f"{name}.json"
    reuse = args.reuse and info_file.exists()
    if args.backend == "postgresql":
        database = _pg_database(args, name.replace("-", "_"), fresh=not reuse)
    else:
        database = str(work / f"{name}.db")
        if not reuse:
            for suffix in ("", "-wal", "-shm"):
                Path(database + suffix).unlink(missing_ok=True)
    if reuse:
        log(f"reusing {name}")
        return database, json.loads(info_file.read_text())
    info = seed(args, database, log)
    info_file.write_text(json.dumps(info))
    return database, info


def vector_dir(database: str) -> Path:
    """Where serve keeps the database's vector files (services/intel/index.py)."""
    import hashlib
    import tempfile

    from ci_service.store.db import redact_url

    if database.startswith("postgres"):
        digest = hashlib.sha256(redact_url(database).encode()).hexdigest()[:16]
        return Path(tempfile.gettempdir()) / "ci-service-vectors" / digest
    return Path(database + ".vectors")


def wait_for_vectors(database: str, timeout: float = 900) -> float | None:
    """Seconds until serve's background build has written the vector files (None: the
    code measured keeps no files)."""
    began = time.perf_counter()
    while time.perf_counter() - began < timeout:
        built = vector_dir(database).glob("*/meta.json")
        if any(".build-" not in path.parent.name for path in built):  # not a build's temp
            return time.perf_counter() - began
        time.sleep(0.1)
    return None


def measure(args, database: str, info: dict, log) -> dict:
    import shutil

    if not args.keep_vectors:  # serve starts without them: the build is part of the run
        shutil.rmtree(vector_dir(database), ignore_errors=True)
    env = {"CI_SERVICE_SECRET_KEY_FILE": str(Path(args.dir) / "secret.key")}
    if not args.response_cache:  # every request does its work, as the first after a write
        env["CI_SERVICE_RESPONSE_CACHE_MB"] = "0"
    server = procs.serve(database, env=env, threads=8)
    if args.code:  # serve another checkout's code (the figures before a change)
        server.env.update(PYTHONPATH=args.code, PYTHONSAFEPATH="1")
    server.timeout = 600
    server.start()
    out: dict = {"start_s": round(server.start_seconds, 3), "load": os.getloadavg()[0]}
    log(f"serve answered /healthz after {server.start_seconds:.2f} s")
    try:
        key = {"X-API-Key": info["key"]}
        comp = info["competitors"][len(info["competitors"]) // 2][0]
        http = httpx.Client(base_url=server.url, timeout=600)
        mcp = {"jsonrpc": "2.0", "id": 1, "method": "search_intel"}
        began = time.perf_counter()
        http.post("/mcp", json={**mcp, "params": {"query": "pricing"}}, headers=key)
        out["first_search_intel_s"] = round(time.perf_counter() - began, 3)
        log(f"first search_intel {out['first_search_intel_s']} s")
        if not args.code:
            waited = wait_for_vectors(database)
            out["vector_build_s"] = None if waited is None else round(waited, 1)
            log(f"vector files written {out['vector_build_s']} s after the first search")
        http.get("/signin")  # sets the double-submit CSRF cookie
        form = {"email": "bench@example.com", "password": PASSWORD, "next": "/"}
        signin = http.post("/signin", data={**form, "csrf_token": http.cookies.get("ci_csrf")})
        if signin.status_code not in (200, 302, 303):
            raise procs.BenchError(f"sign-in: {signin.status_code}")
        requests = {
            "GET /healthz (the floor)": [("GET", "/healthz", None, None, {})],
            "/api/search": [("GET", "/api/search", {"q": q}, None, key) for q in SEARCH_QUERIES],
            "search_intel": [
                ("POST", "/mcp", None, {**mcp, "params": {"query": q}}, key)
                for q in SEMANTIC_QUERIES
            ],
            "search_intel (competitor)": [
                ("POST", "/mcp", None, {**mcp, "params": {"query": q, "competitorId": comp}}, key)
                for q in SEMANTIC_QUERIES[1:3]
            ],
            "GET /api/intel?limit=50": [("GET", "/api/intel", {"limit": 50}, None, key)],
            "GET /api/intel?competitorId&limit=50": [
                ("GET", "/api/intel", {"limit": 50, "competitorId": comp}, None, key)
            ],
            "GET /api/intel (default 1000)": [("GET", "/api/intel", None, None, key)],
            "GET /api/competitors/{id}": [("GET", f"/api/competitors/{comp}", None, None, key)],
            "competitor page": [("GET", f"/competitors/{comp}", None, None, {})],
            "competitor page, intel tab": [
                ("GET", f"/competitors/{comp}", {"tab": "intel"}, None, {})
            ],
        }
        times: dict[str, list[float]] = {name: [] for name in requests}
        for round_ in range(args.rounds + 1):
            for name, batch in requests.items():
                for method, path, params, body, headers in batch:
                    began = time.perf_counter()
                    answer = http.request(method, path, params=params, json=body, headers=headers)
                    elapsed = (time.perf_counter() - began) * 1000
                    if answer.status_code != 200 or (path == "/mcp" and "error" in answer.json()):
                        raise procs.BenchError(f"{name}: {answer.status_code} {answer.text[:300]}")
                    if round_:
                        times[name].append(elapsed)
        # Queries never asked before (no cached document frequency or candidates): a name
        # with a word, and two words, new every time.
        fresh = []
        for r in range(2 * args.rounds):
            n = (7 + 37 * r) % len(info["competitors"])
            words = WORDS[r % len(WORDS)], WORDS[(3 * r + 1) % len(WORDS)]
            query = f"Vendor{n:04d} {words[0]}" if r % 2 else f"{words[0]} {words[1]} news {r}"
            began = time.perf_counter()
            answer = http.post("/mcp", json={**mcp, "params": {"query": query}}, headers=key)
            fresh.append((time.perf_counter() - began) * 1000)
            if answer.status_code != 200 or "error" in answer.json():
                raise procs.BenchError(f"search_intel {query!r}: {answer.text[:300]}")
        times["search_intel, a new query each time"] = fresh
        out["rss_mb"] = round(server.rss_mb(), 1)
        for name, samples in times.items():
            out[name] = {"p50": round(statistics.median(samples), 2), "p95": round(p95(samples), 2)}
    finally:
        server.stop()
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.million", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--competitors", type=int, default=1000)
    parser.add_argument("--battlecards", type=int, default=1000)
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--chars", type=int, default=1000, help="about this long an item")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--dir", default="/tmp/ci-million")
    parser.add_argument("--pg-url", default=PG_URL)
    parser.add_argument("--reuse", action="store_true", help="reuse a database seeded before")
    parser.add_argument(
        "--response-cache", action="store_true", help="keep the GET response cache on"
    )
    parser.add_argument("--code", help="serve the ci_service package of this checkout")
    parser.add_argument(
        "--keep-vectors", action="store_true", help="start serve with the vector files there"
    )
    parser.add_argument("--seed-only", action="store_true", help="seed, do not measure")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    def log(message: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)

    database, info = prepare(args, log)
    if args.seed_only:
        return
    result = measure(args, database, info, log)
    result.update(items=args.items, competitors=args.competitors, backend=args.backend)
    if args.json:
        print(json.dumps(result))
        return
    print(f"{args.backend}, {args.items} items, {args.competitors} competitors")
    print(f"  load average at the start    {result['load']:.1f}")
    print(f"  start -> first 200 /healthz  {result['start_s']:.2f} s")
    print(f"  first search_intel           {result['first_search_intel_s']:.2f} s")
    if result.get("vector_build_s") is not None:
        print(f"  vector files built (bg)      {result['vector_build_s']:.1f} s after it")
    print(f"  serve VmRSS after searches   {result['rss_mb']:.0f} MB")
    for name, value in result.items():
        if isinstance(value, dict):
            print(f"  {name:38} p50 {value['p50']:8.2f} ms   p95 {value['p95']:8.2f} ms")


if __name__ == "__main__":
    main()
