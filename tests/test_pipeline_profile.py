"""The company profile rules (``pipeline.profile.extract``) on small pages imitating the way real
sites state founding year, headquarters, team size, funding and customers; every value
keeps the evidence and the sentence it was read from."""

from __future__ import annotations

import pytest

from ci_service.pipeline.evidence import EvidenceMap
from ci_service.pipeline.profile.extract import extract_profile
from ci_service.pipeline.site import SitePage, SiteSnapshot
from ci_service.services.common.fields import CompanyProfileSchema

BASE = "https://acme.example"
FACTS = ("yearFounded", "headquarters", "employeeCount", "revenue", "funding", "customers")


def page(path, text, title="", sections=None, json_ld=None):
    depth = 0 if path == "/" else 1
    return SitePage(BASE + path, title or path, "", text, sections or [], json_ld or [], [], depth)


def evidence_of(*pages):
    mapping = EvidenceMap()
    for number, made in enumerate(pages, 1):
        mapping.add(made.url, f"ev-{number}", made.text)
    return mapping


def learn(*pages, company="Acme", evidence=True, existing=None):
    """The profile facts of ``pages`` (each recorded as evidence unless told otherwise)."""
    mapping = evidence_of(*pages) if evidence is True else evidence
    snapshot = SiteSnapshot(BASE + "/", list(pages))
    found = extract_profile(snapshot, existing or {}, mapping, company_name=company)
    return {k: v for k, v in found.items() if k in (*FACTS, "sources", "quotes")}


def about(text, **kw):
    return page("/about/", text, "About us", **kw)


# -- founding year -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, year",
    [
        ("Acme was founded in 2016 by two engineers.", 2016),
        ("Established in 1998, Acme builds payroll software.", 1998),
        ("Acme Ltd, est. 1998, builds payroll software.", 1998),
        ("Founded: 2012", 2012),
        ("The mission to make payroll simple began in January 2014.", 2014),
        ("It all started in 2011 in a small garage.", 2011),
        ("Since 2009 we have helped teams ship faster.", 2009),
    ],
)
def test_founding_year_phrasings(text, year):
    found = learn(about(f"Who we are\n{text}\nWe build payroll software."))
    assert found["yearFounded"] == year
    assert found["quotes"]["yearFounded"][0]["quote"] == text
    assert found["sources"]["yearFounded"] == ["ev-1"]


def test_founding_year_from_an_our_story_section():
    body = "In 2012, three friends met in a garage. Today Acme serves 40 countries."
    made = about(f"Our story\n{body}", sections=[("Our story", 2, body)])
    found = learn(made)
    assert found["yearFounded"] == 2012
    assert found["quotes"]["yearFounded"][0]["quote"] == "In 2012, three friends met in a garage."


@pytest.mark.parametrize(
    "text",
    [
        "© 2021 Acme Ltd. All rights reserved.",
        "Copyright 2019 Acme, founded on trust.",
        "Acme was founded in 2999.",  # the future
        "Acme was founded in 1750.",  # before any plausible company site
        "Jane founded her first company in 2001 before joining Acme.",  # a person's bio
        "Since 2020, remote work has changed how teams meet.",  # not about the company
        "Jun 24, 2020 | 1 minute read",  # a blog post's date
    ],
)
def test_years_that_are_not_a_founding_year(text):
    assert "yearFounded" not in learn(about(text))


def test_founded_wins_over_since_and_profile_pages_win_over_the_home_page():
    home = page("/", "Since 2009 we have helped teams ship faster.")
    story = about("Acme was founded in 2007 in Leeds.")
    assert learn(home, story)["yearFounded"] == 2007
    home = page("/", "Acme was founded in 2005.")
    assert learn(home, about("Acme was founded in 2007."))["yearFounded"] == 2007


