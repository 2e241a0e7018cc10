"""The service-backed tools. Each one translates arguments and calls a service function;
the rules (validation, scoping, plan limits) live in the services, as for REST.

Importing this module registers them (``tools.tool``); ``get_tool`` and ``list_tools`` look
tools up here, so whoever looks one up has the catalog loaded."""

from __future__ import annotations

from ci_service.mcp.tools import TOOLS, InvalidArguments, Tool, tool
from ci_service.services.alerts import events
from ci_service.services.analysis import matrix, solution_matrix
from ci_service.services.battlecards import cards as battlecards
from ci_service.services.identity.auth import WRITE, Access
from ci_service.services.intel import items as intel
from ci_service.services.search import intel_search
from ci_service.services.workspace import competitors, jobs, solutions

PRO_READ = Access(plan="PRO")
PRO_WRITE = Access(scope="write", min_role="EDITOR", plan="PRO")

ID = {"type": "string", "minLength": 1}
IDS = {"type": "array", "items": ID}
CATEGORY_MAPPINGS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "categoryId": ID,
            "productId": ID,
            "weight": {"type": "number", "minimum": 0, "maximum": 1},
        },
        "required": ["categoryId", "productId", "weight"],
    },
}


@tool(
    "get_competitor",
    "One competitor of the workspace: basic info, company profile, products, categories, "
    "tags and the last refresh time.",
    properties={"competitorId": ID},
    required=("competitorId",),
)
def get_competitor(context, args):
    row = competitors.get_competitor(context.workspace_id, args["competitorId"])
    return competitors.competitor_to_dict(row)


@tool(
    "list_competitors",
    "The workspace's competitors; with offeringId, only those competing with that offering.",
    properties={"offeringId": ID},
    result_key="competitors",
)
def list_competitors(context, args):
    rows = competitors.list_competitors(context.workspace_id, args.get("offeringId"))
    return [competitors.competitor_to_dict(row) for row in rows]


@tool(
    "list_solutions",
    "Solution themes: name, description, product ids, category mappings with weights, and "
    "whether they were AI-generated.",
    access=PRO_READ,
    result_key="solutions",
)
def list_solutions(context, args):
    return [solutions.solution_to_dict(r) for r in solutions.list_solutions(context.workspace_id)]


@tool(
    "get_solution",
    "One solution theme by id.",
    properties={"solutionId": ID},
    required=("solutionId",),
    access=PRO_READ,
)
def get_solution(context, args):
    return solutions.solution_to_dict(
        solutions.get_solution(context.workspace_id, args["solutionId"])
    )


@tool(
    "create_solution",
    "Create a solution theme from our products, with at least one category mapping "
    "(categoryId, productId, weight 0.0 to 1.0).",
    properties={
        "name": {"type": "string", "minLength": 1},
        "description": {"type": "string"},
        "productIds": IDS,
        "categoryMappings": {**CATEGORY_MAPPINGS, "minItems": 1},
    },
    required=("name", "productIds", "categoryMappings"),
    access=PRO_WRITE,
)
def create_solution(context, args):
    row = solutions.create_solution(context.workspace_id, args, user_id=context.principal.user_id)
    return solutions.solution_to_dict(row)


@tool(
    "update_solution",
    "Change a solution theme; only the given fields change.",
    properties={
        "solutionId": ID,
        "name": {"type": "string", "minLength": 1},
        "description": {"type": "string"},
        "productIds": IDS,
        "categoryMappings": CATEGORY_MAPPINGS,
    },
    required=("solutionId",),
    access=PRO_WRITE,
)
def update_solution(context, args):
    changes = {k: v for k, v in args.items() if k != "solutionId"}
    row = solutions.update_solution(context.workspace_id, args["solutionId"], changes)
    return solutions.solution_to_dict(row)


@tool(
    "generate_solutions",
    "Propose solution themes from our products' categories and shared capabilities "
    "(isAiGenerated true); running again refreshes them. Says what it created.",
    access=PRO_WRITE,
)
def generate_solutions(context, args):
    from ci_service.services.workspace.solution_generation import generate_solutions as generate

    return generate(context.workspace_id, user_id=context.principal.user_id)


@tool(
    "trigger_refresh",
    "Start collecting fresh intel on a competitor (asynchronous). Returns the job: id, "
    "status and progress; an analysis already running is returned instead of a second one.",
    properties={"competitorId": ID},
    required=("competitorId",),
    access=WRITE,
)
def trigger_refresh(context, args):
    job = jobs.start_competitor_refresh(context.workspace_id, args["competitorId"])
    return {"jobId": job.id, **jobs.job_to_dict(job)}


def _check_competitor(context, competitor_id):
    """A competitorId filter must name a competitor of the workspace (404 otherwise)."""
    if competitor_id is not None:
        competitors.get_competitor(context.workspace_id, competitor_id)


@tool(
    "get_intel",
    "Collected intel items (evidence and internal notes): content, type, metadata (source "
    "type, URL, title, credibility score) and timestamps, newest first. Filter by "
    "competitorId and/or ids.",
    properties={"competitorId": ID, "ids": {**IDS, "maxItems": 1000}},
    result_key="intel",
)
def get_intel(context, args):
    _check_competitor(context, args.get("competitorId"))
    rows = intel.list_intel(
        context.workspace_id, competitor_id=args.get("competitorId"), ids=args.get("ids")
    )
    return [intel.intel_to_dict(row) for row in rows]


