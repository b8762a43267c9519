"""Pure-Python reading of Comprehensive Rules text files (no Django here, by design)."""

from kb.crtext.decode import decode_bytes
from kb.crtext.errors import CRFormatError, LegacyLayoutError
from kb.crtext.model import Anomaly, Document, Entry, GlossaryEntry, Reference
from kb.crtext.numbers import MODERN_LAYOUT_START
from kb.crtext.reading import parse_bytes, parse_text
from kb.crtext.references import expand_targets, find_references, mask_references

__all__ = [
    "MODERN_LAYOUT_START",
    "Anomaly",
    "CRFormatError",
    "Document",
    "Entry",
    "GlossaryEntry",
    "LegacyLayoutError",
    "Reference",
    "decode_bytes",
    "expand_targets",
    "find_references",
    "mask_references",
    "parse_bytes",
    "parse_text",
]
