"""Integrations pages in other languages, and what such a page holds besides integrations: a
stats row ("22" / "Integrations in all"), a call to action under its own sentence, and the
page's sections whose headings head the sets of integrations. Every page here is made up."""

from __future__ import annotations

from ci_service.pipeline.products.integrations import extract_supported
from tests.test_pipeline_product_layouts import page, site

CARD = '<div class="card"><h3>{name}</h3><p>Live</p><p>{line}</p></div>'


def _cards(*items):
    return "".join(CARD.format(name=name, line=line) for name, line in items)


INTEGRATIES = f"""<h1>Integraties</h1><p>Open koppelingen met het zorglandschap.</p>
<div class="stats"><div><strong>22</strong><h4>Integraties totaal</h4></div>
<div><strong>13</strong><p>Live nu</p></div><div><strong>9</strong><p>Gepland</p></div></div>
<section><h2>Financieel</h2><div class="grid">{
    _cards(
        ("Kasboek", "Facturen en betalingen uit het kasboek."),
        ("Salarisnet", "Uren naar de loonrun."),
        ("Bankkoppeling", "Afschriften elke nacht."),
    )
}</div></section>
<section><h2>Communicatie</h2><div class="grid">{
    _cards(
        ("Zorgpost", "Veilige berichten via het netwerk."),
        ("Verwijsnet", "Verwijzingen in twee richtingen."),
        ("Belplan", "Terugbelverzoeken uit de app."),
    )
}</div></section>
<section><h2>Klaar voor een demo op uw eigen proces?</h2><div class="grid">
<div class="card"><h3>Demo aanvragen</h3><p>Binnen een week.</p></div>
<div class="card"><h3>Stel een vraag</h3><p>We bellen terug.</p></div>
<div class="card"><h3>Bekijk de docs</h3><p>Alles over de API.</p></div></div></section>"""


def test_an_integrations_page_in_dutch_gives_its_integrations_only():
    home = page("/", "<h1>Zorgsoftware</h1><p>Alles in een.</p>", "Welkom", "home", depth=0)
    listing = page("/integraties/", INTEGRATIES, "Integraties | Zorgapp", "product")
    names = [item.name for item in extract_supported(site(home, listing), "Zorgapp")]
    assert names == ["Kasboek", "Salarisnet", "Bankkoppeling", "Zorgpost", "Verwijsnet", "Belplan"]
