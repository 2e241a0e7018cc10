"""Settings: our organization profile and our products (features, categories, pricing).

Same services as ``PATCH /api/organizations`` and ``/api/products`` (the first save of the
profile creates the organization, as the REST PATCH does). Lists are edited one entry a
line, price plans as rows of inputs (see ``settings_forms``); the service validates, and a
bad form is shown again with its messages (400). Users and API keys: ``settings_access``.
"""

from __future__ import annotations

from typing import Any

from flask import redirect, request, url_for

from ci_service.errors import ValidationFailed
from ci_service.services.identity.auth import WRITE
from ci_service.services.workspace import organizations, products
from ci_service.web.pages import bp
from ci_service.web.pages import settings_forms as forms
from ci_service.web.pages.context import page, principal
from ci_service.web.pages.settings_access import render  # registers the users and keys pages

PROFILE_FIELDS = ("industry", "headquarters", "employeeCount", "revenue")

# -- organization ---------------------------------------------------------------------------


def _organization_form(org: dict[str, Any] | None) -> dict[str, str]:
    org = org or {}
    profile = org.get("companyProfile") or {}
    year = profile.get("yearFounded")
    return {
        "name": org.get("name") or "",
        "websiteUrl": org.get("websiteUrl") or "",
        **{key: str(profile.get(key) or "") for key in PROFILE_FIELDS},
        "yearFounded": "" if year is None else str(year),
        "strengths": "\n".join(org.get("companyStrengths") or []),
        "weaknesses": "\n".join(org.get("companyWeaknesses") or []),
        "messaging": "\n".join(org.get("keyMessaging") or []),
        "links": forms.links_text(org.get("referenceLinks")),
    }


def _organization_body(form) -> dict[str, Any]:
    """The PATCH /api/organizations body the form stands for."""
    body: dict[str, Any] = {
        "name": form.get("name", "").strip(),
        "companyStrengths": forms.lines(form.get("strengths")),
        "companyWeaknesses": forms.lines(form.get("weaknesses")),
        "keyMessaging": forms.lines(form.get("messaging")),
        "referenceLinks": forms.parse_links(form.get("links")),
        "companyProfile": {
            **{key: forms.optional_text(form.get(key)) for key in PROFILE_FIELDS},
            "yearFounded": forms.year(form.get("yearFounded")),
        },
    }
    website = form.get("websiteUrl", "").strip()
    if website:
        body["websiteUrl"] = website
    return body


def _organization_page(org, form=None, errors=None, status=200, saved=False):
    data = organizations.organization_to_dict(org)
    return render(
        "settings.html",
        status,
        organization=data,
        form=form or _organization_form(data),
        errors=errors or [],
        saved=saved,
    )


@bp.route("/settings")
@page()
def settings():
    org = organizations.find_organization(principal().workspace_id)
    return _organization_page(org, saved=request.args.get("saved") == "1")


@bp.route("/settings", methods=["POST"])
@page(WRITE)
def settings_save():
    workspace_id = principal().workspace_id
    try:
        organizations.update_organization(workspace_id, _organization_body(request.form))
    except ValidationFailed as exc:
        org = organizations.find_organization(workspace_id)
        form = {key: request.form.get(key, "") for key in _organization_form(None)}
        return _organization_page(org, form, forms.form_errors(exc), 400)
    return redirect(url_for("pages.settings", saved=1))


# -- products -------------------------------------------------------------------------------

PRODUCT_FORM_KEYS = ("name", "description", "audience", "valueProps", "features", "categories")


def _product_form(product: dict[str, Any] | None) -> dict[str, str]:
    product = product or {}
    return {
        "name": product.get("name") or "",
        "description": product.get("description") or "",
        "audience": product.get("audience") or "",
        "valueProps": "\n".join(product.get("valueProps") or []),
        "features": forms.items_text(product.get("features")),
        "categories": forms.items_text(product.get("categories")),
        "plans": forms.plan_rows(product.get("pricing")),
    }


def _product_body(form, current: dict[str, Any] | None = None) -> dict[str, Any]:
    """The POST/PATCH /api/products body the form stands for (items keep their ids)."""
    current = current or {}
    return {
        "name": form.get("name", "").strip(),
        "description": form.get("description", "").strip(),
        "audience": form.get("audience", "").strip(),
        "valueProps": forms.lines(form.get("valueProps")),
        "features": forms.parse_items(form.get("features"), current.get("features")),
        "categories": forms.parse_items(form.get("categories"), current.get("categories")),
        "pricing": forms.parse_plan_rows(forms.submitted_rows(form), current.get("pricing")),
    }


def _submitted() -> dict[str, Any]:
    """The form as typed, to show again with its messages (blank plan rows re-drawn)."""
    form: dict[str, Any] = {key: request.form.get(key, "") for key in PRODUCT_FORM_KEYS}
    form["plans"] = forms.submitted_rows(request.form)
    form["plans"] += [forms.blank_row() for _ in range(forms.BLANK_ROWS)]
    return form


def _failed(exc: ValidationFailed) -> dict[str, Any]:
    """The template arguments for a refused product form: summary and per-row messages."""
    summary, per_row = forms.row_errors(exc)
    return {"errors": summary, "plan_errors": per_row}


def _products_page(form=None, failed=None, status=200):
    rows = products.list_products(principal().workspace_id)
    return render(
        "settings_products.html",
        status,
        products=[products.product_to_dict(r) for r in rows],
        form=form or _product_form(None),
        **_page_form_context(failed),
    )


def _page_form_context(failed: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "errors": (failed or {}).get("errors") or [],
        "plan_errors": (failed or {}).get("plan_errors") or {},
        "periods": forms.PERIODS,
        "units": forms.UNITS,
    }


@bp.route("/settings/products")
@page()
def settings_products():
    return _products_page()


@bp.route("/settings/products", methods=["POST"])
@page(WRITE)
def settings_product_create():
    who = principal()
    try:
        row = products.create_product(
            who.workspace_id, _product_body(request.form), user_id=who.user_id
        )
    except ValidationFailed as exc:
        return _products_page(_submitted(), _failed(exc), 400)
    return redirect(url_for("pages.settings_product", product_id=row.id, saved=1))


def _product_page(product: dict[str, Any], form=None, failed=None, status=200, saved=False):
    return render(
        "settings_product.html",
        status,
        product=product,
        form=form or _product_form(product),
        saved=saved,
        **_page_form_context(failed),
    )


@bp.route("/settings/products/<product_id>")
@page()
def settings_product(product_id):
    row = products.get_product(principal().workspace_id, product_id)
    return _product_page(products.product_to_dict(row), saved=request.args.get("saved") == "1")


@bp.route("/settings/products/<product_id>", methods=["POST"])
@page(WRITE)
def settings_product_save(product_id):
    workspace_id = principal().workspace_id
    current = products.product_to_dict(products.get_product(workspace_id, product_id))
    try:
        products.update_product(workspace_id, product_id, _product_body(request.form, current))
    except ValidationFailed as exc:
        return _product_page(current, _submitted(), _failed(exc), 400)
    return redirect(url_for("pages.settings_product", product_id=product_id, saved=1))


@bp.route("/settings/products/<product_id>/delete", methods=["POST"])
@page(WRITE)
def settings_product_delete(product_id):
    products.delete_product(principal().workspace_id, product_id)
    return redirect(url_for("pages.settings_products"))