@tool(
    "search_intel",
    "Semantic search over collected intel: items ordered by relevance, each with a "
    "relevanceScore (0 to 1); exact name matches rank first.",
    properties={
        "query": {"type": "string", "minLength": 1},
        "competitorId": ID,
        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
    },
    required=("query",),
    result_key="results",
)
def search_intel(context, args):
    _check_competitor(context, args.get("competitorId"))
    return intel_search.search_intel(
        context.workspace_id,
        args["query"],
        competitor_id=args.get("competitorId"),
        limit=args.get("limit", 10),
    )


@tool(
    "get_battlecard",
    "The battlecard for a competitor against one of our offerings: why we win, why we "
    "lose, objections with responses, talking points, kill shot, landmines, pricing wedge, "
    "and the evidence ids behind every item.",
    properties={"competitorId": ID, "offeringId": ID},
    required=("competitorId", "offeringId"),
)
def get_battlecard(context, args):
    row = battlecards.battlecard_for(context.workspace_id, args["competitorId"], args["offeringId"])
    return battlecards.battlecard_to_dict(row)


@tool(
    "get_matrix",
    "Feature matrix cells (categoryId, competitorId, summary, capabilityStatus SUPERIOR / "
    "MATCH / INFERIOR / UNKNOWN, evidenceIds). offeringId filters competitors to those "
    "competing with it; includeOurOffering adds our offering's column (needs offeringId). "
    "Basic cells only: the full matrix is GET /api/matrix.",
    properties={
        "offeringId": ID,
        "competitorIds": IDS,
        "includeOurOffering": {"type": "boolean", "default": False},
    },
    access=PRO_READ,
)
def get_matrix(context, args):
    include = args.get("includeOurOffering", False)
    if include and not args.get("offeringId"):
        raise InvalidArguments(
            "includeOurOffering needs offeringId",
            {"offeringId": ["is required when includeOurOffering is true"]},
        )
    return matrix.cells_for_tool(
        context.workspace_id,
        product_id=args.get("offeringId"),
        competitor_ids=args.get("competitorIds"),
        include_our_product=include,
    )


@tool(
    "generate_battlecard",
    "(Re)generate the battlecard for a competitor against one of our offerings "
    "(asynchronous), in mode ATTACK or DEFENSE (without mode: the card's current mode, "
    "ATTACK for a new card). Returns the job (id, status, progress), the battlecard id and "
    "the mode being generated; poll get_battlecard or the job until it completes.",
    properties={
        "competitorId": ID,
        "offeringId": ID,
        "mode": {"type": "string", "enum": list(battlecards.BATTLECARD_MODES)},
    },
    required=("competitorId", "offeringId"),
    access=WRITE,
)
def generate_battlecard(context, args):
    if "mode" in args:
        card, job = battlecards.start_generation(
            context.workspace_id, args["competitorId"], args["offeringId"], args["mode"]
        )
    else:
        card, job = battlecards.start_generation_default_mode(
            context.workspace_id, args["competitorId"], args["offeringId"]
        )
    # ``mode``: the card's (the requested one); a shared job's metadata may name another.
    return {
        "jobId": job.id,
        "battlecardId": card.id,
        **jobs.job_to_dict(job),
        "mode": battlecards.shown_mode(card),
    }


@tool(
    "get_solution_matrix",
    "Solution themes scored against competitors: per solution and competitor an "
    "aggregatedScore level 0 to 4 from the weighted category cells, with "
    "contributingCategoryIds and evidenceIds.",
    properties={"competitorIds": IDS, "solutionIds": IDS},
    access=PRO_READ,
)
def get_solution_matrix(context, args):
    return solution_matrix.get_solution_matrix(
        context.workspace_id,
        competitor_ids=args.get("competitorIds"),
        solution_ids=args.get("solutionIds"),
    )


@tool(
    "list_events",
    "What changed, newest first: price changes, new or removed products, news, new people, "
    "changed pages, updated battlecards, recorded deals and failed jobs. Filters: type, "
    "competitorId, since (ISO 8601), importance (minimum: low, normal, high), limit.",
    properties={
        "type": {"type": "string", "enum": list(events.EVENT_TYPES)},
        "competitorId": ID,
        "since": {"type": "string", "minLength": 1},
        "importance": {"type": "string", "enum": ["low", "normal", "high"]},
        "limit": {"type": "integer", "minimum": 1, "maximum": events.LIST_CAP},
    },
    result_key="events",
)
def list_events(context, args):
    rows = events.list_events(
        context.workspace_id,
        event_type=args.get("type"),
        competitor_id=args.get("competitorId"),
        since=args.get("since"),
        importance=args.get("importance"),
        limit=args.get("limit"),
    )
    return [events.event_to_dict(row) for row in rows]


def get_tool(name: str) -> Tool | None:
    return TOOLS.get(name)


def list_tools() -> list[Tool]:
    return list(TOOLS.values())
