"""Processing a :class:`~ci_service.pipeline.site.SiteSnapshot`: evidence, tree and graph.

Every page becomes a WEB_PAGE evidence item, every document section a DOCUMENT item (URL
``<file>#section-N``) and every news entry a NEWS item, through
``services.intel.items.record_evidence`` (one transaction each): an unchanged source adds
nothing, a changed one adds a new item with its ``changes``. The owner's knowledge tree is
rebuilt from the snapshot (document → section → chunk) with ``services.intel.trees.replace_tree``.
The graph gets a DOCUMENT node per page and file, a MARKET_EVENT per news item, PERSON
nodes for people named on about/team/leadership pages and TOPIC nodes (with RELATED_TO)
for recurring topics, all linked to the owner; every write there is an upsert, so a
re-collection duplicates nothing. One transaction per source.

Events (``services.alerts.changes``, in the transaction of the write): for a competitor, a
new NEWS item is ``competitor.news``, a meaningfully changed page or document section
``competitor.page_changed`` and a newly created PERSON node ``competitor.person_added``;
news and people are not announced during the competitor's first collect. A page's change
is judged without its site chrome (:func:`page_chrome`): its own menu entries and the lines
several pages of this crawl, or of the competitor's pages as stored before it, repeat.
A PERSON node read from a page that this crawl fetched and that no longer names the person
is removed, as ``competitor.person_removed`` (:func:`link_people`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ci_service.pipeline.evidence import EvidenceMap
from ci_service.pipeline.site import SiteSnapshot

log = logging.getLogger("ci_service.pipeline")

MAX_NEWS_EVIDENCE = 50
MAX_TREE_DOCUMENTS = 200


class CrawlEvidence(EvidenceMap):
    """The evidence one whole-site crawl recorded, and the URLs it failed to read (a page
    gone, HTTP 404 or 410, is no failure): what a page it read no longer says is a
    removal, what a page it failed to read no longer says is not
    (``product_store.retire_missing``)."""

    def __init__(self, failed: set[str] | frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.failed = frozenset(failed)

    @classmethod
    def of(cls, snapshot: SiteSnapshot) -> CrawlEvidence:
        gone = ("HTTP 404", "HTTP 410")
        return cls({url for url, reason in snapshot.errors if str(reason) not in gone})


@dataclass
class IngestStats:
    new: int = 0
    changed: int = 0
    unchanged: int = 0
    item_ids: list[str] = field(default_factory=list)
    # Source URL -> the evidence item that now holds it (new, changed or unchanged), so
    # fact extractors can cite it (pipeline.evidence).
    evidence: EvidenceMap = field(default_factory=EvidenceMap)

    def add(self, result: Any) -> None:
        setattr(self, result.status, getattr(self, result.status) + 1)
        if result.item is not None:
            self.item_ids.append(result.item.id)
            self.evidence.add(result.item.url, result.item.id, result.item.content)

    def as_dict(self) -> dict[str, int]:
        return {"new": self.new, "changed": self.changed, "unchanged": self.unchanged}


@dataclass(frozen=True)
class Target:
    """Whose intel it is: a competitor (``scope`` competitor) or our organization."""

    workspace_id: str
    kind: str  # competitor, organization, offering
    id: str

    @property
    def record_kwargs(self) -> dict[str, Any]:
        if self.kind == "competitor":
            return {"scope": "competitor", "competitor_id": self.id}
        if self.kind == "offering":
            return {"scope": "offering", "offering_id": self.id}
        return {"scope": "organization"}


def _record(target: Target, stats: IngestStats, chrome: Any = None, **fields: Any) -> None:
    from ci_service.errors import ValidationFailed
    from ci_service.services.alerts import changes as change_events
    from ci_service.services.intel.items import record_evidence
    from ci_service.store.db import transaction

    try:
        with transaction():  # the item and its event (news, page changed) commit together
            result = record_evidence(target.workspace_id, **target.record_kwargs, **fields)
            if target.kind == "competitor":
                change_events.evidence_recorded(target.workspace_id, target.id, result, chrome)
        stats.add(result)
    except ValidationFailed as exc:  # e.g. empty content: nothing to keep from this source
        log.info("evidence from %s not stored: %s", fields.get("url"), exc)


def record_snapshot(
    target: Target,
    snapshot: SiteSnapshot,
    *,
    tick: Callable[[float, str], None] | None = None,
    stats: IngestStats | None = None,
) -> IngestStats:
    """Store every page, document section and news item of the snapshot as evidence
    (into ``stats`` when given)."""
    stats = IngestStats() if stats is None else stats
    total = max(len(snapshot.pages) + len(snapshot.documents) + 1, 1)
    news_urls = {entry.url for entry in snapshot.news[:MAX_NEWS_EVIDENCE] if entry.url}
    chrome = page_chrome(target, snapshot)
    for number, page in enumerate(snapshot.pages, start=1):
        # A page that a feed entry links to is stored once, as that NEWS item (a source is
        # identified by its URL, so two items of different types would alternate).
        if page.text.strip() and page.url not in news_urls:
            _record(
                target,
                stats,
                chrome(page) if chrome else None,
                source_type="WEB_PAGE",
                url=page.url,
                title=page.title,
                content=page.text,
                metadata={"description": page.description} if page.description else None,
                page_kind=page.kind or None,
            )
        if tick:
            tick(number / total, f"Stored {page.url}")
    for offset, document in enumerate(snapshot.documents, start=len(snapshot.pages) + 1):
        record_document(target, document, stats)
        if tick:
            tick(offset / total, f"Stored {document.url}")
    record_news(target, snapshot, stats)
    return stats


def page_chrome(target: Target, snapshot: SiteSnapshot) -> Callable[[Any], Any] | None:
    """page -> its :class:`~ci_service.services.alerts.change_filter.SiteChrome` (for the
    page-change events of a competitor; None for other owners, which have none).

    Repeated lines are those of ``REPEATED_PAGES`` pages of this crawl or of the
    competitor's pages as stored before it: a menu entry the site just dropped everywhere
    is on no page now, but was on all of them then."""
    if target.kind != "competitor":
        return None
    from ci_service.services.alerts.change_filter import SiteChrome, repeated_lines
    from ci_service.services.intel import items as intel

    # Only the latest versions' text is read: older ones may be many.
    latest = intel.latest_page_versions(target.workspace_id, target.id)
    stored = intel.contents([row.id for row in latest.values()]).values()
    repeated = repeated_lines(page.text for page in snapshot.pages) | repeated_lines(stored)

    def chrome(page: Any) -> SiteChrome:
        return SiteChrome.of((text for _url, text in page.links), repeated)

    return chrome


def record_news(target: Target, snapshot: SiteSnapshot, stats: IngestStats) -> None:
    """One NEWS item per news entry (``pipeline.news.extract.news_entries``: feed entries, list-page
    entries and article pages): its title, date, summary and, when the crawl fetched the
    article, the article's text.

    An entry whose URL this run already stored as a page (``stats.evidence``) is skipped:
    a source is identified by its URL, so a second item of another type would make every
    run a change. ``ingest_snapshot`` puts the page entries into ``snapshot.news`` first, so
    ``record_snapshot`` leaves their pages to this function."""
    from ci_service.pipeline.news.extract import news_entries, url_key

    news = news_entries(snapshot)[:MAX_NEWS_EVIDENCE]
    article_text: dict[str, str] = {}
    for page in snapshot.pages:
        for url in (page.url, getattr(page, "canonical", "") or ""):
            if url:
                article_text.setdefault(url_key(url), page.text)
    for entry in news:
        if entry.url and entry.url in stats.evidence:
            continue
        day = entry.published.date().isoformat() if entry.published else ""
        text = article_text.get(url_key(entry.url), "") if entry.url else ""
        parts = (entry.title, day, entry.summary if entry.summary not in text else "", text)
        _record(
            target,
            stats,
            source_type="NEWS",
            url=entry.url or f"{snapshot.start_url}#news-{entry.guid or entry.title}"[:2000],
            title=entry.title,
            content="\n".join(part for part in parts if part),
            published_at=entry.published,
            metadata={"source": entry.source} if entry.source else None,
            page_kind="post",
        )


def record_document(target: Target, document: Any, stats: IngestStats) -> None:
    """One DOCUMENT evidence item per non-empty section of a PDF/DOCX."""
    for number, (heading, text) in enumerate(document.sections, start=1):
        title = f"{document.title} – {heading}" if heading else document.title
        _record(
            target,
            stats,
            source_type="DOCUMENT",
            url=f"{document.url}#section-{number}",
            title=title,
            content=text,
            metadata={"document": document.url, "section": heading, "kind": document.kind},
        )


def tree_documents(snapshot: SiteSnapshot) -> list[Any]:
    """The snapshot as TreeDocuments: pages, then files, then one "News" document."""
    from ci_service.services.intel.trees import TreeDocument, TreeSection

    documents = []
    for page in snapshot.pages:
        sections = [
            TreeSection(heading or page.title, text) for heading, _level, text in page.sections
        ]
        sections = [s for s in sections if s.text.strip()]
        if sections:
            documents.append(TreeDocument(page.title, page.url, "WEB_PAGE", sections))
    for document in snapshot.documents:
        sections = [TreeSection(heading, text) for heading, text in document.sections]
        documents.append(TreeDocument(document.title, document.url, "DOCUMENT", sections))
    if snapshot.news:
        sections = [
            TreeSection(
                entry.title,
                " ".join(
                    part
                    for part in (
                        entry.published.date().isoformat() if entry.published else "",
                        entry.summary or entry.title,
                    )
                    if part
                ),
            )
            for entry in snapshot.news[:MAX_NEWS_EVIDENCE]
        ]
        feed = snapshot.feeds[0] if snapshot.feeds else None
        documents.append(TreeDocument("News", feed, "NEWS", sections))
    return documents[:MAX_TREE_DOCUMENTS]


def rebuild_tree(target: Target, snapshot: SiteSnapshot) -> Any:
    """Replace the owner's knowledge tree with the snapshot's content."""
    from ci_service.errors import ValidationFailed
    from ci_service.services.intel.trees import replace_tree

    documents = tree_documents(snapshot)
    while True:
        try:
            return replace_tree(target.workspace_id, target.kind.upper(), target.id, documents)
        except ValidationFailed:
            if len(documents) <= 1:
                raise
            documents = documents[: len(documents) // 2]  # too many nodes: keep the first half


def _owner_evidence(target: Target) -> EvidenceMap:
    """The owner's stored evidence, for a caller that has no record stats at hand."""
    if target.kind == "competitor":
        return EvidenceMap.for_owner(target.workspace_id, competitor_id=target.id)
    if target.kind == "offering":
        return EvidenceMap.for_owner(target.workspace_id, offering_id=target.id)
    from ci_service.store.intel import IntelItem

    mapping = EvidenceMap()
    rows = IntelItem.select(IntelItem.id, IntelItem.url, IntelItem.content).where(
        IntelItem.workspace == target.workspace_id,
        IntelItem.type == "EVIDENCE",
        IntelItem.scope == "organization",
    )
    for row in rows.order_by(IntelItem.seq):
        mapping.add(row.url, row.id, row.content)
    return mapping


