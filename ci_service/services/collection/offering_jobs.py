"""Offering jobs: enrich, document upload analysis and re-analysis (workspace-level types).

- ``enrich-offerings`` (POST /api/offerings/enrich, payload ``offeringIds``): for each
  offering, the evidence about it (its own items, plus its competitor's or our
  organization's items that mention its name) fills what is missing: a description (the
  provider's summary of the best evidence), valueProps (lines under why/benefit headings)
  and features (lines under feature headings). Present values are never overwritten.
- ``analyze-offering-document`` (POST /api/offerings/{id}/upload): the uploaded PDF/DOCX
  is extracted; each section becomes DOCUMENT evidence of the offering; the product-sheet
  lines in it (:func:`sheet_items`) become features and capabilities of the offering, and
  the lines under a feature heading become features, each with the section's evidence id
  and the line as its quote; capabilities and categories are mapped; the offering's
  knowledge tree is rebuilt from its documents. A broken file fails the job with the
  extractor's message. The spooled upload is deleted when the job ends (its hooks in
  ``collection.handlers``), not when it is read: a run after an interruption reads it again.

Product-sheet lines: "Feature: Name - what it does" / "Capability: Name – what it does"
(also "Name: what it does" after the label, or a name alone), and the lines under a
"Features:" or "Capabilities:" line (bullets or short lines; a long paragraph, a blank
line in a list of bullets, another "Label:" line or a pricing/contact line ends the list).
Calls to action, prices and boilerplate are never items.
- ``reanalyze-offering`` (POST /api/offerings/{id}/reanalyze): the same mapping and tree
  rebuild from what is already stored, plus the enrichment above.
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
import uuid
from pathlib import Path
from typing import Any

from ci_service.jobs.types import JobContext, StepError

log = logging.getLogger("ci_service.pipeline")

UPLOAD_KINDS = {
    "application/pdf": "pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
}
FEATURE_LINE = re.compile(r"feature|capabilit|highlight|what you get|includes", re.IGNORECASE)
BULLET = re.compile(r"^\s*(?:[-•·*▪◦–]|\d+[.)])\s+")
STOP_LINE = re.compile(r"^(?:pricing|price|plans?|about|contact|support|faq)\b", re.IGNORECASE)
SHEET_LINE = re.compile(
    r"^(?:key\s+)?(?P<kind>features?|capabilit(?:y|ies))\s*[:：]\s*(?P<rest>.*)$", re.IGNORECASE
)
LABEL_LINE = re.compile(r"^[^\W\d_][\w /&-]{0,40}:$")
MAX_EVIDENCE = 40


# -- uploads ---------------------------------------------------------------------------------


def upload_kind(filename: str, content_type: str, head: bytes) -> str | None:
    """``pdf`` or ``docx`` when the upload is one of those (by content, then name)."""
    if head.startswith(b"%PDF-"):
        return "pdf"
    if head.startswith(b"PK") and (
        filename.lower().endswith(".docx") or UPLOAD_KINDS.get(content_type) == "docx"
    ):
        return "docx"
    return None


def spool_dir() -> Path:
    """Where uploads wait for their job: ``uploads/`` beside the SQLite file."""
    from ci_service.store.db import database

    path = getattr(database.obj, "database", None) if database.obj is not None else None
    if not path or path == ":memory:":
        return Path(tempfile.gettempdir()) / "ci-service-uploads"
    return Path(path).expanduser().resolve().parent / "uploads"


def spool_upload(data: bytes) -> dict[str, str]:
    """Keep an upload for its job; the job payload entries that find it again: a file on
    SQLite (one machine), a ``JobUpload`` row on PostgreSQL (any worker, any machine)."""
    from ci_service.store.db import is_postgres

    if is_postgres():
        from ci_service.store.jobs import JobUpload

        return {"uploadId": JobUpload.create(data=data).id}
    folder = spool_dir()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{uuid.uuid4().hex}.upload"
    target.write_bytes(data)
    return {"path": str(target)}


def read_upload(payload: dict) -> bytes:
    """The spooled upload of a job, left where it waits (StepError when gone)."""
    if "uploadId" in payload:
        from ci_service.store.jobs import JobUpload

        row = JobUpload.get_or_none(JobUpload.id == payload["uploadId"])
        if row is None:
            raise StepError("the uploaded file is gone; upload it again")
        return bytes(row.data)
    try:
        return Path(payload["path"]).read_bytes()
    except (OSError, KeyError):
        raise StepError("the uploaded file is gone; upload it again") from None


def discard_upload(payload: dict) -> None:
    """Remove a job's spooled upload, if it is still there (the job ended)."""
    if "uploadId" in payload:
        from ci_service.store.jobs import JobUpload

        JobUpload.delete().where(JobUpload.id == payload["uploadId"]).execute()
    elif "path" in payload:
        _remove(Path(payload["path"]))


