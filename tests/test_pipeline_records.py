"""Records that repeat on a page (``pipeline.records``), found from the markup alone."""

from __future__ import annotations

from ci_service.pipeline.records import record_sets
from tests.test_pipeline_products import BASE
from tests.test_pipeline_products import page as crawled_page

GRID = """<html><body>
<header><nav><ul><li><a href="/a">Product</a></li><li><a href="/b">Pricing</a></li>
<li><a href="/c">About</a></li></ul></nav></header>
<main>
<h1>Connectors</h1>
<div class="filters"><a class="chip active" href="/all">All (3)</a>
<a class="chip" href="/db">Databases (2)</a><a class="chip" href="/mail">Mail (1)</a></div>
<h2>Everything we connect to</h2>
<div class="grid">
  <a class="card card-1 aos-fade" href="/connectors/postgres/"><svg><style>.a{fill:red}</style>
  </svg><h3>PostgreSQL</h3><p>Sync rows from PostgreSQL.</p></a>
  <a class="card card-2" href="/connectors/mysql/"><h3>MySQL</h3><p>Sync rows from MySQL.</p></a>
  <a class="card card-3" href="/connectors/smtp/"><h3>SMTP</h3><p>Send mail.</p></a>
</div>
<h2>Trusted by</h2>
<ul class="logos"><li><img src="1.png" alt="Globex"></li><li><img src="2.png" alt="Initech">
</li><li><img src="3.png" alt="Umbrella"></li></ul>
<script>var cards = ["a", "b", "c"];</script>
</main>
<footer><ul><li>Imprint</li><li>Privacy</li><li>Terms</li></ul></footer>
</body></html>"""


def test_cards_logos_and_filters_are_sets_menus_and_footers_are_not():
    sets = record_sets(GRID, "https://acme.example/connectors/")
    by_heading = {(s.heading, s.tag): s for s in sets}
    cards = by_heading["Everything we connect to", "a"]
    assert [r.name for r in cards.records] == ["PostgreSQL", "MySQL", "SMTP"]
    assert cards.records[0].lines == ["Sync rows from PostgreSQL."]
    assert cards.records[0].link == "https://acme.example/connectors/postgres/"
    assert ".a{fill:red}" not in cards.records[0].text  # inline SVG style text is no text
    logos = by_heading["Trusted by", "li"]
    assert [r.name for r in logos.records] == ["Globex", "Initech", "Umbrella"]
    assert [r.name for r in by_heading["Connectors", "a"].records][0] == "All (3)"
    names = {r.name for s in sets for r in s.records}
    assert not names & {"Product", "Pricing", "About", "Imprint", "Privacy", "Terms"}


def test_a_card_that_is_a_link_is_named_by_what_it_holds():
    cards = "".join(
        f'<a class="card" href="/services/{n.lower()}/"><img alt="{n}" src="i.svg">'
        f"<p>{n}</p><p>{d}</p></a>"
        for n, d in (("Call Screening", "We keep unwanted calls away."),
                     ("Overflow Handling", "We answer what you cannot."),
                     ("Scheduling", "We book appointments for you."))
    )  # fmt: skip
    (found,) = record_sets(f"<html><body><main><h2>Services</h2>{cards}</main></body></html>")
    assert [r.name for r in found.records] == ["Call Screening", "Overflow Handling", "Scheduling"]
    assert found.records[0].lines == ["We keep unwanted calls away."]


def test_prose_and_empty_markup_give_no_sets():
    prose = "<p>" + "A long sentence about the product. " * 40 + "</p>"
    html = f"<html><body><div>{prose}</div><div>{prose}</div><div>{prose}</div></body></html>"
    assert record_sets(html) == []
    assert record_sets("") == [] and record_sets("<html></html>") == []


# -- the readers built on record sets --------------------------------------------------------


def site_page(path, html, kind="", depth=1, title="Acme"):
    """A crawled page (``tests.test_pipeline_products.page``) of the given kind."""
    made = crawled_page(path, html, title, depth)
    made.kind = kind
    return made


def test_a_titled_team_grid_of_first_names_gives_people_and_former_staff_none():
    from ci_service.pipeline.people.extract import extract_people

    html = """<html><body><main><h1>About us</h1><h2>Team</h2><div class="team">
      <div class="m"><h4>Maja</h4><p>CEO &amp; Co-Founder</p></div>
      <div class="m"><h4>Tobias</h4><p>Project lead &amp; developer</p></div>
      <div class="m"><h4>Ines</h4><p>Developer</p></div></div>
      <h2>Former team members</h2><div class="team">
      <div class="m"><h4>Pavel</h4><p>Designer</p></div>
      <div class="m"><h4>Greta</h4><p>Designer</p></div>
      <div class="m"><h4>Lars</h4><p>Developer</p></div></div></main></body></html>"""
    found = extract_people(site_page("/about/", html, kind="about"))
    assert [(p.name, p.title, p.founder) for p in found] == [
        ("Maja", "CEO & Co-Founder", True),
        ("Tobias", "Project lead & developer", False),
        ("Ines", "Developer", False),
    ]
    assert found[0].cite.quote == "Maja CEO & Co-Founder"


