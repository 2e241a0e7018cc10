"""Step handlers of the organization jobs (our own company, the workspace organization).

``refresh-organization`` (POST /api/organizations/refresh):

1. refresh-profile, "Refreshing Company Profile": crawl our ``websiteUrl``; evidence
   (scope organization), the ORGANIZATION knowledge tree and graph nodes; the profile
   fields found by ``pipeline.profile.extract`` (yearFounded, headquarters, employeeCount, industry
   as the site states it, revenue, funding, customers, pricingLinks, offeringLinks, each
   with its sources and quotes) merged into ``companyProfile``; fields the site does not
   state are left as they were.
2. refresh-news, "Refreshing News": feed entries and news pages into
   ``companyProfile.newsFeed`` (deduplicated by URL, newest first, at most 50), each also a
   NEWS evidence item and a MARKET_EVENT node.

``refresh-organization-news`` (POST /api/organizations/news/refresh and the daily
scheduler) runs step 2 alone on a small crawl (at most 10 pages) that finds the feeds.
"""

from __future__ import annotations

from typing import Any

from ci_service.jobs.types import JobContext, StepError

NEWS_CRAWL_PAGES = 10


def _organization(ctx: JobContext) -> Any | None:
    """The organization to refresh, or None (the step then has nothing to do: the daily
    news job runs for every organization, also those without a website)."""
    from ci_service.services.workspace.organizations import find_organization

    org = find_organization(ctx.workspace_id)
    if org is None:
        raise StepError(
            "the workspace has no organization yet; create it with PATCH /api/organizations"
        )
    if not org.website_url:
        ctx.progress(1.0, "The organization has no websiteUrl; nothing to refresh")
        return None
    return org


def _target(ctx: JobContext, org: Any) -> Any:
    from ci_service.services.collection.ingest import Target

    return Target(ctx.workspace_id, "organization", org.id)


def refresh_profile(ctx: JobContext) -> None:
    from ci_service.pipeline.profile.extract import extract_profile
    from ci_service.pipeline.site import read_site
    from ci_service.services.collection.competitor_jobs import _tick, stash
    from ci_service.services.collection.ingest import ingest_snapshot
    from ci_service.services.workspace.organizations import update_organization

    org = _organization(ctx)
    if org is None:
        return
    snapshot = read_site(ctx, org.website_url, span=(0.0, 0.5))
    stash(ctx, "site", snapshot)
    ingested = ingest_snapshot(_target(ctx, org), snapshot, tick=_tick(ctx, 0.5, 0.9))
    found = extract_profile(
        snapshot, org.company_profile or {}, ingested["sources"], company_name=org.name or ""
    )
    found.pop("newsFeed", None)  # the news step owns the feed
    if found:
        update_organization(ctx.workspace_id, {"companyProfile": found})
    ctx.progress(1.0, f"Updated {len(found)} profile field(s)")


def refresh_news(ctx: JobContext) -> None:
    from ci_service.pipeline.profile.extract import news_feed
    from ci_service.pipeline.site import read_site
    from ci_service.services.collection.competitor_jobs import take
    from ci_service.services.collection.ingest import IngestStats, link_news, record_news
    from ci_service.services.workspace.organizations import update_organization

    org = _organization(ctx)
    if org is None:
        return
    snapshot = take(ctx, "site")
    if snapshot is None:
        snapshot = read_site(
            ctx, org.website_url, span=(0.0, 0.6), documents=False, max_pages=NEWS_CRAWL_PAGES
        )
    target = _target(ctx, org)
    stats = IngestStats()
    record_news(target, snapshot, stats)
    ctx.check_cancelled()
    events = link_news(target, snapshot)
    feed = news_feed(snapshot, (org.company_profile or {}).get("newsFeed"))
    if feed:
        update_organization(ctx.workspace_id, {"companyProfile": {"newsFeed": feed}})
    ctx.progress(1.0, f"{events} news item(s), {stats.new} new")
