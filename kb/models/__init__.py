"""Models of the rules archive (see DESIGN.md's data model)."""

from .glossary import GlossaryTerm, GlossaryVersion
from .records import Anomaly, ImportRecord
from .releases import Release
from .rules import Example, Lineage, Reference, RuleNumber, RuleVersion
from .vocabulary import VocabularyTerm

__all__ = [
    "Anomaly",
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
