"""Fill locale/fr/LC_MESSAGES/django.po from the table below (run after makemessages).

Why a script: the translations live in one reviewed table, and re-running makemessages never
loses them. Run: python locale/translate_fr.py && python manage.py compilemessages -l fr
"""

from __future__ import annotations

import re
from pathlib import Path

PO = Path(__file__).resolve().parent / "fr" / "LC_MESSAGES" / "django.po"
NBSP = "\u00a0"

FR: dict[tuple[str, str], str | list[str]] = {
    ("", "English"): "anglais",
    ("", "French"): "français",
    ("", "glossary term"): "terme du glossaire",
    ("", "glossary version"): "version du glossaire",
    ("", "anomalies"): "anomalies",
    ("", "created"): "créée",
    ("", "replaced"): "remplacée",
    ("", "effective date"): "date d’entrée en vigueur",
    ("", "set name"): "nom de l’extension",
    ("", "set code"): "code de l’extension",
    (
        "",
        "File name or URL the English text came from.",
    ): "Fichier ou URL d’où vient le texte anglais.",
    (
        "",
        "Checksum of the decoded text, line ends normalised.",
    ): "Somme de contrôle du texte décodé, fins de ligne normalisées.",
    ("", "release"): "version",
    ("", "releases"): "versions",
    ("", "section"): "section",
    ("", "chapter"): "chapitre",
    ("", "rule"): "règle",
    ("", "subrule"): "sous-règle",
    ("", "lineage"): "lignée",
    ("", "number"): "numéro",
    ("", "Chapter (or section) number."): "Numéro du chapitre (ou de la section).",
    (
        "",
        "Above 0 when the source printed the same number again.",
    ): "Supérieur à 0 quand la source imprime deux fois le même numéro.",
    (
        "",
        "The number this lineage held just before.",
    ): "Le numéro que portait cette lignée juste avant.",
    ("", "rule number"): "numéro de règle",
    ("", "rule version"): "version de règle",
    ("", "Empty for the main text."): "Vide pour le texte principal.",
    ("", "official"): "officielle",
    ("", "unofficial"): "non officielle",
    ("", "reviewed"): "relue",
    ("", "valid from"): "en vigueur depuis",
    ("", "valid to"): "en vigueur jusqu’au",
    ("", "text"): "texte",
    ("", "Exact text and examples."): "Texte exact et exemples.",
    ("", "Typography folded."): "Typographie normalisée.",
    (
        "",
        "Main text folded, cited numbers masked.",
    ): "Texte principal normalisé, numéros cités masqués.",
    ("", "wording since"): "formulation depuis",
    (
        "",
        "Effective date of the last change that was not typography or references.",
    ): "Date de la dernière modification qui n’était ni typographique ni un renvoi.",
    (
        "",
        "The English release the French text translates.",
    ): "La version anglaise que traduit le texte français.",
    ("mana", "white"): "blanc",
    ("mana", "blue"): "bleu",
    ("mana", "black"): "noir",
    ("mana", "red"): "rouge",
    ("mana", "green"): "vert",
    ("mana", "colorless"): "incolore",
    ("", "tap symbol"): "symbole d’engagement",
    ("", "untap symbol"): "symbole de dégagement",
    ("", "energy symbol"): "symbole d’énergie",
    ("", "snow mana"): "mana neigeux",
    ("", "X generic mana"): "X manas génériques",
    ("", "Y generic mana"): "Y manas génériques",
    ("", "Z generic mana"): "Z manas génériques",
    ("", "chaos symbol"): "symbole de chaos",
    ("", "one-half generic mana"): "un demi-mana générique",
    ("", "infinite generic mana"): "mana générique infini",
    ("", "Phyrexian mana"): "mana phyrexian",
    ("", "%(color)s mana"): "mana %(color)s",
    ("", "%(n)s generic mana"): "%(n)s manas génériques",
    ("", "Phyrexian %(color)s mana"): "mana %(color)s phyrexian",
    ("", "Phyrexian hybrid %(a)s or %(b)s mana"): "mana hybride phyrexian %(a)s ou %(b)s",
    ("", "two generic or %(color)s mana"): "deux manas génériques ou un mana %(color)s",
    ("", "hybrid %(a)s or %(b)s mana"): "mana hybride %(a)s ou %(b)s",
    ("", "No release is loaded yet."): "Aucune version n’est encore chargée.",
    ("", "“%(token)s” is not a date."): f"«{NBSP}%(token)s{NBSP}» n’est pas une date.",
    (
        "",
        "No release was in force on %(date)s: the archive starts on %(first)s.",
    ): f"Aucune version n’était en vigueur le %(date)s{NBSP}: l’archive commence le %(first)s.",
    (
        "",
        "No glossary entry “%(slug)s” in this release.",
    ): f"Pas d’entrée «{NBSP}%(slug)s{NBSP}» dans le glossaire de cette version.",
    ("", "not in this release"): "absent de cette version",
    ("", "Not found"): "Page introuvable",
    ("", "There is no page at this address."): "Il n’y a pas de page à cette adresse.",
    ("", "Home"): "Accueil",
    ("", "Server error"): "Erreur du serveur",
    # chapter index (issue 15)
    ("", "%(n)s rule in this chapter"): [
        "%(n)s règle dans ce chapitre",
        "%(n)s règles dans ce chapitre",
    ],
    ("", "Back to top"): "Haut de page",
    ("", "CR glossary, %(term)s (%(date)s)"): "CR glossaire, %(term)s (%(date)s)",
    ("", "CR %(n)s, history (%(date)s)"): "CR %(n)s, historique (%(date)s)",
    ("", "%(n)s matching entry"): "%(n)s entrée trouvée",
    ("", "%(n)s matching entries"): "%(n)s entrées trouvées",
    ("", "%(n)s entry"): ["%(n)s entrée", "%(n)s entrées"],
    # feeds (issue 15)
    ("", "Comprehensive Rules releases"): "Versions des Règles complètes",
    (
        "",
        "Each new release of the Magic: The Gathering Comprehensive Rules: what changed.",
    ): f"Chaque nouvelle version des Règles complètes de Magic: The Gathering{NBSP}: ce qui a changé.",
    ("", "Release of %(date)s (%(set)s)"): "Version du %(date)s (%(set)s)",
    ("", "Release of %(date)s"): "Version du %(date)s",
    ("", "The first release of the archive."): "La première version de l’archive.",
    ("", "No rule %(n)s in the current release."): "Aucune règle %(n)s dans la version en vigueur.",
    ("", "was %(n)s"): "était %(n)s",
    (
        "",
        "Every release that changed rule %(n)s of the Magic: The Gathering Comprehensive Rules.",
    ): "Chaque version qui a modifié la règle %(n)s des Règles complètes de Magic: The Gathering.",
    # releases table and anomalies (issue 15)
    (
        "",
        "Anomalies are defects of the official document (a number printed twice, a reference "
        "to a rule the release lacks…), kept as printed: each count links to its list.",
    ): (
        "Les anomalies sont des défauts du document officiel (un numéro imprimé deux fois, un "
        "renvoi à une règle absente de la version…), conservés tels quels{NBSP}: chaque nombre "
        "mène à leur liste."
    ).replace("{NBSP}", NBSP),
    (
        "",
        "Defects of the official document, kept as printed",
    ): "Défauts du document officiel, conservés tels quels",
    ("", "Anomalies of the release of %(d)s"): "Anomalies de la version du %(d)s",
    (
        "",
        "Defects of the official document, kept as they were printed rather than silently "
        "fixed: the rules are shown as the document has them.",
    ): (
        "Défauts du document officiel, conservés tels qu’ils ont été imprimés plutôt que "
        f"corrigés en silence{NBSP}: les règles sont montrées telles que le document les donne."
    ),
    ("", "Line"): "Ligne",
    ("", "Where"): "Où",
    ("", "What"): "Quoi",
    ("", "Detail"): "Détail",
    (
        "",
        "None: the document has no defect the import noticed.",
    ): f"Aucune{NBSP}: le document n’a aucun défaut relevé à l’import.",
    (
        "",
        "A rule or glossary entry cites a number this release does not have.",
    ): "Une règle ou une entrée du glossaire cite un numéro que cette version n’a pas.",
    (
        "",
        "Two rules of the document carry the same number.",
    ): "Deux règles du document portent le même numéro.",
    (
        "",
        "An example starts with “Example:” twice.",
    ): f"Un exemple commence deux fois par «{NBSP}Exemple{NBSP}:{NBSP}».",
    (
        "",
        "A glossary entry is glued to the one before it.",
    ): "Une entrée du glossaire est collée à la précédente.",
    (
        "",
        "A subrule whose rule the document lacks.",
    ): "Une sous-règle dont le document n’a pas la règle.",
    ("", "A number with a stray digit."): "Un numéro avec un chiffre en trop.",
    ("", "A number with a stray space."): "Un numéro avec une espace en trop.",
    ("", "A line that belongs to no rule."): "Une ligne qui n’appartient à aucune règle.",
    ("", "Subrule letters out of sequence."): "Des lettres de sous-règles hors de leur ordre.",
    (
        "",
        "Something went wrong on our side. Please try again later.",
    ): "Une erreur s’est produite de notre côté. Veuillez réessayer plus tard.",
    ("", "Releases"): "Versions",
    ("", "Magic: The Gathering Comprehensive Rules"): "Règles complètes de Magic: The Gathering",
    ("", "Rules KB"): "Règles KB",
    ("", "Skip to content"): "Aller au contenu",
    ("", "Site"): "Site",
    ("", "Rules"): "Règles",
    ("", "Glossary"): "Glossaire",
    ("", "Search the rules"): "Rechercher dans les règles",
    ("", "Search: 602.2a, trample…  (press /)"): "Rechercher : 602.2a, piétinement…  (touche /)",
    ("", "Search"): "Rechercher",
    ("", "Language"): "Langue",
    (
        "",
        "The Comprehensive Rules, card names and rulings are the property of Wizards of the Coast, used under the Fan Content Policy. Not approved or endorsed by Wizards.",
    ): "Les Règles complètes, les noms de cartes et les décisions sont la propriété de Wizards of the Coast, utilisés selon sa Fan Content Policy. Ni approuvé ni soutenu par Wizards.",
    ("", "Cite"): "Citer",
    ("", "Copied"): "Copié",
    ("", "Copy"): "Copier",
    ("", "Example:"): f"Exemple{NBSP}:",
    ("", "In the rules since %(d)s"): "Dans les règles depuis le %(d)s",
    ("", "Wording last changed %(d)s"): "Formulation modifiée le %(d)s",
    ("", "reference updated %(d)s"): "renvoi mis à jour le %(d)s",
    ("", "typography updated %(d)s"): "typographie modifiée le %(d)s",
    (
        "",
        "Current rules: the release effective %(date)s",
    ): f"Règles en vigueur{NBSP}: version du %(date)s",
    (
        "",
        "Rules as of the release effective %(date)s",
    ): "Règles telles que dans la version du %(date)s",
    ("", "See the current rules"): "Voir les règles en vigueur",
    (
        "",
        "No official %(language)s text of the Comprehensive Rules is loaded for this release: the English text is shown.",
    ): f"Aucun texte officiel %(language)s des Règles complètes n’est chargé pour cette version{NBSP}: le texte anglais est affiché.",
    ("", "In %(n)s release"): ["Dans %(n)s version", "Dans %(n)s versions"],
    ("", "Contents"): "Sommaire",
    ("", "Rule %(n)s"): "Règle %(n)s",
    ("", "Breadcrumbs"): "Fil d’Ariane",
    ("", "Neighbouring entries"): "Entrées voisines",
    ("", "Letters"): "Lettres",
    (
        "",
        "Every release since 2009, every rule followed through its renumberings, references resolved in the release you read.",
    ): "Toutes les versions depuis 2009, chaque règle suivie à travers ses renumérotations, les renvois résolus dans la version que vous lisez.",
    ("", "Find a rule by number or by words"): "Trouver une règle par son numéro ou par des mots",
    ("", "Current release:"): f"Version en vigueur{NBSP}:",
    ("", "%(n)s release"): ["%(n)s version", "les %(n)s versions"],
    ("", "%(n)s release of the Comprehensive Rules, newest first."): [
        "%(n)s version des Règles complètes, la plus récente d’abord.",
        "%(n)s versions des Règles complètes, les plus récentes d’abord.",
    ],
    ("", "Effective date"): "Date d’entrée en vigueur",
    ("", "Set"): "Extension",
    ("", "Subrules"): "Sous-règles",
    ("", "Anomalies"): "Anomalies",
    ("", "No rule %(n)s"): "Pas de règle %(n)s",
    ("", "No rule %(n)s in this release"): "Pas de règle %(n)s dans cette version",
    ("", "Nearest numbers in this release"): "Numéros les plus proches dans cette version",
    ("", "%(n)s in other releases"): "%(n)s dans d’autres versions",
    ("", "from %(a)s until %(b)s"): "du %(a)s au %(b)s",
    ("", "since %(a)s"): "depuis le %(a)s",
    ("", "%(n)s as of %(d)s"): "%(n)s dans la version du %(d)s",
    ("", "Table of contents"): "Sommaire",
    ("", "%(n)s current rule contains “%(q)s”."): [
        f"%(n)s règle en vigueur contient «{NBSP}%(q)s{NBSP}».",
        f"%(n)s règles en vigueur contiennent «{NBSP}%(q)s{NBSP}».",
    ],
    (
        "",
        "Type a rule number (602.2a) or words from the rules.",
    ): "Tapez un numéro de règle (602.2a) ou des mots des règles.",
    # History and diffs
    ("", "new"): "nouvelle",
    ("", "moved"): "déplacée",
    ("", "wording"): "formulation",
    ("", "examples"): "exemples",
    ("", "reference renumbered"): "renvoi renuméroté",
    ("", "typography only"): "typographie seule",
    ("", "renamed"): "renommée",
    ("", "removed"): "supprimée",
    ("", "added"): "ajoutée",
    ("", "changed"): "modifiée",
    ("", "Link to this change"): "Lien vers cette modification",
    ("", "Changes %(a)s → %(b)s"): "Modifications %(a)s → %(b)s",
    ("", "Changes from %(a)s to %(b)s"): "Modifications du %(a)s au %(b)s",
    (
        "",
        "Rules are matched by lineage: a renumbered rule shows as moved.",
    ): f"Les règles sont suivies par lignée{NBSP}: une règle renumérotée apparaît comme déplacée.",
    ("", "Changed"): "Modifiées",
    ("", "Added"): "Ajoutées",
    ("", "Removed"): "Supprimées",
    ("", "Moved"): "Déplacées",
    ("", "Reworded"): "Reformulées",
    ("", "Renumbered, wording unchanged"): "Renumérotées, texte inchangé",
    (
        "",
        "%(n)s rule differs, each counted once: a reworded rule that also moved counts as "
        "reworded.",
    ): [
        f"%(n)s règle diffère, chacune comptée une fois{NBSP}: une règle reformulée et "
        "déplacée compte comme reformulée.",
        f"%(n)s règles diffèrent, chacune comptée une fois{NBSP}: une règle reformulée et "
        "déplacée compte comme reformulée.",
    ],
    ("", "Reference renumbered only"): "Renvoi renuméroté seulement",
    ("", "Typography only"): "Typographie seulement",
    ("", "Sections"): "Sections",
    ("", "%(n)s rule differs: choose a section."): [
        f"%(n)s règle diffère{NBSP}: choisissez une section.",
        f"%(n)s règles diffèrent{NBSP}: choisissez une section.",
    ],
    ("", "%(noise)s folded"): "%(noise)s repliées",
    ("", "%(c)s: %(n)s reference or typography change"): [
        f"%(c)s{NBSP}: %(n)s modification de renvoi ou de typographie",
        f"%(c)s{NBSP}: %(n)s modifications de renvois ou de typographie",
    ],
    ("", "%(n)s reference or typography change"): [
        "%(n)s modification de renvoi ou de typographie",
        "%(n)s modifications de renvois ou de typographie",
    ],
    ("", "History"): "Historique",
    ("", "History of “%(t)s”"): f"Historique de «{NBSP}%(t)s{NBSP}»",
    ("", "History of a glossary entry"): "Historique d’une entrée du glossaire",
    ("", "was “%(was)s”"): f"était «{NBSP}%(was)s{NBSP}»",
    ("", "History of %(n)s"): "Historique de %(n)s",
    ("", "History of rule %(n)s"): "Historique de la règle %(n)s",
    (
        "",
        "%(n)s change, newest first; the same rule across renumberings, first numbered "
        "%(first_number)s on %(first_date)s.",
    ): [
        f"%(n)s modification, la plus récente d’abord{NBSP}; la même règle à travers ses "
        "renumérotations, numérotée %(first_number)s pour la première fois le %(first_date)s.",
        f"%(n)s modifications, les plus récentes d’abord{NBSP}; la même règle à travers ses "
        "renumérotations, numérotée %(first_number)s pour la première fois le %(first_date)s.",
    ],
    (
        "",
        "Typography-only and reference-only changes are folded.",
    ): "Les modifications de pure typographie ou de renvois sont repliées.",
    (
        "",
        'was <a href="%(url)s">%(was)s</a> until %(until)s',
    ): 'était <a href="%(url)s">%(was)s</a> jusqu’au %(until)s',
    ("", "was %(was)s"): "était %(was)s",
    ("", "All changes of this release"): "Toutes les modifications de cette version",
    ("", "Changes"): "Modifications",
    ("", "since previous"): "depuis la précédente",
    # Cards, rulings and the vocabulary
    ("", "mined from cards"): "tiré des cartes",
    ("", "curated list"): "liste établie à la main",
    ("", "English term"): "terme anglais",
    ("", "French term"): "terme français",
    (
        "",
        "keyword ability, keyword action, glossary, zone, step…",
    ): "capacité mot-clé, action mot-clé, glossaire, zone, étape…",
    (
        "",
        "Cards whose French text gives this term.",
    ): "Cartes dont le texte français donne ce terme.",
    ("", "Cards examined for the term."): "Cartes examinées pour ce terme.",
    ("", "Checked by hand."): "Vérifié à la main.",
    ("", "Confirm the selected links"): "Confirmer les liens sélectionnés",
    ("", "Reject the selected links"): "Rejeter les liens sélectionnés",
    ("", "name"): "nom",
    ("", "type line"): "ligne de type",
    ("", "card"): "carte",
    ("", "date"): "date",
    (
        "",
        "Absent from the last imported file that contained its card (kept).",
    ): "Absente du dernier fichier importé contenant sa carte (conservée).",
    ("", "cited"): "citée",
    ("", "inferred"): "déduite",
    ("", "confirmed"): "confirmée",
    ("", "rejected"): "rejetée",
    (
        "",
        "The release in force on the ruling's date.",
    ): "La version en vigueur à la date de la décision.",
    ("", "The number in that release."): "Le numéro dans cette version.",
    (
        "",
        "The number today (empty if the rule is gone).",
    ): "Le numéro aujourd’hui (vide si la règle a disparu).",
    ("", "Cards"): "Cartes",
    ("", "French term printed on %(n)s card of %(seen)s examined"): [
        "Terme français imprimé sur %(n)s carte sur %(seen)s examinées",
        "Terme français imprimé sur %(n)s cartes sur %(seen)s examinées",
    ],
    (
        "",
        "French term from the curated vocabulary",
    ): "Terme français du vocabulaire établi à la main",
    ("", "no longer in the source"): "absente de la source",
    (
        "",
        "This ruling predates the modern Comprehensive Rules (July 11, 2009): its terms may have changed since.",
    ): f"Cette décision est antérieure aux Règles complètes modernes (11 juillet 2009){NBSP}: ses termes ont pu changer depuis.",
    ("", "Rules in force then:"): f"Règles en vigueur alors{NBSP}:",
    (
        "",
        "Old wording: “%(phrase)s” is “%(now)s” in the rules since %(since)s.",
    ): f"Ancienne formulation{NBSP}: «{NBSP}%(phrase)s{NBSP}» se dit «{NBSP}%(now)s{NBSP}» dans les règles depuis le %(since)s.",
    ("", "Rules:"): f"Règles{NBSP}:",
    ("", "then %(n)s"): "alors %(n)s",
    ("", "Linked by the words “%(evidence)s”"): f"Lié par les mots «{NBSP}%(evidence)s{NBSP}»",
    (
        "",
        "Linked because it is the card's keyword: %(keyword)s",
    ): f"Lié parce que c’est le mot-clé de la carte{NBSP}: %(keyword)s",
    ("", "Linked by a maintainer"): "Lié par un responsable du contenu",
    ("", "heading"): "intertitre",
    (
        "",
        "A Gatherer separator line (“The following rulings focus on …”): shown as the heading of the rulings under it, not as a ruling.",
    ): f"Une ligne de séparation de Gatherer («{NBSP}The following rulings focus on …{NBSP}»){NBSP}: affichée comme intertitre des décisions qui la suivent, pas comme une décision.",
    ("", "under the heading"): "sous l’intertitre",
    (
        "",
        "The heading this ruling is listed under; its links follow the heading.",
    ): "L’intertitre sous lequel cette décision est rangée{NBSP}; ses liens suivent l’intertitre.".replace(
        "{NBSP}", NBSP
    ),
    (
        "",
        "Heading or group set by a maintainer: imports leave them as they are.",
    ): f"Intertitre ou groupe fixé par un responsable{NBSP}: les imports les laissent tels quels.",
    (
        "",
        'The rules it relies on changed since: %(n)s was reworded on %(since)s (<a href="%(url)s">see the changes</a>).',
    ): f'Les règles sur lesquelles elle repose ont changé depuis{NBSP}: %(n)s a été reformulée le %(since)s (<a href="%(url)s">voir les modifications</a>).',
    ("", "French:"): f"Français{NBSP}:",
    ("", "Loyalty"): "Loyauté",
    (
        "",
        "No French text for this card in the data.",
    ): "Pas de texte français pour cette carte dans les données.",
    ("", "%(n)s ruling"): ["%(n)s décision", "%(n)s décisions"],
    ("", "No rulings for this card."): "Aucune décision pour cette carte.",
    (
        "",
        "Find a card by its English or French name",
    ): "Trouver une carte par son nom anglais ou français",
    ("", "Lightning Bolt, Foudre…"): "Foudre, Lightning Bolt…",
    ("", "Suggestions"): "Suggestions",
    ("", "%(n)s card for “%(q)s”."): [
        f"%(n)s carte pour «{NBSP}%(q)s{NBSP}».",
        f"%(n)s cartes pour «{NBSP}%(q)s{NBSP}».",
    ],
    ("", "%(n)s ruling on this rule"): [
        "%(n)s décision sur cette règle",
        "%(n)s décisions sur cette règle",
    ],
    # rulings reachable from every rule (issue 15)
    ("", "%(n)s ruling on this chapter"): [
        "%(n)s décision sur ce chapitre",
        "%(n)s décisions sur ce chapitre",
    ],
    (
        "",
        "No ruling is linked to this rule itself",
    ): "Aucune décision n’est liée à cette règle même",
    ("", "%(n)s ruling on chapter %(number)s"): [
        "%(n)s décision sur le chapitre %(number)s",
        "%(n)s décisions sur le chapitre %(number)s",
    ],
    ("", "%(n)s ruling on rule %(number)s"): [
        "%(n)s décision sur la règle %(number)s",
        "%(n)s décisions sur la règle %(number)s",
    ],
    ("", "Rulings pages"): "Pages de décisions",
    ("", "Newer"): "Plus récentes",
    ("", "page %(n)s of %(total)s"): "page %(n)s sur %(total)s",
    ("", "Older"): "Plus anciennes",
    # -- search (issue 6) --
    ("", "rules"): "règles",
    ("", "glossary"): "glossaire",
    ("", "cards"): "cartes",
    ("", "rulings"): "décisions",
    ("", "ruling"): "décision",
    ("", "index outbox entry"): "changement à indexer",
    ("", "index outbox"): "changements à indexer",
    (
        "",
        "The ruling's date, copied: a rule's rulings are listed newest first.",
    ): "La date de la décision, copiée : les décisions d’une règle sont listées de la plus récente à la plus ancienne.",
    ("", "How to search"): "Comment chercher",
    (
        "",
        "One box searches the rules (in any release), the glossary, the cards and their rulings, in English and French.",
    ): "Une seule case cherche dans les règles (de n’importe quelle version), le glossaire, les cartes et leurs décisions, en anglais et en français.",
    ("", "Type"): "Tapez",
    ("", "To find"): "Pour trouver",
    ("", "that rule: the search opens it"): "cette règle : la recherche l’ouvre",
    (
        "",
        "the rule defining a keyword or glossary term first, then its glossary entry, then everything else",
    ): "d’abord la règle qui définit un mot-clé ou un terme du glossaire, puis son entrée du glossaire, puis tout le reste",
    ("", "these words in this order"): "ces mots dans cet ordre",
    ("", "trample, but not flying"): "trample, mais pas flying",
    ("", "either word"): "l’un ou l’autre mot",
    (
        "",
        "words (and names) starting with Audaci",
    ): "les mots (et les noms) qui commencent par Audaci",
    ("", "only that kind of result"): "seulement ce genre de résultat",
    (
        "",
        "the rules as they were in the release in force on that date (the default is the current release)",
    ): "les règles telles qu’elles étaient dans la version en vigueur à cette date (par défaut, la version en vigueur)",
    ("", "only texts in that language"): "seulement les textes dans cette langue",
    ("", "Good to know"): "Bon à savoir",
    (
        "",
        "Case and accents do not matter: pietinement finds piétinement. English words match their other forms: copying finds copy.",
    ): "Majuscules et accents ne comptent pas : pietinement trouve piétinement. Les mots anglais trouvent leurs autres formes : copying trouve copy.",
    (
        "",
        "Small words (the, of, de, la…) are ignored unless they are inside quotes.",
    ): "Les petits mots (the, of, de, la…) sont ignorés, sauf entre guillemets.",
    (
        "",
        "French queries also search the English rules through the English–French vocabulary mined from the cards: the results say which language matched.",
    ): "Les recherches en français cherchent aussi dans les règles anglaises grâce au vocabulaire anglais–français tiré des cartes : les résultats disent quelle langue a été trouvée.",
    (
        "",
        "A misspelt word gets a suggestion (did you mean…); when nothing matches at all, the search shows the corrected query's results.",
    ): "Un mot mal orthographié reçoit une suggestion (vouliez-vous dire…) ; quand rien ne correspond, la recherche montre les résultats de la requête corrigée.",
    (
        "",
        "Parentheses are not operators: they are ignored.",
    ): "Les parenthèses ne sont pas des opérateurs : elles sont ignorées.",
    ("", "The same search is available as JSON:"): "La même recherche existe en JSON :",
    ("", "“%(q)s” — search"): f"«{NBSP}%(q)s{NBSP}» — recherche",
    ("", "Words, a rule number, a card name"): "Des mots, un numéro de règle, un nom de carte",
    ("", "Release"): "Version",
    ("", "current"): "en vigueur",
    ("", "Text language"): "Langue du texte",
    ("", "Kind"): "Genre",
    ("", "All"): "Tout",
    ("", "Rules and glossary"): "Règles et glossaire",
    ("", "Rulings"): "Décisions",
    ("", "matched in %(languages)s"): "trouvé en %(languages)s",
    ("", "More %(label)s (%(n)s in all)"): "Plus de %(label)s (%(n)s en tout)",
    ("", "See the %(label)s (%(n)s)"): "Voir les %(label)s (%(n)s)",
    ("", "and"): "et",
    ("", "Also on"): "Aussi sur",
    ("", "and %(n)s other card"): ["et %(n)s autre carte", "et %(n)s autres cartes"],
    (
        "",
        "“%(typed)s” was also searched as %(means)s.",
    ): "«\u00a0%(typed)s\u00a0» a aussi été cherché comme %(means)s.",
    (
        "",
        "No result has every word of the query: these have some of them.",
    ): f"Aucun résultat n’a tous les mots de la recherche{NBSP}: voici ceux qui en ont une partie.",
    (
        "",
        "The search index is not built yet (it is being built, or run manage.py rebuild_index). Rule numbers still work.",
    ): "L’index de recherche n’est pas encore construit (il est en construction, ou lancez manage.py rebuild_index). Les numéros de règle fonctionnent quand même.",
    (
        "",
        "There is no rule %(n)s in this release.",
    ): "Il n’y a pas de règle %(n)s dans cette version.",
    ("", "Nearby:"): "À proximité :",
    ("", "No results for “%(q)s”."): f"Aucun résultat pour «{NBSP}%(q)s{NBSP}».",
    ("", "Showing results for"): "Résultats pour",
    ("", "Did you mean"): "Vouliez-vous dire",
    ("", "French terms also searched in English:"): "Termes français cherchés aussi en anglais :",
    ("", "Kinds of results"): "Genres de résultats",
    ("", "%(n)s result"): ["%(n)s résultat", "%(n)s résultats"],
    ("", "in the rules of %(d)s"): "dans les règles du %(d)s",
    ("", "Pages of results"): "Pages de résultats",
    ("", "Previous"): "Précédente",
    ("", "Next"): "Suivante",
    ("", "Page %(p)s of %(n)s"): "Page %(p)s sur %(n)s",
    ("", "Nothing matches"): "Rien ne correspond",
    ("", "Names starting like your query:"): "Noms qui commencent comme votre recherche :",
    (
        "",
        "Use fewer words, or OR between alternatives.",
    ): "Utilisez moins de mots, ou OR entre des variantes.",
    (
        "",
        "Remove the filters (kind, release, language).",
    ): "Retirez les filtres (genre, version, langue).",
    (
        "",
        "End a word with * to match its beginning: Audaci*",
    ): "Terminez un mot par * pour trouver ce qui commence ainsi : Audaci*",
    (
        "",
        "Type a rule number (602.2a), a keyword (trample, piétinement), a card name or words from the rules and rulings.",
    ): "Tapez un numéro de règle (602.2a), un mot-clé (trample, piétinement), un nom de carte ou des mots des règles et des décisions.",
    (
        "",
        "Only the first 500 characters of the query were read.",
    ): "Seuls les 500 premiers caractères de la recherche ont été lus.",
    (
        "",
        "“%(f)s” is not a filter this search knows; it was ignored.",
    ): f"«{NBSP}%(f)s{NBSP}» n’est pas un filtre connu de cette recherche : il a été ignoré.",
    ("", "No rules are loaded yet."): "Aucune règle n’est encore chargée.",
    (
        "",
        "“%(r)s” is not a date (YYYY-MM-DD); searching the current rules.",
    ): f"«{NBSP}%(r)s{NBSP}» n’est pas une date (AAAA-MM-JJ) : recherche dans les règles en vigueur.",
    (
        "",
        "No release was in force on %(d)s (the first is %(first)s); searching the current rules.",
    ): "Aucune version n’était en vigueur le %(d)s (la première date du %(first)s) : recherche dans les règles en vigueur.",
    # rulings: maintainers' edits and the review queue (issue 12)
    ("", "fields edited by a maintainer"): "champs modifiés par un mainteneur",
    (
        "",
        "Field → what the source said when a maintainer changed it (updated by imports): imports keep the maintainer's value and report when the source changes too.",
    ): "Champ → ce que disait la source quand un mainteneur l’a modifié (mis à jour par les imports) : les imports gardent la valeur du mainteneur et signalent quand la source change aussi.",
    ("", "source text"): "texte de la source",
    (
        "",
        "The text as the last imported file gave it (empty: added by hand).",
    ): "Le texte tel que le dernier fichier importé le donnait (vide : ajoutée à la main).",
    ("", "text edited"): "texte modifié",
    (
        "",
        "Corrected by a maintainer: imports keep this text.",
    ): "Corrigée par un mainteneur : les imports gardent ce texte.",
    (
        "",
        'Enter a JSON list of texts, for example ["Flying", "Haste"].',
    ): 'Saisissez une liste JSON de textes, par exemple ["Flying", "Haste"].',
    ("", "edited by a maintainer"): "modifiée par un mainteneur",
    ("", "yes"): "oui",
    (
        "",
        "fields edited by a maintainer (what the source says)",
    ): "champs modifiés par un mainteneur (ce que dit la source)",
    ("", "rule then"): "règle alors",
    ("", "evidence"): "indice",
    (
        "",
        "%(count)d link marked %(kind)s.",
    ): ["%(count)d lien marqué %(kind)s.", "%(count)d liens marqués %(kind)s."],
    (
        "",
        "Inferred ruling links to confirm or reject",
    ): "Liens de décisions déduits à confirmer ou rejeter",
    ("", "Rulings corrected by a maintainer"): "Décisions corrigées par un mainteneur",
    ("", "Rulings absent from the last file"): "Décisions absentes du dernier fichier",
    (
        "",
        "Cards with fields edited by a maintainer",
    ): "Cartes dont des champs ont été modifiés par un mainteneur",
    ("", "keywords"): "mots-clés",
    ("", "colors"): "couleurs",
    ("", "official English text"): "texte anglais officiel",
    ("", "English edited"): "anglais modifié",
    ("", "French edited"): "français modifié",
    ("", "edited by"): "modifié par",
    ("", "edited at"): "modifié le",
    ("", "mined French term"): "terme français extrait",
    ("", "official source"): "source officielle",
    ("", "added by a maintainer"): "ajouté par un mainteneur",
    ("", "(empty)"): "(vide)",
    (
        "",
        "“valid to” must be after “valid from”.",
    ): "« valide jusqu’au » doit suivre « valide du ».",
    (
        "",
        "A rule number is lower case, e.g. 602.2a.",
    ): "Un numéro de règle s’écrit en minuscules, p. ex. 602.2a.",
    (
        "",
        "This form lost its edit stamp: reload the page and make your change again.",
    ): "Ce formulaire a perdu son tampon de modification : rechargez la page et refaites votre modification.",
    (
        "",
        "Someone else changed this field since you opened the form. Saved now: %(theirs)s. Yours: %(yours)s. Save again to replace their value with yours, or reload to keep theirs.",
    ): "Quelqu’un d’autre a modifié ce champ depuis l’ouverture du formulaire. Enregistré : %(theirs)s. Le vôtre : %(yours)s. Enregistrez à nouveau pour remplacer sa valeur par la vôtre, ou rechargez pour garder la sienne.",
    (
        "",
        "The English text as the official source printed it, kept once a maintainer edited the English text (empty: never edited).",
    ): "Le texte anglais tel que la source officielle l’imprime, conservé dès qu’un mainteneur modifie le texte anglais (vide : jamais modifié).",
    (
        "",
        "The English text as printed, kept once a maintainer edited it.",
    ): "Le texte anglais imprimé, conservé dès qu’un mainteneur l’a modifié.",
    (
        "",
        "What the last rebuild mined, kept apart from an edited French term.",
    ): "Ce que la dernière reconstruction a extrait, conservé à part d’un terme français modifié.",
    # queues
    ("", "Review queues"): "Files de relecture",
    # queues
    ("", "Vocabulary terms not yet checked"): "Termes du vocabulaire pas encore vérifiés",
    # merge: the French texts' review queues
    (
        "",
        "Rules of the current release without French",
    ): "Règles de la version en vigueur sans français",
    (
        "",
        "French texts translating an older English text",
    ): "Textes français traduisant un texte anglais plus ancien",
    (
        "",
        "French texts not reviewed (written by a maintainer)",
    ): "Textes français non relus (écrits par un mainteneur)",
    # queues
    ("", "Mark the selected terms checked"): "Marquer les termes sélectionnés comme vérifiés",
    # queues
    (
        "",
        "%(count)d term marked checked.",
    ): ["%(count)d terme marqué vérifié.", "%(count)d termes marqués vérifiés."],
    # queues
    (
        "",
        "This list lost the values it was shown with: reload the page.",
    ): "Cette liste a perdu les valeurs qu’elle affichait : rechargez la page.",
    # queues
    (
        "",
        "Someone else changed this field since you opened the list. Saved now: %(theirs)s. Yours: %(yours)s. Save again to replace their value with yours, or reload to keep theirs.",
    ): "Quelqu’un d’autre a modifié ce champ depuis l’ouverture de la liste. Enregistré : %(theirs)s. Le vôtre : %(yours)s. Enregistrez à nouveau pour remplacer sa valeur par la vôtre, ou rechargez pour garder la sienne.",
    # publish: publishing a release from the admin (issue 12)
    ("", "Official file"): "Fichier officiel",  # publish
    (
        "",
        "The English Comprehensive Rules as a .txt file (any line ends: CRLF, LF or CR).",
    ): "Les règles complètes en anglais, en fichier .txt (toutes fins de ligne : CRLF, LF ou CR).",  # publish
    ("", "Set name"): "Nom de l’extension",  # publish
    (
        "",
        "The set the release comes with, if known.",
    ): "L’extension qui accompagne cette version, si on la connaît.",  # publish
    ("", "Set code"): "Code de l’extension",  # publish
    (
        "",
        "Upload the official text file (.txt).",
    ): "Envoyez le fichier texte officiel (.txt).",  # publish
    (
        "",
        "The file is larger than %(mb)d MB: not a rules document.",
    ): "Le fichier dépasse %(mb)d Mo : ce n’est pas un document de règles.",  # publish
    (
        "",
        "Type the set name (or the effective date) to confirm",
    ): "Tapez le nom de l’extension (ou la date d’entrée en vigueur) pour confirmer",  # publish
    ("", "Publish a release"): "Publier une version",  # publish
    (
        "",
        "The release effective %(date)s is already loaded with this very text: there is nothing to publish.",
    ): "La version en vigueur le %(date)s est déjà chargée avec ce même texte : il n’y a rien à publier.",  # publish
    (
        "",
        "This upload has expired or is unknown: upload the file again.",
    ): "Cet envoi a expiré ou est inconnu : envoyez le fichier à nouveau.",  # publish
    (
        "",
        "Publishing cancelled: nothing was changed.",
    ): "Publication annulée : rien n’a été modifié.",  # publish
    (
        "",
        "Type “%(name)s” to publish this release.",
    ): "Tapez « %(name)s » pour publier cette version.",  # publish
    (
        "",
        "Published the release effective %(date)s (%(action)s, %(rules)s rules).",
    ): "Version en vigueur le %(date)s publiée (%(action)s, %(rules)s règles).",  # publish
    (
        "",
        "Replace the release effective %(date)s",
    ): "Remplacer la version en vigueur le %(date)s",  # publish
    ("", "New release effective %(date)s"): "Nouvelle version en vigueur le %(date)s",  # publish
    ("", "File"): "Fichier",  # publish
    ("", "Compared with"): "Comparée à",  # publish
    ("", "the loaded text of this release"): "le texte chargé de cette version",  # publish
    ("", "the release effective %(date)s"): "la version en vigueur le %(date)s",  # publish
    ("", "nothing (the first release)"): "rien (la première version)",  # publish
    ("", "In the new text"): "Dans le nouveau texte",  # publish
    (
        "",
        "%(rules)s rules, %(subrules)s subrules, %(glossary)s glossary terms, %(anomalies)s anomalies",
    ): "%(rules)s règles, %(subrules)s sous-règles, %(glossary)s termes du glossaire, %(anomalies)s anomalies",  # publish
    ("", "What changes"): "Ce qui change",  # publish
    ("", "Changed (wording or examples)"): "Modifiées (formulation ou exemples)",  # publish
    ("", "Renumbered"): "Renumérotées",  # publish
    ("", "References renumbered only"): "Renvois renumérotés seulement",  # publish
    ("", "Glossary changes"): "Changements du glossaire",  # publish
    ("", "was %(old)s"): "anciennement %(old)s",  # publish
    ("", "Maintainers' work"): "Travail des mainteneurs",  # publish
    ("", "Carried over:"): "Reporté :",  # publish
    ("", "Rule or term"): "Règle ou terme",  # publish
    ("", "Work"): "Travail",  # publish
    ("", "What becomes of it"): "Ce qu’il devient",  # publish
    (
        "",
        "This release touches no maintainer's work.",
    ): "Cette version ne touche aucun travail de mainteneur.",  # publish
    (
        "",
        "“Replace anyway” keeps them in the import record.",
    ): "« Remplacer quand même » les conserve dans le compte rendu d’import.",  # publish
    ("", "Type “%(name)s”."): "Tapez « %(name)s ».",  # publish
    ("", "Replace anyway"): "Remplacer quand même",  # publish
    ("", "Replace"): "Remplacer",  # publish
    ("", "Publish"): "Publier",  # publish
    ("", "Cancel"): "Annuler",  # publish
    (
        "",
        "Upload the official English Comprehensive Rules text. Nothing is changed yet: the next page shows what publishing it would add, remove, change and renumber, and what it does to maintainers' work, before you confirm.",
    ): "Envoyez le texte officiel des règles complètes en anglais. Rien n’est encore modifié : la page suivante montre ce que sa publication ajouterait, retirerait, modifierait et renuméroterait, et ce qu’elle fait du travail des mainteneurs, avant que vous confirmiez.",  # publish
    ("", "Preview"): "Aperçu",  # publish
    ("", "Replacing would lose %(n)s item of maintainers' work:"): [  # publish
        "Remplacer perdrait %(n)s élément du travail des mainteneurs :",
        "Remplacer perdrait %(n)s éléments du travail des mainteneurs :",
    ],
    # French beside English, staleness, the translators' worklist (issue 13)  # frpages
    ("", "No French text"): "Pas de texte français",  # frpages
    (  # frpages
        "",
        "French text from the release of %(old)s; the English has changed since "
        "(release of %(new)s)",
    ): f"Texte français de la version du %(old)s{NBSP}; l’anglais a changé depuis "
    "(version du %(new)s)",
    (  # frpages
        "",
        "French text from the release of %(old)s; the English has changed since.",
    ): f"Texte français de la version du %(old)s{NBSP}; l’anglais a changé depuis.",
    ("", "no French text"): "pas de texte français",  # frpages
    ("", "stale"): "à mettre à jour",  # frpages
    ("", "missing"): "manquant",  # frpages
    ("", "line %(line)s"): "ligne %(line)s",  # frpages
    ("", "Translation"): "Traduction",  # frpages
    ("", "Translators’ worklist"): "Travail des traducteurs",  # frpages
    (  # frpages
        "",
        "%(n)s rule in this release. Every rule whose French text is missing, stale (the "
        "English changed since the release it translates) or unofficial, by section and "
        "chapter.",
    ): [
        "%(n)s règle dans cette version. Chaque règle dont le texte français manque, est à "
        "mettre à jour (l’anglais a changé depuis la version qu’il traduit) ou n’est pas "
        "officiel, par section et chapitre.",
        "%(n)s règles dans cette version. Chaque règle dont le texte français manque, est à "
        "mettre à jour (l’anglais a changé depuis la version qu’il traduit) ou n’est pas "
        "officiel, par section et chapitre.",
    ],
    ("", "Show"): "Afficher",  # frpages
    ("", "Counts per state"): "Nombre par état",  # frpages
    ("", "All to do"): "Tout le travail",  # frpages
    (  # frpages
        "",
        "Nothing to do here: every rule has a current French text.",
    ): f"Rien à faire ici{NBSP}: chaque règle a un texte français à jour.",
    ("", "translates %(old)s"): "traduit %(old)s",  # frpages
    ("", "English changes to translate"): "Modifications anglaises à traduire",  # frpages
    ("", "Edit the French"): "Modifier le français",  # frpages
    ("", "translates the English of %(date)s"): "traduit l’anglais du %(date)s",  # frpages
    ("", "French text (current release)"): "Texte français (version en vigueur)",  # frpages
    # frvocab: vocabulary quality, glosses, French titles (issue 13)
    (
        "",
        "French term checked by a maintainer",
    ): "Terme français vérifié par un mainteneur",  # frvocab
    (  # frvocab
        "",
        "Unverified French term: guessed from %(n)s card of %(seen)s examined, not yet checked "
        "by a maintainer",
    ): [
        "Terme français non vérifié : déduit de %(n)s carte sur %(seen)s examinées, pas encore "
        "vérifié par un mainteneur",
        "Terme français non vérifié : déduit de %(n)s cartes sur %(seen)s examinées, pas encore "
        "vérifié par un mainteneur",
    ],
    ("", "unverified"): "non vérifié",  # frvocab
    ("", "on the pages"): "sur les pages",  # frvocab
    ("", "shown"): "affiché",  # frvocab
    (
        "",
        "shown, unverified (mined, not checked)",
    ): "affiché, non vérifié (extrait, pas vérifié)",  # frvocab
    (
        "",
        "left out (too few agreeing cards)",
    ): "écarté (trop peu de cartes concordantes)",  # frvocab
    ("", "French term (unverified)"): "terme français (non vérifié)",  # frvocab
    ("", "Hide the French terms"): "Masquer les termes français",  # frvocab
    ("", "Show the French terms"): "Afficher les termes français",  # frvocab
    ("", "Filter by French or English name"): "Filtrer par nom français ou anglais",  # frvocab
    ("", "Filter by name"): "Filtrer par nom",  # frvocab
    ("", "Filter"): "Filtrer",  # frvocab
    ("", "All entries"): "Toutes les entrées",  # frvocab
    ("", "No glossary entry matches."): "Aucune entrée du glossaire ne correspond.",  # frvocab
    (  # frvocab
        "",
        "Unverified French term: not yet checked by a maintainer",
    ): "Terme français non vérifié : pas encore vérifié par un mainteneur",
    (
        "",
        "%(name)s: no French name in the data",
    ): "%(name)s : pas de nom français dans les données",  # frvocab
    (
        "",
        "No French text for this face in the data.",
    ): "Pas de texte français pour cette face dans les données.",  # frvocab
    ("", "French name"): "nom français",  # frvocab
    ("", "French type line"): "ligne de type française",  # frvocab
    ("", "French text"): "texte français",  # frvocab
    ("", "Pages of the worklist"): "Pages de la liste de travail",  # fr13
    ("", "(continued)"): "(suite)",  # fr13
    (
        "",
        "Rules %(first)s–%(last)s of %(n)s to do",
    ): "Règles %(first)s à %(last)s sur %(n)s à traiter",  # fr13
    ("", "Example added:"): f"Exemple ajouté{NBSP}:",  # fr13
    ("", "Example removed:"): f"Exemple supprimé{NBSP}:",  # fr13
    ("", "Example reworded:"): f"Exemple reformulé{NBSP}:",  # fr13
    # diffs15: diff summary, folded moves, typography toggle, pages
    ("", "%(n)s rule"): ["%(n)s règle", "%(n)s règles"],  # diffs15
    ("", "text unchanged"): "texte inchangé",  # diffs15
    (
        "",
        "wording unchanged (typography or references only)",
    ): "formulation inchangée (typographie ou renvois seulement)",  # diffs15
    ("", "%(n)s rule reworded"): [
        "%(n)s règle reformulée",
        "%(n)s règles reformulées",
    ],  # diffs15
    ("", "%(n)s added"): ["%(n)s ajoutée", "%(n)s ajoutées"],  # diffs15
    ("", "%(n)s removed"): ["%(n)s supprimée", "%(n)s supprimées"],  # diffs15
    ("", "%(n)s renumbered in %(b)s block"): [
        "%(n)s renumérotées en %(b)s bloc",
        "%(n)s renumérotées en %(b)s blocs",
    ],  # diffs15
    ("", "%(n)s glossary change"): [
        "%(n)s modification du glossaire",
        "%(n)s modifications du glossaire",
    ],  # diffs15
    ("", "Pages"): "Pages",  # diffs15
    (
        "",
        "Typography changes inside changed rules are not highlighted.",
    ): "Les changements typographiques dans les règles modifiées ne sont pas surlignés.",  # diffs15
    ("", "Highlight them too"): "Les surligner aussi",  # diffs15
    (
        "",
        "All changes are highlighted, typography included.",
    ): "Tous les changements sont surlignés, typographie comprise.",  # diffs15
    ("", "Highlight wording only"): "Surligner la formulation seulement",  # diffs15
    ("", "Rules renumbered with their wording unchanged, in %(n)s block."): [
        "Règles renumérotées sans changement de formulation, en %(n)s bloc.",
        "Règles renumérotées sans changement de formulation, en %(n)s blocs.",
    ],  # diffs15
    (
        "",
        "What changed in the latest release",
    ): "Ce qui a changé dans la dernière version",  # diffs15
    ("", "All changes since %(a)s"): "Tous les changements depuis le %(a)s",  # diffs15
    # templates/kb/diff.html: the citation of one change of a diff
    ("", "CR %(n)s, changes %(a)s → %(b)s"): "CR %(n)s, modifications du %(a)s au %(b)s",
    ("", "Too many searches"): "Trop de recherches",  # serve16
    (
        "",
        "You have searched very often in a short time. Please try again in %(seconds)s second.",
    ): [
        "Vous avez fait beaucoup de recherches en peu de temps. Veuillez réessayer dans %(seconds)s seconde.",
        "Vous avez fait beaucoup de recherches en peu de temps. Veuillez réessayer dans %(seconds)s secondes.",
    ],  # serve16
    # templates/503.html: the database is busy (an import holds the write lock)
    ("", "Busy"): "Occupé",
    (
        "",
        "The rules are being updated (an import is running). Nothing was changed: please try "
        "again in %(seconds)s seconds.",
    ): "Les règles sont en cours de mise à jour (une importation est en cours). Rien n'a été "
    "modifié : veuillez réessayer dans %(seconds)s secondes.",
    ("", "Downloads"): "Téléchargements",  # export15
    (
        "",
        "The whole archive for people who build on it: one JSON file per release (every rule with its number, lineage key, English and French texts, examples and resolved references, and the glossary), and one file of cards with their rulings and the rules each ruling leans on. The files are gzip-compressed JSON; their schema is documented in docs/export.md and as JSON Schema.",
    ): "Toute l’archive pour qui construit dessus : un fichier JSON par version (chaque règle avec son numéro, sa clé de lignée, ses textes anglais et français, ses exemples et ses références résolues, et le glossaire), et un fichier des cartes avec leurs décisions et les règles sur lesquelles chacune s’appuie. Les fichiers sont du JSON compressé en gzip ; leur schéma est décrit dans docs/export.md et en JSON Schema.",  # export15
    (
        "",
        "Made from the archive up to the release of %(d)s.",
    ): "Fait à partir de l’archive jusqu’à la version du %(d)s.",  # export15
    ("", "Check the files with"): "Vérifiez les fichiers avec",  # export15
    ("", "or"): "ou",  # export15
    ("", "sizes, checksums and counts"): "tailles, sommes de contrôle et décomptes",  # export15
    ("", "JSON Schema:"): "JSON Schema :",  # export15
    ("", "Size"): "Taille",  # export15
    ("file", "Contents"): "Contenu",  # export15
    (
        "",
        "%(c)s cards, %(r)s rulings, %(l)s links to rules",
    ): "%(c)s cartes, %(r)s décisions, %(l)s liens vers des règles",  # export15
    (
        "",
        "%(n)s rules, %(g)s glossary entries",
    ): "%(n)s règles, %(g)s entrées du glossaire",  # export15
    (
        "",
        "No export has been made yet. To make one, run:",
    ): "Aucun export n’a encore été fait. Pour en faire un, lancez :",  # export15
    (
        "",
        "It writes the files into the folder named by KB_EXPORT_DIR (var/exports by default), where this page serves them from.",
    ): "Il écrit les fichiers dans le dossier désigné par KB_EXPORT_DIR (var/exports par défaut), d’où cette page les sert.",  # export15
    # templates/403.html, 400.html and kb/error_pages.py: refused requests (issue 31)
    ("", "Access denied"): "Accès refusé",
    (
        "",
        "Your account does not have the permission to open this page.",
    ): "Votre compte n’a pas la permission d’ouvrir cette page.",
    ("", "Administration"): "Administration",
    ("", "Bad request"): "Requête incorrecte",
    ("", "The site could not read this request."): "Le site n’a pas pu lire cette requête.",
    (
        "",
        "The request has too many parameters: the site reads %(limit)s at most.",
    ): "La requête a trop de paramètres : le site en lit %(limit)s au plus.",
    (
        "",
        "The request sends too many files: the site reads %(limit)s at most.",
    ): "La requête envoie trop de fichiers : le site en lit %(limit)s au plus.",
    (
        "",
        "The request is too large for the site to read.",
    ): "La requête est trop volumineuse pour que le site la lise.",
    (
        "",
        "This address is too long: the site cannot follow it.",
    ): "Cette adresse est trop longue : le site ne peut pas la suivre.",
    (
        "",
        "Rules in force on %(asked)s: the %(date)s release.",
    ): f"Règles en vigueur le %(asked)s{NBSP}: la version du %(date)s.",
    ("", "proposed"): "proposée",
    (
        "",
        "Ruling links proposed by meaning (not shown until confirmed)",
    ): "Liens de décisions proposés par le sens (masqués jusqu’à confirmation)",
}