def link_people(
    target: Target, snapshot: SiteSnapshot, evidence: EvidenceMap, *, this_crawl: bool = True
) -> int:
    """A PERSON node per person the snapshot names (``pipeline.people.extract``), with properties
    {title, founder, evidenceIds, quotes}. A person read from a page whose quote does not
    resolve to stored evidence is dropped; one from JSON-LD or humans.txt is kept without
    evidence.

    After the competitor's first collect, a PERSON node created now is
    ``competitor.person_added``; one not found now is removed, as
    ``competitor.person_removed``, when it was read from a page (its quote) that this crawl
    fetched (``evidence`` is this crawl's, ``this_crawl``) and whose text no longer holds
    the name. A page that failed or was not reached this time removes nobody, nor does
    a person read from JSON-LD or humans.txt (no page to check)."""
    from ci_service.pipeline.people.extract import snapshot_people
    from ci_service.services.alerts import changes as change_events
    from ci_service.services.intel import graph_links as intel_graph
    from ci_service.store.db import transaction
    from ci_service.store.graph import GraphNode

    owner = intel_graph.Owner(target.kind, target.id)
    linked = 0
    with transaction():
        # A PERSON node created now (not one brought up to date) is a person_added event,
        # except during the competitor's first collect, when everyone is new.
        known = None
        if target.kind == "competitor" and not change_events.first_collect(
            target.workspace_id, target.id
        ):
            known = {
                node.id
                for node in GraphNode.select(GraphNode.id).where(
                    GraphNode.workspace == target.workspace_id,
                    GraphNode.label == "PERSON",
                    GraphNode.ref_type == target.kind,
                    GraphNode.ref_id == target.id,
                )
            }
        found: set[str] = set()
        for person in snapshot_people(snapshot):
            cited = evidence.resolve(person.cite)
            if cited is None and person.source == "page":
                continue
            properties: dict[str, Any] = {"title": person.title, "founder": person.founder}
            if cited:
                properties.update(evidenceIds=[cited["evidenceId"]], quotes=[cited])
            node = intel_graph.link_person(
                target.workspace_id, owner, person.name, person.title, properties
            )
            found.add(node.id)
            if known is not None and node.id not in known:
                known.add(node.id)
                change_events.person_added(
                    target.workspace_id,
                    target.id,
                    " ".join(person.name.split()),
                    person.title,
                    [cited["evidenceId"]] if cited else [],
                    cited,
                )
            linked += 1
        if known is not None and this_crawl:
            _unlink_people(target, evidence, known - found)
    return linked


