"""Link rulings to the rules they lean on.

Rulings almost never cite numbers; they speak in rules terms. Three sources of links, in order
of trust: explicit citations ("rule 702.19c", always linked); keyword abilities and actions,
named as the CR names them (701.x / 702.x titles), trusted when distinctive or when they are the
card's own keyword (an everyday verb like "destroy" counts only then); and a curated list of rules
concepts (fixtures/vocabulary/ruling_terms.csv). Every link points at a rule's lineage and keeps
its evidence and the numbers it had in the release in force on the ruling's date and today.

A term named is not always what a ruling is about, so context counts: examples ("such as
kicker", "(perhaps because …)") are not the topic; "its triggered ability" points at the card's
own ability where "triggered abilities" speak of the rules; a curated concept may be redundant
beside a more precise one (its "unless" column).

The parts change for different reasons, hence the modules: `terms` (what is looked for: keyword
forms and curated concepts), `context_rules` (when a term named is not the topic), `linker`
(weighing them into a ruling's links), `numbers` (which number a lineage had on a date) and
`batch` (linking stored rulings, in forked processes for large batches), `changed` (relinking
what a change of the rules touches, right after the import that changed them).
"""

from rulings.linking.batch import PARALLEL_FROM, link_rulings, rules_changed_since_linking
from rulings.linking.changed import Relinked, relink_changed, rulings_touched
from rulings.linking.lineage_numbers import MODERN_CR, Numbers, refresh_numbers, scoring_key
from rulings.linking.linker import MAX_CONCEPTS, MAX_LINKS, Found, Linker
from rulings.linking.terms import (
    EVERGREEN,
    EVERYDAY,
    STRUCTURAL,
    TERMS_FILE,
    ability_forms,
    action_forms,
    words_pattern,
)

__all__ = [
    "EVERGREEN",
    "EVERYDAY",
    "MAX_CONCEPTS",
    "MAX_LINKS",
    "MODERN_CR",
    "PARALLEL_FROM",
    "STRUCTURAL",
    "TERMS_FILE",
    "Found",
    "Linker",
    "Numbers",
    "Relinked",
    "ability_forms",
    "action_forms",
    "link_rulings",
    "refresh_numbers",
    "relink_changed",
    "rules_changed_since_linking",
    "rulings_touched",
    "scoring_key",
    "words_pattern",
]