_ENTRY_RE = re.compile(r'^(msgctxt|msgid|msgid_plural|msgstr(?:\[\d\])?) "(.*)"$')


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def fill(po: str) -> tuple[str, list[str]]:
    blocks = po.split("\n\n")
    missing = []
    out = []
    for block in blocks:
        fields: dict[str, str] = {}
        comments = []
        current = None
        for line in block.splitlines():
            m = _ENTRY_RE.match(line)
            if m:
                current = m.group(1)
                fields[current] = m.group(2)
            elif line.startswith('"') and current:
                fields[current] += line[1:-1]
            else:
                comments.append(line)
        msgid = fields.get("msgid", "").replace('\\"', '"').replace("\\n", "\n")
        if not msgid:
            out.append(block)
            continue
        key = (fields.get("msgctxt", ""), msgid)
        value = FR.get(key)
        if value is None:
            missing.append(msgid)
        lines = [c for c in comments if "fuzzy" not in c]
        if "msgctxt" in fields:
            lines.append(f"msgctxt {_quote(fields['msgctxt'])}")
        lines.append(f"msgid {_quote(msgid)}")
        if "msgid_plural" in fields:
            lines.append(f'msgid_plural "{fields["msgid_plural"]}"')
            forms = value if isinstance(value, list) else ["", ""]
            lines += [f"msgstr[{i}] {_quote(f)}" for i, f in enumerate(forms)]
        else:
            lines.append(f"msgstr {_quote(value if isinstance(value, str) else '')}")
        out.append("\n".join(lines))
    return "\n\n".join(out), missing


if __name__ == "__main__":
    text, missing = fill(PO.read_text(encoding="utf-8"))
    PO.write_text(text, encoding="utf-8")
    if missing:
        raise SystemExit("untranslated: " + " | ".join(missing))
