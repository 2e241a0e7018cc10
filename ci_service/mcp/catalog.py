"""The service-backed tools. Each one translates arguments and calls a service function;
the rules (validation, scoping, plan limits) live in the services, as for REST."""

from __future__ import annotations

from ci_service.mcp.tools import tool
from ci_service.services import competitors, jobs, solutions
from ci_service.services.auth import WRITE, Access

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
    from ci_service.services.solution_generation import generate_solutions as generate

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
