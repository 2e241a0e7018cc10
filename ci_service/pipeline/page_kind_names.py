"""The kinds a fetched page can be, and the sets of kinds that hold each sort of fact.

Apart from ``page_kinds`` (which decides a page's kind and compiles its heading patterns on
import) so that what only asks "is this kind a capability page?" (the feature matrix's
evidence, loaded by ``serve``) does not load the classifier at start-up.
"""

from __future__ import annotations

from ci_service.store.intel import PAGE_KINDS

HOME = "home"
PRODUCT = "product"  # a product or feature page
PRICING = "pricing"
TEAM = "team"  # people with their titles
ABOUT = "about"  # the company: story, mission, investors
CONTACT = "contact"
NEWS_LIST = "news-list"  # a press or news list, a blog index
POST = "post"  # a dated article: blog post, press release
CUSTOMER = "customer"  # a customer story or case study
CAREERS = "careers"  # careers page or a job post
LEGAL = "legal"  # privacy, terms, cookies
UTILITY = "utility"  # search, sign-in, thank-you, cart, 404
ARCHIVE = "archive"  # date, tag, category or author archive; a feed saved as HTML
OTHER = "other"

KINDS = PAGE_KINDS
# Pages whose words never become offerings, features, plans, people or news.
NO_FACTS = frozenset({LEGAL, UTILITY, ARCHIVE})
# Pages whose words describe what the company sells (offerings, features, capabilities).
CAPABILITY_KINDS = frozenset({HOME, PRODUCT, PRICING, CUSTOMER, OTHER})
# Pages that are news: their date is the date the page states.
NEWS_KINDS = frozenset({POST, NEWS_LIST})

# Heading words per kind, in English and the other languages the pipeline reads (German,
# French, Spanish, Serbian/Croatian/Bosnian Latin). Matched against the title's first part,
# the h1 and the URL's last segments as whole words.
HEADING_WORDS = {
    LEGAL: r"privacy|privacy policy|terms|terms of (?:service|use)|terms and conditions|"
    r"cookies?|cookie policy|legal|legal notice|imprint|impressum|disclaimer|gdpr|dpa|"
    r"eula|licen[cs]e agreement|acceptable use|datenschutz|agb|nutzungsbedingungen|"
    r"confidentialit[ée]|mentions l[ée]gales|conditions g[ée]n[ée]rales|privacidad|"
    r"aviso legal|t[ée]rminos|politika privatnosti|privatnost|uslovi kori[sš][cćt]enja|"
    r"pravila privatnosti|trial license agreement",
    UTILITY: r"thank you|thanks|thankyou|thank-you|search|search results|sign in|sign up|"
    r"log ?in|log ?out|register|registration|create (?:an )?account|my account|cart|"
    r"basket|checkout|page not found|not found|404|unsubscribe|forgot password|"
    r"reset password|danke|merci|gracias|hvala|prijava|korpa|suche|recherche|buscar|pretraga",
    ARCHIVE: r"archives?|category|categories|tags?|tagged|author|posts? by|all posts|"
    r"archiv|kategorie|cat[ée]gorie|categor[ií]a|kategorija|arhiva",
    PRICING: r"pricing|prices?|plans?|plans and pricing|plans & pricing|pricing plans|"
    r"buy|subscribe|subscriptions?|preise|tarife|tarifs|prix|precios|planes|cene|cijene|"
    r"cenovnik|cjenik|paketi",
    TEAM: r"team|our team|the team|people|our people|leadership|management|founders|"
    r"board|meet the team|who we are|staff|crew|team & investors|unser team|[ée]quipe|"
    r"equipo|tim|na[sš] tim",
    ABOUT: r"about|about us|company|our company|our story|story|mission|vision|values|"
    r"investors?|investment|funding|history|who we are|über uns|ueber uns|"
    r"unternehmen|[àa] propos|qui sommes-nous|sobre nosotros|o nama|o kompaniji",
    CONTACT: r"contact|contact us|contacts|get in touch|locations?|offices?|find us|"
    r"kontakt|contacto|contactez-nous|kontaktirajte nas",
    NEWS_LIST: r"news|press|press releases?|newsroom|media|in the news|news coverage|"
    r"blog|insights|updates|announcements|articles|latest|stories|aktuelles|neuigkeiten|"
    r"actualit[ée]s|noticias|novosti|vesti|vijesti|saop[sš]tenja",
    CAREERS: r"careers?|jobs?|join us|join our team|we'?re hiring|open positions|"
    r"vacancies|work(?:ing)? (?:at|with|for)|job postings?|karriere|stellenangebote|carri[èe]res?|"
    r"empleo|trabaja con nosotros|karijera|posao|zaposlenje",
    CUSTOMER: r"customers?|customer stor(?:y|ies)|case stud(?:y|ies)|success stor(?:y|ies)|"
    r"testimonials?|clients?|references|referenzen|kundenstimmen|t[ée]moignages|"
    r"casos de [ée]xito|klijenti|reference",
    PRODUCT: r"products?|platform|features?|solutions?|services?|how it works|tour|"
    r"integrations?|connectors?|data sources?|use cases?|"
    r"overview|capabilities|produkte?|funktionen|fonctionnalit[ée]s|produits?|"
    r"caracter[ií]sticas|productos?|proizvodi?|funkcije|mogu[cć]nosti|usluge",
}
