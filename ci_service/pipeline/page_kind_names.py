"""The kinds a fetched page can be, and the sets of kinds that hold each sort of fact.

Apart from ``page_kinds`` (which decides a page's kind and compiles its heading patterns on
import) so that what only asks "is this kind a capability page?" (the feature matrix's
evidence, loaded by ``serve``) does not load the classifier at start-up.
"""

from __future__ import annotations

from ci_service.store.intel import PAGE_KINDS

HOME = "home"
PRODUCT = "product"  # a product or feature page
PRICING = "pricing"
TEAM = "team"  # people with their titles
ABOUT = "about"  # the company: story, mission, investors
CONTACT = "contact"
NEWS_LIST = "news-list"  # a press or news list, a blog index
POST = "post"  # a dated article: blog post, press release
CUSTOMER = "customer"  # a customer story or case study
CAREERS = "careers"  # careers page or a job post
LEGAL = "legal"  # privacy, terms, cookies
UTILITY = "utility"  # search, sign-in, thank-you, cart, 404
ARCHIVE = "archive"  # date, tag, category or author archive; a feed saved as HTML
OTHER = "other"

KINDS = PAGE_KINDS
# Pages whose words never become offerings, features, plans, people or news.
NO_FACTS = frozenset({LEGAL, UTILITY, ARCHIVE})
# Pages whose words describe what the company sells (offerings, features, capabilities).
CAPABILITY_KINDS = frozenset({HOME, PRODUCT, PRICING, CUSTOMER, OTHER})
# Pages that are news: their date is the date the page states.
NEWS_KINDS = frozenset({POST, NEWS_LIST})