def test_a_blog_post_counts_only_when_it_names_the_company():
    other = page("/integration/airtable/", "Airtable was founded in 2012 in San Francisco.")
    assert learn(other) == {}
    ours = page("/blog/made-in-europe/", "Acme was founded in 2013 in Belfast, Northern Ireland.")
    found = learn(other, ours)
    assert found["yearFounded"] == 2013
    assert found["headquarters"] == "Belfast, Northern Ireland"
    assert found["sources"]["headquarters"] == ["ev-2"]


# -- headquarters --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, place",
    [
        ("Acme is headquartered in Austin, Texas.", "Austin, Texas"),
        (
            "We are headquartered in Cambridge, UK, have established a US subsidiary.",
            "Cambridge, UK",
        ),
        ("Headquarters: Berlin, Germany", "Berlin, Germany"),
        ("Our headquarters are in Zürich, Switzerland.", "Zürich, Switzerland"),
        ("Our headquarters are in St. Louis, MO.", "St. Louis, MO"),
        ("Singapore HQ 79 Ayer Rajah Crescent, Singapore 139955", "Singapore"),
        ("Contact Us Singapore HQ 79 Ayer Rajah Crescent", "Singapore"),
        ("Visit Acme HQ any time.", None),  # the company's own name is not a place
        ("European HQ: see our offices page.", None),
        ("Headquartered in New York City, Acme serves banks.", "New York City"),
        ("Our HQ is in London and we hire remotely.", "London"),
        ("HQ: 1 Main Street, Dublin, Ireland", "Dublin, Ireland"),
        ("We are based in Lyon, France and sell worldwide.", "Lyon, France"),
        ("Acme has offices in London and New York.", "London"),
        ("Acme has offices in London, Berlin and Paris.", "London"),
        ("We are based in London, Berlin and Paris.", "London"),
        ("Acme was founded in Belfast, Northern Ireland. We love it.", "Belfast, Northern Ireland"),
        ("Our office is in St. Louis, MO.", None),  # no headquarters phrase
    ],
)
def test_headquarters_phrasings(text, place):
    found = learn(page("/contact/", text, "Contact"))
    assert found.get("headquarters") == place
    if place:
        assert found["quotes"]["headquarters"][0]["quote"].startswith(text.split(".")[0][:20])


@pytest.mark.parametrize(
    "block, place",
    [
        ("Acme Ltd\n12 Market Street\nLeeds LS1 6DT\nUnited Kingdom", "Leeds, United Kingdom"),
        ("Acme Inc.\n500 Congress Ave, Suite 200\nAustin, TX 78701", "Austin, TX"),
        ("Acme GmbH\n5 Kaiserstraße\n60311 Frankfurt\nGermany", "Frankfurt, Germany"),
        (
            "Acme GmbH\nKaiserstraße 5\n60311 Frankfurt am Main\nGermany",
            "Frankfurt am Main, Germany",
        ),
    ],
)
def test_headquarters_from_an_address_block_on_a_contact_page(block, place):
    made = page("/contact/", f"Write to us any time.\n{block}\nCall us on weekdays.", "Contact")
    found = learn(made)
    assert found["headquarters"] == place
    quote = found["quotes"]["headquarters"][0]["quote"]
    assert block.split("\n")[1] in quote  # the street line is part of the quoted block


@pytest.mark.parametrize(
    "text, place, quote",
    [
        (
            "Kontakt oss\nOslo\nSjøgata 12, 0150 Oslo\nBergen\nStrandkaien 8, 5013 Bergen",
            "Oslo",
            "Sjøgata 12, 0150 Oslo",
        ),
        (
            "Contact ACME AUDIO, LLC 12 W. Canyon Hwy Fairview, CA 90210 jo@example.com",
            "Fairview, CA",
            "W. Canyon Hwy Fairview, CA 90210",
        ),
    ],
)
def test_a_contact_pages_first_address_in_running_text(text, place, quote):
    made = page("/kontakt/", text, "Kontakt")
    made.kind = "contact"
    found = learn(made)
    assert found["headquarters"] == place
    assert quote in found["quotes"]["headquarters"][0]["quote"]
    # The same words on a page of another kind are no headquarters.
    other = page("/referanser/", text, "Referanser")
    other.kind = "customer"
    assert "headquarters" not in learn(other)


