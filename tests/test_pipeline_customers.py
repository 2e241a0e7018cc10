"""Customers read from a site's own structure (``pipeline.customers``): the companies of the
people its testimonials quote, customer-story headlines, cards that link to their stories,
logo captions, a card's own list, taglines that are no partners. Every page here is made up."""

from __future__ import annotations

from ci_service.pipeline.customers.extract import page_customers
from ci_service.pipeline.customers.records import customers_and_partners
from ci_service.pipeline.customers.testimonials import attribution
from tests.test_pipeline_records import site_page

ACME = ["acme"]


def _quotes(*attributions: str) -> str:
    cards = "".join(
        f'<li><h5>"The best tool we have bought in years, and support answers fast."</h5>'
        f"<p>{line}</p></li>"
        for line in attributions
    )
    return f"<html><body><main><h2>What people say</h2><ul>{cards}</ul></main></body></html>"


def test_a_testimonials_company_is_a_customer_when_a_person_and_a_title_come_first():
    html = _quotes(
        "<strong>Mira Holt</strong>, Co-founder, Bramble &amp; Finch",
        "— Tomas Quill, VP of Sales at Larkspur Foods",
        "Plant Supervisor, Regional Utility",
        "Jane Roe, Owner, Austin, TX",
    )
    found = page_customers(site_page("/", html, kind="home", depth=0), 1, ACME)
    assert [name for name, _quote in found.customers] == ["Bramble & Finch", "Larkspur Foods"]
    # The quote is the attribution as the page's text writes it.
    quote = found.customers[0][1]
    assert quote.startswith("Mira Holt") and quote.endswith("Co-founder, Bramble & Finch")


def test_an_attribution_needs_a_person_a_job_title_and_one_company():
    assert attribution("Petra Lindqvist, Geschäftsführer - stays4teams", "", ACME) == (
        "stays4teams",
        "Petra Lindqvist",
    )
    assert attribution("Lena Berg", "Head of Marketing, Globex", ACME) == ("Globex", "Lena Berg")
    assert attribution("Lena Berg, Head of Marketing, Acme", "", ACME) is None  # ourselves
    assert attribution("Lena Berg, Happy customer, Globex", "", ACME) is None  # no job title
    assert attribution("Head of Marketing, Globex", "", ACME) is None  # nobody named
    assert attribution("Lena Berg, CEO, Globex, Berlin, Germany", "", ACME) is None
    assert attribution("Lena Berg, CEO, London", "", ACME) is None  # a place


def test_testimonials_on_a_page_about_partners_name_no_customers():
    html = _quotes("Mira Holt, Co-founder, Bramble &amp; Finch")
    partners_page = site_page("/become-a-partner/", html, kind="product")
    assert page_customers(partners_page, 2, ACME).customers == []
    post = site_page("/blog/interview/", html, kind="post")
    assert page_customers(post, 2, ACME).customers == []


def test_story_headlines_name_the_customer_when_they_name_us_or_their_page_is_the_story():
    cards = "".join(
        f'<div class="s"><h4>{headline}</h4><a href="{href}">Read case study</a></div>'
        for headline, href in (
            ("How Quanta.io Leverages Acme to Detect Problems Early", "/customers/quantaio/"),
            ("Corvid Imaging Gets Better Monitoring With Acme", "/customers/corvid/"),
            ("Paperlane Gets Insights To Cut AWS Cost in Half", "/customers/paperlane/"),
            ("Everyone Saves Time With Acme", "/customers/all/"),
            ("How Acme Scales Monitoring", "/customers/scale/"),
            ("Northwind Cuts Its Costs", "/customers/other/"),
        )
    )
    html = f"<html><body><main><h1>Customers</h1>{cards}</main></body></html>"
    found = page_customers(site_page("/customers/", html, kind="customer"), 2, ACME)
    assert [name for name, _ in found.customers] == ["Quanta.io", "Corvid Imaging", "Paperlane"]
    assert found.customers[0][1] == "How Quanta.io Leverages Acme to Detect Problems Early"


def test_cards_linking_to_their_case_studies_are_clients_on_any_page():
    cards = "".join(
        f'<a class="card" href="/work/case-studies/{slug}"><h3>{name}</h3><p>{line}</p></a>'
        for name, slug, line in (
            ("Granite Solar Works", "granite-solar-works", "Branding case study"),
            ("The Harvest Lane Fair", "the-harvest-lane", "Branding case study"),
            ("Keystone Sign Shop", "keystone-sign", "Branding case study"),
            ("Acme Portal", "acme-portal", "Branding case study"),
            ("Tablebook", "tablebook", "Acme-owned booking platform"),
        )
    )
    html = f"<html><body><main><h2>Built to live.</h2><div>{cards}</div></main></body></html>"
    found = page_customers(site_page("/work/branding", html, kind="other"), 2, ACME)
    assert [name for name, _ in found.customers] == [
        "Granite Solar Works",
        "The Harvest Lane Fair",
        "Keystone Sign Shop",
    ]
    assert found.owned == ["Tablebook"]  # the company's own: no client on any page
    # Cards that link elsewhere are not stories, whatever they are called.
    html = html.replace("/work/case-studies/", "/services/")
    assert page_customers(site_page("/work/branding", html, kind="other"), 2, ACME).customers == []


