"""The baseline server: a bare Flask app on the same waitress settings as ``serve``.

``python -m bench.baseline_app --port P --threads 8 [--competitors-json FILE]
[--database DB --workspace ID]``. No auth, no ORM, no schemas:

- ``GET /healthz``: ``SELECT 1`` (when a database is given) and a fixed JSON body;
- ``GET /api/competitors``: the exact bytes the real server answered (captured by the
  benchmark into ``--competitors-json``);
- ``GET /api/search?q=``: the spec's search as plain ``LIKE '%q%'`` scans with the same
  order and limits (competitor names, battlecard text, intel content newest first, at
  most 20), on the same database file (sqlite3, one connection per thread);
- ``POST /api/deals``: the deal of the JSON body as one ``INSERT`` into the same ``deal``
  table (sqlite3, ``BEGIN IMMEDIATE`` … ``COMMIT``, serve's pragmas, one connection per
  thread), answering its id: the bare stack's write, the issue's "one insert per request";
- ``POST /mcp`` (``search_intel``): brute-force cosine top-k over the same stored vectors
  (loaded into one numpy matrix on first use, as the service does), query embedded by the
  same provider, rows read by id: a vector search without the service's BM25 and
  exact-match blending, auth, JSON-RPC or schemas.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import threading
import uuid
from datetime import UTC, datetime

from flask import Flask, Response, request

LIKE_SQL = (
    (
        "SELECT id, name FROM competitor WHERE workspace_id = ? AND name LIKE ? ESCAPE '\\' "
        "ORDER BY lower(name), id LIMIT ?",
        "competitor",
    ),
    (
        "SELECT id, search_text FROM battlecard WHERE workspace_id = ? AND search_text LIKE ? "
        "ESCAPE '\\' ORDER BY updated_at DESC, id LIMIT ?",
        "battlecard",
    ),
    (
        "SELECT id, title FROM intel_item WHERE workspace_id = ? AND content LIKE ? "
        "ESCAPE '\\' ORDER BY created_at DESC, id LIMIT ?",
        "intel",
    ),
)


def create_app(competitors_body: bytes, database: str | None, workspace: str | None) -> Flask:
    app = Flask("baseline")
    local = threading.local()
    vectors: dict = {}
    vectors_lock = threading.Lock()

    def db() -> sqlite3.Connection:
        if getattr(local, "conn", None) is None:
            local.conn = sqlite3.connect(database, timeout=10)
            local.conn.execute("PRAGMA query_only = 1")
        return local.conn

    def writer() -> sqlite3.Connection:
        if getattr(local, "writer", None) is None:
            local.writer = sqlite3.connect(database, timeout=10, isolation_level=None)
            for pragma in ("journal_mode=wal", "foreign_keys=1", "busy_timeout=10000",
                           "synchronous=normal"):  # fmt: skip
                local.writer.execute(f"PRAGMA {pragma}")
        return local.writer

    @app.post("/api/deals")
    def create_deal():
        body = request.get_json()
        now = datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
        deal_id = uuid.uuid4().hex
        conn = writer()
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(
                "INSERT INTO deal (id, workspace_id, prospect_company_name, outcome, "
                "competitor_id, decision_date, deal_size, arguments, competitor_ids, "
                "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (deal_id, workspace, body["prospectCompanyName"], body["outcome"],
                 body.get("competitorId"), body.get("decisionDate"), body.get("dealSize"),
                 json.dumps(body.get("arguments") or []),
                 json.dumps([body["competitorId"]] if body.get("competitorId") else []),
                 now, now),
            )  # fmt: skip
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return {"deal": {"id": deal_id}}

    @app.get("/healthz")
    def healthz():
        if database:
            db().execute("SELECT 1").fetchone()
        return {"status": "ok"}

    @app.get("/api/competitors")
    def competitors():
        return Response(competitors_body, mimetype="application/json")

    @app.get("/api/search")
    def search():
        q = (request.args.get("q") or "").strip()
        needle = "%" + q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        results = []
        for sql, kind in LIKE_SQL:
            left = 20 - len(results)
            if left <= 0:
                break
            for row_id, text in db().execute(sql, (workspace, needle, left)).fetchall():
                results.append({"type": kind, "id": row_id, "title": text[:200]})
        return {"results": results}

    def matrix():
        import numpy as np

        with vectors_lock:
            if not vectors:
                # Streamed into one preallocated matrix (as the service loads its index),
                # so the baseline holds the vectors and nothing else.
                conn = db()
                sql = "FROM intel_embedding WHERE workspace_id = ?"
                (total,) = conn.execute(f"SELECT count(*) {sql}", (workspace,)).fetchone()
                (dim,) = conn.execute(
                    f"SELECT coalesce(max(dimension), 1) {sql}", (workspace,)
                ).fetchone()
                m = np.empty((total, dim), dtype=np.float32)
                ids = []
                for i, (item_id, blob) in enumerate(
                    conn.execute(f"SELECT item_id, vector {sql}", (workspace,))
                ):
                    m[i] = np.frombuffer(blob, dtype=np.float32)
                    ids.append(item_id)
                vectors["ids"], vectors["m"] = ids, m
        return vectors["ids"], vectors["m"]

    @app.post("/mcp")
    def mcp():
        import numpy as np

        from ci_service.services.intel import index as intel_index

        message = request.get_json()
        args = message["params"]
        limit = int(args.get("limit", 10))
        ids, m = matrix()
        query = intel_index.embed([args["query"]])[0]
        scores = m @ query
        top = np.argpartition(-scores, min(limit, len(ids) - 1))[:limit]
        top = top[np.argsort(-scores[top])]
        chosen = [ids[i] for i in top]
        marks = ",".join("?" * len(chosen))
        rows = {
            r[0]: r
            for r in db().execute(
                f"SELECT id, title, content, url FROM intel_item WHERE id IN ({marks})", chosen
            )
        }
        results = [
            {
                "id": i,
                "title": rows[i][1],
                "content": rows[i][2],
                "url": rows[i][3],
                "relevanceScore": float(scores[j]),
            }
            for i, j in zip(chosen, top, strict=True)
            if i in rows
        ]
        return {"jsonrpc": "2.0", "id": message.get("id"), "result": {"results": results}}

    return app


def main() -> None:
    from waitress import create_server

    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--competitors-json", default=None)
    parser.add_argument("--database", default=None)
    parser.add_argument("--workspace", default=None)
    args = parser.parse_args()
    body = b"{}"
    if args.competitors_json:
        with open(args.competitors_json, "rb") as fh:
            body = fh.read()
    app = create_app(body, args.database, args.workspace)
    server = create_server(
        app, host=args.host, port=args.port, threads=args.threads, ident="baseline"
    )
    print(f"baseline serving on http://{args.host}:{server.effective_port}", file=sys.stderr)
    sys.stderr.flush()
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()


if __name__ == "__main__":
    main()
