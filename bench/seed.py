"""Seed a benchmark database (run in its own process, before ``serve`` starts).

``python -m bench.seed DATABASE SPEC_JSON`` prints one JSON line: the workspace id, the
API key, competitor and product ids. Seeding is fast but faithful:

- workspace, API key, products, competitors and deals go through the services (the same
  rows and graph nodes the REST routes and serve's graph projector write); deals are
  committed 200 per transaction (each deal is a savepoint inside it);
- the collect jobs that creating a competitor queues are marked completed, so ``serve``
  does not crawl the fake ``*.example`` websites;
- battlecards are bulk inserts of the real table with the real ``search_text`` (SQLite
  triggers fill ``search_doc`` and its FTS table), as ``bench/search.py`` does;
- intel items are bulk inserts of ``intel_item`` (the triggers fill ``intel_fts``) with
  their ``intel_embedding`` rows made by the configured embedding provider from
  ``item_text(title, content)``, 1,000 per transaction, as
  ``bench/intel_search.py`` does.

``{"add_intel": N, "workspace": ID, "competitors": [...]}`` adds N more intel items.
"""

from __future__ import annotations

import json
import random
import sys
import time

WORDS = (
    "platform analytics pricing enterprise security cloud integration workflow customer "
    "dashboard automation compliance onboarding api partner revenue growth retention "
    "network identity access encryption audit report forecast pipeline marketing sales "
    "support billing invoice subscription migration latency uptime region storage backup "
    "observability alerting incident roadmap release feature beta launch acquisition"
).split()
RATE_LIMIT = 1_000_000  # the largest allowed: the load tests must never see 429


def vendor_name(n: int) -> str:
    return f"Vendor{n:04d}"


def intel_text(rng: random.Random, vendor: str) -> str:
    sentences = []
    while sum(len(s) for s in sentences) < 1000:
        sentences.append(f"{vendor} {' '.join(rng.sample(WORDS, 9))}.")
    if rng.random() < 0.002:
        sentences.append("Runs on kubernetes.")
    return " ".join(sentences)


def battlecard_content(rng: random.Random, name: str, product: str) -> dict:
    return {
        "killShot": f"{product} beats {name} on security: SSO on every plan",
        "landmines": [f"Ask {name} to demonstrate {w}" for w in rng.sample(WORDS, 3)],
        "pricingWedge": f"{name} pricing: ${rng.randint(10, 99)} per user per month",
        "whyWeWin": [
            {
                "title": f"{w.capitalize()}: {product} is stronger",
                "description": " ".join(rng.sample(WORDS, 12)),
                "evidenceIds": [],
            }
            for w in rng.sample(WORDS, 3)
        ],
        "whyWeLose": [
            {
                "title": f"{w.capitalize()}: {name} is stronger",
                "description": " ".join(rng.sample(WORDS, 12)),
                "evidenceIds": [],
            }
            for w in rng.sample(WORDS, 2)
        ],
    }


def seed_intel(ws_id: str, competitors: list[list[str]], start: int, count: int) -> None:
    from ci_service.services.intel import index as intel_index
    from ci_service.store.db import database, new_id, transaction
    from ci_service.store.intel import IntelEmbedding, IntelItem

    provider = intel_index.provider()
    rng = random.Random(11 + start)
    (seq,) = database.execute_sql("SELECT COALESCE(MAX(seq), 0) FROM intel_item").fetchone()
    batch = 1000
    for offset in range(0, count, batch):
        rows = []
        for _ in range(min(batch, count - offset)):
            seq += 1
            cid, vendor = competitors[rng.randrange(len(competitors))]
            rows.append(
                {
                    "id": new_id(),
                    "seq": seq,
                    "workspace": ws_id,
                    "competitor": cid,
                    "scope": "competitor",
                    "type": "EVIDENCE",
                    "source_type": "WEB_PAGE",
                    "url": f"https://{vendor.lower()}.example/page/{seq}",
                    "title": f"{vendor} {rng.choice(WORDS)} update {seq}",
                    "content": intel_text(rng, vendor),
                    "content_hash": f"{seq:064x}",
                    "credibility_score": 0.9,
                    "metadata": {},
                }
            )
        texts = [intel_index.item_text(r["title"], r["content"]) for r in rows]
        vectors = provider.embed(texts)
        with transaction():
            IntelItem.insert_many(rows).execute()
            IntelEmbedding.insert_many(
                [
                    {
                        "item": r["id"],
                        "workspace": ws_id,
                        "model": provider.name,
                        "dimension": provider.dimension,
                        "vector": intel_index.to_bytes(v),
                    }
                    for r, v in zip(rows, vectors, strict=True)
                ]
            ).execute()


