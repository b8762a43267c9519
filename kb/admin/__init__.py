"""The maintainers' admin of the rules archive.

Django's autodiscovery imports `kb.admin`: importing the modules that register a ModelAdmin is
this package's only job. What each holds: `model_admins` (releases, rules, examples, glossary,
vocabulary), `finding` (release-aware lists and search), `publish` (preview and publish of a
release), `queues` (the maintainers' work queues), `french_filters` (French state filters),
`tabs` (the language tabs of translated fields), `era_links` (the review of the links
across Magic 2010).
"""

from kb.admin import era_links, model_admins  # noqa: F401  (register the ModelAdmins)
