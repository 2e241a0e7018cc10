"""Pages about customers: a customer story, case study or testimonials page, by its kind
(``pipeline.page_kinds``) or its path (/customers/, /case-studies/, /testimonials/,
/stories/, /showcase/)."""

from __future__ import annotations

import re

from ci_service.intel.urls import path_segments
from ci_service.pipeline import page_kind_names as kinds
from ci_service.pipeline.customers.names import company_name
from ci_service.pipeline.site import SitePage

PARTNER_SEGMENT = re.compile(
    r"^(?:partners?|resellers?|distributors?|dealers?|partenaires?|vertriebspartner|socios)$",
    re.I,
)
MAX_NAME_WORDS = 4
MAX_LINES = 40  # lines of a page read for the name its address spells
CUSTOMER_SEGMENT = re.compile(
    r"^(?:customers?|clients?|case-?stud(?:y|ies)|testimonials|(?:success-?|customer-?)?stories|"
    r"showcase)$",
    re.I,
)


def is_customer_page(page: SitePage) -> bool:
    """A customer story, case study or testimonials page, by kind or path."""
    kind = page.kind or ""
    return kind == kinds.CUSTOMER or any(CUSTOMER_SEGMENT.match(s) for s in path_segments(page.url))


def is_story_link(url: str) -> bool:
    """A link to a page in a folder of customer stories (/case-studies/<name>)."""
    parts = path_segments(url)
    return len(parts) >= 2 and any(CUSTOMER_SEGMENT.match(s) for s in parts[:-1])


def spelled(text: str) -> str:
    """Letters and digits only, case-folded: "Quanta.io" and /quanta-io/ are both "quantaio"."""
    return re.sub(r"[\W_]+", "", text.casefold())


def slug(url: str) -> str:
    """The last segment of a URL's path, spelled (``spelled``), without a file extension."""
    parts = path_segments(url)
    return spelled(parts[-1].rsplit(".", 1)[0]) if parts else ""


def partner_page(page: SitePage) -> tuple[str, str] | None:
    """(name, line) of the partner a page of its own names: a page in a partners folder
    (/partners/<name>/) whose text writes the name its address spells ("Workiz" for
    /partners/workiz/), with the line that says so; None for any other page."""
    parts = path_segments(page.url)
    if len(parts) < 2 or not PARTNER_SEGMENT.match(parts[-2]):
        return None
    wanted = slug(page.url)
    if len(wanted) < 3:
        return None
    for line in (page.text or "").splitlines()[:MAX_LINES]:
        words = line.split()
        for start in range(len(words)):
            for size in range(1, MAX_NAME_WORDS + 1):
                name = " ".join(words[start : start + size]).strip(".,;:!?()\"'’“”")
                if spelled(name) in (wanted, wanted + "s"):
                    named = company_name(name.removesuffix("’s").removesuffix("'s"))
                    return (named, line.strip()) if named else None
    return None
