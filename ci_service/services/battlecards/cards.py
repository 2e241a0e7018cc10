"""Battlecards: one card per (competitor, our product), generated from the matrix and the
evidence (content rules: ``services/battlecards/content.py``).

Generation is asynchronous. ``start_generation`` validates, creates the card if needed
(empty content) or keeps the current one, marks it GENERATING with the requested mode and
queues a ``generate-battlecard`` job for the competitor, all in one transaction. The job
engine allows one active job of a type per competitor, so two products' cards requested
at once share a job: the job's step regenerates every GENERATING card of the competitor
until none is left, and its completion hook (in the transaction that completes the job)
finishes any card requested after the step's last look. Regenerating replaces the card's
content and mode, then re-applies its hand edits (``services/battlecards/edits.py``); cards
never pile up. A failed or cancelled job marks its pending cards FAILED and leaves their
previous content in place. Regenerating a card that had generated content into content
that reads differently (:func:`readable`: not evidence ids, links, dates or counters) is a
``battlecard.updated`` event (in the regenerating transaction); a card's first content is
not.

Mode shown: while a card is GENERATING its ``mode`` is the requested one (the answer to
generate, and every read until the job ends, show the card as it is being generated, its
content possibly still the previous one); ``mode`` is stored only when the content in that
mode is written, so a failed or cancelled job shows the mode of the content it kept.
Callers without a mode (the generate_battlecard tool without ``mode``) keep the card's
mode (a pending request's, else the written one), ATTACK for a new card.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from ci_service.errors import NotFound, ValidationFailed
from ci_service.jobs.queue import enqueue
from ci_service.jobs.registry import GENERATE_BATTLECARD as GENERATE
from ci_service.jobs.types import JobContext
from ci_service.services.analysis import feature_presence, matrix
from ci_service.services.battlecards import content as battlecard_content
from ci_service.services.battlecards import edits as battlecard_edits
from ci_service.services.common import cleanup
from ci_service.services.common.records import get_competitor as _competitor
from ci_service.services.intel.items import evidence_record
from ci_service.store.analysis import BATTLECARD_MODES, Battlecard
from ci_service.store.competitors import Competitor
from ci_service.store.db import transaction
from ci_service.store.intel import IntelItem
from ci_service.store.jobs import Job
from ci_service.store.resources import Offering
from ci_service.timeutil import iso, utcnow

EMPTY_CONTENT = {
    "whyWeWin": [],
    "whyWeLose": [],
    "objections": [],
    "talkingPoints": [],
    "killShot": "",
    "landmines": [],
    "pricingWedge": "",
}


def _product(workspace_id: str, product_id: str) -> Offering:
    row = Offering.get_or_none(
        (Offering.id == product_id)
        & (Offering.workspace == workspace_id)
        & Offering.competitor.is_null()
    )
    if row is None:
        raise NotFound.of("Product")
    return row


def _check_args(product_id: Any, mode: Any) -> None:
    fields: dict[str, list[str]] = {}
    if not isinstance(product_id, str) or not product_id.strip():
        fields["productId"] = ["is required (one of the workspace's products)"]
    if mode not in BATTLECARD_MODES:
        fields["mode"] = [f"must be one of {', '.join(BATTLECARD_MODES)}"]
    if fields:
        text = ", ".join(f"{k} ({v[0]})" for k, v in fields.items())
        raise ValidationFailed(f"Invalid request: {text}", {"fields": fields})


# -- generation -------------------------------------------------------------------------


def regenerate(card: Battlecard, mode: str | None = None) -> Battlecard:
    """Write fresh content on ``card`` (call inside a transaction)."""
    competitor = Competitor.get_by_id(card.competitor_id)
    product = Offering.get_by_id(card.my_product_id)
    mode = mode or card.requested_mode or card.mode
    offerings, intel = feature_presence.load(card.workspace_id, competitor)
    content = battlecard_content.generate_content(
        card.workspace_id, competitor, product, mode, offerings, intel
    )
    content, card.edits = battlecard_edits.reapply(content, card.edits or [])
    # battlecard.updated: a card that had generated content and now has other content.
    before = (card.content or {}) if card.generated_at is not None else None
    before_ids = set(card.evidence_ids or [])
    now = utcnow()
    card.mode = mode
    card.requested_mode = None
    card.status = "READY"
    card.error = None
    card.content = content
    card.evidence_ids = battlecard_content.all_evidence_ids(content)
    card.search_text = battlecard_content.search_text(content)
    card.generated_at = now
    card.updated_at = now
    card.save()
    if before is not None and readable(content) != readable(before):
        from ci_service.services.alerts import changes as change_events

        new_ids = [i for i in card.evidence_ids or [] if i not in before_ids]
        change_events.battlecard_updated(card, product.name, new_ids)
    return card


# Keys whose values a rep never reads: which evidence version backs an item, where its quote
# opens, when something was generated. A refresh that re-collects a page with only its date
# changed gives every item new evidence ids and quote links; that is not a new card.
_UNREAD_KEY = re.compile(r"^(?:id|ids|url|urls)$|(?:Ids?|Urls?|URL|At)$")


def _unread(key: str) -> bool:
    return bool(_UNREAD_KEY.search(key))


def readable(content: Any) -> str:
    """The card as a rep reads it, for "has it changed?": evidence ids, links and times are
    left out, repeats within a list count once, and texts compare with dates, times and
    counters made equal
    (``change_filter.normalize_passage``), so only a change in what the card says counts."""
    from ci_service.services.alerts.change_filter import normalize_passage

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if not _unread(str(k))}
        if isinstance(value, list | tuple):
            # The same quote from two versions of a page is one quote to a reader.
            kept = [strip(v) for v in value]
            return list({json.dumps(v, sort_keys=True, default=str): v for v in kept}.values())
        if isinstance(value, str):
            return normalize_passage(value) or value.strip()
        return value

    return json.dumps(strip(content or {}), sort_keys=True, default=str)


def _pending(workspace_id: str, competitor_id: str) -> list[Battlecard]:
    return list(
        Battlecard.select()
        .where(
            Battlecard.workspace == workspace_id,
            Battlecard.competitor == competitor_id,
            Battlecard.status == "GENERATING",
        )
        .order_by(Battlecard.updated_at, Battlecard.id)
    )


def finish_pending(workspace_id: str, competitor_id: str, now: datetime) -> None:
    """The generate job's completion hook (inside the completing transaction): write any
    card still pending, and stamp the competitor's lastBattlecardAt."""
    for card in _pending(workspace_id, competitor_id):
        regenerate(card)
    Competitor.update(last_battlecard_at=now).where(Competitor.id == competitor_id).execute()