def test_a_services_grid_gives_offerings_a_benefits_grid_none():
    from ci_service.pipeline.products.extract import extract_products
    from ci_service.pipeline.site import SiteSnapshot

    def cards(*rows):
        return "".join(f'<div class="card"><h3>{n}</h3><p>{d}</p></div>' for n, d in rows)

    services = f"""<html><body><main><h1>Our Services</h1><h2>What we offer</h2>
      <div class="grid">{
        cards(
            ("Eye Exams", "Full testing of your vision and eye health."),
            ("Contact Lenses", "Fittings for soft and specialty contact lenses."),
            ("Glaucoma Care", "Early detection and monitoring of glaucoma."),
        )
    }</div>
      <h2>Why patients choose us</h2><div class="grid">{
        cards(
            ("Kind staff", "Our staff takes the time to listen."),
            ("Modern tools", "We use the newest imaging devices."),
            ("Fair prices", "We keep our prices fair for families."),
        )
    }</div></main></body></html>"""
    home = site_page(
        "/",
        "<html><body><h1>Acme Eye Center</h1><p>Eye care.</p></body></html>",
        kind="home",
        depth=0,
    )
    listing = site_page("/services/", services, kind="product")
    names = [d.name for d in extract_products(SiteSnapshot(BASE + "/", [home, listing]))]
    assert names[:3] == ["Eye Exams", "Contact Lenses", "Glaucoma Care"]
    assert not {"Kind staff", "Modern tools", "Fair prices"} & set(names)


def test_the_sections_of_a_page_named_services_are_its_offerings():
    from ci_service.pipeline.products.extract import extract_products
    from ci_service.pipeline.site import SiteSnapshot

    def sections(*rows):
        return "".join(f"<section><h2>{n}</h2><p>{d}</p></section>" for n, d in rows)

    rows = (
        ("Wireless Lighting Controls", "Control every light of a building from one screen."),
        ("Greenhouse Automation", "Climate and irrigation that run themselves."),
        ("Custom Dashboards", "Every sensor of a site on one live dashboard."),
        ("Strategic Partnerships", "We work with leading vendors of the industry."),
    )
    html = f"<html><body><main>{sections(*rows)}</main></body></html>"
    home = site_page("/", "<html><body><h1>Acme</h1><p>Smart sites.</p></body></html>",
                     kind="home", depth=0)  # fmt: skip
    for path, title, expected in (
        ("/services.html", "Services | Acme", ["Wireless Lighting Controls",
                                               "Greenhouse Automation", "Custom Dashboards"]),
        ("/story.html", "Our story | Acme", []),  # a page that names no offerings
    ):  # fmt: skip
        page = site_page(path, html, kind="product", title=title)
        names = [d.name for d in extract_products(SiteSnapshot(BASE + "/", [home, page]))]
        assert [n for n in names if n in {r[0] for r in rows}] == expected


def test_customers_from_a_logo_wall_and_a_clients_grid_not_from_partners():
    from ci_service.pipeline.customers.records import customers_and_partners

    def logos(*alts):
        return "".join(f'<li><img src="x.png" alt="{alt}"></li>' for alt in alts)

    html = f"""<html><body><main><h1>Acme</h1><h2>Trusted by leading retailers</h2>
      <ul class="logos">{logos("Globex logo", "Initech", "Umbrella_Corp.png")}</ul>
      <h2>Our partners</h2><ul class="logos">{logos("Hooli", "Vehement", "Massive")}</ul>
      <h2>Clients</h2><div class="c"><div class="x"><h4>Soylent</h4><p>Retail chain</p></div>
      <div class="x"><h4>Acme Bank</h4><p>Bank</p></div><div class="x"><h4>Tyrell</h4>
      <p>Robots</p></div></div></main></body></html>"""
    found = customers_and_partners(site_page("/", html, kind="home", depth=0))[0]
    assert found == [
        ("Globex", "Trusted by leading retailers"),
        ("Initech", "Trusted by leading retailers"),
        ("Umbrella Corp", "Trusted by leading retailers"),
        ("Soylent", "Soylent"),
        ("Acme Bank", "Acme Bank"),
        ("Tyrell", "Tyrell"),
    ]
    # The partners' row names partners, quoted by its heading (their names are in logos).
    partners = customers_and_partners(site_page("/", html, kind="home", depth=0))[1]
    assert partners == [(n, "Our partners") for n in ("Hooli", "Vehement", "Massive")]


