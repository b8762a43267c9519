"""Models of the rules archive (docs/storage.md)."""

from kb.models.eras import EraLink
from kb.models.glossary import GlossaryTerm, GlossaryVersion
from kb.models.records import Anomaly, ImportRecord
from kb.models.releases import Release
from kb.models.rules import Example, Lineage, Reference, RuleNumber, RuleVersion
from kb.models.vocabulary import VocabularyTerm

__all__ = [
    "Anomaly",
    "EraLink",
    "Example",
    "GlossaryTerm",
    "GlossaryVersion",
    "ImportRecord",
    "Lineage",
    "Reference",
    "Release",
    "RuleNumber",
    "RuleVersion",
    "VocabularyTerm",
]
