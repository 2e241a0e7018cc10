"""What a company says it is, in German, Dutch, Swedish, Norwegian, Danish, Finnish, French,
Spanish, Italian and Portuguese (``profile.industry`` reads English).

The phrasings are the English ones: "<name> ist eine ...", "<name> est une ...", "<name> is
een ...", "<name> är ett ..." on any page with the company as the subject, and "Wir sind
ein ...", "Nous sommes une ...", "Wij zijn een ...", "Vi är ett ..." on profile pages and
the home page. The descriptor is the noun phrase after the article:

- in the Germanic languages (and Finnish, "Olemme nykyajan viestintätoimisto", which has no
  articles) the head comes last and is often a compound: the words up to
  the first one that ends in a trade noun ("Softwareunternehmen", "tandartspraktijk",
  "bemanningsföretag"), less praise ("führende", "innovatieve"), and a "für / voor / för /
  for" domain after it ("Agentur für digitales Marketing");
- in the Romance languages the head comes first ("agence", "plataforma", "azienda"), after
  at most two adjectives of praise or size, and keeps what follows up to a relative
  pronoun, a preposition of place, purpose or company, or punctuation ("Agence de
  marketing digital basée à Lyon" gives "Agence de marketing digital").

A phrase without such a head says nothing ("ein junges Team", "une passion"): no industry.
"""

from __future__ import annotations

import re

MAX_WORDS = 7
_ARTICLES = {
    "de": r"(?:ein|eine|einer|der|die|das)",
    "nl": r"(?:een|de|het)",
    "sv": r"(?:ett|en)",
    "nb": r"(?:et|en|ei)",
    "da": r"(?:et|en)",
    "fr": r"(?:un|une|le|la|l['’])",
    "es": r"(?:un|una|el|la)",
    "it": r"(?:un|una|uno|un['’]|il|la|l['’])",
    "pt": r"(?:um|uma|o|a)",
    "fi": r"",  # Finnish has no articles
}
_IS = {"de": "ist", "nl": "is", "sv": "är", "nb": "er", "da": "er", "fr": "est", "es": "es",
       "it": "è", "pt": "é", "fi": "on"}  # fmt: skip
_WE_ARE = {"de": r"wir[ \t]+sind", "nl": r"(?:wij|we)[ \t]+zijn", "sv": r"vi[ \t]+är",
           "nb": r"vi[ \t]+er", "da": r"vi[ \t]+er", "fr": r"nous[ \t]+sommes",
           "es": r"somos", "it": r"siamo", "pt": r"somos", "fi": r"olemme"}  # fmt: skip
_ROMANCE = frozenset({"fr", "es", "it", "pt"})
# Trade nouns; in the Germanic languages also the last part of a compound.
_HEADS = {
    "de": "agentur anbieter hersteller unternehmen firma plattform software lösung "
    "dienstleister beratung praxis studio spezialist marktplatz startup entwickler händler "
    "shop werkstatt kanzlei netzwerk system app portal schule akademie zentrum betrieb "
    "büro gesellschaft verband",
    "nl": "bureau bedrijf platform software praktijk leverancier specialist studio winkel "
    "webshop organisatie dienstverlener ontwikkelaar fabrikant kantoor netwerk school "
    "centrum marktplaats app startup",
    "sv": "företag byrå plattform tjänst bolag leverantör tillverkare app marknadsplats "
    "studio mjukvara system nätverk klinik skola konsult startup",
    "nb": "selskap firma byrå plattform leverandør tjeneste klinikk skole app startup "
    "konsulentselskap",
    "da": "virksomhed selskab firma bureau platform leverandør tjeneste klinik skole app startup",
    "fr": "agence plateforme logiciel entreprise société cabinet espace start-up startup "
    "studio fournisseur éditeur solution outil service centre école application réseau "
    "marketplace atelier fabricant prestataire clinique boutique",
    "es": "empresa agencia plataforma software consultora estudio herramienta solución "
    "servicio proveedor fabricante aplicación red escuela academia clínica tienda startup",
    "it": "azienda agenzia piattaforma software studio società soluzione fornitore "
    "produttore applicazione rete scuola accademia clinica negozio startup",
    "pt": "empresa agência plataforma software consultoria estúdio ferramenta solução "
    "fornecedor fabricante aplicativo escola clínica loja startup",
    "fi": "toimisto yritys yhtiö palvelu ohjelmisto alusta klinikka kauppa studio konsultti "
    "startup sovellus verkosto koulu valmistaja toimittaja",
}
_HEAD_WORDS = {language: frozenset(words.split()) for language, words in _HEADS.items()}
_PRAISE = set(
    "führende führender führendes innovative innovativer innovatives junge junger junges "
    "moderne moderner modernes kleine kleiner kleines große großer großes unabhängige "
    "unabhängiger erfahrene erfahrener toonaangevende innovatieve jonge moderne kleine "
    "grote onafhankelijke ervaren ledande innovativ innovativt innovativa ung ungt unga "
    "modern modernt liten litet stor stort ledende ung nyskapende førende jeune nouvelle "
    "nouveau petite petit grande grand innovante innovant jeune moderne indépendante "
    "indépendant joven nueva nuevo pequeña pequeño gran innovadora innovador moderna "
    "moderno giovane nuova nuovo piccola piccolo grande innovativa innovativo moderna "
    "jovem nova novo pequena pequeno grande inovadora inovador nykyajan moderni johtava "
    "innovatiivinen pieni nuori uusi".split()
)
# Where a Romance noun phrase ends: relative pronouns, prepositions of place, purpose or
# company, and verbs of being based or founded.
_ROMANCE_END = set(
    "que qui qu dont où à au aux en avec pour dans depuis basée basé située situé fondée "
    "fondé spécialisée spécialisé que quien donde en con para desde ubicada ubicado basada "
    "basado fundada fundado especializada especializado che cui dove a in con per da "
    "basata basato fondata fondato specializzata specializzato com para em desde onde "
    "sediada sediado fundada fundado especializada especializado".split()
)
_GERMANIC_FOR = {"de": "für", "nl": "voor", "sv": "för", "nb": "for", "da": "for", "fi": ""}
_GERMANIC_END = set(
    "aus in im mit die der das den dem die und sowie seit van uit in met die dat en sinds "
    "från i med som och sedan fra i med som og siden".split()
)
_TOKEN = re.compile(r"[^\W\d_][\w'’&/+-]*|\d[\w.]*|[^\w\s]")