def test_a_walls_shared_caption_is_no_part_of_a_name_and_a_caption_card_no_customer():
    logos = "".join(
        f'<div class="l"><img src="{n}.png" alt="{n} Finder"></div>'
        for n in ("Crumbly", "Fernhill Dairy", "Pebble Tea", "Sunrise Mills")
    )
    html = f"""<html><body><main><h2>Our customers</h2><div>
      <div class="l"><h3>Our Loyal Friends</h3><p>Brands who use Acme.</p></div>{logos}
      </div></main></body></html>"""
    customers, _partners, _owned = customers_and_partners(
        site_page("/", html, kind="home", depth=0)
    )
    assert [name for name, _ in customers] == [
        "Crumbly",
        "Fernhill Dairy",
        "Pebble Tea",
        "Sunrise Mills",
    ]


def test_a_cards_own_list_and_a_tagline_name_no_customers_or_partners():
    ratings = "".join(f'<li class="r">{label}</li>' for label in ("Setup Time", "Support", "Value"))
    stories = "".join(
        f'<div class="s"><h4>{name} story</h4><ul>{ratings}</ul></div>'
        for name in ("Globex", "Initech", "Hooli")
    )
    html = f"""<html><body><main><h2>Success stories</h2><div>{stories}</div>
      <h2>Your partner for smart kitchens</h2><div>
      <div class="f"><h3>Automation</h3><p>Buildings that run themselves.</p></div>
      <div class="f"><h3>Dashboards</h3><p>Every sensor on one screen.</p></div>
      <div class="f"><h3>Greenhouses</h3><p>Climate under control.</p></div></div>
      </main></body></html>"""
    customers, partners, _owned = customers_and_partners(
        site_page("/customers/", html, kind="customer")
    )
    assert not {"Setup Time", "Support", "Value"} & {name for name, _ in customers}
    assert partners == []


def test_a_page_of_its_own_in_a_partners_folder_names_that_partner():
    html = """<html><body><main><h1>Acme and Fieldly make a great team</h1>
      <p>Already using Fieldly's job management platform? Add Acme.</p></main></body></html>"""
    found = page_customers(site_page("/partners/fieldly/", html, kind="product"), 2, ACME)
    assert found.partners == [("Fieldly", "Acme and Fieldly make a great team")]
    # Elsewhere the same page names no partner.
    assert page_customers(site_page("/blog/fieldly/", html, kind="post"), 2, ACME).partners == []


def _wall(caption: str, *names: str) -> str:
    cells = "".join(
        f'<div class="cell"><img class="logo" alt="{n}" src="/l/{i}.png"></div>'
        for i, n in enumerate(names)
    )
    return (
        f'<html><body><main><div class="grid"><div class="cell"><h2>{caption}</h2></div>'
        f"{cells}</div></main></body></html>"
    )


def test_a_logo_walls_caption_in_its_first_cell_says_what_the_logos_are():
    clients = site_page(
        "/ueber-uns/referenzen/",
        _wall("Unsere Referenzen", "Nordwerk", "Uni Talstadt", "Brückner Bau"),
        kind="customer",
    )
    found = customers_and_partners(clients, ACME)
    assert [n for n, _q in found.customers] == ["Nordwerk", "Uni Talstadt", "Brückner Bau"]
    assert found.partners == []
    suppliers = site_page(
        "/ueber-uns/partner/", _wall("Unsere Partner", "Zellwerk", "Kobaltix", "Ionora")
    )
    found = customers_and_partners(suppliers, ACME)
    assert [n for n, _q in found.partners] == ["Zellwerk", "Kobaltix", "Ionora"]
    assert found.customers == []


def test_partners_a_company_states_in_its_own_sentences():
    from ci_service.pipeline.customers.partner_prose import prose_partners

    said = [
        "Acme er Globex Gold Partner.",
        "We are a Certified Initech Partner and proud of it.",
        "Proud member of Vision Example",
        "A Smile Network member practice.",
        "Acme is an official reseller of Umbrella Systems.",
    ]
    assert [n for line in said for n, _q in prose_partners(line, ACME)] == [
        "Globex",
        "Initech",
        "Vision Example",
        "Smile Network",
        "Umbrella Systems",
    ]
    never = [
        "Partner with us today and earn.",
        "PARTNER WITH US TODAY & START EARNING.",
        "He is a member of the Example Guild since 2004.",
        "Become a Gold Partner today",
        "Acme is a Gold Partner.",
    ]
    assert [found for line in never if (found := prose_partners(line, ACME))] == []


def test_supporters_memberships_and_accepted_insurance_are_partners():
    for heading in ("Supported By", "Memberships", "Insurance Plans We Accept"):
        html = (
            f"<html><body><main><h2>{heading}</h2><ul>"
            "<li><img alt='Riverbank Labs' src='/a.png'></li>"
            "<li><img alt='Hill Health Plan' src='/b.png'></li>"
            "<li><img alt='Coastal Vision' src='/c.png'></li></ul></main></body></html>"
        )
        found = customers_and_partners(site_page("/about/", html, kind="about"), ACME)
        assert [n for n, _q in found.partners] == [
            "Riverbank Labs",
            "Hill Health Plan",
            "Coastal Vision",
        ]
        assert found.customers == []
