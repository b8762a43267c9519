"""Models of the rules archive (README: "How the archive is stored")."""

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