def seed_base(spec: dict) -> dict:
    from ci_service.services.battlecards.content import search_text
    from ci_service.services.graph import projection as graph_projection
    from ci_service.services.identity import api_keys as apikeys
    from ci_service.services.workspace import deals, products
    from ci_service.services.workspace.competitors import create_competitor
    from ci_service.services.workspace.workspaces import create_workspace
    from ci_service.store.analysis import Battlecard
    from ci_service.store.db import new_id, transaction
    from ci_service.store.jobs import Job
    from ci_service.timeutil import utcnow

    rng = random.Random(7)
    ws = create_workspace("bench", "ENTERPRISE")
    with transaction():
        user = apikeys.ensure_user(ws, "bench@example.com", "OWNER")
        _, key = apikeys.create_key(user, name="bench", rate_limit=RATE_LIMIT)

    n_comp = spec.get("competitors", 50)
    n_cards = spec.get("battlecards", 0)
    n_products = max(1, -(-n_cards // max(1, n_comp)))
    product_ids = []
    with transaction():
        for k in range(n_products):
            row = products.create_product(
                ws.id,
                {
                    "name": f"Acme Product {k}",
                    "description": "Hosted platform for IT teams",
                    "audience": "IT teams",
                    "capabilities": [{"name": "Single sign-on"}, {"name": "Audit logs"}],
                },
            )
            product_ids.append(row.id)

    competitors: list[list[str]] = []
    with transaction():
        for n in range(n_comp):
            name = vendor_name(n)
            row, _ = create_competitor(
                ws.id,
                {
                    "name": name,
                    "websiteUrl": f"https://{name.lower()}.example",
                    "relevantProductIds": [product_ids[n % n_products]],
                },
            )
            competitors.append([row.id, name])
        now = utcnow()
        Job.update(
            status="completed", progress=100, current_step="Completed", completed_at=now
        ).where(Job.workspace == ws.id).execute()

    cards = []
    for i in range(n_cards):
        cid, name = competitors[i % n_comp]
        pid = product_ids[i // n_comp]
        content = battlecard_content(rng, name, f"Acme Product {i // n_comp}")
        cards.append(
            {
                "id": new_id(),
                "workspace": ws.id,
                "competitor": cid,
                "my_product": pid,
                "mode": "ATTACK",
                "status": "READY",
                "content": content,
                "evidence_ids": [],
                "search_text": search_text(content),
                "generated_at": utcnow(),
            }
        )
    with transaction():
        for start in range(0, len(cards), 200):
            Battlecard.insert_many(cards[start : start + 200]).execute()

    n_deals = spec.get("deals", 0)
    for start in range(0, n_deals, 200):
        with transaction():
            for i in range(start, min(n_deals, start + 200)):
                lost = i % 3 != 0
                deals.create_deal(
                    ws.id,
                    {
                        "prospectCompanyName": f"Seed Prospect {i % 500}",
                        "outcome": "LOST" if lost else "WON",
                        "competitorId": competitors[i % n_comp][0] if lost else None,
                        "decisionDate": "2026-03-31",
                        "arguments": rng.sample(["price", "integrations", "support", "sso"], 2),
                    },
                )
            # Their graph nodes, as serve's projector writes them (services/graph/
            # projection.py): a seeded database is one that has been served.
            while graph_projection.project_pending(ws.id):
                pass

    seed_intel(ws.id, competitors, 0, spec.get("intel", 0))
    return {
        "workspace": ws.id,
        "key": key,
        "competitors": competitors,
        "products": product_ids,
    }


def main(argv: list[str] | None = None) -> None:
    from ci_service.store.db import connection, open_database

    argv = sys.argv[1:] if argv is None else argv
    database, spec = argv[0], json.loads(argv[1])
    started = time.perf_counter()
    open_database(database)
    with connection():
        if spec.get("add_intel"):
            seed_intel(spec["workspace"], spec["competitors"], spec["start"], spec["add_intel"])
            out: dict = {}
        else:
            out = seed_base(spec)
    out["seconds"] = round(time.perf_counter() - started, 2)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
