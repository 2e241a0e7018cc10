"""Company profile rules for the ways real sites lay their facts out (``pipeline.profile.extract``
with ``profile.places``, ``pipeline.subject``, ``profile.layouts``, ``profile.industry``):
address blocks and HQ labels on contact pages, "located in" sentences, a dated post as the
last resort, founding years that are someone else's, investors listed as cards, customer
stories, and the industry as the company states it (never a default). Every page here is
made up."""

from __future__ import annotations

import pytest

from ci_service.pipeline.evidence import EvidenceMap
from ci_service.pipeline.profile.extract import extract_profile
from ci_service.pipeline.site import SitePage, SiteSnapshot

BASE = "https://acme.example"
FACTS = ("yearFounded", "headquarters", "industry", "funding", "customers")


def page(path, text, title="", *, sections=None, json_ld=None, html="", kind="", description=""):
    depth = 0 if path == "/" else 1
    return SitePage(
        BASE + path,
        title or path,
        description,
        text,
        sections or [],
        json_ld or [],
        [],
        depth,
        html=html,
        kind=kind,
    )


def learn(*pages, company="Acme"):
    """The profile facts of ``pages``, each page recorded as evidence."""
    mapping = EvidenceMap()
    for number, made in enumerate(pages, 1):
        mapping.add(made.url, f"ev-{number}", made.text)
    snapshot = SiteSnapshot(BASE + "/", list(pages))
    found = extract_profile(snapshot, {}, mapping, company_name=company)
    return {k: v for k, v in found.items() if k in (*FACTS, "sources", "quotes")}


def quote(found, field):
    return found["quotes"][field][0]["quote"]


# -- headquarters --------------------------------------------------------------------------


def test_a_us_address_with_the_state_spelt_out_on_a_contact_page():
    made = page(
        "/contact-us/",
        "Get in touch\nPhone\n1.800.555.0100\nMail\n12 North Elm Street, Suite C\n"
        "Springdale, Utah 84767\nYour name\nYour email (required)",
        "Contact Us | Acme",
    )
    found = learn(made)
    assert found["headquarters"] == "Springdale, Utah"
    # the quote is the address, up to its city line; not the form below it
    assert quote(found, "headquarters") == "12 North Elm Street, Suite C Springdale, Utah 84767"


def test_an_hq_label_takes_the_city_and_state_of_the_address_under_it():
    made = page(
        "/contact-main/",
        "Scroll\nRiverton Office (HQ)\n48 9th St, Ste 200\nRiverton, California 94000\n"
        "+1-555-010-0200\nInquiry Type *",
        "Contact | Acme",
    )
    found = learn(made)
    assert found["headquarters"] == "Riverton, California"
    assert quote(found, "headquarters").startswith("Riverton Office (HQ) 48 9th St")


@pytest.mark.parametrize(
    "text, place",
    [
        ("Acme is a startup. We are located in Palo Verde, California.", "Palo Verde, California"),
        ("Our data center is located in Frankfurt, Germany.", None),  # not the company
        ("The museum is located in Lyon, France.", None),  # not about the company
    ],
)
def test_located_in_only_with_the_company_as_subject(text, place):
    assert learn(page("/", text)).get("headquarters") == place


def test_a_dated_post_states_the_headquarters_when_nothing_else_does():
    post = page(
        "/blog/west-coast/",
        "I settled in my new place. It's official, acme.io is now headquartered in San Mateo.",
        kind="post",
    )
    found = learn(post, company="acmeio")  # the name without its dot
    assert found["headquarters"] == "San Mateo"
    contact = page("/contact/", "Write to us\n7 Harbour Road\nGalway\nIreland", "Contact")
    assert learn(post, contact, company="acmeio")["headquarters"] == "Galway, Ireland"


