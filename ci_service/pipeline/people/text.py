"""Names and job titles as team pages write them (see ``pipeline.people.extract``).

A name is 2-4 capitalised words (accents, apostrophes, hyphens, initials, particles such as
"van"/"de"; ALL CAPS is title-cased; honorifics dropped) without a word of
:data:`NOT_NAME_WORDS` (navigation, heading, product, place, calendar words), a headline
verb ("Acme Appoints Jane Doe"), a job-title word or acronym, or a word with a capital
inside it unless after a name prefix ("McLean", "DeVries"; not "NewCo" or "DoeChief").

:func:`clean_title` (strict) wants a job-title word (:data:`ROLE_WORDS`, C-level acronyms),
at most 10 words, no digits or sentence punctuation; "of"/"at" and each comma/&/and part
may only add department words, so "CTO, Acme Corp", "CEO of Globex" and "CEO at Acme" are
refused. :func:`card_title` also takes the short line in the title place of a repeated
person card ("Keeper of the Vault", "Ops", "Dragon Tamer & CEO") unless it reads as a
sentence, a company ("Example Ventures"), a former or outside job, or link words.
:func:`formal_parts` are the parts of a title made only of job-title vocabulary: a title
without one ("Chief Wizard") is a joke title that a formal one stated elsewhere replaces.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

# Places and weekdays: never a name (nor, on a card, a title).
_PLACES = frozenset(
    """united states kingdom america europe asia africa london berlin cambridge boston seattle
    chicago york san francisco los angeles paris dublin toronto singapore tokyo amsterdam
    munich zurich madrid atlanta miami california texas ireland england scotland wales
    germany france india china japan canada australia""".split()
)
_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())

ROLE_ACRONYMS = frozenset(
    "CEO CTO COO CFO CGO CMO CPO CRO CIO CISO CSO CDO CCO CHRO CBO CAO CLO CXO EVP SVP VP AVP "
    "GM MD".split()
)
ROLE_WORDS = frozenset(
    """founder founders cofounder president chairman chairwoman chairperson chair director head
    officer partner counsel advisor adviser member engineer developer designer manager lead
    architect scientist researcher analyst consultant specialist evangelist advocate recruiter
    marketer writer editor strategist owner principal treasurer secretary executive coordinator
    administrator representative intern accountant controller associate programmer technologist
    fellow ambassador leader chief trustee investor
    direktor direktorka osnivač osnivačica suosnivač suosnivačica predsednik predsjednik
    predsednica predsjednica menadžer menadžerka rukovodilac šef inženjer inženjerka
    programer dizajner savetnik savjetnik geschäftsführer geschäftsführerin gründer
    gründerin mitgründer leiter leiterin vorstand fondateur fondatrice cofondateur directeur
    directrice président présidente responsable fundador fundadora cofundador director
    directora presidente gerente jefe
    oprichter medeoprichter eigenaar eigenaresse zaakvoerder directeur bestuurder tandarts
    mondhygiënist mondhygienist praktijkmanager praktijkhouder adviseur ontwikkelaar
    grundare medgrundare vd ägare utvecklare säljchef ansvarig rådgivare konsult
    gründer daglig leder rådgiver konsulent utvikler grundlægger direktør ejer udvikler
    fondatore cofondatore amministratore titolare socio sviluppatore consulente
    fundadora sócio sócia diretor diretora desenvolvedor założyciel prezes dyrektor
    kierownik właściciel
    entwickler entwicklerin ingenieur ingenieurin praktikant praktikantin mitarbeiter
    mitarbeiterin berater beraterin assistent assistentin auszubildende auszubildender
    werkstudent werkstudentin inhaber inhaberin prokurist prokuristin
    développeur développeuse ingénieur ingénieure stagiaire chargé chargée assistante
    desarrollador desarrolladora ingeniero ingeniera becario becaria asistente
    stagiair medewerker medewerkster ingenieur assistent
    therapist physiotherapist physio dentist hygienist doctor physician nurse surgeon
    orthodontist optometrist ophthalmologist pharmacist psychologist psychotherapist
    psychiatrist counselor counsellor veterinarian receptionist technician midwife dietitian
    nutritionist chiropractor podiatrist paralegal attorney lawyer solicitor barrister
    bookkeeper auditor notary
    arzt ärztin zahnarzt zahnärztin physiotherapeut physiotherapeutin psychotherapeut
    psychotherapeutin heilpraktiker heilpraktikerin dentiste médecin kinésithérapeute
    infirmière infirmier psychologue orthodontiste huisarts fysiotherapeut assistente
    praktijkondersteuner psykolog tandlæge læge sygeplejerske tandläkare läkare
    sjuksköterska fysioterapeut""".split()
)
# Words a title may hold besides job-title words (also lower-case, "Head of product").
TITLE_WORDS = frozenset(
    """of for and the in to co non vice senior sr junior jr staff principal global regional
    international interim acting assistant deputy general managing founding executive chief
    independent engineering product products marketing sales operations ops finance financial
    growth design people customer customers success business development technology technical
    software hardware firmware embedded data security research strategy strategic partnerships
    alliances communications comms legal hr human resources talent brand content community
    support solutions platform infrastructure devops frontend front end backend back full stack
    fullstack mobile web cloud ai ml machine learning revenue commercial quality assurance qa
    test project program programme account accounts enterprise channel field digital creative
    art ux ui user experience information it systems network office administration compliance
    risk policy analytics insights demand generation performance social media events
    procurement supply chain open source devrel relations public affairs investor board
    directors team emea apac americas europe north south america uk us operating science
    sciences scientific consulting clinical medical regulatory manufacturing services service
    professional education training editorial economics applied corporate innovation
    research development r d production purchasing purchase logistics maintenance accounting
    warehouse planning construction installation shipping export import controlling treasury
    facilities facility reception nursing care patient patients practice office
    tehnički izvršni finansijski finansijska generalni generalna glavni glavna operativni
    komercijalni prodaje marketinga razvoja technischer kaufmännischer technique général
    delegato delegata daglig
    générale ejecutivo técnico general""".split()
)
_FUNCTION_WORDS = frozenset("of for and the in to a an on at".split())
_TITLE_OPENERS = ROLE_WORDS | TITLE_WORDS - _FUNCTION_WORDS
# Title words that are also surnames or first names ("Art Field") may be part of a name.
_TITLE_NOT_NAMES = TITLE_WORDS - frozenset(
    "art field brand north south america chain end back front open test risk office public "
    "program us uk r d".split()
)
HONORIFICS = frozenset("dr mr mrs ms miss prof professor sir dame".split())
PARTICLES = frozenset(
    "van von de der den da das do dos di del della du la le ter ten bin al el st".split()
)
# Capitalised words that are not part of a person's name: navigation, headings, products,
# places and calendar words ("Get Started", "Our Team", "Cloud Platform", "New York").
NOT_NAME_WORDS = (
    frozenset(
        """a an the and or of for to in on at by with from as is are we you your our my us it this
    that these those who what why how where when all any more most new latest featured about
    team teams meet our leadership leaders management board directors advisors investors
    founders executive executives staff people company careers jobs hiring join contact home
    get started start sign log login signup demo trial free request book call watch read learn
    view see download install try buy shop pricing price plans plan product products solution
    solutions platform features feature integrations integration enterprise business cloud open
    source self hosted host blog news press media events webinar webinars resources resource
    docs documentation guide guides support help community forum faq privacy policy terms
    service services cookie cookies settings legal security status story stories mission vision
    values culture office offices location locations headquarters partners partner customers
    customer case study studies software hardware data analytics internal tools tool app apps
    web mobile low code no build deploy manage automate design engineering marketing sales
    operations finance subscribe newsletter follow twitter linkedin github server repo database
    client console dashboard portal api facebook youtube instagram email phone address
    copyright reserved rights inc ltd llc gmbh corp corporation limited group holdings labs
    systems technologies technology networks digital global international north south east
    west january february march july september october november december today now next
    previous back top more less county council health hospital clinic association society
    agency department ministry university college institute foundation academy ventures
    capital fund front end fullstack stack""".split()
    )
    | _PLACES
    | _WEEKDAYS
)
# Verbs of a press headline ("Acme Appoints Jane Doe ..."): never part of a name.
HEADLINE_WORDS = frozenset(
    """appoints appointed appointment names named hires hired welcomes welcome announces
    announced announcing promotes promoted adds added taps tapped elects elected joins joined
    introduces introducing launches launched raises raised secures secured acquires acquired
    expands partners interview interviews talks speaks presents congratulations""".split()
)
# A capital inside a name word is fine after these ("McLean", "MacArthur", "DeVries").
NAME_PREFIXES = frozenset(
    "mc mac fitz o d de di da du la le van von ten ter st al el bin abu ben".split()
)
# Words of an organisation's name ("Example Ventures", "Sample Capital Partners").
ORG_WORDS = frozenset(
    """ventures venture capital partners fund funds inc incorporated ltd llc llp gmbh corp
    corporation company group holdings investments bank labs laboratories university college
    school institute foundation associates advisors angels accelerator incubator""".split()
)
# Link and chrome words a card carries besides the name and title.
LINK_WORDS = frozenset(
    """twitter linkedin github facebook instagram youtube dribbble medium email mail website
    web site blog bio profile read more contact me follow view x learn see full details open
    close connect message call book meet about page go link""".split()
)
# Places and calendar words: a card line holding one is a location or a date, not a title.
PLACE_AND_TIME_WORDS = (
    _PLACES
    | _WEEKDAYS
    | frozenset(
        """usa remote january february march april may june july august september october
        november december since joined""".split()
    )
)
_NAME_WORD = re.compile(r"^(?:[^\W\d_]\.?|[^\W\d_]+(?:['’-][^\W\d_]+)*\.?)$")
_WORD = re.compile(r"[^\W\d_]+")
_PART_SPLIT = re.compile(r"\s*(?:,|&|\+|/|\||\band\b)\s*", re.IGNORECASE)
_SEPARATOR = re.compile(r"\s*(?:,|\s-\s|[–—|·:])\s*")
_ATTRIBUTION = re.compile(r"^\s*[-–—―~]")
# A lower-case letter then a capital inside a word: "DoeChief", "NewCo", "McLean".
_INNER_CAPITAL = re.compile(r"(?<=[^\W\d_])(?<![A-Z])(?=[A-Z])")


def _title_case(token: str) -> str:
    if token.lower() in PARTICLES:
        return token.lower()
    return re.sub(r"[^\W\d_]+", lambda m: m.group(0).capitalize(), token)


def _glued(token: str) -> bool:
    """A word with a capital inside that no name prefix explains ("NewCo", "DoeChief")."""
    for piece in re.split(r"['’-]", token):
        for where in (m.start() for m in _INNER_CAPITAL.finditer(piece)):
            if where and piece[:where].lower() not in NAME_PREFIXES:
                return True
    return False


def clean_name(raw: str, exclude: Collection[str] = ()) -> str | None:
    """``raw`` as a person's name (ALL CAPS title-cased), or None when it is not one (or
    its case-folded form is in ``exclude``)."""
    tokens = " ".join(str(raw).split()).strip(" ,;:|·").split()
    while tokens and tokens[0].strip(".").lower() in HONORIFICS:
        tokens = tokens[1:]
    if any(t.strip(",.") in ROLE_ACRONYMS for t in tokens):
        return None  # "JANE ROE CEO" is a name and a title on one line
    letters = [c for c in "".join(tokens) if c.isalpha()]
    if len(letters) > 3 and not any(c.islower() for c in letters):
        tokens = [_title_case(t) for t in tokens]
    core = [t for t in tokens if t not in PARTICLES]
    if not 2 <= len(core) <= 4 or len(tokens) > 6 or tokens[0] in PARTICLES:
        return None
    for token in core:
        bare = token.strip(".").lower()
        if not _NAME_WORD.match(token) or not token[0].isupper() or _glued(token):
            return None
        if len(token) > 1 and token.isupper() and not token.endswith("."):
            return None  # an acronym (CEO, UK) is not part of a name
        if bare in NOT_NAME_WORDS or bare in ROLE_WORDS or bare in _TITLE_NOT_NAMES:
            return None
        if bare in HEADLINE_WORDS:
            return None
    if len(core[-1].strip(".")) < 2:
        return None
    name = " ".join(tokens)
    return None if name.casefold() in exclude else name


def is_role(word: str) -> bool:
    return word in ROLE_ACRONYMS or word.lower() in ROLE_WORDS


def vocabulary(word: str) -> bool:
    """A word of a formal title: job-title word, department word or a short acronym."""
    return is_role(word) or word.lower() in TITLE_WORDS or (word.isupper() and len(word) <= 4)


_CREDENTIALS = re.compile(r"^(?:[A-Z][A-Za-z.]{1,5}(?:,\s*|\s+|$))+$")  # "PT, DPT, CIDN"


def clean_title(raw: str) -> str | None:
    """``raw`` as a job title, or None (see the module docstring for the rule). Letters
    after a name set apart by a middle dot or bar ("PT, DPT · Owner & Founder") are the
    person's credentials: the title is the part after them."""
    parts = [p.strip() for p in re.split(r"\s+[·|]\s+", str(raw))]
    if len(parts) == 2 and _CREDENTIALS.match(parts[0]):
        if not any(is_role(w) for w in _WORD.findall(parts[0])):  # "CEO · Founder" is all title
            raw = parts[1]
    title = " ".join(str(raw).split()).strip(" ,;:|·-–—")
    if not title or len(title) > 80 or len(title.split()) > 10:
        return None
    if re.search(r"[!?;@\d]|[a-z]{3}\.\s|\bat\s+[A-Z]", title):
        return None
    words = _WORD.findall(title)
    if not words or not any(is_role(w) for w in words):
        return None
    for token in title.split():
        word = next(iter(_WORD.findall(token)), "")
        if word and not word[0].isupper() and not is_role(word) and word not in TITLE_WORDS:
            return None
    if words[0].lower() in _FUNCTION_WORDS:
        return None
    for tail in re.findall(r"\b(?:of|at)\s+(.+)", title):
        if not all(w.lower() in TITLE_WORDS for w in _WORD.findall(tail)):
            return None  # "CEO of Globex": another organisation, not a department
    for part in _PART_SPLIT.split(title):
        part_words = _WORD.findall(part)
        if part_words and not any(is_role(w) for w in part_words):
            if not all(w.lower() in TITLE_WORDS for w in part_words):
                return None  # "CTO, Acme Corp": a company, not a department
    return title.rstrip(".")