def fail_pending(workspace_id: str, competitor_id: str, error: str | None) -> None:
    """A failed or cancelled generate job: pending cards keep their content, FAILED."""
    Battlecard.update(status="FAILED", requested_mode=None, error=error).where(
        Battlecard.workspace == workspace_id,
        Battlecard.competitor == competitor_id,
        Battlecard.status == "GENERATING",
    ).execute()


def generate_pending(ctx: JobContext) -> None:
    """The generate job's step: regenerate every pending card of the competitor, each in
    its own transaction, until none is left."""
    done = 0
    for _ in range(100):  # bounded: each pass handles every card pending at its start
        cards = _pending(ctx.workspace_id, ctx.competitor_id)
        if not cards:
            return
        for card in cards:
            ctx.check_cancelled()
            with transaction():
                fresh = Battlecard.get_or_none(
                    (Battlecard.id == card.id) & (Battlecard.status == "GENERATING")
                )
                if fresh is not None:
                    regenerate(fresh)
            done += 1
            ctx.progress(min(done / max(len(cards), 1), 1.0), f"{done} battle card(s) written")


def start_generation(
    workspace_id: str, competitor_id: str, product_id: Any, mode: Any
) -> tuple[Battlecard, Job]:
    """Queue (re)generation of the card for (competitor, product) in ``mode``.

    404 for a competitor or product (our own) not in the workspace; 400 naming
    ``productId`` or ``mode`` when missing or invalid. Returns the card as it is now
    (a new card has empty content; an existing one its previous content), which shows
    ``mode`` as requested, and the job."""
    _check_args(product_id, mode)
    with transaction():
        competitor = _competitor(workspace_id, competitor_id)
        product = _product(workspace_id, product_id)
        now = utcnow()
        card = Battlecard.get_or_none(
            (Battlecard.competitor == competitor.id) & (Battlecard.my_product == product.id)
        )
        if card is None:
            card = Battlecard.create(
                workspace=workspace_id,
                competitor=competitor.id,
                my_product=product.id,
                mode=mode,
                requested_mode=mode,
                status="GENERATING",
                content=dict(EMPTY_CONTENT),
                evidence_ids=[],
                created_at=now,
                updated_at=now,
            )
        else:
            card.requested_mode = mode
            card.status = "GENERATING"
            card.updated_at = now
            card.save()
        job = enqueue(
            workspace_id,
            GENERATE,
            competitor_id=competitor.id,
            metadata={
                "competitorName": competitor.name,
                "productIds": [product.id],
                "mode": mode,
                "battlecardId": card.id,
            },
        )
    return card, job


def start_generation_default_mode(
    workspace_id: str, competitor_id: str, product_id: Any
) -> tuple[Battlecard, Job]:
    """``start_generation`` for callers without a mode (the generate_battlecard tool
    without ``mode``): the existing card's mode (a pending request's, else the written
    one), ATTACK for a new card."""
    _check_args(product_id, "ATTACK")
    existing = Battlecard.get_or_none(
        (Battlecard.workspace == workspace_id)
        & (Battlecard.competitor == competitor_id)
        & (Battlecard.my_product == product_id)
    )
    mode = (existing.requested_mode or existing.mode) if existing is not None else "ATTACK"
    return start_generation(workspace_id, competitor_id, product_id, mode)


