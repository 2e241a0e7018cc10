"""What a small business's site states in its own way: the imprint's postal address (never
the other parties a legal notice names), postcodes written "NNN NN" and a country after the
city, "a family-owned company specializing in X", and the services a practice lists as bullet
points on its services page. Every page here is made up."""

from __future__ import annotations

from ci_service.pipeline.products.extract import extract_products
from ci_service.pipeline.profile.industry import descriptor
from ci_service.pipeline.profile.places import postal_cities
from tests.test_pipeline_product_layouts import page as product_page
from tests.test_pipeline_product_layouts import site
from tests.test_pipeline_profile_layouts import learn, page, quote

IMPRINT = (
    "Impressum\nAngaben gemäß § 5 DDG:\nPraxis Dr. Vera Linde Fachärztin für Innere Medizin "
    "Lindenweg 4, 53111 Bonn\nTelefon: 0228 000000\nZuständige Aufsichtsbehörde: "
    "Kassenärztliche Vereinigung, Tersteegenstraße 9, 40474 Düsseldorf\n"
    "Hosting: Beispiel Hosting GmbH, Hafenstraße 1, 20457 Hamburg"
)


def test_the_imprint_names_the_providers_own_city():
    found = learn(
        page("/", "Willkommen in unserer Praxis", "Praxis Dr. Linde", kind="home"),
        page("/impressum/", IMPRINT, "Impressum | Praxis Dr. Linde", kind="legal"),
        company="Praxis Dr. Linde",
    )
    assert found["headquarters"] == "Bonn"
    assert quote(found, "headquarters").endswith("Lindenweg 4, 53111 Bonn")


def test_other_legal_pages_and_the_parties_an_imprint_names_later_are_no_headquarters():
    privacy = page(
        "/datenschutz/",
        "Datenschutz\nVerantwortlich: Beispiel Hosting GmbH, Hafenstraße 1, 20457 Hamburg",
        "Datenschutz",
        kind="legal",
    )
    later = page(
        "/impressum/",
        "Impressum\nPraxis Dr. Linde\nTelefon 0228 000000\n"
        + "Öffnungszeiten nach Absprache. " * 30
        + "\nHosting: Beispiel Hosting GmbH, Hafenstraße 1, 20457 Hamburg",
        "Impressum",
        kind="legal",
    )
    assert "headquarters" not in learn(privacy, later, company="Praxis Dr. Linde")


def test_postcodes_in_two_groups_and_a_country_after_the_city():
    assert postal_cities("Na Výsluní 120 742 45 Fulnek Czech Republic") == [("Fulnek", 0, 34)]
    assert [c for c, _s, _e in postal_cities("Dlouhá 1954/22 101 00 Praha 10")] == ["Praha"]
    assert [c for c, _s, _e in postal_cities("Laan 12, 2511 Den Haag")] == ["Den Haag"]
    assert postal_cities("Call 555 1234 567 89 Today") == []  # a phone number


def test_what_a_family_owned_company_specializes_in():
    assert (
        descriptor("modern family-owned company specializing in the production of welded steel")
        == "Production of welded steel"
    )
    assert descriptor("family-owned company") is None
    assert descriptor("payments company") == "Payments"


SERVICES = """<h1>Leistungen</h1>
<p>Unser Angebot:</p>
<ul><li>Hausärztliche Betreuung, einschließlich Hausbesuche</li><li>Ruhe-EKG</li>
<li>Lungenfunktionsprüfung (Spirometrie)</li><li>Reiseimpfungen</li></ul>
<h2>Warum zu uns?</h2>
<ul><li>Kurze Wartezeiten</li><li>Parkplätze am Haus</li><li>Barrierefreier Zugang</li></ul>"""


def test_a_services_page_lists_its_offerings_as_bullet_points():
    home = product_page(
        "/", "<h1>Willkommen</h1><p>Ihre Praxis in Bonn.</p>", "Praxis", "home", depth=0
    )
    services = product_page("/leistungen/", SERVICES, "Leistungen | Praxis", "other")
    names = [d.name for d in extract_products(site(home, services), "Praxis Dr. Linde")]
    assert names == [
        "Hausärztliche Betreuung",
        "Ruhe-EKG",
        "Lungenfunktionsprüfung",
        "Reiseimpfungen",
    ]


def test_lists_on_other_pages_are_no_offerings():
    home = product_page(
        "/", "<h1>Willkommen</h1><p>Ihre Praxis in Bonn.</p>", "Praxis", "home", depth=0
    )
    about = product_page(
        "/ueber-uns/", SERVICES.replace("Leistungen", "Über uns"), "Über uns", "other"
    )
    assert extract_products(site(home, about), "Praxis Dr. Linde") == []


def test_the_address_in_a_footer_marked_by_its_class():
    html = (
        "<html><body><main><h1>Gentle dental care for kids</h1></main>"
        '<div class="site-footer"><div class="row"><p>Happy Teeth Dental<br>1234 Main Street, '
        "Suite 5<br>Springfield, IL 62701</p><p>Call (555) 010-0000</p></div></div></body></html>"
    )
    home = page("/", "Gentle dental care for kids", "Happy Teeth", html=html, kind="home")
    assert learn(home, company="Happy Teeth Dental")["headquarters"] == "Springfield, IL"


def _clinic_home():
    return product_page("/", "<h1>Welcome</h1><p>Family dentistry.</p>", "Clinic", "home", depth=0)


def _service(path, heading, text="We take care of it in one visit."):
    return product_page(path, f"<h1>{heading}</h1><p>{text}</p>", f"{heading} | Clinic", "other")


def test_a_folder_of_service_pages_gives_one_offering_per_page():
    home = _clinic_home()
    pages = [
        home,
        _service("/procedures/", "Our procedures"),
        _service("/procedures/restorative/", "Restorative"),
        _service("/procedures/restorative/dental-crowns/", "Dental Crowns"),
        _service("/procedures/restorative/root-canals/", "Root Canals"),
        _service("/procedures/cosmetic/teeth-whitening/", "Teeth Whitening"),
        _service("/procedures/cosmetic/bonding/", "A brighter smile"),  # heading not its address
    ]
    names = [d.name for d in extract_products(site(*pages), "Bright Clinic")]
    assert names == ["Dental Crowns", "Root Canals", "Teeth Whitening"]


def test_two_service_pages_make_no_tree():
    home = _clinic_home()
    pages = [
        home,
        _service("/procedures/dental-crowns/", "Dental Crowns"),
        _service("/procedures/root-canals/", "Root Canals"),
    ]
    assert extract_products(site(*pages), "Bright Clinic") == []
