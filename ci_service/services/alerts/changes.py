"""The events of each kind of change: their title, summary, evidence, link and data.

Each function is called by the code that makes the change, inside its transaction (see
:func:`ci_service.services.alerts.events.emit`), and says in plain words what happened. Rules:

- **First collect**: a competitor that has never been collected successfully (no
  ``last_refresh_at``; the collect job sets it when it completes) has no baseline, so
  everything its collect finds would be "new": products, news items and people found then
  are not events (:func:`first_collect`). Price changes need a stored price anyway. The
  placeholder offering the pricing step creates for a competitor without any is not a
  ``product_added``; nor are offerings added by hand (only those a collect finds).
- **Where it was read**: a competitor change carries, when known, ``url`` (the source
  page), ``quote`` (the verbatim line that states it) and ``quoteUrl`` (``url`` with a
  ``#:~:text=`` fragment, ``pipeline.evidence.fragment_url``): for a price change or an
  added plan the new plan's line, for a removed plan the old one's; an added product's
  naming sentence, a removed product's line on the page that listed it; a person's line
  on the team page; a news item's title; a changed page's first added passage.
- **Removals**: ``product_removed`` and ``person_removed`` come from a collect only when
  the page that listed the product or named the person was fetched in it and no longer
  does (``collection.product_store``, ``collection.ingest.link_people``); never on the first
  collect.
- **News backfill**: a news item published more than ``NEWS_BACKFILL_DAYS`` before the
  competitor's last refresh is old news the crawl only now reached, not an event.
- **Page changes**: only WEB_PAGE and DOCUMENT items recorded as changed, and only when
  :func:`ci_service.services.alerts.change_filter.meaningful_passages` says the added and removed
  passages differ beyond dates, counters, tracking parameters, boilerplate, line breaks
  and site chrome (the page's menu entries, lines the site repeats on several pages:
  ``change_filter.SiteChrome``, built by ``collection.ingest``); the event
  keeps at most ``MAX_PASSAGES`` of those passages each way, each cut to 300 characters.
- **Battle cards**: an update of a card that already had generated content and whose new
  content differs; a card's first content is not an event (a collect builds every card,
  and the first build is not a change anyone acts on).
- **Jobs**: a job the engine fails (a step error, an interrupted or stopped worker); a
  cancelled job is not an event.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from ci_service.services.alerts import events
from ci_service.services.alerts.change_filter import SiteChrome, meaningful_passages
from ci_service.store.competitors import Competitor

NEWS_BACKFILL_DAYS = 30
MAX_PASSAGES = 5
MAX_PASSAGE_CHARS = 300


def _competitor(workspace_id: str, competitor_id: str | None) -> Competitor | None:
    if not competitor_id:
        return None
    return Competitor.get_or_none(
        Competitor.id == competitor_id, Competitor.workspace == workspace_id
    )


def _name(competitor: Competitor | None) -> str:
    return competitor.name if competitor is not None else "A competitor"


def first_collect(workspace_id: str, competitor_id: str) -> bool:
    """True while the competitor has never completed a collect (or no longer exists)."""
    competitor = _competitor(workspace_id, competitor_id)
    return competitor is None or competitor.last_refresh_at is None


def _link(competitor_id: str | None) -> str | None:
    return f"/competitors/{competitor_id}" if competitor_id else None


def where_read(url: str | None, quote: str | None = None) -> dict[str, str]:
    """``{url, quote, quoteUrl}`` for an event's data: what is known of them. ``url`` may
    carry a text fragment already (a stored citation's): it is split off and rebuilt."""
    from ci_service.pipeline.evidence import fragment_url

    base = str(url or "").split("#:~:", 1)[0]
    if not base.startswith(("http://", "https://")):
        return {}
    out = {"url": base}
    quote = " ".join(str(quote or "").split())
    if quote:
        out.update(quote=quote, quoteUrl=fragment_url(base, quote))
    return out


def cited(citation: Any) -> dict[str, str]:
    """:func:`where_read` of a stored citation ({evidenceId, quote, url}), if any."""
    if not isinstance(citation, dict):
        return {}
    return where_read(citation.get("url"), citation.get("quote"))


# -- competitor changes found by a collect ----------------------------------------------


def _money_and_rest(plan: dict[str, Any]) -> tuple[str, str]:
    """("$49", " per agent/month") for a priced plan, ("price on request", "") otherwise."""
    from ci_service.services.battlecards.facts import price_terms

    full = price_terms(plan)
    if plan.get("onRequest") or plan.get("price") is None:
        return full, ""
    money = price_terms({**plan, "unit": None, "period": None})
    return money, full[len(money) :]


def price_changed(
    workspace_id: str,
    competitor_id: str,
    offering: Any,
    entry: dict[str, Any],
    citation: dict[str, Any] | None = None,
) -> None:
    """One pricing change record (``collection.pricing_store``): a changed, added or removed
    plan; ``citation`` the plan's stored quote (the new plan's, a removed plan's old one)."""
    from ci_service.services.battlecards.facts import price_terms

    name = _name(_competitor(workspace_id, competitor_id))
    plan, kind = entry.get("plan") or "A", entry.get("change")
    old, new = entry.get("old"), entry.get("new")
    product = f" ({offering.name})" if offering is not None and offering.name else ""
    if kind == "plan_added" and new:
        title = f"{name}: new {plan} plan at {price_terms(new)}"
        summary = f"{name} now lists a {plan} plan{product} at {price_terms(new)}."
    elif kind == "plan_removed" and old:
        title = f"{name}: {plan} plan ({price_terms(old)}) no longer listed"
        summary = f"{name} no longer lists its {plan} plan{product}, which was {price_terms(old)}."
    else:
        (old_money, old_rest), (new_money, new_rest) = (
            _money_and_rest(old or {}),
            _money_and_rest(new or {}),
        )
        if old_rest == new_rest:
            change = f"{old_money} → {new_money}{new_rest}"
        else:
            change = f"{old_money}{old_rest} → {new_money}{new_rest}"
        title = f"{name}: {plan} plan {change}"
        summary = (
            f"{name} changed the price of its {plan} plan{product} from "
            f"{price_terms(old or {})} to {price_terms(new or {})}."
        )
    events.emit(
        workspace_id,
        "competitor.price_changed",
        title,
        summary,
        competitor_id=competitor_id,
        evidence_ids=list(entry.get("evidenceIds") or []),
        link=_link(competitor_id),
        data={
            "offeringId": getattr(offering, "id", None),
            "plan": entry.get("plan"),
            "change": kind,
            "old": old,
            "new": new,
            **cited(citation),
        },
    )


def product_added(
    workspace_id: str, competitor_id: str, offering: Any, citation: dict[str, Any] | None = None
) -> None:
    """A product a collect found (``citation``: the sentence that names it), or found again
    after a collect had found it gone."""
    name = _name(_competitor(workspace_id, competitor_id))
    ids = [i for f in offering.features or [] for i in (f.get("evidenceIds") or [])]
    about = f": {offering.description}" if offering.description else ""
    events.emit(
        workspace_id,
        "competitor.product_added",
        f"{name}: new product {offering.name}",
        f"{name} now offers {offering.name}{about}"[:300].rstrip(".") + ".",
        competitor_id=competitor_id,
        evidence_ids=ids[:20],
        link=_link(competitor_id),
        data={"offeringId": offering.id, "name": offering.name, **cited(citation)},
    )


def product_removed(
    workspace_id: str,
    offering: Any,
    source: dict[str, str] | None = None,
    evidence_ids: list[str] | None = None,
) -> None:
    """A competitor offering deleted (``services.workspace.offerings.delete_offering``), or one a
    collect no longer finds on the pages that listed it (``collection.product_store``):
    ``source`` then says where it was listed (:func:`where_read` of the old line) and
    ``evidence_ids`` are those pages as read now."""
    name = _name(_competitor(workspace_id, offering.competitor_id))
    if source is None:
        summary = f"{offering.name} was removed from {name}'s products."
    else:
        summary = f"{name} no longer lists {offering.name} on its site."
    events.emit(
        workspace_id,
        "competitor.product_removed",
        f"{name}: product {offering.name} removed",
        summary,
        competitor_id=offering.competitor_id,
        evidence_ids=list(evidence_ids or []),
        link=_link(offering.competitor_id),
        data={"offeringId": offering.id, "name": offering.name, **(source or {})},
    )


def evidence_recorded(
    workspace_id: str, competitor_id: str, result: Any, chrome: SiteChrome | None = None
) -> None:
    """After ``services.intel.items.record_evidence`` for a competitor: a new NEWS item is
    ``competitor.news``, a meaningfully changed WEB_PAGE or DOCUMENT ``page_changed``
    (``chrome``: what counts as site chrome on that page)."""
    item = getattr(result, "item", None)
    if item is None:
        return
    if result.status == "new" and item.source_type == "NEWS":
        _news(workspace_id, competitor_id, item)
    elif result.status == "changed" and item.source_type in ("WEB_PAGE", "DOCUMENT"):
        _page_changed(workspace_id, competitor_id, item, chrome)


def _news_quote(item: Any) -> str:
    """The news item's title, else the first sentence of its text."""
    if item.title:
        return item.title
    from ci_service.pipeline.evidence import sentences

    return next(iter(sentences(item.content or "")), "")


def _news(workspace_id: str, competitor_id: str, item: Any) -> None:
    from ci_service.timeutil import iso

    competitor = _competitor(workspace_id, competitor_id)
    if competitor is None or competitor.last_refresh_at is None:
        return  # first collect: no baseline
    published = item.published_at
    if published is not None:
        cutoff = competitor.last_refresh_at - timedelta(days=NEWS_BACKFILL_DAYS)
        if published.tzinfo is None and cutoff.tzinfo is not None:
            cutoff = cutoff.replace(tzinfo=None)
        if published < cutoff:
            return  # old news the crawl only now reached
    day = f" on {published.date().isoformat()}" if published is not None else ""
    title = item.title or item.url or "News item"
    events.emit(
        workspace_id,
        "competitor.news",
        f"{competitor.name}: {title}",
        f"{competitor.name} published “{title}”{day}.",
        competitor_id=competitor_id,
        evidence_ids=[item.id],
        link=_link(competitor_id),
        data={
            "intelId": item.id,
            "publishedAt": iso(published),
            # A feed entry without a link has a made-up "#news-" URL: no page to open.
            **(where_read(item.url, _news_quote(item)) if "#news-" not in item.url else {}),
            "url": item.url,
        },
    )


def _cut(passage: str, limit: int = MAX_PASSAGE_CHARS) -> str:
    """``passage`` within ``limit`` characters, cut between words (a quote's text fragment
    must end on a whole word to be found on the page)."""
    if len(passage) <= limit:
        return passage
    return passage[: limit + 1].rsplit(None, 1)[0]


def _page_changed(
    workspace_id: str, competitor_id: str, item: Any, chrome: SiteChrome | None = None
) -> None:
    changes = item.changes or {}
    added, removed = list(changes.get("added") or []), list(changes.get("removed") or [])
    retitled = changes.get("titleChanged") or {}
    if retitled:
        added.append(str(retitled.get("to") or ""))
        removed.append(str(retitled.get("from") or ""))
    added, removed = meaningful_passages(added, removed, chrome)
    if not added and not removed:
        return  # only dates, counters, tracking parameters, line breaks or chrome changed
    name = _name(_competitor(workspace_id, competitor_id))
    page = item.title or item.url
    events.emit(
        workspace_id,
        "competitor.page_changed",
        f"{name}: “{page}” changed",
        _page_summary(item.url, added, removed),
        competitor_id=competitor_id,
        evidence_ids=[item.id, item.previous_item_id],
        link=_link(competitor_id),
        data={
            "intelId": item.id,
            "previousItemId": item.previous_item_id,
            "added": [p[:MAX_PASSAGE_CHARS] for p in added[:MAX_PASSAGES]],
            "removed": [p[:MAX_PASSAGE_CHARS] for p in removed[:MAX_PASSAGES]],
            # The first added passage, where the page now says something new.
            **(where_read(item.url, _cut(added[0])) if added else {}),
            "url": item.url,
        },
    )


def _lines_said(passages: list[str], verb: str) -> str:
    """“now says “…” (and 2 more lines)”: the first changed line, then how many more."""
    more = len(passages) - 1
    rest = f" and {more} more line{'s' if more != 1 else ''}" if more else ""
    return f"{verb} “{_cut(passages[0], 160)}”{rest}"


def _page_summary(url: str, added: list[str], removed: list[str]) -> str:
    """The change itself, not a count: "The page … now says “…”; it no longer says “…”."."""
    parts = []
    if added:
        parts.append(_lines_said(added, "now says"))
    if removed:
        parts.append(_lines_said(removed, "no longer says"))
    return f"The page {url} {'; it '.join(parts)}."


def person_added(
    workspace_id: str,
    competitor_id: str,
    person: str,
    role: str | None,
    evidence_ids: list[str],
    citation: dict[str, Any] | None = None,
) -> None:
    """A person a collect finds named on the site (``citation``: the line naming them)."""
    _person(workspace_id, competitor_id, person, role, evidence_ids, citation, joined=True)


def person_removed(
    workspace_id: str,
    competitor_id: str,
    person: str,
    role: str | None,
    evidence_ids: list[str],
    citation: dict[str, Any] | None = None,
) -> None:
    """A person the page that named them (fetched in this collect) no longer names;
    ``citation`` is the old line that did, ``evidence_ids`` the page as read now."""
    _person(workspace_id, competitor_id, person, role, evidence_ids, citation, joined=False)


def _person(
    workspace_id: str,
    competitor_id: str,
    person: str,
    role: str | None,
    evidence_ids: list[str],
    citation: dict[str, Any] | None,
    *,
    joined: bool,
) -> None:
    name = _name(_competitor(workspace_id, competitor_id))
    who = f"{person} ({role})" if role else person
    if joined:
        kind, title, summary = "added", f"{name}: {who}", f"{who} now appears on {name}'s site."
    else:
        kind = "removed"
        title, summary = (
            f"{name}: {who} no longer listed",
            f"{who} no longer appears on {name}'s site.",
        )
    events.emit(
        workspace_id,
        f"competitor.person_{kind}",
        title,
        summary,
        competitor_id=competitor_id,
        evidence_ids=evidence_ids,
        link=_link(competitor_id),
        data={"name": person, "title": role, **cited(citation)},
    )


# -- workspace records --------------------------------------------------------------------


def battlecard_updated(card: Any, product_name: str, new_ids: list[str]) -> None:
    name = _name(_competitor(card.workspace_id, card.competitor_id))
    events.emit(
        card.workspace_id,
        "battlecard.updated",
        f"Battle card updated: {product_name} vs {name}",
        f"The {card.mode} battle card for {product_name} against {name} has new content.",
        competitor_id=card.competitor_id,
        evidence_ids=new_ids[:20],
        link=f"/battlecards/{card.id}",
        data={"battlecardId": card.id, "productId": card.my_product_id, "mode": card.mode},
    )


def deal_recorded(deal: Any, competitor: Competitor | None = None) -> None:
    """``competitor``: the deal's, when the caller has read it (its name is all we use)."""
    if competitor is None or competitor.id != deal.competitor_id:
        competitor = _competitor(deal.workspace_id, deal.competitor_id)
    prospect = deal.prospect_company_name
    if deal.outcome == "LOST":
        title = f"Deal lost to {_name(competitor)}: {prospect}"
        summary = f"The deal with {prospect} was recorded as lost to {_name(competitor)}."
    else:
        against = f" against {competitor.name}" if competitor is not None else ""
        title = f"Deal {str(deal.outcome).lower()}{against}: {prospect}"
        summary = f"The deal with {prospect} was recorded as {str(deal.outcome).lower()}."
    events.emit(
        deal.workspace_id,
        "deal.recorded",
        title,
        summary,
        competitor_id=deal.competitor_id,
        link="/deals",
        data={"dealId": deal.id, "outcome": deal.outcome, "prospect": prospect},
    )


def job_failed(job: Any, error: str) -> None:
    """The engine failed ``job`` (call in the transaction that writes its status)."""
    if job.type == "deliver-notifications":
        # Its own failure is not sent as a notification: that could feed itself.
        return
    title = job.display_title or job.type
    events.emit(
        job.workspace_id,
        "job.failed",
        f"Job failed: {title}",
        f"The {job.type} job failed: {error}",
        competitor_id=job.competitor_id,
        link=f"/jobs/{job.id}",
        data={"jobId": job.id, "jobType": job.type, "error": str(error)[:2000]},
    )
