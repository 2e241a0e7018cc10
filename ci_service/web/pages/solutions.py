"""Pages: solution themes (``/solutions``): list, new, edit, delete and generate.

The same services and gates as ``/api/solutions`` (PRO plan; reading for everyone in the
workspace, changes for EDITOR or higher, the REST route's ``PRO_WRITE``):

- The form offers, per product of ours, the categories a solution can map
  (``services.workspace.solutions.mappable_categories``: the pairs that can have matrix
  cells), each a checkbox with its weight (0 to 1, as the contract). Mappings the solution
  already has that are no longer offered stay on the form, named by their id, so saving keeps them.
- The form becomes the REST body: ``categoryMappings`` are the ticked pairs, ``productIds``
  the products they name. A weight that is not a number goes to the service as typed, so
  the contract's VALIDATION_ERROR names it; errors re-render the form (400) with what was
  typed.
- "Generate solutions" runs ``services.workspace.solution_generation`` (synchronous and idempotent:
  it refreshes the generated themes, never the ones people made), then shows its message.
- Another workspace's solution id is the 404 page on every page and POST here.
"""

from __future__ import annotations

from typing import Any

from flask import redirect, request, url_for

from ci_service.errors import ValidationFailed
from ci_service.services.workspace import solution_generation, solutions
from ci_service.web.pages import bp
from ci_service.web.pages.context import page, principal, render
from ci_service.web.routes.solutions import PRO_READ, PRO_WRITE

FIELD_LABELS = {
    "name": "Name",
    "description": "Description",
    "productIds": "Products",
    "categoryMappings": "Categories",
}
NOTICES = {
    "created": "Solution created.",
    "saved": "Solution saved.",
    "deleted": "Solution deleted.",
}


def key_of(product_id: str, category_id: str) -> str:
    """A mapping's form value. Product ids are generated (no ``|``), so the first ``|``
    splits it back, whatever the category id holds."""
    return f"{product_id}|{category_id}"


def label_errors(exc: ValidationFailed) -> list[str]:
    """The service's field messages as a person reads them (``categoryMappings.0.weight``
    -> ``Categories (weight): ...``)."""
    fields = (exc.details or {}).get("fields") or {}
    out = []
    for name, messages in fields.items():
        head, _, rest = str(name).partition(".")
        label = FIELD_LABELS.get(head, head)
        detail = rest.rsplit(".", 1)[-1] if rest else ""
        if detail and not detail.isdigit():
            label = f"{label} ({detail})"
        text = "; ".join(str(m) for m in messages) if isinstance(messages, list) else messages
        out.append(f"{label}: {text}")
    return out or [exc.message]


def weight_of(text: str) -> Any:
    """A typed weight as the REST body carries it: a number, else the text itself (the
    service then refuses it with the field named)."""
    text = (text or "").strip()
    try:
        return float(text) if text else 1.0
    except ValueError:
        return text


def form_to_body(form) -> dict[str, Any]:
    """The form as the body ``POST /api/solutions`` takes (``PUT`` takes the same)."""
    mappings = []
    for key in dict.fromkeys(form.getlist("mapping")):
        product_id, sep, category_id = key.partition("|")
        if not sep:
            continue
        mappings.append(
            {
                "categoryId": category_id,
                "productId": product_id,
                "weight": weight_of(form.get("weight|" + key, "")),
            }
        )
    return {
        "name": form.get("name", "").strip(),
        "description": form.get("description", "").strip(),
        "productIds": list(dict.fromkeys(m["productId"] for m in mappings)),
        "categoryMappings": mappings,
    }


def form_values(form) -> dict[str, Any]:
    """What was typed, to show again: ``{name, description, weights: {key: text}}``."""
    ticked = list(dict.fromkeys(form.getlist("mapping")))
    return {
        "name": form.get("name", ""),
        "description": form.get("description", ""),
        "ticked": set(ticked),
        "weights": {k[len("weight|") :]: v for k, v in form.items() if k.startswith("weight|")},
    }


def solution_values(row) -> dict[str, Any]:
    mappings = row.category_mappings or []
    return {
        "name": row.name,
        "description": row.description or "",
        "ticked": {key_of(m["productId"], m["categoryId"]) for m in mappings},
        "weights": {key_of(m["productId"], m["categoryId"]): f"{m['weight']:g}" for m in mappings},
    }


