"""Which language a page or text is written in, and that language's stop words.

- :func:`detect_language`: the ISO 639-1 code of a text ("en", "sr", "de"), "" when the
  text is too short (fewer than :data:`MIN_LETTERS` letters) or no language is likely
  enough (:data:`MIN_CONFIDENCE`). The classifier is py3langid (a naive Bayes model over
  byte n-grams that ships inside the package: offline, loaded once, about a millisecond a
  page), restricted to languages that have a two-letter code. URLs and e-mail addresses
  are left out of the text it reads.
- Serbian, Croatian and Bosnian are one language to a byte n-gram model: their scores are
  added up, and the variant is chosen by the text's own words: ekavian forms ("mesečno",
  "cena", "gde") are Serbian, Croatian-only words ("tko", "tisuća", month names such as
  "siječanj") Croatian, other ijekavian forms ("mjesečno", "cijena") Croatian or Bosnian
  as the model ranks them; Cyrillic is Serbian. Without such words the model decides.
- :func:`declared_language`: what the markup says: ``<html lang>`` (or ``xml:lang``),
  else ``<meta http-equiv="content-language">``, else ``og:locale``; "sr-Latn-RS" -> "sr".
- :func:`page_language`: a page's declared language, unless its own text (300 letters or
  more) is another language with 95% confidence (a template that says ``lang="en"`` on
  every page of a German site); without a declaration, the detected language.
- :func:`annotate_languages`: sets ``SitePage.language`` on every page of a site; a page
  whose language stays unknown (a page of only a form or an image) takes the site's
  language, the one most of the site's text is written in.
- :func:`month_names` / :func:`find_written_date`: dates as a language writes them ("12.
  mart 2024.", "12. marta 2024", "12. März 2024", "12 de marzo de 2024", "March 12, 2024",
  "12.03.2024."), from the month names of dateparser's locale data (CLDR) plus the
  genitive forms ``language_data/months.txt`` adds; English's are always known.
- :func:`stop_words`: a language's stop words, lower case: the stopwords-iso list of that
  language (``stopwordsiso``) plus ``language_data/<code>.txt`` (the words of site chrome
  that list lacks: menus, footers, cookie and legal notices). English is the project's own
  list (``language_data/en.txt``). Serbian, Croatian and Bosnian share one list (the
  Croatian one plus ``language_data/sh.txt`` with the ekavian forms), in Latin and
  Cyrillic script. A language without a list gets the English one.
  :func:`combined_stop_words` unites the lists of several languages, English always among
  them (menus and cookie notices are often English on any site).

Everything is cached: the model is loaded once per process, each list built once.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Iterable
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent / "language_data"

MIN_LETTERS = 12  # fewer letters than this: no language ("")
MIN_CONFIDENCE = 0.4  # a likelier language than this, or none ("")
MAX_CHARS = 5000  # the part of a long text the classifier reads
# A page's text overrules its markup's language only when it is this long and this sure.
OVERRULE_LETTERS = 300
OVERRULE_CONFIDENCE = 0.95

# Serbian, Croatian and Bosnian (and the retired Serbo-Croatian code): one stop-word list.
SHTOKAVIAN = frozenset({"sr", "hr", "bs", "sh"})
_THREE_LETTER = {
    "eng": "en",
    "srp": "sr",
    "hrv": "hr",
    "bos": "bs",
    "deu": "de",
    "ger": "de",
    "fra": "fr",
    "fre": "fr",
    "spa": "es",
    "ita": "it",
    "por": "pt",
    "nld": "nl",
    "dut": "nl",
    "pol": "pl",
    "rus": "ru",
}

_URL_OR_MAIL = re.compile(r"https?://\S+|www\.\S+|\S+@\S+\.\w+")
_WORD = re.compile(r"[^\W\d_]+")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
# Words whose yat reflex or vocabulary names the variant (a word matches from its start).
_EKAVIAN = re.compile(
    r"(?:mesec|meseč|cen(?:a|e|i|u|om|ama|ovnik\w*)$|vreme$|vredn|vredi|mest[aoui]$|"
    r"re[čc]i?$|dec[aeiu]$|dete|lep(?:[aeiou]|om|ih)?$|svet(?:a|u|om|sk\w*)$|uslov|hiljad|"
    r"bezbedn|sedišt|gde$|uvek$|ovde$|posle$|pre$|primer|promen|izve[šs]ta|re[šs]en|re[šs]av|"
    r"zahtev|nedelj|sledeć|obezbe|ceo$|celok|uspe[hšs]|takođe$)"
)
_IJEKAVIAN = re.compile(
    r"(?:mjesec|mjeseč|cijen|vrijeme$|vrijedn|vrijedi|mjest|rije[čc]|djec|dijete|djetet|"
    r"lijep|svijet|uvjet|primjer|promjen|izvje[šs]t|rje[šs]|rije[šs]|zahtjev|nedjelj|"
    r"poslije$|prije$|gdje$|uvijek$|ovdje$|sljedeć|bezbjedn|sjedišt|uspje[hšs]|cjelok|cio$)"
)
_CROATIAN = re.compile(
    r"(?:tko$|tisuć|tvrtk|tjed(?:an|na|ni|nu|nim)|sveučiliš|kazališ|glazb|zrakoplov|izvješć|"
    r"obitelj|siječ|veljač|ožuj|trav(?:anj|nj)|svib(?:anj|nj)|lip(?:anj|nj)|srp(?:anj|nj)|"
    r"kolovoz|ruj(?:an|na|nu)$|listopad|prosin)"
)

_HTML_LANG = re.compile(
    r"<html\b[^>]*?(?<![\w-])(?:xml:)?lang\s*=\s*[\"']?\s*([A-Za-z]{2,3})(?![A-Za-z])",
    re.IGNORECASE,
)
_META_LANG = re.compile(
    r"<meta\b[^>]*?http-equiv\s*=\s*[\"']?content-language[\"']?[^>]*?"
    r"content\s*=\s*[\"']?\s*([A-Za-z]{2,3})(?![A-Za-z])",
    re.IGNORECASE,
)
_META_LOCALE = re.compile(
    r"<meta\b[^>]*?property\s*=\s*[\"']?og:locale[\"']?[^>]*?"
    r"content\s*=\s*[\"']?\s*([A-Za-z]{2,3})(?![A-Za-z])",
    re.IGNORECASE,
)

_lock = threading.Lock()
_identifier: Any = None


def normalize_language(code: str | None) -> str:
    """ "sr-Latn-RS", "EN_us", "srp" -> "sr", "en", "sr"; "" for anything else."""
    primary = re.split(r"[-_\s]", (code or "").strip().lower(), maxsplit=1)[0]
    if len(primary) == 3:
        primary = _THREE_LETTER.get(primary, "")
    return primary if len(primary) == 2 and primary.isascii() and primary.isalpha() else ""


def _model() -> Any:
    global _identifier
    if _identifier is None:
        with _lock:
            if _identifier is None:
                from py3langid.langid import MODEL_FILE, LanguageIdentifier

                identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
                # Only languages with an ISO 639-1 code ("pcm", "ext" and the like would
                # take the odd short English or Spanish text).
                identifier.set_languages([c for c in identifier.labels if len(c) == 2])
                _identifier = identifier
    return _identifier


def _letters(text: str) -> int:
    return sum(1 for c in text if c.isalpha())


def _shtokavian_variant(text: str, ranked: list[tuple[str, float]]) -> str:
    """Serbian, Croatian or Bosnian, for a text the model places in that group."""
    letters = [c for c in text if c.isalpha()]
    if letters and sum(1 for c in letters if _CYRILLIC.match(c)) * 2 > len(letters):
        return "sr"
    words = [w.casefold() for w in _WORD.findall(text)]
    ekavian = sum(1 for w in words if _EKAVIAN.match(w))
    ijekavian = sum(1 for w in words if _IJEKAVIAN.match(w))
    if ekavian > ijekavian:
        return "sr"
    if any(_CROATIAN.match(w) for w in words):
        return "hr"
    candidates = ("hr", "bs") if ijekavian > ekavian else ("sr", "hr", "bs")
    return next((code for code, _p in ranked if code in candidates), "hr")


# English's commonest function words: at a fifth of a text's words or more, the text is
# English, and the model (half a second to load, once per process) is not needed.
_ENGLISH_FUNCTION_WORDS = frozenset(
    "the and of to a in is for with on that you your our we are it this by be as at from or "
    "an can will".split()
)
_PLAINLY_ENGLISH = 0.2


def _plainly_english(text: str) -> bool:
    words = [w.casefold() for w in _WORD.findall(text)]
    if len(words) < 20:
        return False
    hits = sum(1 for w in words if w in _ENGLISH_FUNCTION_WORDS)
    return hits >= _PLAINLY_ENGLISH * len(words)


def _detect(text: str) -> tuple[str, float]:
    """(language, confidence) of ``text``; ("", 0.0) when it has too few letters."""
    text = _URL_OR_MAIL.sub(" ", (text or "")[: MAX_CHARS * 2])[:MAX_CHARS]
    if _letters(text) < MIN_LETTERS:
        return "", 0.0
    if _plainly_english(text):
        return "en", 0.99
    ranked = _model().rank(text)
    group = sum(p for code, p in ranked if code in SHTOKAVIAN)
    code, best = next(((c, p) for c, p in ranked if c not in SHTOKAVIAN), ("", 0.0))
    if group >= best:
        return _shtokavian_variant(text, ranked), group
    return code, best


def detect_language(text: str, html: str = "") -> str:
    """The ISO 639-1 code of ``text`` ("" when too short or unsure); with the page's
    ``html``, its declared language wins unless the text clearly says otherwise
    (:func:`page_language`'s rule)."""
    declared = declared_language(html) if html else ""
    if declared == "en" and all(c.isascii() for c in (text or "") if c.isalpha()):
        # Declared English with no letter English lacks: nothing for the model to overrule.
        return "en"
    code, confidence = _detect(text)
    return _decide(declared, code, confidence, text)


def _decide(declared: str, code: str, confidence: float, text: str) -> str:
    if not declared:
        return code if confidence >= MIN_CONFIDENCE else ""
    if (
        code
        and _family(code) != _family(declared)
        and confidence >= OVERRULE_CONFIDENCE
        and _letters(text) >= OVERRULE_LETTERS
    ):
        return code
    return declared


def _family(code: str) -> str:
    return "sh" if code in SHTOKAVIAN else code


def declared_language(html: str) -> str:
    """The language the page's markup declares ("" when none): ``<html lang>``, else
    ``<meta http-equiv="content-language">``, else ``og:locale``."""
    head = (html or "")[:20000]
    for pattern in (_HTML_LANG, _META_LANG, _META_LOCALE):
        match = pattern.search(head)
        if match:
            code = normalize_language(match.group(1))
            if code:
                return code
    return ""


def page_text(page: Any) -> str:
    """The words of a page the language is read from: title, description and text."""
    parts = (getattr(page, name, "") or "" for name in ("title", "description", "text"))
    return "\n".join(part for part in parts if part)


def page_language(page: Any) -> str:
    """A page's language (a ``SitePage`` or anything with ``html``/``title``/``text``)."""
    text = page_text(page)
    return detect_language(text, getattr(page, "html", "") or "")


def annotate_languages(pages: Iterable[Any]) -> str:
    """Set ``page.language`` on every page; returns the site's language ("" when no page's
    language is known). A page whose language is unknown takes the site's, and so does an
    undeclared page the model places in the site's language group (a Serbian site's page
    without ``lang`` read as Croatian)."""
    pages = list(pages)
    weight: Counter[str] = Counter()
    declared: set[int] = set()
    for index, page in enumerate(pages):
        page.language = page_language(page)
        if page.language and page.language == declared_language(getattr(page, "html", "")):
            declared.add(index)
        if page.language:
            weight[page.language] += max(_letters(page_text(page)), 1)
    site = weight.most_common(1)[0][0] if weight else ""
    for index, page in enumerate(pages):
        if not page.language or (index not in declared and _family(page.language) == _family(site)):
            page.language = site
    return site


def site_language(pages: Iterable[Any]) -> str:
    """The language most of the pages' text is in ("" when none is known)."""
    weight: Counter[str] = Counter()
    for page in pages:
        code = getattr(page, "language", "") or ""
        if code:
            weight[code] += max(_letters(page_text(page)), 1)
    return weight.most_common(1)[0][0] if weight else ""


# -- stop words ------------------------------------------------------------------------------

_LATIN_TO_CYRILLIC = {
    "lj": "љ",
    "nj": "њ",
    "dž": "џ",
    **dict(zip("abcčćdđefghijklmnoprsštuvzž", "абцчћдђефгхијклмнопрсштувзж", strict=True)),
}
_LATIN_UNIT = re.compile(r"lj|nj|dž|.", re.DOTALL)


def _cyrillic(word: str) -> str | None:
    """A Serbian Latin word in Cyrillic; None when it has letters Serbian does not use."""
    out = []
    for unit in _LATIN_UNIT.findall(word):
        letter = _LATIN_TO_CYRILLIC.get(unit)
        if letter is None:
            return None
        out.append(letter)
    return "".join(out)


def _data_words(name: str) -> set[str]:
    path = DATA_DIR / f"{name}.txt"
    if not path.is_file():
        return set()
    words: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.lstrip().startswith("#"):
            words.update(line.split())
    return words


def _package_words(code: str) -> set[str]:
    import stopwordsiso

    return set(stopwordsiso.stopwords(code)) if stopwordsiso.has_lang(code) else set()


@lru_cache(maxsize=128)
def stop_words(lang: str) -> frozenset[str]:
    """The stop words of ``lang`` (an ISO 639-1 code or a tag such as "sr-Latn"), lower
    case; English for "" or a language without a list."""
    code = normalize_language(lang)
    if code in ("", "en"):
        words = _data_words("en")
    elif code in SHTOKAVIAN:
        latin = _package_words("hr") | _data_words("sh")
        words = latin | {w for w in map(_cyrillic, latin) if w}
    else:
        words = _package_words(code) | _data_words(code)
        if not words:
            return stop_words("en")
    return frozenset(unicodedata.normalize("NFC", w.casefold()) for w in words)


def combined_stop_words(langs: Iterable[str]) -> frozenset[str]:
    """The stop words of all ``langs`` and of English."""
    return _combined(tuple(sorted({normalize_language(code) for code in langs} - {""})))


@lru_cache(maxsize=64)
def _combined(codes: tuple[str, ...]) -> frozenset[str]:
    words = set(stop_words("en"))
    for code in codes:
        words |= stop_words(code)
    return frozenset(words)


# -- dates ------------------------------------------------------------------------------------

_MONTH_KEYS = (
    "january february march april may june july august september october november december"
).split()
# dateparser's locales for a language (its "sr" is Cyrillic only).
_DATE_LOCALES = {
    "sr": ("sr-Latn", "sr-Cyrl"),
    "bs": ("bs-Latn", "bs-Cyrl"),
    "sh": ("sr-Latn", "hr"),
}


def _months_file() -> dict[str, list[list[str]]]:
    """``language_data/months.txt``: "<code>: <january forms>; <february forms>; ..."."""
    table: dict[str, list[list[str]]] = {}
    for line in (DATA_DIR / "months.txt").read_text(encoding="utf-8").splitlines():
        if ":" not in line or line.lstrip().startswith("#"):
            continue
        code, _sep, months = line.partition(":")
        table[code.strip()] = [m.split() for m in months.split(";")]
    return table


@lru_cache(maxsize=64)
def month_names(lang: str) -> dict[str, int]:
    """Month names and abbreviations of ``lang`` and of English, lower case, -> 1..12."""
    from dateparser.languages.loader import default_loader

    code = normalize_language(lang)
    locales = ["en", *_DATE_LOCALES.get(code, (code,) if code else ())]
    if code in SHTOKAVIAN:  # the group writes one another's months too
        locales += ["sr-Latn", "hr", "bs-Latn"]
    names: dict[str, int] = {}
    for locale in dict.fromkeys(locales):
        try:
            info = default_loader.get_locale(locale).info
        except (KeyError, ValueError):
            continue
        for number, key in enumerate(_MONTH_KEYS, start=1):
            for name in info.get(key, []):
                names.setdefault(name.casefold().rstrip("."), number)
    extra = _months_file()
    for family in {code, _family(code)} if code else ():
        for number, forms in enumerate(extra.get(family, [])[:12], start=1):
            for name in forms:
                names.setdefault(name.casefold(), number)
    if code == "sr" or code in SHTOKAVIAN:
        for name, number in list(names.items()):
            if cyrillic := _cyrillic(name):
                names.setdefault(cyrillic, number)
    return {name: number for name, number in names.items() if len(name) >= 3}


@lru_cache(maxsize=64)
def _date_patterns(lang: str) -> tuple[re.Pattern[str], ...]:
    names = sorted(month_names(lang), key=len, reverse=True)
    month = "(?P<month>" + "|".join(re.escape(n) for n in names) + r")(?!\w)\.?"
    year = r"(?P<year>(?:19|20)\d\d)"
    day = r"(?P<day>[0-3]?\d)"
    return (
        # "12. mart 2024.", "12 March 2024", "12. März 2024", "12 de marzo de 2024"
        re.compile(
            rf"(?<![\w.]){day}(?:\.|st|nd|rd|th|er|º)?\s+(?:de\s+)?{month}"
            rf",?\s+(?:de\s+)?{year}(?!\d)",
            re.IGNORECASE,
        ),
        # "March 12, 2024"
        re.compile(rf"(?<!\w){month}\s+{day}(?:st|nd|rd|th)?,?\s+{year}(?!\d)", re.IGNORECASE),
        # "12.03.2024." (day first: the way every language but American English writes it)
        re.compile(rf"(?<![\w.]){day}\.\s?(?P<num>[01]?\d)\.\s?{year}(?!\d)"),
    )


def find_written_date(text: str, lang: str = "") -> datetime | None:
    """The first date ``text`` writes in ``lang`` (or English), as a naive datetime at
    midnight; None when there is none."""
    text = " ".join((text or "").split())[:2000]
    if not text:
        return None
    names = month_names(lang)
    found: list[tuple[int, datetime]] = []
    for pattern in _date_patterns(normalize_language(lang)):
        for match in pattern.finditer(text):
            groups = match.groupdict()
            number = (
                int(groups["num"])
                if groups.get("num")
                else names.get(groups["month"].casefold().rstrip("."))
            )
            try:
                when = datetime(int(groups["year"]), number or 0, int(groups["day"]))
            except (TypeError, ValueError):
                continue
            found.append((match.start(), when))
            break
    return min(found, key=lambda item: item[0])[1] if found else None