def card_title(raw: str) -> str | None:
    """The line in a repeated card's title place as a title: :func:`clean_title`, or a
    short line the site uses as one ("Keeper of the Vault", "Ops", "Growth & Community")."""
    if strict := clean_title(raw):
        return strict
    title = " ".join(str(raw).split()).strip(" ,;|·-–—")
    words = _WORD.findall(title)
    if not words or len(title) > 60 or len(title.split()) > 8:
        return None
    if not (title[0].isupper() or title[0] in "#&"):
        return None
    if re.search(r"[!?;:@/\\$€£%]|\d{3,}|[a-z]{2}\.(?:\s|$)|\bat\s+[A-Z]|\bex-", title):
        return None  # a sentence, a link, an amount or a job elsewhere
    lowered = [w.lower() for w in words]
    if any(w in ORG_WORDS or w in PLACE_AND_TIME_WORDS or w == "former" for w in lowered):
        return None  # "Example Ventures", "Former CTO, Sample Inc", "Berlin", "March 3"
    if all(w in LINK_WORDS for w in lowered):
        return None
    for word in words:
        if word[0].islower() and word not in _FUNCTION_WORDS and not vocabulary(word):
            return None  # "grows a respectable beard": a sentence's words
    has_role = any(is_role(w) for w in words)
    if has_role:
        for tail in re.findall(r"\bof\s+(.+)", title):
            if not all(vocabulary(w) or w in _FUNCTION_WORDS for w in _WORD.findall(tail)):
                return None  # "CEO of Globex": a job at another organisation
        for part in title.split(",")[1:]:
            if not any(vocabulary(w) for w in _WORD.findall(part)):
                return None  # "Founder, Sample Robotics": a company after the comma
    return title


