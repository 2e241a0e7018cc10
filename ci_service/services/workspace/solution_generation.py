"""Propose solution themes from our own products' categories and capabilities.

The deterministic rule (no model needed): every category name that one or more of our
products carries becomes a theme named after it, mapping each such product's category
with weight 1.0 (equal say in the solution score). Capability names shared by at least two
products (and not already a category name) form more themes, mapped by capability id: the
matrix scores such a capability as a category of its own. Themes are AI-generated solutions
(``isAiGenerated: true``); running again updates the generated themes in place instead of
piling up duplicates, and never touches solutions people made.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ci_service.store.db import transaction
from ci_service.store.resources import Offering, Solution
from ci_service.timeutil import utcnow


def _norm(name: str) -> str:
    return " ".join(str(name).lower().split())


def _category_themes(products: list[Offering]) -> dict[str, dict[str, Any]]:
    themes: dict[str, dict[str, Any]] = {}
    for product in products:
        for category in product.categories or []:
            name = (category.get("name") or "").strip()
            if not name:
                continue
            theme = themes.setdefault(
                _norm(name), {"name": name, "descriptions": [], "mappings": []}
            )
            if category.get("description"):
                theme["descriptions"].append(category["description"])
            theme["mappings"].append(
                {"categoryId": category["id"], "productId": product.id, "weight": 1.0}
            )
    return themes


def _capability_themes(products: list[Offering], taken: set[str]) -> dict[str, dict[str, Any]]:
    by_name: dict[str, list[tuple[Offering, dict]]] = defaultdict(list)
    for product in products:
        for capability in product.capabilities or []:
            name = (capability.get("name") or "").strip()
            if name and _norm(name) not in taken:
                by_name[_norm(name)].append((product, capability))
    themes = {}
    for key, holders in by_name.items():
        if len({p.id for p, _ in holders}) < 2:
            continue  # one product's capability is a feature, not a theme
        themes[key] = {
            "name": holders[0][1]["name"],
            "descriptions": [c.get("description") for _, c in holders if c.get("description")],
            "mappings": [
                {"categoryId": c["id"], "productId": p.id, "weight": 1.0} for p, c in holders
            ],
        }
    return themes


def generate_solutions(workspace_id: str, *, user_id: str | None = None) -> dict[str, Any]:
    """Create or refresh the generated themes; say what happened."""
    from ci_service.services.workspace.solutions import solution_to_dict

    with transaction():
        products = list(
            Offering.select()
            .where(Offering.workspace == workspace_id, Offering.competitor.is_null())
            .order_by(Offering.created_at, Offering.id)
        )
        themes = _category_themes(products)
        themes.update(_capability_themes(products, set(themes)))
        existing = {
            _norm(row.name): row
            for row in Solution.select().where(
                Solution.workspace == workspace_id,
                Solution.is_ai_generated == True,  # noqa: E712
            )
        }
        created, updated = [], []
        for key, theme in themes.items():
            product_names = sorted(
                {p.name for p in products if p.id in {m["productId"] for m in theme["mappings"]}}
            )
            description = f"{theme['name']} across {', '.join(product_names)}."
            if theme["descriptions"]:
                description += " " + " ".join(dict.fromkeys(theme["descriptions"]))
            product_ids = list(dict.fromkeys(m["productId"] for m in theme["mappings"]))
            row = existing.get(key)
            if row is None:
                row = Solution.create(
                    workspace=workspace_id,
                    name=theme["name"][:200],
                    description=description,
                    is_ai_generated=True,
                    product_ids=product_ids,
                    category_mappings=theme["mappings"],
                    created_by_user_id=user_id,
                )
                created.append(row)
            elif row.product_ids != product_ids or row.category_mappings != theme["mappings"]:
                row.product_ids, row.category_mappings = product_ids, theme["mappings"]
                row.description, row.updated_at = description, utcnow()
                row.save()
                updated.append(row)
    if not products:
        message = "No products yet: add products with categories, then generate again."
    elif not themes:
        message = "No product categories or shared capabilities to build solution themes from."
    else:
        message = (
            f"Generated {len(created)} new and updated {len(updated)} solution themes from "
            f"{len(products)} products ({len(themes)} themes in all)."
        )
    return {
        "status": "completed",
        "message": message,
        "created": [solution_to_dict(r) for r in created],
        "updated": [solution_to_dict(r) for r in updated],
    }