def form_groups(workspace_id: str, values: dict[str, Any]) -> list[dict[str, Any]]:
    """Per product: its offered categories as rows ``{key, name, ticked, weight}``; ticked
    pairs no longer offered follow, under their product (or "Other products")."""
    groups = []
    offered: set[str] = set()
    for product in solutions.mappable_categories(workspace_id):
        rows = []
        for category in product["categories"]:
            key = key_of(product["id"], category["id"])
            offered.add(key)
            rows.append({"key": key, "name": category["name"]})
        groups.append({"id": product["id"], "name": product["name"], "rows": rows})
    by_product = {g["id"]: g for g in groups}
    for key in sorted(values["ticked"] - offered):
        product_id, _, category_id = key.partition("|")
        group = by_product.get(product_id)
        if group is None:
            group = {"id": product_id, "name": "Other products", "rows": []}
            by_product[product_id] = group
            groups.append(group)
        group["rows"].append({"key": key, "name": category_id})
    for group in groups:
        for row in group["rows"]:
            row["ticked"] = row["key"] in values["ticked"]
            row["weight"] = values["weights"].get(row["key"]) or "1"
    return groups


def category_names(workspace_id: str) -> tuple[dict[str, str], dict[tuple[str, str], str]]:
    """(product id -> name, (product id, category id) -> category name)."""
    products, names = {}, {}
    for product in solutions.mappable_categories(workspace_id):
        products[product["id"]] = product["name"]
        for category in product["categories"]:
            names[(product["id"], category["id"])] = category["name"]
    return products, names


def form_page(solution=None, values=None, errors=None, status: int = 200):
    ws = principal().workspace_id
    values = values or (solution_values(solution) if solution is not None else None)
    values = values or {"name": "", "description": "", "ticked": set(), "weights": {}}
    return render(
        "solution_form.html",
        status,
        solution=solution,
        values=values,
        groups=form_groups(ws, values),
        errors=errors or [],
    )


def count_arg(name: str) -> int:
    try:
        return max(0, int(request.args.get(name, "0")))
    except ValueError:
        return 0


def generated_notice(rows: list[dict[str, Any]], has_products: bool) -> str:
    """What "Generate solutions" did, from its counts in the address (the text is ours:
    a link cannot make the page say something else)."""
    created, updated = count_arg("generated"), count_arg("updated")
    if created or updated:
        return f"Generated {created} new and updated {updated} solution themes."
    if not has_products:
        return "No products yet: add our products with their categories, then generate again."
    if not any(r["isAiGenerated"] for r in rows):
        return "No product categories or shared capabilities to build solution themes from."
    return "The generated solution themes are already up to date."


@bp.route("/solutions", endpoint="solutions")
@page(PRO_READ)
def solutions_page():
    ws = principal().workspace_id
    products, names = category_names(ws)
    rows = []
    for row in solutions.list_solutions(ws):
        data = solutions.solution_to_dict(row)
        data["mapped"] = [
            {
                "name": names.get((m["productId"], m["categoryId"]), m["categoryId"]),
                "product": products.get(m["productId"], ""),
                "weight": m["weight"],
            }
            for m in data["categoryMappings"]
        ]
        rows.append(data)
    notice = NOTICES.get(request.args.get("done", ""))
    if request.args.get("generated") is not None:
        notice = generated_notice(rows, bool(products))
    return render(
        "solutions.html",
        solutions=rows,
        notice=notice,
        has_products=bool(products),
        can_write=PRO_WRITE,
    )


@bp.route("/solutions/new")
@page(PRO_WRITE)
def new_solution():
    return form_page()


@bp.route("/solutions", methods=["POST"])
@page(PRO_WRITE)
def create_solution():
    p = principal()
    try:
        row = solutions.create_solution(
            p.workspace_id, form_to_body(request.form), user_id=p.user_id
        )
    except ValidationFailed as exc:
        return form_page(values=form_values(request.form), errors=label_errors(exc), status=400)
    return redirect(url_for("pages.solutions", done="created", _anchor=f"solution-{row.id}"))


@bp.route("/solutions/<solution_id>/edit")
@page(PRO_WRITE)
def edit_solution(solution_id):
    return form_page(solutions.get_solution(principal().workspace_id, solution_id))


@bp.route("/solutions/<solution_id>", methods=["POST"])
@page(PRO_WRITE)
def update_solution(solution_id):
    ws = principal().workspace_id
    current = solutions.get_solution(ws, solution_id)  # another workspace's id: 404 first
    try:
        solutions.update_solution(ws, solution_id, form_to_body(request.form))
    except ValidationFailed as exc:
        values = form_values(request.form)
        return form_page(current, values, label_errors(exc), 400)
    return redirect(url_for("pages.solutions", done="saved", _anchor=f"solution-{solution_id}"))


@bp.route("/solutions/<solution_id>/delete", methods=["POST"])
@page(PRO_WRITE)
def delete_solution(solution_id):
    solutions.delete_solution(principal().workspace_id, solution_id)
    return redirect(url_for("pages.solutions", done="deleted"))


@bp.route("/solutions/generate", methods=["POST"])
@page(PRO_WRITE)
def generate_solutions():
    p = principal()
    result = solution_generation.generate_solutions(p.workspace_id, user_id=p.user_id)
    counts = {"generated": len(result["created"]), "updated": len(result["updated"])}
    return redirect(url_for("pages.solutions", **counts))