# -- evidence --------------------------------------------------------------------------------


def _offering(ctx: JobContext, offering_id: str) -> Any:
    from ci_service.errors import NotFound
    from ci_service.services.workspace.offerings import get_offering

    try:
        return get_offering(ctx.workspace_id, offering_id)
    except NotFound:
        raise StepError(f"offering {offering_id} was deleted") from None


def offering_evidence(workspace_id: str, offering: Any) -> list[Any]:
    """The offering's own items, then items of its owner that mention its name."""
    from ci_service.store.intel import IntelItem

    own = list(
        IntelItem.select()
        .where(IntelItem.workspace == workspace_id, IntelItem.offering == offering.id)
        .order_by(IntelItem.seq.desc())
        .limit(MAX_EVIDENCE)
    )
    query = IntelItem.select().where(
        IntelItem.workspace == workspace_id,
        IntelItem.type == "EVIDENCE",
        IntelItem.offering.is_null(),
        IntelItem.content.contains(offering.name),
    )
    if offering.competitor_id:
        query = query.where(IntelItem.competitor == offering.competitor_id)
    else:
        query = query.where(IntelItem.scope == "organization")
    latest: dict[str, Any] = {}
    for item in query.order_by(IntelItem.seq.desc()).limit(MAX_EVIDENCE * 3):
        latest.setdefault(item.url or item.id, item)  # newest version of each source
    return own + list(latest.values())[:MAX_EVIDENCE]


def sheet_lines(text: str) -> list[tuple[str, str, str, str]]:
    """(kind, name, description, line) for each product-sheet line of ``text`` (see the
    module docstring); ``kind`` is "feature" or "capability", ``line`` is verbatim."""
    from ci_service.pipeline.products.layout import split_line

    found: list[tuple[str, str, str, str]] = []
    heading: str | None = None
    for raw in (text or "").splitlines():
        line = raw.strip()
        if not line:
            continue
        match = SHEET_LINE.match(BULLET.sub("", line))
        if match:
            kind = "capability" if match["kind"].lower().startswith("capab") else "feature"
            rest = match["rest"].strip()
            heading = None if rest else kind
            parts = split_line(rest) if rest else None
            if parts:
                found.append((kind, parts[0], parts[1], line))
            continue
        if heading is None:
            continue
        bullet = bool(BULLET.match(line))
        if STOP_LINE.match(line) or LABEL_LINE.match(line) or (not bullet and len(line) > 160):
            heading = None
            continue
        parts = split_line(BULLET.sub("", line))
        if parts:
            found.append((heading, parts[0], parts[1], line))
    return found


def _feature_lines(text: str) -> list[tuple[dict[str, str], str]]:
    """(feature, line): product-sheet feature lines, then short lines after a line that
    mentions features (bullets stripped)."""
    from ci_service.pipeline import taxonomy
    from ci_service.pipeline.products.layout import split_line

    found: dict[str, tuple[dict[str, str], str]] = {}
    for kind, name, description, line in sheet_lines(text):
        if kind == "feature":
            item = taxonomy.feature_item(name, description)
            found.setdefault(item["id"], (item, line))
    collecting = False
    for raw in (text or "").splitlines():
        line = raw.strip()
        if not line or SHEET_LINE.match(BULLET.sub("", line)):
            continue  # product-sheet lines are read above
        if FEATURE_LINE.search(line) and len(line) <= 60 and not BULLET.match(line):
            collecting = True
            continue
        if not collecting:
            continue
        if STOP_LINE.match(line) or len(line) > 160 or line.endswith(":"):
            collecting = False
            continue
        parts = split_line(BULLET.sub("", line))
        if parts:
            item = taxonomy.feature_item(*parts)
            found.setdefault(item["id"], (item, line))
    return list(found.values())[:60]


def features_from_text(text: str) -> list[dict[str, str]]:
    """Product-sheet feature lines and the short lines after a line mentioning features."""
    return [item for item, _line in _feature_lines(text)]