def formal_parts(title: str | None) -> list[str]:
    """The parts of ``title`` (split at , & / and) made only of job-title vocabulary, each
    holding a job-title word: "Dragon Tamer & CEO" -> ["CEO"]; "Chief Wizard" -> []."""
    parts = []
    for part in _PART_SPLIT.split(title or ""):
        if re.search(r"\d", part):
            continue
        words = [w for w in _WORD.findall(part) if w.lower() not in _FUNCTION_WORDS]
        if words and any(is_role(w) for w in words) and all(vocabulary(w) for w in words):
            parts.append(part.strip())
    return parts


def is_formal(title: str | None) -> bool:
    """Every part of ``title`` is job-title vocabulary ("Co-Founder & Managing Director")."""
    words = _WORD.findall(title or "")
    if not words or re.search(r"\d", title or ""):
        return False
    known = all(vocabulary(w) or w.lower() in _FUNCTION_WORDS for w in words)
    return known and bool(formal_parts(title))


def split_person(line: str, exclude: Iterable[str] = ()) -> tuple[str, str] | None:
    """(name, title) of a one-line person: "Name, Title", "Name (Title)", "Name Title",
    also when the name and title ran together ("Jane DoeChief Executive Officer")."""
    line = " ".join(line.split())
    if len(line) > 120 or _ATTRIBUTION.match(line):
        return None
    if match := re.match(r"^(.+?)\s*\(([^()]+)\)$", line):
        name, title = clean_name(match.group(1), exclude), clean_title(match.group(2))
        if name and title:
            return name, title
    if match := _SEPARATOR.search(line):
        name = clean_name(line[: match.start()], exclude)
        title = clean_title(line[match.end() :])
        if name and title:
            return name, title
        return None
    tokens = line.split()
    for size in range(2, min(len(tokens) - 1, 6) + 1):
        first = tokens[size]
        if not (first in ROLE_ACRONYMS or first.lower() in _TITLE_OPENERS):
            continue
        name, title = (
            clean_name(" ".join(tokens[:size]), exclude),
            clean_title(" ".join(tokens[size:])),
        )
        if name and title:
            return name, title
    return _unglued(line, exclude)


def _unglued(line: str, exclude: Iterable[str]) -> tuple[str, str] | None:
    """A name and title with no space between them, from adjacent elements: split where a
    word's inner capital starts a title ("Jane DoeChief ..." -> "Jane Doe", "Chief ...")."""
    for match in _INNER_CAPITAL.finditer(line):
        where = match.start()
        word_start = max(line.rfind(" ", 0, where) + 1, 0)
        if line[word_start:where].lower() in NAME_PREFIXES:
            continue
        head = re.match(r"[^\W\d_]+", line[where:])
        opener = head.group(0) if head else ""
        if not (opener in ROLE_ACRONYMS or opener.lower() in _TITLE_OPENERS):
            continue
        name, title = clean_name(line[:where], exclude), clean_title(line[where:])
        if name and title:
            return name, title
    return None