def language_of(code: str) -> str:
    """The two-letter language ``code`` names ("no" and "nn" read as Norwegian)."""
    base = (code or "").split("-")[0].lower()
    return "nb" if base in ("no", "nn") else base


def phrasings(language: str, names: str) -> list[tuple[str, bool]]:
    """(regex whose match ends where the descriptor starts, home and profile pages only)."""
    if language not in _ARTICLES:
        return []
    article = rf"{_ARTICLES[language]}(?:(?<=['’])|\b)"  # "eine", not "ein" + "e"
    rules = [(rf"\b{_WE_ARE[language]}[ \t]+{article}[ \t]*", True)]
    if names:
        rules.append((rf"(?<![\w.])(?:{names})[ \t]+{_IS[language]}[ \t]+{article}[ \t]*", False))
    return rules


def _head(language: str, word: str) -> bool:
    low = word.casefold()
    heads = _HEAD_WORDS[language]
    if language in _ROMANCE:
        return low in heads
    return any(low == h or (low.endswith(h) and len(low) > len(h) + 2) for h in heads)


def descriptor(language: str, rest: str) -> str | None:
    """The trade the noun phrase at the start of ``rest`` names, or None."""
    tokens = _TOKEN.findall(rest[:240])
    if language not in _HEADS or not tokens:
        return None
    return _romance(language, tokens) if language in _ROMANCE else _germanic(language, tokens)


def _romance(language: str, tokens: list[str]) -> str | None:
    start = 0
    while start < min(2, len(tokens)) and tokens[start].casefold() in _PRAISE:
        start += 1
    if start >= len(tokens) or not _head(language, tokens[start]):
        return None
    out = [tokens[start]]
    for token in tokens[start + 1 :]:
        if not token[0].isalnum() or token.casefold() in _ROMANCE_END or len(out) >= MAX_WORDS:
            break
        out.append(token)
    while out and out[-1].casefold() in ("de", "du", "des", "del", "di", "da", "do", "y", "et"):
        out.pop()
    return _label(out)


def _germanic(language: str, tokens: list[str]) -> str | None:
    pre: list[str] = []
    for number, token in enumerate(tokens[:MAX_WORDS]):
        if not token[0].isalnum():
            return None
        if _head(language, token):
            out = [w for w in pre if w.casefold() not in _PRAISE] + [token]
            after = tokens[number + 1 : number + 6]
            if after and after[0].casefold() == _GERMANIC_FOR[language]:
                domain = []
                for word in after[1:]:
                    if not word[0].isalnum() or word.casefold() in _GERMANIC_END:
                        break
                    domain.append(word)
                if domain:
                    out += [after[0], *domain]
            return _label(out)
        if token.casefold() in _GERMANIC_END:
            return None
        pre.append(token)
    return None


def _label(words: list[str]) -> str | None:
    label = " ".join(words).strip()
    label = label[:1].upper() + label[1:]
    return label if 3 <= len(label) <= 80 else None