def test_an_address_block_on_a_blog_post_is_not_the_headquarters():
    assert learn(page("/blog/visit/", "Our event venue\n12 Market Street\nLeeds\nUK")) == {}


def test_headquarters_phrase_beats_based_in():
    home = page("/", "Acme is a remote-first team based in Lisbon, Portugal.")
    found = learn(home, about("Acme is headquartered in Porto, Portugal."))
    assert found["headquarters"] == "Porto, Portugal"


def test_json_ld_postal_address_cited_by_the_sentence_naming_the_city():
    org = {
        "@context": "https://schema.org",
        "@type": "Organization",
        "name": "Acme",
        "foundingDate": "2011-03-15",
        "address": {
            "@type": "PostalAddress",
            "streetAddress": "1 Congress Ave",
            "addressLocality": "Austin",
            "addressRegion": "TX",
            "addressCountry": "US",
        },
        "numberOfEmployees": {"@type": "QuantitativeValue", "value": 250},
    }
    home = page("/", "Payroll software for small teams.", json_ld=[org])
    contact = page("/contact/", "Acme is headquartered in Austin, Texas.", "Contact")
    found = learn(home, contact)
    assert found["headquarters"] == "Austin, TX, US"
    assert found["quotes"]["headquarters"][0]["evidenceId"] == "ev-2"
    # Stated only in JSON-LD: the home page's evidence, no quote.
    assert found["yearFounded"] == 2011 and found["employeeCount"] == "250"
    assert found["sources"]["yearFounded"] == ["ev-1"] and "yearFounded" not in found["quotes"]
    # Not recorded as evidence at all: dropped.
    assert "yearFounded" not in learn(home, contact, evidence=evidence_of(contact))
    # A sentence that names the value and says what it is cites it.
    stated = page("/", "Making payroll simple since March of 2011.", json_ld=[org])
    found = learn(stated)
    assert (
        found["quotes"]["yearFounded"][0]["quote"] == "Making payroll simple since March of 2011."
    )


# -- employees -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, count",
    [
        ("Today 250 employees build help desk software.", "250"),
        ("We have over 200 employees in four countries.", "200+"),
        ("Acme is a team of 40 engineers and designers.", "40"),
        ("We are a 35-strong team of builders.", "35"),
        ("Acme employs more than 1,200 people.", "1200+"),
        ("We are 50+ people who love payroll.", "50+"),
        ("Acme has 50-200 employees.", "50-200"),
        ("With 500+ employees in 12 offices, Acme is everywhere.", "500+"),
        ("Built for companies with 50 employees or more.", None),
        ("Free for teams of up to 10 employees.", None),
        ("Join 10,000+ people who use Acme every day.", None),
        ("Over 2 million people use Acme.", None),
    ],
)
def test_employee_counts(text, count):
    assert learn(about(text)).get("employeeCount") == count


def test_people_counts_are_read_on_profile_pages_only():
    assert "employeeCount" not in learn(page("/blog/party/", "Acme had 50+ people at the party."))