def sheet_items(document: Any, evidence: Any = None) -> tuple[list[dict], list[dict]]:
    """(features, capabilities) of an uploaded document, section by section; with
    ``evidence`` (an EvidenceMap of the recorded sections) each item keeps the section's
    ``evidenceIds`` and its line as ``quotes`` when the line is in the stored section."""
    from ci_service.pipeline import taxonomy
    from ci_service.pipeline.evidence import Cite

    features: dict[str, dict] = {}
    capabilities: dict[str, dict] = {}

    def keep(target: dict[str, dict], item: dict, url: str, line: str) -> None:
        resolved = evidence.resolve(Cite(url, line)) if evidence is not None else None
        if resolved:
            item = {**item, "evidenceIds": [resolved["evidenceId"]], "quotes": [resolved]}
        if item["id"] not in target or (resolved and not target[item["id"]].get("quotes")):
            target[item["id"]] = item

    for number, (heading, text) in enumerate(document.sections, start=1):
        url = f"{document.url}#section-{number}"  # as ingest.record_document stores it
        body = f"{heading}\n{text}" if heading else text
        for item, line in _feature_lines(body):
            keep(features, item, url, line)
        for kind, name, description, line in sheet_lines(body):
            if kind == "capability":
                keep(capabilities, taxonomy.capability_item(name, description), url, line)
    return list(features.values())[:60], list(capabilities.values())[:60]


def _benefits(text: str) -> list[str]:
    props, collecting = [], False
    for raw in (text or "").splitlines():
        line = raw.strip()
        if re.search(r"\bwhy\b|benefit", line, re.IGNORECASE) and len(line) <= 60:
            collecting = True
        elif collecting and line and len(line) <= 200 and not STOP_LINE.match(line):
            props.append(BULLET.sub("", line))
        elif collecting:
            collecting = False
    return list(dict.fromkeys(props))[:10]


def enrich_offering(workspace_id: str, offering: Any) -> dict[str, Any]:
    """Fill missing description, valueProps and features from evidence; returns what changed."""
    from ci_service.pipeline.llm import get_provider
    from ci_service.services.collection.product_store import save_offering_fields

    evidence = offering_evidence(workspace_id, offering)
    if not evidence:
        return {}
    changes: dict[str, Any] = {}
    texts = [item.content for item in evidence]
    if not (offering.description or "").strip():
        best = max(evidence, key=lambda i: (i.content.count(offering.name), i.credibility_score))
        stated = (best.metadata or {}).get("description")
        prose = "\n".join(line for line in best.content.splitlines() if len(line.split()) >= 5)
        summary = stated or get_provider().summarize(prose or best.content, max_chars=500)
        if summary:
            changes["description"] = summary
    if not offering.value_props:
        props = [p for text in texts for p in _benefits(text)]
        if props:
            changes["valueProps"] = list(dict.fromkeys(props))[:10]
    if not offering.features:
        features: dict[str, dict] = {}
        for text in texts:
            for item in features_from_text(text):
                features.setdefault(item["id"], item)
        if features:
            changes["features"] = list(features.values())[:30]
    if changes:
        save_offering_fields(workspace_id, offering, changes)
    return changes


def rebuild_offering_tree(workspace_id: str, offering: Any) -> Any:
    """The offering's tree from its own evidence, one tree document per source document."""
    from ci_service.services.intel.trees import TreeDocument, TreeSection, replace_tree
    from ci_service.store.intel import IntelItem

    items = (
        IntelItem.select()
        .where(IntelItem.workspace == workspace_id, IntelItem.offering == offering.id)
        .order_by(IntelItem.seq)
    )
    documents: dict[str, TreeDocument] = {}
    latest: dict[str, Any] = {}
    for item in items:
        latest[item.url or item.id] = item  # later versions replace earlier ones
    for item in latest.values():
        meta = item.metadata or {}
        key = meta.get("document") or item.url or item.id
        name = meta.get("filename") or item.title.split(" – ")[0] or key
        source = "UPLOAD" if str(key).startswith("upload:") else item.source_type
        document = documents.setdefault(key, TreeDocument(name, key, source, []))
        document.sections.append(TreeSection(meta.get("section") or item.title, item.content))
    if not documents:
        return None
    return replace_tree(workspace_id, "OFFERING", offering.id, list(documents.values()))


# -- handlers --------------------------------------------------------------------------------


def enrich_load(ctx: JobContext) -> None:
    ids = [i for i in ctx.payload.get("offeringIds", []) if isinstance(i, str)]
    found = [i for i in ids if _exists(ctx, i)]
    ctx.progress(1.0, f"{len(found)} of {len(ids)} offering(s) to enrich")


