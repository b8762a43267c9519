"""Every read of the rules the pages, the API, search and rulings make, as named functions.

Callers import the package (`from kb import selectors`); its modules are split by what they
read: `releases` (which release a request reads), `rules` (a release's entries and their
neighbours, titles and texts), `glossary`. What is assembled for a page is returned as plain
dataclasses, in a constant number of queries whatever the page's size, so a query budget or an
index is checked in one place. Turning texts into HTML is the web layer's (kb.web.entries).
"""

from kb.models.releases import today
from kb.selectors.glossary import (
    GlossaryName,
    Term,
    glossary_citations,
    glossary_key,
    glossary_names,
    glossary_references,
    glossary_term,
    vocabulary_pairs,
)
from kb.selectors.releases import (
    RELEASES_TTL,
    BadRelease,
    NoRelease,
    Releases,
    forget_releases,
    lineage_releases,
    other_releases_with,
    parse_release_token,
    release_for,
)
from kb.selectors.rules import (
    SUBRULE_LETTERS,
    Entry,
    Subrule,
    attach_french,
    chapter_titles,
    chapter_titles_with_french,
    contents,
    entries_for,
    examples_of,
    headings,
    lineage_keys,
    lineage_versions,
    nearest_numbers,
    neighbours,
    references_of,
    rule_version,
    sections_and_chapters,
    subrules_of,
    version_texts,
)

__all__ = [
    "RELEASES_TTL",
    "SUBRULE_LETTERS",
    "BadRelease",
    "Entry",
    "GlossaryName",
    "NoRelease",
    "Releases",
    "Subrule",
    "Term",
    "attach_french",
    "chapter_titles",
    "chapter_titles_with_french",
    "contents",
    "entries_for",
    "examples_of",
    "forget_releases",
    "glossary_citations",
    "glossary_key",
    "glossary_names",
    "glossary_references",
    "glossary_term",
    "headings",
    "lineage_keys",
    "lineage_releases",
    "lineage_versions",
    "nearest_numbers",
    "neighbours",
    "other_releases_with",
    "parse_release_token",
    "references_of",
    "release_for",
    "rule_version",
    "sections_and_chapters",
    "subrules_of",
    "today",
    "version_texts",
    "vocabulary_pairs",
]
