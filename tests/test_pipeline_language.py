"""Per-language understanding (``ci_service.pipeline.language``): which language a page is
in, its stop words, topics read without them, and dates written the language's way."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from ci_service.pipeline.language import (
    annotate_languages,
    combined_stop_words,
    declared_language,
    detect_language,
    find_written_date,
    normalize_language,
    page_language,
    stop_words,
)
from ci_service.pipeline.site import SitePage
from ci_service.services.intel.text import STOP_WORDS, extract_topics

SITE_SR = Path(__file__).parent / "pipeline_fixtures" / "site_sr"

ENGLISH = "Our help desk software routes every ticket to the agent who can solve it fastest."
SERBIAN = (
    "Naš softver za korisničku podršku šalje svaki tiket agentu koji može da ga reši. "
    "Cene su u evrima, a plaćanje je mesečno ili godišnje."
)
GERMAN = "Unsere Software für den Kundendienst leitet jedes Ticket an den richtigen Mitarbeiter."


def page(text: str, html: str = "", title: str = "") -> SitePage:
    return SitePage(
        url="https://example.test/",
        title=title,
        description="",
        text=text,
        sections=[],
        json_ld=[],
        links=[],
        html=html,
    )


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (ENGLISH, "en"),
        (SERBIAN, "sr"),
        (GERMAN, "de"),
        ("Notre logiciel de support envoie chaque ticket au bon agent.", "fr"),
        ("Nuestro software de soporte envía cada ticket al agente correcto.", "es"),
        ("Cijene su u eurima, a plaćanje je mjesečno. Tko smo mi? Tvrtka s tisuću kupaca.", "hr"),
        ("Наш софтвер шаље сваки тикет агенту који може да га реши.", "sr"),
    ],
)
def test_detects_the_language_of_a_text(text, code):
    assert detect_language(text) == code


def test_too_little_text_has_no_language():
    assert detect_language("") == ""
    assert detect_language("Pricing") == ""
    assert detect_language("https://example.test/pricing hello@example.test") == ""


def test_html_lang_is_honoured():
    assert declared_language('<!doctype html><html class="js" lang="sr-Latn-RS">') == "sr"
    assert declared_language("<html xml:lang='de-AT'><head>") == "de"
    assert declared_language('<html><meta http-equiv="content-language" content="fr">') == "fr"
    assert declared_language('<html><meta property="og:locale" content="es_ES">') == "es"
    assert declared_language("<html><head><title>x</title>") == ""
    # Too little text to tell: the markup says which language it is.
    assert detect_language("Cene", '<html lang="sr">') == "sr"
    assert page_language(page("Kontakt", '<html lang="sr-Latn">')) == "sr"
    # A Serbian page the model would call Bosnian stays Serbian: one language group.
    assert page_language(page("Direktor i osnivač kompanije", '<html lang="sr">')) == "sr"
    # A template that says English on a page plainly written in German: the text wins.
    german = " ".join([GERMAN] * 5)
    assert page_language(page(german, '<html lang="en">')) == "de"
    # Short text in another language does not overrule the markup.
    assert page_language(page("Unsere Preise", '<html lang="en">')) == "en"


def test_language_codes_are_normalized():
    assert normalize_language("sr-Latn-RS") == "sr"
    assert normalize_language("EN_us") == "en"
    assert normalize_language("srp") == "sr"
    assert normalize_language("x-default") == ""
    assert normalize_language(None) == ""


def test_annotate_languages_sets_every_page_and_fills_the_unknown():
    pages = [
        page(SERBIAN, '<html lang="sr-Latn">'),
        page("Ova politika privatnosti objašnjava koje podatke o ličnosti prikupljamo."),
        page("", '<html lang="sr">', title="Tim"),
        page("© 2024"),
    ]
    assert annotate_languages(pages) == "sr"
    assert [p.language for p in pages] == ["sr", "sr", "sr", "sr"]


def test_the_fixture_site_reads_as_serbian():
    pages = []
    for path in sorted(SITE_SR.rglob("*.html")):
        html = path.read_text(encoding="utf-8")
        pages.append(page(_visible_text(html), html))
    assert annotate_languages(pages) == "sr"
    assert {p.language for p in pages} == {"sr"}


def _visible_text(html: str) -> str:
    import lxml.html

    tree = lxml.html.fromstring(html)
    for element in tree.xpath("//script|//style|//nav|//footer"):
        element.drop_tree()
    return " ".join(tree.text_content().split())


@pytest.mark.parametrize("code", ["sr", "de", "fr", "es", "en"])
def test_content_words_are_not_stop_words(code):
    assert not {"softver", "software", "ticket", "tiket", "logiciel"} & stop_words(code)


def test_stop_words_per_language():
    serbian = stop_words("sr")
    assert {"ili", "koje", "kao", "koji", "svaki", "gde", "gdje"} <= serbian
    assert {"или", "које", "као"} <= serbian  # Cyrillic too
    assert serbian == stop_words("hr") == stop_words("bs") == stop_words("sr-Latn")
    assert {"und", "oder", "wie", "impressum"} <= stop_words("de")
    assert {"et", "ou", "comme", "accueil"} <= stop_words("fr")
    assert {"y", "o", "como", "inicio"} <= stop_words("es")
    assert {"the", "and", "cookies"} <= stop_words("en")
    # No list of its own: English.
    assert stop_words("") == stop_words("xx") == stop_words("en") == STOP_WORDS
    both = combined_stop_words(["sr", "", "de"])
    assert {"ili", "und", "the"} <= both
    assert stop_words("sr") is stop_words("sr")  # cached


SERBIAN_PAGES = [
    "Pratilac je softver za korisničku podršku koji svaki tiket šalje agentu, kao i "
    "izveštaje koje tim čita svakog dana. Usmeravanje tiketa ili automatizacija procesa.",
    "Usmeravanje tiketa je brže kada pravila, kao i okidači, zatvaraju rutinske tikete koje "
    "agenti ne moraju da čitaju ili da šalju dalje. Korisničku podršku vodi Pratilac.",
    "Cene: paket Tim košta 19,99 € mesečno po agentu, kao i paket Biznis koji ima "
    "automatizaciju procesa ili usmeravanje tiketa. Pratilac za korisničku podršku.",
]


def test_topics_of_a_serbian_site_hold_no_serbian_stop_words():
    topics = extract_topics(SERBIAN_PAGES)
    assert topics, "a Serbian site has topics"
    words = {word for topic in topics for word in topic.split()}
    assert not words & stop_words("sr"), words & stop_words("sr")
    assert "usmeravanje tiketa" in topics
    assert "pratilac" in " ".join(topics)
    # Words keep their letters: "korisničku", not "korisni".
    assert "korisničku podršku" in topics
    # Given languages, the same (no detection needed).
    assert extract_topics(SERBIAN_PAGES, languages=["sr"] * 3) == topics


def test_topics_of_english_texts_are_unchanged():
    texts = [
        "Zero trust network access for hybrid teams. Zero trust is the future.",
        "Our network access product brings zero trust to the edge. Network access pricing.",
        "Edge security and zero trust pricing.",
    ]
    assert extract_topics(texts)[:2] == ["zero trust", "network access"]
    assert extract_topics(texts, languages=["en", "en", ""]) == extract_topics(texts)


def test_french_elisions_are_not_topics():
    texts = [
        "L'automatisation des tickets et l'automatisation des rapports pour l'équipe.",
        "Avec l'automatisation des tickets, l'équipe répond plus vite.",
    ]
    topics = extract_topics(texts)
    assert "automatisation" in topics or "automatisation tickets" in " ".join(topics)
    assert not any(t.startswith("l'") for t in topics)


@pytest.mark.parametrize(
    ("text", "lang", "day"),
    [
        ("12. mart 2024.", "sr", (2024, 3, 12)),
        ("Objavljeno 12. marta 2024. godine", "sr", (2024, 3, 12)),
        ("12. марта 2024.", "sr", (2024, 3, 12)),
        ("12. ožujka 2024.", "hr", (2024, 3, 12)),
        ("Am 12. März 2024 veröffentlicht", "de", (2024, 3, 12)),
        ("le 12 mars 2024", "fr", (2024, 3, 12)),
        ("12 de marzo de 2024", "es", (2024, 3, 12)),
        ("March 12, 2024", "", (2024, 3, 12)),
        ("12 March 2024", "sr", (2024, 3, 12)),
        ("12.03.2024.", "sr", (2024, 3, 12)),
    ],
)
def test_dates_written_the_languages_way(text, lang, day):
    assert find_written_date(text, lang) == datetime(*day)


def test_not_dates():
    assert find_written_date("Novi Sad 2024", "sr") is None
    assert find_written_date("31. februar 2024.", "sr") is None
    assert find_written_date("", "sr") is None


def test_a_new_collection_replaces_the_topics_older_rules_took_from_stop_words(make_workspace):
    from ci_service.services.intel.graph_links import link_topics
    from ci_service.store.db import connection, transaction
    from ci_service.store.graph import GraphNode
    from tests.intel_helpers import competitor

    ws = make_workspace()
    rival, other = competitor(ws.id), competitor(ws.id, "Other", "https://other.example")

    def topics():
        with connection():
            rows = GraphNode.select().where(
                GraphNode.workspace == ws.id, GraphNode.label == "TOPIC"
            )
            return sorted(row.name for row in rows)

    with connection(), transaction():
        link_topics(ws.id, rival, ["ili", "koje", "kao", "softver"])  # an older collection
        link_topics(ws.id, other, ["softver", "kao"])
    with connection(), transaction():
        link_topics(ws.id, rival, extract_topics(SERBIAN_PAGES), replace=True)
    names = topics()
    assert "ili" not in names and "koje" not in names
    assert "kao" in names and "softver" in names  # still mentioned by the other competitor
    assert "usmeravanje tiketa" in names
    with connection(), transaction():  # without replace, topics only accumulate
        link_topics(ws.id, rival, ["tiket"])
    assert "usmeravanje tiketa" in topics()


def test_plain_english_is_read_without_the_model_and_other_languages_are_not():
    from ci_service.pipeline import language

    english = "Our platform helps you and your team to answer the questions of customers. " * 3
    serbian = "Pratilac je softver za korisničku podršku koji tim koristi svaki dan. " * 3
    german = "Wir bauen Software für Teams, die mit ihren Kunden in Kontakt bleiben. " * 3
    assert language._plainly_english(english)
    assert not language._plainly_english(serbian)
    assert not language._plainly_english(german)
    assert language.detect_language(english) == "en"


def test_declared_english_with_only_english_letters_needs_no_model_and_is_english():
    from ci_service.pipeline import language

    html = '<html lang="en"><body>x</body></html>'
    words = "Globex flow ticket routing dashboards © reports " * 20
    assert language.detect_language(words, html) == "en"
    serbian = "Pratilac je softver za korisničku podršku koji naš tim koristi svaki dan. " * 8
    assert language.detect_language(serbian, html) in ("sr", "hr", "bs")