def test_integrations_read_from_a_directory_grid():
    from ci_service.pipeline.products.integrations import extract_supported
    from ci_service.pipeline.site import SiteSnapshot

    rows = "".join(
        f'<a class="card" href="/integrations/{n.lower()}/"><h3>{n}</h3>'
        f"<p>Use {n} as a data source.</p></a>"
        for n in ("Airtable", "MongoDB", "CouchDB", "DynamoDB")
    )
    html = f"""<html><body><main><h1>Integrations</h1><div class="filters">
      <a href="/all">All (4)</a><a href="/db">Databases (4)</a><a href="/x">Other (0)</a></div>
      <div class="grid">{rows}</div></main></body></html>"""
    found = extract_supported(SiteSnapshot(BASE + "/", [site_page("/integrations/", html)]))
    assert [(s.name, s.cite.quote) for s in found] == [
        (n, f"Use {n} as a data source.") for n in ("Airtable", "MongoDB", "CouchDB", "DynamoDB")
    ]


def test_a_staff_directory_in_any_language_gives_people_with_their_titles():
    from ci_service.pipeline.people.extract import extract_people

    def person(name, title, phone):
        return (
            f'<div class="card"><img alt="Card image cap" src="p.jpg"><h5>{name}</h5>'
            f"<p>{title}</p><p>Tlf: {phone}</p></div>"
        )

    html = f"""<html><body><main><h1>Kontakt</h1><h2>Våre ansatte</h2><div class="row">
      {person("Eva Lindqvist", "Daglig leder", "22 11 00 11")}
      {person("Ola Berg", "Fagsjef", "22 11 00 12")}
      {person("Siri Dahl", "Markedssjef", "+47 22 11 00 13")}</div></main></body></html>"""
    found = extract_people(site_page("/kontakt/", html, kind="contact"))
    assert [(p.name, p.title) for p in found] == [
        ("Eva Lindqvist", "Daglig leder"),
        ("Ola Berg", "Fagsjef"),
        ("Siri Dahl", "Markedssjef"),
    ]
    # The same cards without a way to reach anyone are no directory: only a standard job
    # title ("Daglig leder", managing director) still makes its card a person.
    bare = html.replace("Tlf: ", "Since ").replace("22 11 00 11", "2009")
    bare = bare.replace("22 11 00 12", "2011").replace("+47 22 11 00 13", "2015")
    found = extract_people(site_page("/kontakt/", bare, kind="contact"))
    assert [(p.name, p.title) for p in found] == [("Eva Lindqvist", "Daglig leder")]


def test_a_product_page_that_states_one_price_gives_that_products_plan():
    from ci_service.pipeline.pricing.plans import extract_pricing
    from ci_service.pipeline.site import SiteSnapshot

    def product(name, closing):
        html = (
            f"<html><head><title>Acme – {name}</title></head><body><main><h1>{name}</h1>"
            f"<p>{name} tells you what guests say about your hotel.</p><p>{closing}</p>"
            "</main></body></html>"
        )
        return site_page(f"/produkte/{name.lower()}/", html, kind="product")

    pages = [
        product(
            "Radar", "Die Preise richten sich nach der Anzahl der Kampagnen. Ab 12,50 € pro Monat."
        ),
        product("Navigator", "Ab 3 € pro Monat. Für Gruppen ab 49 € pro Monat."),
        product("Magnet", "Mehr Buchungen für Ihr Hotel."),
    ]
    for made in pages:
        made.language = "de"
    plans = extract_pricing(SiteSnapshot(BASE + "/", pages))
    # One price: the product's; two different prices: a list, read by no rule here.
    assert [(p.name, p.price, p.currency, p.period, p.cite.quote) for p in plans] == [
        ("Radar", 12.5, "EUR", "month", "Ab 12,50 € pro Monat.")
    ]


def test_names_a_stylesheet_capitalizes_take_the_capitals_the_page_shows():
    from ci_service.pipeline.people.extract import extract_people

    cards = "".join(
        f'<div class="member"><h4>{name}</h4><p>{title}</p></div>'
        for name, title in (
            ("anna lee", "Front End Engineer"),
            ("omar haddad", "Founder & CEO"),
            ("mira sol", "QA Engineer"),
        )
    )
    html = f"<html><body><main><h1>Company</h1><h2>team</h2><div>{cards}</div></main></body></html>"
    found = extract_people(site_page("/company/", html, kind="about"))
    assert [(p.name, p.title) for p in found] == [
        ("Anna Lee", "Front End Engineer"),
        ("Omar Haddad", "Founder & CEO"),
        ("Mira Sol", "QA Engineer"),
    ]