# -- funding -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "Acme raised a pre-seed round of £300,000 in December 2019 from Techstart Ventures.",
            {
                "round": "pre-seed",
                "amount": 300000,
                "currency": "GBP",
                "date": "2019-12",
                "dateText": "December 2019",
                "investors": ["Techstart Ventures"],
            },
        ),
        (
            "Acme closed a $4.5M Series A led by Accel and Index Ventures in March 2021.",
            {
                "round": "Series A",
                "amount": 4500000,
                "currency": "USD",
                "date": "2021-03",
                "dateText": "March 2021",
                "investors": ["Accel", "Index Ventures"],
            },
        ),
        (
            "On 5 March 2021 Acme closed a €3M Series B round led by Balderton Capital.",
            {
                "round": "Series B",
                "amount": 3000000,
                "currency": "EUR",
                "date": "2021-03-05",
                "dateText": "5 March 2021",
                "investors": ["Balderton Capital"],
            },
        ),
        (
            "We secured €2 million in seed funding, backed by Seedcamp.",
            {"round": "seed", "amount": 2000000, "currency": "EUR", "investors": ["Seedcamp"]},
        ),
        (
            "In 2020 Acme received a GBP 300k grant from Innovate UK.",
            {
                "round": "grant",
                "amount": 300000,
                "currency": "GBP",
                "date": "2020",
                "dateText": "2020",
                "investors": ["Innovate UK"],
            },
        ),
        (
            "We are funded by Linaro Ltd, a leading global software company.",
            {"investors": ["Linaro Ltd"]},
        ),
        (
            "In 2021 Acme raised $20 million led by Sequoia Capital, with participation from "
            "existing investors Accel and Index.",
            {
                "amount": 20000000,
                "currency": "USD",
                "date": "2021",
                "dateText": "2021",
                "investors": ["Sequoia Capital", "Accel", "Index"],
            },
        ),
        (
            "Acme, a spin-out from Cambridge University, raised $2M.",
            {"amount": 2000000, "currency": "USD"},
        ),
        (
            "Acme announces $12M Series A.",
            {"round": "Series A", "amount": 12000000, "currency": "USD"},
        ),
        (
            "Acme received grants from InvestNI and the European Regional Development Fund.",
            {"round": "grant", "investors": ["InvestNI", "European Regional Development Fund"]},
        ),
        (
            "Our investors include Alpha Capital, Beta Partners and Gamma Fund.",
            {"investors": ["Alpha Capital", "Beta Partners", "Gamma Fund"]},
        ),
    ],
)
def test_funding_rounds(text, expected):
    found = learn(page("/investors/", f"Investors\n{text}\nTalk to us."))
    [entry] = found["funding"]
    assert {k: v for k, v in entry.items() if k not in ("evidenceIds", "quotes")} == expected
    assert entry["evidenceIds"] == ["ev-1"]
    assert entry["quotes"][0]["quote"] == text
    assert found["sources"]["funding"] == ["ev-1"]


@pytest.mark.parametrize(
    "text",
    [
        "We seek to raise $2,000,000. With this investment, we will hit product market fit.",
        "Customers save $2 million a year with Acme.",
        "We expect to announce additional investors later in 2018.",
        "Funding your team's growth is what we do best.",
    ],
)
def test_sentences_that_are_not_funding(text):
    assert "funding" not in learn(page("/investment/", text, "Investment"))


def test_funding_of_another_company_in_a_blog_post_is_ignored():
    post = page("/blog/market/", "Airtable raised a $100M Series C led by Benchmark in 2018.")
    assert learn(post) == {}


# -- customers -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, names",
    [
        ("Acme is trusted by Siemens, Philips and Unilever.", ["Siemens", "Philips", "Unilever"]),
        (
            "Trusted by Procter & Gamble and Johnson & Johnson.",
            ["Procter & Gamble", "Johnson & Johnson"],
        ),
        ("Our customers include NASA.", ["NASA"]),
        (
            "To date, Acme has over 15,000 signups from Philips, PWC, Deloitte, the list goes on.",
            ["Philips", "PWC", "Deloitte"],
        ),
        (
            "Acme is used by over 2,000 companies including Shopify and Stripe.",
            ["Shopify", "Stripe"],
        ),
        ("Trusted by thousands of teams worldwide.", []),
        ("Companies like Amazon and Netflix changed how software ships.", []),
        ("Acme has signups from Germany and France.", []),
        ("Home Pricing Customers Blog Contact", []),
        ("Used by Acme internally.", []),
    ],
)
def test_named_customers(text, names):
    found = learn(page("/", text))
    assert [c["name"] for c in found.get("customers", [])] == names
    for customer in found.get("customers", []):
        assert customer["quotes"][0]["quote"] == text and customer["evidenceIds"] == ["ev-1"]