def test_addresses_in_markup_footer_microdata_and_json_ld():
    footer = (
        "<main><p>Payroll for teams.</p></main><footer><p>Acme Inc.</p>"
        "<p>500 Lake Avenue, Suite 3<br>Fairview, TX 75000</p><p>© 2020 Acme</p></footer>"
    )
    found = learn(page("/", "Payroll for teams.", html=footer))
    assert found["headquarters"] == "Fairview, TX"
    assert found["sources"]["headquarters"] == ["ev-1"]  # the footer is not in the text
    micro = (
        '<div itemscope itemtype="https://schema.org/PostalAddress">'
        '<span itemprop="streetAddress">1 Quay St</span>'
        '<span itemprop="addressLocality">Portmarnock</span>'
        '<span itemprop="addressCountry">Ireland</span></div>'
    )
    assert learn(page("/", "Payroll for teams.", html=micro))["headquarters"] == (
        "Portmarnock, Ireland"
    )
    place = {
        "@type": "Place",
        "address": {"@type": "PostalAddress", "addressLocality": "Ghent", "addressCountry": "BE"},
    }
    assert learn(page("/", "Payroll.", json_ld=[place]))["headquarters"] == "Ghent, BE"


def test_a_sentence_on_a_profile_page_beats_the_footer():
    footer = "<footer><p>9 Mill Road<br>Oldtown, OR 97000</p></footer>"
    home = page("/", "Payroll for teams.", html=footer)
    about = page("/about/", "Acme is headquartered in Newtown, Oregon.", "About")
    assert learn(home, about)["headquarters"] == "Newtown, Oregon"


# -- founding year -------------------------------------------------------------------------


def test_an_investors_founding_year_is_not_ours():
    investors = page(
        "/team/investors/",
        "Investors\n\nFoundation Ridge Capital\nFoundation Ridge Capital was founded in 1995 "
        "by three partners with a single purpose: to build great companies.",
        "Investors | Acme",
    )
    home = page(
        "/",
        "About Acme\nAcme is a venture-backed startup founded in 2012 by security veterans "
        "from Globex and Initech. We are located in Palo Verde, California.",
    )
    found = learn(investors, home)
    assert found["yearFounded"] == 2012
    # former employers are not investors; the investors page lists the real one
    assert [e["investors"] for e in found["funding"]] == [["Foundation Ridge Capital"]]


@pytest.mark.parametrize(
    "text",
    [
        "Before Acme, Dana Reyes co-founded Widgetworks in 2005 and sold it in 2010.",
        "Previously founded two startups, in 2004 and 2009.",  # a bio on a team page
    ],
)
def test_years_in_people_bios_on_a_team_page_are_not_ours(text):
    team = page("/our-team/", f"Dana Reyes\nCEO\n{text}", "Meet the team", kind="team")
    assert "yearFounded" not in learn(team)


def test_people_who_founded_the_company_give_its_year_even_on_a_team_page():
    team = page("/team/", "Jo Park and Al Ruiz founded Acme in 2015.", "Team", kind="team")
    assert learn(team)["yearFounded"] == 2015


@pytest.mark.parametrize(
    "text",
    [
        "Originally, the company was founded in 2009 as a consultancy.",
        "Initially the company was founded in 2009 as a consultancy.",
        "OAKLAND - May 2, 2016 - Acme, Inc. was founded in 2009 by two engineers.",
        "Acme Software was founded in 2009 by two engineers.",
    ],
)
def test_openings_datelines_and_longer_names_are_not_someone_else(text):
    assert learn(page("/about/", text, "About"))["yearFounded"] == 2009


def test_launched_counts_only_for_the_company_itself():
    vision = page("/vision/", "Acme was launched in 2014 with a mission to fix payroll.")
    assert learn(vision)["yearFounded"] == 2014
    product = page("/vision/", "Paystub was launched in 2016. We launched Ledger in 2018.")
    assert "yearFounded" not in learn(product)


def test_a_press_release_about_boilerplate_speaks_for_the_company():
    release = page(
        "/press/2017/new-office/",
        "Acme opens a second office.\nAbout Acme\nThe company was founded in 2014 by veterans "
        "of the payroll industry, and is headquartered in Riverton, California.",
        kind="post",
    )
    found = learn(release)
    assert found["yearFounded"] == 2014
    assert found["headquarters"] == "Riverton, California"


# -- funding and investors -----------------------------------------------------------------