def _unlink_people(target: Target, evidence: EvidenceMap, candidates: set[str]) -> None:
    """Remove the PERSON nodes of ``candidates`` whose page this crawl fetched and no
    longer names them, each a ``competitor.person_removed`` (see :func:`link_people`)."""
    from ci_service.pipeline.evidence import Cite
    from ci_service.services.alerts import changes as change_events
    from ci_service.services.graph import nodes as graph
    from ci_service.store.graph import GraphNode

    if not candidates:
        return
    gone = []
    for node in GraphNode.select().where(GraphNode.id.in_(list(candidates))):
        properties = node.properties or {}
        quotes = [q for q in properties.get("quotes") or [] if isinstance(q, dict)]
        page = str(quotes[0].get("url") or "").split("#:~:", 1)[0] if quotes else ""
        if not page or page not in evidence:
            continue  # not read from a page, or its page not fetched this time
        title = properties.get("title") or None
        name = node.name
        if title and name.endswith(f" ({title})"):
            name = name[: -len(f" ({title})")]
        if evidence.resolve(Cite(page, name)) is not None:
            continue  # still named there (the extractor missed them this time)
        gone.append(node.id)
        change_events.person_removed(
            target.workspace_id,
            target.id,
            name,
            title,
            [i for i in (evidence.evidence_id(page),) if i],
            quotes[0],
        )
    graph.remove_nodes(gone)