def test_companies_named_in_a_blog_post_are_not_customers():
    post = page("/blog/history/", "We had a surge of companies such as Amazon, Hubspot and Zoho.")
    assert learn(post) == {}


# -- evidence ------------------------------------------------------------------------------


def test_legal_pages_and_all_caps_disclaimers_are_not_read():
    terms = page("/terms-of-service/", "Acme Ltd is headquartered in Leeds, UK.", "Terms")
    shout = about("WE ARE NOT LIABLE FOR ANY FUNDS RECEIVED FROM SERVICE PROVIDERS OR BANKS.")
    assert learn(terms, shout) == {}


def test_a_value_whose_sentence_is_not_in_the_evidence_is_dropped():
    made = about("Acme was founded in 2016. Acme is headquartered in Leeds, UK.")
    stale = EvidenceMap()
    stale.add(made.url, "ev-old", "Acme was founded in 2015.")  # the page changed since
    assert learn(made, evidence=stale) == {}
    assert learn(made, evidence=EvidenceMap()) == {}


def test_the_next_candidate_is_used_when_the_first_does_not_resolve():
    first = about("Acme was founded in 2016.")
    second = page("/company/", "Acme was founded in 2015.", "Company")
    found = learn(first, second, evidence=evidence_of(second))
    assert found["yearFounded"] == 2015 and found["sources"]["yearFounded"] == ["ev-1"]


def test_sources_and_quotes_resolve_and_the_profile_validates():
    pages = [
        about("Acme was founded in 2016. We are a team of 40. Acme is headquartered in Leeds, UK."),
        page("/investors/", "Acme raised a $1.5M seed round led by Seedcamp in May 2020."),
        page("/", "Acme is trusted by Siemens and Philips."),
    ]
    mapping = evidence_of(*pages)
    found = learn(*pages, evidence=mapping)
    assert set(found) == {*FACTS, "sources", "quotes"} - {"revenue"}
    texts = {p.url: p.text for p in pages}
    for name, citations in found["quotes"].items():
        assert citations and set(found["sources"][name]) >= {c["evidenceId"] for c in citations}
        for citation in citations:
            url = citation["url"].split("#:~:text=")[0]
            assert citation["quote"] in texts[url] and "#:~:text=" in citation["url"]
            assert mapping.evidence_id(url) == citation["evidenceId"]
    CompanyProfileSchema().load(found)  # what the competitor service accepts on save


def test_without_evidence_values_are_kept_without_sources():
    found = learn(about("Acme was founded in 2016 in Leeds, UK."), evidence=None)
    assert found == {"yearFounded": 2016, "headquarters": "Leeds, UK"}


def test_stored_sources_of_fields_not_found_again_are_kept():
    existing = {
        "revenue": "$4 million",
        "sources": {"revenue": ["ev-r"], "yearFounded": ["ev-x"]},
        "quotes": {"yearFounded": [{"evidenceId": "ev-x", "quote": "Founded 1999."}]},
    }
    found = learn(about("Acme was founded in 2016."), existing=existing)
    assert found["sources"] == {"revenue": ["ev-r"], "yearFounded": ["ev-1"]}
    assert found["quotes"]["yearFounded"][0]["quote"] == "Acme was founded in 2016."


def test_hostile_pages_do_not_raise():
    garbage = {
        "@type": ["Organization"],
        "foundingDate": 12,
        "address": [None],
        "numberOfEmployees": {"value": "many"},
    }
    pages = [
        page("/", "founded " * 5000 + "\x00\ufffd HQ HQ HQ: , , ,", json_ld=[garbage, {}]),
        about("$$$ £ raised from from from , and and " * 200 + "headquartered in " * 100),
        page("/contact/", "1 A\n" * 300, "Contact"),
    ]
    found = learn(*pages)
    CompanyProfileSchema().load(found)
    assert "yearFounded" not in found