def test_investors_listed_as_cards_in_an_investors_section():
    text = (
        "Our team\n\nDana Reyes\nCEO\n\nOur investors\n\nAcme is backed by a collective of "
        "lovely and talented entrepreneurs and investors.\n\nSam Ortiz\nHillside Seed fund\n"
        "Twitter LinkedIn\n\nLee Park\nMesa Venture Partners\nTwitter\n\nKim Ono\n"
        "Ono Ventures\n\nPat Quinn\nTwitter LinkedIn\n\nOur habitat\n\nWe work downtown "
        "with Mesa Venture Partners next door."
    )
    sections = [
        ("Our team", 2, ""),
        ("Dana Reyes", 3, "CEO"),
        ("Our investors", 2, ""),
        (text.split("\n")[7], 3, ""),
        ("Sam Ortiz", 3, "Hillside Seed fund\nTwitter LinkedIn"),
        ("Lee Park", 3, "Mesa Venture Partners\nTwitter"),
        ("Kim Ono", 3, "Ono Ventures"),
        ("Pat Quinn", 3, "Twitter LinkedIn"),
        ("Our habitat", 2, "We work downtown with Mesa Venture Partners next door."),
    ]
    made = page("/our-team/", text, "Meet the Acme Team & Investors", sections=sections)
    [entry] = learn(made)["funding"]
    assert entry["investors"] == ["Hillside Seed fund", "Mesa Venture Partners", "Ono Ventures"]
    assert entry["quotes"][0]["quote"].startswith("Our investors Acme is backed by")
    assert entry["quotes"][0]["quote"].endswith("Kim Ono Ono Ventures")


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "OAKLAND - July 6, 2016 - Acme, Inc. announces an investment by Northwind Venture "
            "Capital to accelerate the launch of its software.",
            {
                "investors": ["Northwind Venture Capital"],
                "date": "2016-07-06",
                "dateText": "July 6, 2016",
            },
        ),
        (
            "Acme, Inc. has raised $1.8 million in a Seed financing round led by Alpha Ventures, "
            "with additional investments from Beta Capital and others.",
            {
                "round": "seed",
                "amount": 1800000,
                "currency": "USD",
                "investors": ["Alpha Ventures", "Beta Capital"],
            },
        ),
        # a total is not the round's amount
        (
            "Acme announces an investment by Gamma Capital, which brings its total funding "
            "to $4.6M.",
            {"investors": ["Gamma Capital"]},
        ),
        ("Acme raised $2M from Alpha Capital and Q&A.", {"amount": 2000000, "currency": "USD",
                                                          "investors": ["Alpha Capital"]}),
    ],
)  # fmt: skip
def test_funding_sentences_of_a_press_list(text, expected):
    found = learn(page("/press-releases/", f"Press\n{text}", kind="news-list"))
    [entry] = found["funding"]
    assert {k: v for k, v in entry.items() if k not in ("evidenceIds", "quotes")} == expected


@pytest.mark.parametrize(
    "text",
    [
        "Acme is a venture-backed startup founded in 2012 by veterans from Globex and Initech.",
        "2:00 PM, Presentation from Jo Lee on funding, then Q&A.",
    ],
)
def test_people_and_talks_from_somewhere_are_not_investors(text):
    assert "funding" not in learn(page("/", text))


def test_an_investors_page_and_a_round_led_by_the_same_firm_are_one_entry():
    investors = page("/investors/", "Investors\n\nHarbor Capital", "Investors | Acme")
    press = page(
        "/press/", "Acme Secures $2.25 Million in Seed Funding Led by Harbor Capital", kind="post"
    )
    [entry] = learn(investors, press)["funding"]
    assert entry["investors"] == ["Harbor Capital"] and entry["amount"] == 2250000
    assert entry["evidenceIds"] == ["ev-1", "ev-2"]


# -- customers -----------------------------------------------------------------------------


def test_customer_stories_name_who_uses_the_company():
    story = page(
        "/stories/publishers/",
        "Stories\n\nFigurehead Collectibles uses Acme to generate qualified leads.\n"
        "Take the quiz\n\nNorthgate uses Acme to help people find their next car.\n"
        "Everyone uses Acme to have fun.\nPublishers use Acme to grow.",
        kind="product",
    )
    found = learn(story)
    assert [c["name"] for c in found["customers"]] == ["Figurehead Collectibles", "Northgate"]
    assert found["customers"][0]["quotes"][0]["quote"].startswith("Figurehead Collectibles uses")