def link_graph(
    target: Target, snapshot: SiteSnapshot, evidence: EvidenceMap | None = None
) -> dict[str, int]:
    """DOCUMENT, MARKET_EVENT, PERSON and TOPIC nodes for the snapshot (upserts).

    ``evidence`` (the recorded snapshot's :class:`EvidenceMap`; the owner's stored evidence
    when omitted) gives people and events their evidence ids and quotes."""
    from ci_service.services.intel import graph_links as intel_graph
    from ci_service.store.db import transaction

    owner = intel_graph.Owner(target.kind, target.id)
    ws = target.workspace_id
    counts = {"documents": 0, "events": 0, "people": 0, "topics": 0}
    for page in snapshot.pages:
        with transaction():
            intel_graph.link_document(ws, owner, page.url, page.title)
            counts["documents"] += 1
    for document in snapshot.documents:
        with transaction():
            intel_graph.link_document(ws, owner, document.url, document.title)
            counts["documents"] += 1
    this_crawl = evidence is not None  # else what is stored: no removal can be read from it
    evidence = _owner_evidence(target) if evidence is None else evidence
    counts["people"] = link_people(target, snapshot, evidence, this_crawl=this_crawl)
    counts["events"] = link_news(target, snapshot, evidence)
    texts = [page.text for page in snapshot.pages] + [d.text for d in snapshot.documents]
    languages = [page.language for page in snapshot.pages] + [""] * len(snapshot.documents)
    # Each text's stop words are its language's: a site in Serbian gives topics, not "ili".
    topics = intel_graph.extract_topics(texts, languages=languages)
    if topics:
        with transaction():
            # The owner's topics are this reading's: an earlier reading's noise goes.
            counts["topics"] = len(intel_graph.link_topics(ws, owner, topics, replace=True))
    return counts


