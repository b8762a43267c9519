"""Find the citations inside a rule or glossary text.

Citations come in many shapes: "rule 701.20a", "rules 601.2b–h", "rules 702.19c-d",
"see rule 714", "section 7", lists ("rules 305.1, 305.2, and 305.3") and French ("règles 601.2b–h").
Each cited item becomes a span with its target number(s), so that a page can link it in whatever
release it shows, and a diff can mask the numbers to tell a renumbered reference from new wording.
"""

from __future__ import annotations

import re

from kb.crtext.model import Reference
from kb.crtext.numbers import letter_range

_TRIGGER_RE = re.compile(r"\b(rules?|sections?|r[èe]gles?)\s+(?=\d)", re.IGNORECASE)
_RULE_ITEM_RE = re.compile(
    r"(?P<num>[1-9]\d\d(?:\.\d+(?:[a-z]{1,2})?)?)(?![\d.]\d)"
    r"(?:\s?(?:[–—-]|\s+through\s+)\s?"
    r"(?P<end>[1-9]\d\d(?:\.\d+(?:[a-z]{1,2})?)?(?!\d)|[a-z]{1,2}(?![a-zA-Z])|\d+(?![\d.]\d)))?"
)
_SECTION_ITEM_RE = re.compile(r"(?P<num>[1-9])(?![\d.]\d)(?:\s?[–—-]\s?(?P<end>[1-9])(?!\d))?")
_SEPARATOR_RE = re.compile(r"(?:,\s+(?:and|or|et|ou)\s+|\s+(?:and|or|et|ou)\s+|,\s+)(?=\d)")


def _range_end(start: str, end: str | None) -> str:
    """Expand the end of a range written short: ("601.2b", "h") -> "601.2h"."""
    if not end:
        return ""
    if end.isalpha():
        m = re.match(r"^(\d{3}\.\d+)([a-z]{1,2})$", start)
        return f"{m.group(1)}{end}" if m else ""
    if end.isdigit() and "." in start and len(end) < 3:
        return f"{start.split('.')[0]}.{end}"
    return end


def find_references(text: str) -> list[Reference]:
    """Every cited number in `text`, in order, as spans over the cited text."""
    refs: list[Reference] = []
    for trig in _TRIGGER_RE.finditer(text):
        is_section = trig.group(1).lower().startswith("section")
        item_re = _SECTION_ITEM_RE if is_section else _RULE_ITEM_RE
        pos = trig.end()
        while True:
            m = item_re.match(text, pos)
            if not m:
                break
            start_num = m.group("num")
            end_num = (
                _range_end(start_num, m.group("end")) if not is_section else (m.group("end") or "")
            )
            if m.group("end") and not end_num:
                # An end we cannot expand: cite the start only, over the start's own text.
                refs.append(Reference(m.start(), m.start("num") + len(start_num), start_num))
            else:
                refs.append(Reference(m.start(), m.end(), start_num, end_num))
            sep = _SEPARATOR_RE.match(text, m.end())
            if not sep:
                break
            pos = sep.end()
    return refs


def mask_references(text: str, refs: list[Reference] | None = None) -> str:
    """The text with every cited number replaced by "#" (so renumbering alone leaves it equal)."""
    if refs is None:
        refs = find_references(text)
    if not refs:
        return text
    out: list[str] = []
    last = 0
    for ref in refs:
        out.append(text[last : ref.start])
        out.append("#")
        last = ref.end
    out.append(text[last:])
    return "".join(out)


def expand_targets(ref: Reference) -> list[str]:
    """All numbers a reference cites: a range "601.2b–h" expands to 601.2b … 601.2h."""
    if not ref.target_end:
        return [ref.target]
    a = re.match(r"^(\d{3}\.\d+)([a-z]{1,2})$", ref.target)
    b = re.match(r"^(\d{3}\.\d+)([a-z]{1,2})$", ref.target_end)
    if a and b and a.group(1) == b.group(1):
        return [f"{a.group(1)}{x}" for x in letter_range(a.group(2), b.group(2))]
    return [ref.target, ref.target_end]