def _exists(ctx: JobContext, offering_id: str) -> bool:
    from ci_service.store.resources import Offering

    return (
        Offering.select()
        .where(Offering.id == offering_id, Offering.workspace == ctx.workspace_id)
        .exists()
    )


def enrich_run(ctx: JobContext) -> None:
    ids = [i for i in ctx.payload.get("offeringIds", []) if isinstance(i, str)]
    changed = 0
    for number, offering_id in enumerate(ids, start=1):
        ctx.check_cancelled()
        if not _exists(ctx, offering_id):
            continue  # deleted since the request
        if enrich_offering(ctx.workspace_id, _offering(ctx, offering_id)):
            changed += 1
        ctx.progress(number / max(len(ids), 1), f"Enriched {number} of {len(ids)}")
    ctx.progress(1.0, f"Enriched {changed} offering(s)")


def _read_document(ctx: JobContext, offering: Any) -> tuple[list, list, int]:
    """Extract the upload, record its sections as the offering's evidence (a section
    recorded before, by an earlier run, adds nothing) and read its sheet items: (features,
    capabilities, sections)."""
    from ci_service.intel.errors import ExtractionError
    from ci_service.pipeline.site import extract_document
    from ci_service.services.collection.ingest import IngestStats, Target, record_document

    filename = ctx.payload.get("filename") or "document"
    data = read_upload(ctx.payload)
    url = f"upload:{offering.id}/{filename}"
    try:
        document = extract_document(data, ctx.payload.get("kind", "pdf"), url, title=filename)
    except ExtractionError as exc:
        raise StepError(f"could not read {filename}: {exc}") from None
    if not document.text.strip():
        raise StepError(f"{filename} contains no text")
    stats = IngestStats()
    record_document(Target(ctx.workspace_id, "offering", offering.id), document, stats)
    features, capabilities = sheet_items(document, stats.evidence)
    return features, capabilities, len(document.sections)


def document_extract(ctx: JobContext) -> None:
    from ci_service.services.collection.competitor_jobs import stash

    offering = _offering(ctx, ctx.payload["offeringId"])
    features, capabilities, sections = _read_document(ctx, offering)
    stash(ctx, "document", (features, capabilities))
    filename = ctx.payload.get("filename") or "document"
    ctx.progress(1.0, f"Read {sections} section(s) of {filename}")


def document_map(ctx: JobContext) -> None:
    from ci_service.pipeline.taxonomy import merge_items
    from ci_service.services.collection.capability_store import analyze_offerings
    from ci_service.services.collection.competitor_jobs import take
    from ci_service.services.collection.product_store import save_offering_fields

    offering = _offering(ctx, ctx.payload["offeringId"])
    read = take(ctx, "document")
    if read is None:  # the extract step ran in another process (or before a restart)
        read = _read_document(ctx, offering)[:2]
    features, capabilities = read
    if features or capabilities:
        offering = save_offering_fields(
            ctx.workspace_id,
            offering,
            {
                "features": merge_items(offering.features, features),
                "capabilities": merge_items(offering.capabilities, capabilities),
            },
        )
    analyze_offerings(ctx.workspace_id, [offering])
    rebuild_offering_tree(ctx.workspace_id, offering)
    ctx.progress(
        1.0,
        f"Added {len(features)} feature(s) and {len(capabilities)} capability(ies) "
        "from the document",
    )


def reanalyze_load(ctx: JobContext) -> None:
    offering = _offering(ctx, ctx.payload["offeringId"])
    count = len(offering_evidence(ctx.workspace_id, offering))
    ctx.progress(1.0, f"{count} evidence item(s) about {offering.name}")


def reanalyze_map(ctx: JobContext) -> None:
    from ci_service.services.collection.capability_store import analyze_offerings

    offering = _offering(ctx, ctx.payload["offeringId"])
    enrich_offering(ctx.workspace_id, offering)
    analyze_offerings(ctx.workspace_id, [_offering(ctx, offering.id)])
    ctx.progress(1.0, "Mapped capabilities")


def reanalyze_tree(ctx: JobContext) -> None:
    offering = _offering(ctx, ctx.payload["offeringId"])
    tree = rebuild_offering_tree(ctx.workspace_id, offering)
    ctx.progress(1.0, "Rebuilt the knowledge tree" if tree else "No documents for a tree")


def _remove(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
