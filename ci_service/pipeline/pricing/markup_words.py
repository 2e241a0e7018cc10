"""The words and class names a pricing page's markup says things with
(``pricing_html``): what names a plan card, describes it, holds its price, cuts it, quotes
a customer, or is shop plumbing."""

from __future__ import annotations

import re

TITLE = re.compile(
    r"title|name|plan|tier|package|edition|heading|(?<![a-z])head(?:er|line)?(?![a-z])",
    re.IGNORECASE,
)
DESCRIPTION = re.compile(r"desc|subtitle|tagline|summary|badge|ribbon|lead\b", re.IGNORECASE)
PRICE_CLASS = re.compile(r"price|amount|cost", re.IGNORECASE)
# A card that says its price is cut: the lower amount is what the plan costs now.
DISCOUNT = re.compile(
    r"\d+\s*%\s*(?:off|discount)|\b(?:sale|discount(?:ed)?|early[\s-]*birds?|"
    r"limited[\s-]*(?:time\s+)?offer)\b",
    re.IGNORECASE,
)
NOT_A_NAME = re.compile(
    r"\W*(?:most\s+popular|popular|recommended|best\s+value|new|save\s+\d+\s*%?|\d+\s*%\s+off|"
    r"limited\s+offer|coming\s+soon|get\s+started|sign\s+up|buy\s+now|start\s+(?:free\s+)?trial|"
    r"try\s+(?:it\s+)?(?:for\s+)?free|learn\s+more|monthly|annually|yearly|annual|per\s+month|"
    r"per\s+year|billed\s+\w+|from|only|starting\s+at|just|pricing|plans?|features?|prices?|"
    r"costs?|fees?|salary|(?:subscription|monthly|annual|yearly|base|list|your)\s+"
    r"(?:price|fee|cost)s?|"
    r"add\s+to\s+(?:cart|basket|bag)|buy|quantity|qty|in\s+stock|out\s+of\s+stock|reviews?|"
    r"(?:customer\s+)?ratings?|related\s+products?|you\s+may\s+also\s+like|shipping|"
    r"delivery|returns?|payment(?:\s+(?:options|methods))?|sub-?total|total|checkout|cart|"
    r"testimonials?|faqs?|frequently\s+asked\s+questions)\W*",
    re.IGNORECASE,
)
# A card's label for a limit or an allowance ("Max credit line per customer", "Up to"): the
# amount under it is what the plan allows, not what it costs.
LIMIT_LABEL = re.compile(
    r"\W*(?:max(?:imum)?|min(?:imum)?|up\s+to|limits?|credit\s+lines?|quota|allowance)\b"
    r".{0,60}",
    re.IGNORECASE,
)
# Words of testimonials and quotations: a figure in them ("$75,000 in revenue") is no price.
QUOTED_CLASS = re.compile(
    r"(?:^|[\s_-])(?:testimonials?|blockquote|pull-?quote|quotation|reviews?|ratings?|"
    r"customer-stor(?:y|ies)|case-stud(?:y|ies))(?:$|[\s_-])",
    re.IGNORECASE,
)
QUOTED_TAGS = frozenset("blockquote q cite".split())
# Shop plumbing around a product's price: cart, payment options, shipping, reviews, related
# or recommended products (class or id words, read as tokens split at "-", "_" or spaces).
PLUMBING_CLASS = re.compile(
    r"(?:^|[\s_-])(?:cart|mini-?cart|basket|checkout|shipping|delivery-info|payment-(?:options|"
    r"methods|icons)|installments?|klarna|afterpay|reviews?|ratings?|star-rating|related|"
    r"upsells?|cross-?sells?|recently-viewed|also-bought|wishlist|recommendations?)(?:$|[\s_-])",
    re.IGNORECASE,
)
GLYPH = re.compile(r"^[✓✔✅☑•·*+–-]\s*")