def link_news(target: Target, snapshot: SiteSnapshot, evidence: EvidenceMap | None = None) -> int:
    """A MARKET_EVENT per news entry (feed entries, list-page entries and article pages),
    dated, with properties {date, url} and, when ``evidence`` (the owner's stored evidence
    when omitted) holds the entry's item, its evidenceIds and the quoted title."""
    from ci_service.pipeline.evidence import Cite
    from ci_service.pipeline.news.extract import news_entries
    from ci_service.services.intel import graph_links as intel_graph
    from ci_service.store.db import transaction

    owner = intel_graph.Owner(target.kind, target.id)
    entries = news_entries(snapshot)[:MAX_NEWS_EVIDENCE]
    evidence = _owner_evidence(target) if evidence is None else evidence
    for entry in entries:
        day = entry.published.date().isoformat() if entry.published else None
        properties: dict[str, Any] = {"date": day, "url": entry.url or None}
        cited = evidence.resolve(Cite(entry.url, entry.title)) if entry.url else None
        if cited:
            properties.update(evidenceIds=[cited["evidenceId"]], quotes=[cited])
        with transaction():
            intel_graph.link_market_event(
                target.workspace_id,
                owner,
                entry.title,
                entry.url or None,
                entry.published,
                {k: v for k, v in properties.items() if v is not None},
            )
    return len(entries)


def ingest_snapshot(
    target: Target,
    snapshot: SiteSnapshot,
    *,
    tick: Callable[[float, str], None] | None = None,
) -> dict[str, Any]:
    """Evidence, tree and graph for one snapshot; returns counts for the job's log and,
    as ``sources``, the :class:`EvidenceMap` of the recorded items (for fact extractors).

    News found on the pages (list pages, dated articles) joins ``snapshot.news`` first, so
    those article pages are stored once, as NEWS items, like the articles of a feed."""
    from ci_service.pipeline.news.extract import news_entries

    snapshot.news = news_entries(snapshot)
    stats = IngestStats(evidence=CrawlEvidence.of(snapshot))  # the whole site was read
    record_snapshot(target, snapshot, tick=tick, stats=stats)
    rebuild_tree(target, snapshot)
    graph_counts = link_graph(target, snapshot, stats.evidence)
    log.info(
        "ingested %s %s: evidence %s, graph %s",
        target.kind,
        target.id,
        stats.as_dict(),
        graph_counts,
    )
    return {"evidence": stats.as_dict(), "graph": graph_counts, "sources": stats.evidence}
