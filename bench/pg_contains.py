"""PostgreSQL's intel substring query for ``/api/search``, with ``ILIKE`` and with ``~*``.

Usage: python -m bench.pg_contains [DATABASE_URL] [--rounds 7]

DATABASE_URL defaults to the million-item database ``python -m bench.million --backend
postgresql`` seeds (it is only read). For each query of ``python -m bench``'s search mix
with 3 characters or more, the statement ``substring_search_rows`` runs (the workspace's
newest 20 items whose content holds the query) is timed from the client, round trip and
planning included, with the ``ILIKE`` of the escaped query and with the case-insensitive
regular expression it runs for an ASCII query (``intel_search._pg_match``), alternating,
``--rounds`` times each; prints the medians and checks both found the same rows.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench.million import PG_URL
from bench.run import SEARCH_QUERIES
from ci_service.services.search.text import like_pattern, regex_literal

DEFAULT_URL = f"{PG_URL}/million_1000000_1000_postgresql"
SQL = (
    "SELECT id FROM intel_item WHERE workspace_id = %s AND content {op} %s{escape} "
    "ORDER BY seq DESC LIMIT 20"
)
FORMS = {
    "ILIKE": (SQL.format(op="ILIKE", escape=" ESCAPE '\\'"), like_pattern),
    "~*": (SQL.format(op="~*", escape=""), regex_literal),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.pg_contains", description=__doc__)
    parser.add_argument("url", nargs="?", default=DEFAULT_URL)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    import psycopg2

    conn = psycopg2.connect(args.url)
    conn.autocommit = True
    with conn.cursor() as cursor:
        cursor.execute("SELECT id FROM workspace ORDER BY created_at LIMIT 1")
        workspace = cursor.fetchone()[0]
        queries = [q for q in SEARCH_QUERIES if len(q) >= 3]
        times: dict[tuple[str, str], list[float]] = {}
        found: dict[tuple[str, str], list] = {}
        for _ in range(args.rounds):
            for query in queries:
                for form, (sql, pattern) in FORMS.items():
                    began = time.perf_counter()
                    cursor.execute(sql, (workspace, pattern(query)))
                    rows = cursor.fetchall()
                    times.setdefault((query, form), []).append(time.perf_counter() - began)
                    found[(query, form)] = rows
    conn.close()
    print(f"{'query':22} {'ILIKE ms':>9} {'~* ms':>9}  rows")
    for query in queries:
        same = found[(query, "ILIKE")] == found[(query, "~*")]
        medians = [statistics.median(times[(query, form)]) * 1000 for form in FORMS]
        rows = len(found[(query, "~*")])
        print(f"{query:22} {medians[0]:9.2f} {medians[1]:9.2f}  {rows}{'' if same else ' DIFFER'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
