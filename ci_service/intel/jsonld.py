"""schema.org JSON-LD: tolerant parsing and fact pickers for Organization, Product and Offer.

Sites ship broken JSON-LD often (HTML comments, trailing semicolons, raw newlines in
strings, several objects in one ``@graph``). :func:`parse_json_ld` never raises: a block
that cannot be read is skipped. Pure standard library, cheap to import.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

ORGANIZATION_TYPES = frozenset(
    {
        "Organization",
        "Corporation",
        "LocalBusiness",
        "OnlineBusiness",
        "OnlineStore",
        "NGO",
        "EducationalOrganization",
        "NewsMediaOrganization",
        "ProfessionalService",
    }
)
PRODUCT_TYPES = frozenset(
    {
        "Product",
        "ProductModel",
        "ProductGroup",
        "IndividualProduct",
        "SoftwareApplication",
        "WebApplication",
        "MobileApplication",
        "Service",
    }
)
OFFER_TYPES = frozenset({"Offer", "AggregateOffer"})

_MAX_DEPTH = 6
_COMMENT = re.compile(r"^\s*(<!--|<!\[CDATA\[)|(-->|\]\]>)\s*$")
_PREFIX = re.compile(r"^(https?://schema\.org/|schema:)", re.IGNORECASE)


def _loads(raw: str) -> Any:
    text = _COMMENT.sub("", raw.strip()).strip().rstrip(";").strip()
    if not text:
        return None
    try:
        return json.loads(text, strict=False)  # strict=False: raw control chars in strings
    except ValueError:
        return None


def _flatten(data: Any, depth: int = 0) -> list[dict[str, Any]]:
    if depth > _MAX_DEPTH:
        return []
    if isinstance(data, list):
        return [obj for item in data for obj in _flatten(item, depth + 1)]
    if not isinstance(data, dict):
        return []
    graph = data.get("@graph")
    if graph is None:
        return [data]
    found = _flatten(graph, depth + 1)
    return ([data] if "@type" in data else []) + found


def parse_json_ld(blocks: Iterable[str]) -> list[dict[str, Any]]:
    """The objects of all JSON-LD ``<script>`` bodies, ``@graph`` flattened, bad blocks skipped."""
    objects: list[dict[str, Any]] = []
    for raw in blocks:
        objects.extend(_flatten(_loads(raw or "")))
    return objects


def types_of(obj: dict[str, Any]) -> set[str]:
    """``@type`` as a set of bare schema.org names ("http://schema.org/Product" -> "Product")."""
    raw = obj.get("@type")
    names = raw if isinstance(raw, list) else [raw]
    return {_PREFIX.sub("", name) for name in names if isinstance(name, str)}


def find_typed(objects: Iterable[dict[str, Any]], types: Iterable[str]) -> list[dict[str, Any]]:
    wanted = set(types)
    return [obj for obj in objects if types_of(obj) & wanted]


def _text(value: Any) -> str | None:
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        value = value.get("name") or value.get("@value") or value.get("url") or value.get("@id")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def _address(value: Any) -> str | None:
    if isinstance(value, list):
        value = value[0] if value else None
    if not isinstance(value, dict):
        return _text(value)
    locality = " ".join(
        part
        for part in (_text(value.get("postalCode")), _text(value.get("addressLocality")))
        if part
    )
    parts = [
        _text(value.get("streetAddress")),
        locality or None,
        _text(value.get("addressRegion")),
        _text(value.get("addressCountry")),
    ]
    return ", ".join(part for part in parts if part) or _text(value)


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return int(value)
    if isinstance(value, str):
        digits = value.strip().replace(",", "")
        return int(digits) if digits.isdigit() else None
    return None


def _employees(value: Any) -> int | dict[str, int | None] | None:
    """An exact count as int; a QuantitativeValue range as {"min": .., "max": ..}."""
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        exact = _int(value.get("value"))
        if exact is not None:
            return exact
        low, high = _int(value.get("minValue")), _int(value.get("maxValue"))
        return {"min": low, "max": high} if low is not None or high is not None else None
    return _int(value)


def _compact(facts: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in facts.items() if value not in (None, "", [], {})}


def _list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def organization_facts(objects: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """name, legalName, description, url, logo, foundingDate, address, numberOfEmployees, sameAs."""
    facts = []
    for org in find_typed(objects, ORGANIZATION_TYPES):
        facts.append(
            _compact(
                {
                    "type": sorted(types_of(org) & ORGANIZATION_TYPES)[0],
                    "name": _text(org.get("name")),
                    "legalName": _text(org.get("legalName")),
                    "description": _text(org.get("description")),
                    "url": _text(org.get("url")),
                    "logo": _text(org.get("logo")),
                    "foundingDate": _text(org.get("foundingDate")),
                    "address": _address(org.get("address")),
                    "numberOfEmployees": _employees(org.get("numberOfEmployees")),
                    "sameAs": [s for s in (_text(v) for v in _list(org.get("sameAs"))) if s],
                }
            )
        )
    return facts


def offer_facts(offer: dict[str, Any]) -> dict[str, Any]:
    """name, price, priceCurrency, lowPrice, highPrice, availability, url of one Offer."""
    spec = offer.get("priceSpecification")
    spec = spec[0] if isinstance(spec, list) and spec else spec
    spec = spec if isinstance(spec, dict) else {}
    availability = _text(offer.get("availability"))
    return _compact(
        {
            "name": _text(offer.get("name")),
            "price": _text(offer.get("price")) or _text(spec.get("price")),
            "priceCurrency": _text(offer.get("priceCurrency")) or _text(spec.get("priceCurrency")),
            "lowPrice": _text(offer.get("lowPrice")),
            "highPrice": _text(offer.get("highPrice")),
            "availability": _PREFIX.sub("", availability) if availability else None,
            "url": _text(offer.get("url")),
        }
    )


def product_facts(objects: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """name, description, brand, sku, category, url and ``offers`` (see :func:`offer_facts`)."""
    facts = []
    for product in find_typed(objects, PRODUCT_TYPES):
        offers = [o for o in _list(product.get("offers")) if isinstance(o, dict)]
        nested = [o for offer in offers for o in _list(offer.get("offers")) if isinstance(o, dict)]
        facts.append(
            _compact(
                {
                    "type": sorted(types_of(product) & PRODUCT_TYPES)[0],
                    "name": _text(product.get("name")),
                    "description": _text(product.get("description")),
                    "brand": _text(product.get("brand")),
                    "sku": _text(product.get("sku")),
                    "category": _text(
                        product.get("category") or product.get("applicationCategory")
                    ),
                    "url": _text(product.get("url")),
                    "offers": [offer_facts(o) for o in offers + nested],
                }
            )
        )
    return facts


def standalone_offers(objects: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Offers that appear as top-level objects (not inside a product)."""
    return [offer_facts(offer) for offer in find_typed(objects, OFFER_TYPES)]


__all__ = [
    "OFFER_TYPES",
    "ORGANIZATION_TYPES",
    "PRODUCT_TYPES",
    "find_typed",
    "offer_facts",
    "organization_facts",
    "parse_json_ld",
    "product_facts",
    "standalone_offers",
    "types_of",
]