def test_a_post_or_home_page_testimonial_names_no_customer():
    post = page("/blog/tips/", "Jordan uses Acme to plan her week.", kind="post")
    home = page("/", "Jordan uses Acme to plan her week.", kind="home")
    assert "customers" not in learn(post, home)


# -- industry ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "description, title, industry",
    [
        (
            "Acme is a simple online quiz tool that allows you to create quizzes.",
            "Free Online Quiz Tool | Acme",
            "Online quiz tool",
        ),
        ("Scientific software that reduces time to discovery", "Acme | Discover",
         "Scientific software"),
        ("The Private Computing Company", "Home | Acme", "Private computing"),
        ("Dealing with servers doesn't have to be a pain.", "Build your own servers | Acme", None),
        ("", "Free Online Quiz Tool - Easily Create Quizzes | Acme", "Online quiz tool"),
        ("Acme CRM software for small shops.", "Acme | The #1 CRM", "CRM software"),
        ("", "Acme | The #1 CRM for startups", "CRM"),
        ("", "Acme, the complete solution for scheduling meetings",
         "Solution for scheduling meetings"),
        ("", "Acme, the platform for building", None),  # a verb alone says nothing
    ],
)  # fmt: skip
def test_industry_from_the_home_pages_description_or_title(description, title, industry):
    home = page("/", "Welcome.", title, description=description)
    assert learn(home).get("industry") == industry


@pytest.mark.parametrize(
    "text, industry",
    [
        ("Acme is a modern, open source low-code platform for designing, building and "
         "shipping internal tools.", "Open source low-code platform"),
        ("Acme Software builds help desk and analytics software.",
         "Help desk and analytics software"),
        ("We are a digital payments company based in Leeds.", "Digital payments"),
        ("Acme is a venture-backed startup founded in 2012.", None),
        ("Acme is the only API you'll need to manage your servers.", None),
        ("We provide tools for engineering teams to monitor changes.", None),
        ("“Acme is a ridiculously fun quiz tool,” says a customer.", None),  # a testimonial
    ],
)  # fmt: skip
def test_industry_from_what_the_company_says_it_is(text, industry):
    found = learn(page("/about/", text, "About"))
    assert found.get("industry") == industry
    if industry:
        assert quote(found, "industry") == text


def test_industry_from_a_press_release_appositive_and_not_from_a_blog_aside():
    press = page(
        "/press-releases/",
        "Acme, a developer of cloud-based software for research and development, today "
        "announced a new office.\nAcme is a complex system with many moving pieces.",
        kind="news-list",
    )
    assert learn(press)["industry"] == "Software for research and development"
    blog = page("/blog/infra/", "Acme is a complex system with many moving pieces.", kind="post")
    assert "industry" not in learn(blog)


def test_no_statement_no_industry():
    home = page("/", "Software, software, platform, cloud, app, SaaS, software.", "Acme")
    assert "industry" not in learn(home)


# -- page kinds ----------------------------------------------------------------------------


def test_the_page_kind_decides_where_profile_facts_are_read():
    contact = page(
        "/reach-us/", "Find us\n3 Bridge Street\nKelso TD5 7HT\nScotland", kind="contact"
    )
    assert learn(contact)["headquarters"] == "Kelso, Scotland"
    legal = page("/company-info/", "Acme Ltd is headquartered in Leeds, UK.", kind="legal")
    assert learn(legal) == {}


# -- other languages, the site's own name ----------------------------------------------------


@pytest.mark.parametrize(
    "text, year",
    [
        ("Orbis Softver je osnovana 2015. godine u Novom Sadu.", 2015),
        ("Die Orbis GmbH wurde 2016 gegründet.", 2016),
        ("Orbis a été fondée en 2011 à Lyon.", 2011),
    ],
)
def test_founding_year_in_other_languages(text, year):
    about = page("/o-nama/", text, "O nama", kind="about")
    assert learn(about, company="Orbis")["yearFounded"] == year


def test_a_continental_address_with_a_native_country_name():
    contact = page(
        "/kontakt/",
        "Adresa\nOrbis Softver d.o.o., Bulevar kralja 12, 21000 Novi Sad, Srbija\nTelefon",
        kind="contact",
    )
    assert learn(contact, company="Orbis")["headquarters"] == "Novi Sad, Srbija"