def refresh_for_competitor(workspace_id: str, competitor_id: str) -> list[Battlecard]:
    """The collect job's build-battlecard step: regenerate the competitor's card for each
    relevant product (new cards ATTACK; existing cards keep their mode), one transaction."""
    with transaction():
        competitor = _competitor(workspace_id, competitor_id)
        cards = []
        for product in matrix.relevant_products(workspace_id, competitor):
            card = Battlecard.get_or_none(
                (Battlecard.competitor == competitor.id) & (Battlecard.my_product == product.id)
            )
            if card is None:
                card = Battlecard(
                    workspace=workspace_id,
                    competitor=competitor.id,
                    my_product=product.id,
                    mode="ATTACK",
                    content=dict(EMPTY_CONTENT),
                )
                card.save(force_insert=True)
            cards.append(regenerate(card, card.requested_mode or card.mode))
        if cards:
            Competitor.update(last_battlecard_at=utcnow()).where(
                Competitor.id == competitor.id
            ).execute()
    return cards


# -- reads ------------------------------------------------------------------------------


def list_battlecards(
    workspace_id: str, product_id: str | None = None, competitor_id: str | None = None
) -> list[Battlecard]:
    query = Battlecard.select().where(Battlecard.workspace == workspace_id)
    if product_id is not None:
        query = query.where(Battlecard.my_product == product_id)
    if competitor_id is not None:
        query = query.where(Battlecard.competitor == competitor_id)
    return list(query.order_by(Battlecard.created_at, Battlecard.id).limit(1000))


def get_battlecard(workspace_id: str, battlecard_id: str) -> Battlecard:
    row = Battlecard.get_or_none(
        (Battlecard.id == battlecard_id) & (Battlecard.workspace == workspace_id)
    )
    if row is None:
        raise NotFound.of("Battlecard")
    return row


def battlecard_for(workspace_id: str, competitor_id: str, product_id: str) -> Battlecard:
    """The card of (competitor, product); 404 for either missing, or no card yet."""
    competitor = _competitor(workspace_id, competitor_id)
    product = _product(workspace_id, product_id)
    row = Battlecard.get_or_none(
        (Battlecard.competitor == competitor.id) & (Battlecard.my_product == product.id)
    )
    if row is None:
        raise NotFound.of("Battlecard")
    return row


def shown_mode(row: Battlecard) -> str:
    """The requested mode while the card is being generated, else the written one."""
    if row.status == "GENERATING" and row.requested_mode in BATTLECARD_MODES:
        return row.requested_mode
    return row.mode


def battlecard_to_dict(row: Battlecard) -> dict[str, Any]:
    content = {**EMPTY_CONTENT, **(row.content or {})}
    return {
        "id": row.id,
        "workspaceId": row.workspace_id,
        "competitorId": row.competitor_id,
        "myProductId": row.my_product_id,
        "mode": shown_mode(row),
        "status": row.status,
        "requestedMode": row.requested_mode,
        "content": content,
        "evidenceIds": list(row.evidence_ids or []),
        "edits": battlecard_edits.public_edits(row.edits),
        "generatedAt": iso(row.generated_at),
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }


def evidence_map(workspace_id: str, card: Battlecard) -> dict[str, dict[str, Any]]:
    """evidence id -> evidence record, for the card's ids that still exist."""
    ids = list(card.evidence_ids or [])
    if not ids:
        return {}
    rows = IntelItem.select().where(IntelItem.workspace == workspace_id, IntelItem.id.in_(ids))
    found = {r.id: {**evidence_record(r), "collectedAt": iso(r.created_at)} for r in rows}
    quotes = battlecard_content.quotes_by_evidence(card.content or {})
    for item_id, record in found.items():
        # The sentences the card cites from this item, each with a link that opens the
        # page at it; ``quote``/``quoteUrl`` repeat the first for one-click checks.
        cited = quotes.get(item_id, [])
        record["quotes"] = cited
        if cited:
            record["quote"], record["quoteUrl"] = cited[0]["quote"], cited[0]["url"]
    return {i: found[i] for i in ids if i in found}


# -- what goes with a deleted record (the foreign keys cascade too; the search rows follow
# through triggers) ---------------------------------------------------------------------


@cleanup.on_delete("competitor")
def _competitor_deleted(workspace_id: str, competitor_id: str) -> None:
    Battlecard.delete().where(
        Battlecard.workspace == workspace_id, Battlecard.competitor == competitor_id
    ).execute()


@cleanup.on_delete("offering")
def _offering_deleted(workspace_id: str, offering_id: str) -> None:
    Battlecard.delete().where(
        Battlecard.workspace == workspace_id, Battlecard.my_product == offering_id
    ).execute()
