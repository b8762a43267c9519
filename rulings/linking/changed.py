"""Relinking what a change of the rules touches: the rulings that lean, or may now lean, on the
rules and glossary entries a release changed (kb.signals.rules_changed).

Why not every ruling: relinking all of them takes minutes (43,774 rulings, one linker run
each), and used to happen at the next start after any release was imported (`make run`
compared the releases' import time with the rulings' link time), never under `make serve`: two
deployments of the same data showed different links. Now the import's own commit triggers the
work, for the rulings whose links can change, that is those the linker reads something changed
in:

- the ruling is linked to a changed rule, or to the chapter or keyword rule whose words the
  change moved (a ruling linked by topic);
- its text (or its heading) names a changed rule's keyword forms or curated concept, a term the
  rules define that points at a changed rule, a changed glossary entry's names, or cites a
  number a changed rule holds or held;
- its card's text names a changed keyword (the card's keywords feed the linker).

The candidates are found with the new linker's own term tables, then relinked with it; the
links of the others stand, and every linked ruling is then marked as linked against the new
rules (so the next start has nothing to relink). A change touching half the rulings or more (a
folder of releases) relinks everything at once: the rulings linked to what changed are counted
first, and the texts are read only while that decision is open (reading every ruling's text
for the terms of most of the rules is the slow part, and changes nothing then).

The relink runs where the import ran: during the web request of an admin's publish too, so it
never forks (rulings.linking.batch.in_process), however many rulings it relinks.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass

from django.utils import timezone

from kb.crtext.numbers import is_number
from kb.dbutil import chunks
from kb.models import GlossaryVersion, RuleNumber
from kb.models.glossary import alias_list
from rulings.linking.batch import in_process, link_rulings
from rulings.linking.defined_terms import forms_of
from rulings.linking.linker import Linker
from rulings.linking.topics import topic_of
from rulings.models import Card, CardFace, Ruling, RulingLink

#: From this share of the rulings touched, everything is relinked (one pass, no lookups).
EVERYTHING_FROM = 0.5


@dataclass
class Relinked:
    """What a relink after a change of the rules did."""

    candidates: int = 0  # rulings whose links could change (counted up to `everything`)
    relinked: int = 0
    everything: bool = False
    seconds: float = 0.0


def relink_changed(
    lineage_ids: Iterable[int], term_ids: Iterable[int] = (), *, linker: Linker | None = None
) -> Relinked:
    """Relink the rulings whose links the change of these rule lineages and glossary terms
    can move, in this process (it may run in a web request); mark every linked ruling as
    linked against the rules as they are now."""
    started = time.perf_counter()
    lineages, terms = set(lineage_ids), set(term_ids)
    out = Relinked()
    if not (lineages or terms) or not Ruling.objects.filter(linked_at__isnull=False).exists():
        return out
    linker = linker or Linker()
    everything = math.ceil(EVERYTHING_FROM * Ruling.objects.count())
    ids = rulings_touched(linker, lineages, terms, enough=everything)
    out.candidates = len(ids)
    with in_process():
        if len(ids) >= everything:
            out.relinked, out.everything = link_rulings(None, linker), True
        elif ids:
            out.relinked = link_rulings(sorted(ids), linker)
    Ruling.objects.filter(linked_at__isnull=False).update(linked_at=timezone.now())
    out.seconds = time.perf_counter() - started
    return out


def rulings_touched(
    linker: Linker, lineages: set[int], terms: set[int], *, enough: int | None = None
) -> set[int]:
    """The rulings whose links a change of these lineages and glossary terms can move; with
    `enough`, the search stops once it found that many (everything is relinked from there):
    the cheap sources first (links, then cards), the rulings' texts last."""
    numbers = _numbers(lineages)
    linked = set(lineages)
    for number in numbers.get("now", set()):
        topic = topic_of(number)
        lid = linker.lineage_now(topic) if topic else None
        if lid is not None:
            linked.add(lid)
    ids: set[int] = set()
    for chunk in chunks(sorted(linked)):
        ids.update(
            RulingLink.objects.filter(lineage_id__in=chunk).values_list("ruling_id", flat=True)
        )

    def found_enough() -> bool:
        return enough is not None and len(ids) >= enough

    keywords = [t.pattern for t in linker.terms if t.keyword and _about(t, lineages)]
    if keywords and not found_enough():
        cards = _cards_naming(keywords)
        for chunk in chunks(sorted(cards)):
            ids.update(Ruling.objects.filter(card_id__in=chunk).values_list("id", flat=True))
    if found_enough():
        return ids
    patterns = _patterns(linker, lineages, terms, numbers.get("all", set()))
    if patterns:
        for rid, text, heading in Ruling.objects.values_list("id", "text", "group__text"):
            if rid not in ids and any(
                p.search(text or "") or (heading and p.search(heading)) for p in patterns
            ):
                ids.add(rid)
                if found_enough():
                    break
    return ids


def _numbers(lineages: set[int]) -> dict[str, set[str]]:
    """The numbers the lineages hold now ("now") and ever held ("all")."""
    out: dict[str, set[str]] = {"now": set(), "all": set()}
    for chunk in chunks(sorted(lineages)):
        for number, end in RuleNumber.objects.filter(lineage_id__in=chunk).values_list(
            "number", "valid_to"
        ):
            out["all"].add(number)
            if end is None:
                out["now"].add(number)
    return out


def _about(term, lineages: set[int]) -> bool:
    return term.lineage_id in lineages or bool(term.unless & lineages)


def _patterns(
    linker: Linker, lineages: set[int], terms: set[int], numbers: set[str]
) -> list[re.Pattern[str]]:
    """What a ruling's text must contain for its links to be able to change."""
    patterns = [t.pattern for t in linker.terms if _about(t, lineages)]
    forms: set[tuple[str, ...]] = set()
    for candidates in linker.defined.named.values():
        forms.update(form for form, term in candidates if term.lineage_id in lineages)
    for chunk in chunks(sorted(terms)):
        for headword, aliases in GlossaryVersion.objects.filter(term_id__in=chunk).values_list(
            "headword", "aliases"
        ):
            for name in {headword, *alias_list(aliases)}:
                forms.update(f for f in forms_of(name) if f)
    literals = [r"[\s-]+".join(re.escape(w) for w in form) for form in forms if form]
    if literals:
        patterns.append(_alternation(literals, flags=re.IGNORECASE))
    cited = [re.escape(n) for n in numbers if is_number(n)]
    if cited:
        patterns.append(re.compile(r"(?<![\w.])(?:" + "|".join(cited) + r")(?![\w])"))
    return patterns


def _alternation(alternatives: list[str], *, flags: int = 0) -> re.Pattern[str]:
    body = "|".join(sorted(set(alternatives), key=len, reverse=True))
    return re.compile(r"(?<![\w-])(?:" + body + r")(?![\w-])", flags)


def _cards_naming(patterns: list[re.Pattern[str]]) -> set[int]:
    """Cards whose Oracle text (or a face's) or keyword list names one of the keywords."""
    found: set[int] = set()
    for cid, text, keywords in Card.objects.values_list("id", "text_en", "keywords"):
        blob = "\n".join([text or "", *(keywords or [])])
        if any(p.search(blob) for p in patterns):
            found.add(cid)
    for cid, text in CardFace.objects.values_list("card_id", "text"):
        if cid not in found and any(p.search(text or "") for p in patterns):
            found.add(cid)
    return found