def test_places_that_begin_like_a_month_are_places():
    about = page("/about/", "Acme is headquartered in Marseille, France.", "About")
    assert learn(about)["headquarters"] == "Marseille, France"
    assert "headquarters" not in learn(page("/about/", "Our headquarters: March 2020", "About"))


def test_the_sites_own_name_from_its_titles_speaks_for_the_company():
    titles = ["Pricing", "About us", "Team", "Blog"]
    pages = [page("/", "Welcome.", "Globex Cloud | Payroll for teams", kind="home")]
    pages += [page(f"/{t.lower()}/", "Hello.", f"{t} | Globex Cloud") for t in titles]
    pages.append(
        page(
            "/blog/news/",
            "Globex Cloud is now headquartered in Leeds, UK.\n"
            "Globex Cloud, a developer of payroll software, today announced a new office.",
            "News | Globex Cloud",
            kind="post",
        )
    )
    found = learn(*pages, company="Globex")
    assert found["headquarters"] == "Leeds, UK"
    assert found["industry"] == "Payroll software"  # not "Globex cloud"


@pytest.mark.parametrize(
    ("written", "entered"), [("Cafe Nuvo", "Café Nuvo"), ("Café Nuvo", "Cafe Nuvo")]
)
def test_the_company_is_named_with_or_without_its_accents(written, entered):
    described = f"{written} is a location marketing platform."
    home = page("/", "Welcome.", "Home", description=described)
    assert learn(home, company=entered).get("industry") == "Location marketing platform"
    assert learn(home, company="Zeta").get("industry") is None


def test_where_a_station_or_a_store_is_located_is_no_headquarters():
    about = page("/about/", "Our main station is located in Harborview. We rent cars.", "About")
    assert learn(about).get("headquarters") is None
    about = page("/about/", "We are located in Leeds. We rent cars.", "About")
    assert learn(about).get("headquarters") == "Leeds"


@pytest.mark.parametrize(
    ("language", "text", "industry"),
    [
        ("de", "Acme ist eine führende Agentur für digitales Marketing in München.",
         "Agentur für digitales Marketing"),
        ("de", "Acme ist ein Softwareunternehmen aus Berlin.", "Softwareunternehmen"),
        ("fr", "Nous sommes une agence de marketing digital basée à Lyon.",
         "Agence de marketing digital"),
        ("nl", "Acme is een tandartspraktijk in Hulst.", "Tandartspraktijk"),
        ("sv", "Vi är ett bemanningsföretag som hjälper nyanlända.", "Bemanningsföretag"),
        ("it", "Acme è una azienda di consulenza informatica con sede a Milano.",
         "Azienda di consulenza informatica"),
        ("es", "Somos una plataforma de gestión de reservas para hoteles.",
         "Plataforma de gestión de reservas"),
        ("fi", "Olemme nykyajan viestintätoimisto, joka luo arvoa.", "Viestintätoimisto"),
        ("fi", "Acme on pieni ohjelmistoyritys Tampereella.", "Ohjelmistoyritys"),
        ("de", "Acme ist ein junges Team aus Köln.", None),  # no trade named
        ("en", "Acme ist eine Agentur.", None),  # read in the page's own language only
    ],
)  # fmt: skip
def test_industry_from_what_the_company_says_it_is_in_other_languages(language, text, industry):
    about = page("/about/", text, "About")
    about.language = language
    assert learn(about).get("industry") == industry


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Zu unseren Kunden zählen Nordwerk, Brückner Bau und Talstadt Energie.",
         ["Nordwerk", "Brückner Bau", "Talstadt Energie"]),
        ("Nous travaillons avec des clients tels que Lumio, Ferrand et Cobalt.",
         ["Lumio", "Ferrand", "Cobalt"]),
        ("Onder onze klanten zijn Kadetten en Polderwerk.", ["Kadetten", "Polderwerk"]),
        ("Bland våra kunder finns Fjällbo och Skärgårdsbolaget.", ["Fjällbo", "Skärgårdsbolaget"]),
    ],
)  # fmt: skip
def test_customers_a_company_lists_in_other_languages(text, names):
    found = learn(page("/about/", text, "About"))
    assert [c["name"] for c in found.get("customers", [])] == names
