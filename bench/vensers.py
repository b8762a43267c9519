"""Our release diffs beside Venser's Journal's, rule by rule (issue 34): `python -m bench.vensers`.

Venser's Journal, an independent project, published 41 rule-by-rule diffs between consecutive
releases (2014-2021, `cr/changes/vensersjournal/` in the shared data). Reading the same pairs
two ways and comparing entry by entry says where our diffs disagree with an outside reader, and
which side is wrong: their known faults are ours to ignore, ours are to fix.

How a pair is read:

- Their set codes name releases through `cr/en/versions.csv`; where a code names several
  releases (a mid-cycle update), the one whose rule texts are theirs is taken, by comparing
  their texts with ours at the same numbers. A code no release of ours carries (KTK, WAR)
  joins the diffs on either side of it (RNA-WAR and WAR-MH1 read as RNA -> MH1), or, with no
  diff on the other side, reads from the nearest release we have (flagged: our side then holds
  that release's changes too).
- Our side is `kb.history.diff_between` of the two releases. Its listed changes are rules
  added, removed or reworded (wording or examples); pure renumberings and the folded noise
  (reference-only, typography-only) are left aside, as they never list renumberings.
- Each of their entries finds our lineage(s) by its numbers in the two releases: **agreed**
  when the same lineage has the same verdict (added, removed, reworded); **other verdict**
  when we have an item for that rule with another verdict (renumbered, folded, or removed and
  added); **only theirs** when our diff has nothing for it. Our listed items no entry of theirs
  found are **only ours**.
- Every disagreement gets a cause by general rules (text similarity, numbers, lineages, kinds),
  never by rule numbers; what no rule explains is "unclassified", with examples printed.

`--var-dir DIR` reads (and completes, importing what is missing) the archive in DIR instead of
importing it into a throwaway directory, which takes a minute or two.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache
from pathlib import Path

# -- their files ------------------------------------------------------------------------------

_MARKER_RE = re.compile(r"\s*\b(?:old|new)_(?:start|end)\b\s*")


@dataclass(frozen=True)
class Side:
    """One side of their entry: the rule's number and its text (markers taken out)."""

    number: str
    text: str


@dataclass(frozen=True)
class Entry:
    """One entry of their diff: added (only `new`), removed (only `old`) or reworded."""

    source: str
    old: Side | None
    new: Side | None

    @property
    def verdict(self) -> str:
        return "added" if self.old is None else "removed" if self.new is None else "reworded"

    @property
    def label(self) -> str:
        old, new = self.old.number if self.old else "", self.new.number if self.new else ""
        return old if old == new else f"{old or '-'} -> {new or '-'}"


@dataclass(frozen=True)
class TheirDiff:
    """One of their files: the set codes of its two releases and its entries."""

    stem: str
    old_code: str
    new_code: str
    entries: tuple[Entry, ...]


def read_side(raw: dict | None) -> Side | None:
    """Their number without its trailing period ("114.6." -> "114.6"), their text without the
    markers around changed words."""
    if not raw:
        return None
    text = _MARKER_RE.sub(" ", raw["ruleText"]).strip()
    return Side(raw["ruleNum"].strip().rstrip("."), re.sub(r"\s+", " ", text))


def read_diffs(folder: Path) -> list[TheirDiff]:
    """Every file of theirs. Set codes come from the file's names, or from its file name where
    they are left empty ("MH1-M20.json"); an update of one set names it on both sides."""
    out = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        names = data[0]["names"]
        old_code, new_code = names.get("old_setcode", ""), names.get("new_setcode", "")
        if not (old_code and new_code) and "-" in path.stem:
            old_code, new_code = path.stem.split("-", 1)
        entries = tuple(
            Entry(path.stem, read_side(raw.get("old")), read_side(raw.get("new")))
            for raw in data[1:]
        )
        out.append(TheirDiff(path.stem, old_code, new_code, entries))
    return out


# -- texts compared ---------------------------------------------------------------------------

_SYMBOLS_RE = re.compile(r"\((?:tm|r|c)\)|[™®©]", re.IGNORECASE)
_WORD_RE = re.compile(r"\w+")


def text_key(text: str) -> str:
    """A text with typography and trademark symbols erased, spaces collapsed: what both
    sources' copies of one printed text have in common."""
    from kb.crtext.typography import fold

    return re.sub(r"\s+", " ", _SYMBOLS_RE.sub("", fold(text))).strip()


def symbols_only(old: str, new: str) -> bool:
    """Two different texts that read the same once trademark symbols ((tm), (r), ™, ®) and
    typography are erased (cited numbers included: a text citing another rule is reworded)."""
    return old != new and text_key(old) == text_key(new)


def masked(text: str) -> str:
    """A text's key with its cited numbers masked."""
    from kb.crtext.references import mask_references

    return mask_references(text_key(text))


_CITING_RE = re.compile(r"\b(?:rules?|and|see)\b|\S*\d\S*", re.IGNORECASE)


def citations_aside(text: str) -> str:
    """A text's key without what cites a rule: numbers and ranges, "rule(s)", "see", "and"."""
    return re.sub(r"\s+", " ", _CITING_RE.sub(" ", text_key(text))).strip()


def _words(text: str) -> list[str]:
    return _WORD_RE.findall(text_key(text).lower())


@lru_cache(maxsize=50_000)
def similarity(a: str, b: str) -> float:
    """How much of two texts' words are in common, in order (0 to 1)."""
    wa, wb = _words(a), _words(b)
    if not wa and not wb:
        return 1.0
    return SequenceMatcher(None, wa, wb, autojunk=False).ratio()


#: Two texts this similar are the same rule (its words edited at most).
SAME_RULE = 0.5
#: Under the same number, a rewrite that keeps the rule's topic: M20's mulligan rules score
#: 0.35 to 0.43 (the words in order), rules paired only by their number mostly below.
SAME_NUMBER_REWRITE = 0.33
#: A text this similar to another rule's than to its own number's is that rule's text.
SAME_TEXT = 0.9
#: A text whose words are this much another's was carved out of it (a part of a split rule).
CARVED = 0.8


def carved_from(part: str, whole: str) -> bool:
    """Whether most of `part`'s words are `whole`'s: one part of a rule split in several."""
    wp, wh = set(_words(part)), set(_words(whole))
    return bool(wp) and len(wp & wh) >= CARVED * len(wp)


# -- our releases -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    lineage: int
    number: str
    kind: str  # section, chapter, rule, subrule
    text: str


@dataclass
class Snapshot:
    """The rules of one release of ours, by number and by lineage."""

    date: dt.date
    by_number: dict[str, Rule]
    by_lineage: dict[int, Rule]


_SNAPSHOTS: dict[dt.date, Snapshot] = {}


def snapshot(date: dt.date) -> Snapshot:
    """One release's rules (two queries; kept for the run: pairs share releases)."""
    from kb.models import RuleNumber, RuleVersion

    if date not in _SNAPSHOTS:
        texts = dict(RuleVersion.objects.as_of(date).values_list("lineage_id", "text_en"))
        rules = [
            Rule(lid, number, kind, texts.get(lid, ""))
            for lid, number, kind in RuleNumber.objects.as_of(date).values_list(
                "lineage_id", "number", "kind"
            )
        ]
        _SNAPSHOTS[date] = Snapshot(
            date, {r.number: r for r in rules}, {r.lineage: r for r in rules}
        )
    return _SNAPSHOTS[date]


def release_codes(cr_en: Path, dates: list[dt.date]) -> dict[str, list[dt.date]]:
    """Set code -> our releases carrying it (versions.csv), oldest first."""
    have = set(dates)
    out: dict[str, list[dt.date]] = {}
    with (cr_en / "versions.csv").open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            date = dt.date.fromisoformat(row["date"])
            if row["set_code"] and date in have:
                out.setdefault(row["set_code"], []).append(date)
    return {code: sorted(found) for code, found in out.items()}


def side_score(sides: list[Side], date: dt.date) -> tuple[int, int]:
    """How many of their texts read as ours at the same number in the release of `date`."""
    rules = snapshot(date).by_number
    found = sum(
        1 for s in sides if s.number in rules and text_key(rules[s.number].text) == text_key(s.text)
    )
    return found, len(sides)


# -- pairs ------------------------------------------------------------------------------------


@dataclass
class Pair:
    """Their diff(s) of one pair of our releases."""

    label: str
    old: dt.date
    new: dt.date
    diffs: list[TheirDiff]
    notes: list[str] = field(default_factory=list)
    #: Our side spans a release of theirs we do not have, and no diff of theirs covers the
    #: rest: items only ours may be that release's changes.
    partial: bool = False

    @property
    def entries(self) -> list[Entry]:
        return [e for d in self.diffs for e in d.entries]


def choose(
    code: str, sides: list[Side], codes: dict[str, list[dt.date]], *, latest: bool
) -> tuple[dt.date | None, str]:
    """The release of ours a set code of theirs stands for, and how it was chosen. Among the
    releases carrying the code, the one whose texts at their numbers are theirs; on a tie,
    the one nearest the other end of the pair (`latest` for an old end)."""
    candidates = codes.get(code, [])
    if not candidates:
        return None, f"{code}: no release of ours"
    if len(candidates) == 1:
        found, total = side_score(sides, candidates[0])
        return candidates[0], f"{code} = {candidates[0]} ({found}/{total} texts as ours)"
    scored = [(side_score(sides, d), d) for d in candidates]
    best = max(scored, key=lambda s: (s[0][0], s[1] if latest else -s[1].toordinal()))
    said = ", ".join(f"{d} {f}/{t}" for (f, t), d in scored)
    return best[1], f"{code} = {best[1]} (texts as ours: {said})"


def pairs_of(diffs: list[TheirDiff], cr_en: Path, dates: list[dt.date]) -> list[Pair]:
    """Their diffs mapped to pairs of our releases (see the module docstring)."""
    codes = release_codes(cr_en, dates)
    mapped = []
    for d in diffs:
        old, old_note = choose(d.old_code, [e.old for e in d.entries if e.old], codes, latest=True)
        new, new_note = choose(d.new_code, [e.new for e in d.entries if e.new], codes, latest=False)
        mapped.append((d, old, new, [f"old {old_note}", f"new {new_note}"]))
    pairs: list[Pair] = []
    used: set[str] = set()
    for d, old, new, notes in mapped:
        if d.stem in used:
            continue
        if old is not None and new is not None:
            pairs.append(Pair(d.stem, old, new, [d], notes))
            continue
        if new is None:
            # The next diff of theirs starts where this one ends: read both as one pair.
            follow = next(
                (m for m in mapped if m[0].old_code == d.new_code and m[1] is None and m[2]),
                None,
            )
            if follow is not None and old is not None:
                used.add(follow[0].stem)
                pairs.append(
                    Pair(
                        f"{d.stem}-{follow[0].new_code}",
                        old,
                        follow[2],
                        [d, follow[0]],
                        notes + follow[3] + [f"{d.new_code} read through its two diffs"],
                    )
                )
                continue
        # One end we do not have, and no diff of theirs on its other side.
        if old is None and new is not None:
            earlier = [x for x in dates if x < new]
            old = earlier[-1] if earlier else None
            notes.append(f"old end read as our previous release {old}")
        elif new is None and old is not None:
            later = [x for x in dates if x > old]
            new = later[0] if later else None
            notes.append(f"new end read as our next release {new}")
        if old is not None and new is not None:
            pairs.append(Pair(d.stem, old, new, [d], notes, partial=True))
    pairs.sort(key=lambda p: (p.old, p.new, p.label))
    return pairs


# -- the comparison ---------------------------------------------------------------------------

AGREED, OTHER, THEIRS, OURS = "agreed", "other verdict", "only theirs", "only ours"
CATEGORIES = (AGREED, OTHER, THEIRS, OURS)

# Causes of a disagreement: theirs (their known faults), ours (to fix), or neither.
T_PAIRS = "theirs: pairs unrelated rules by number"
T_MOVED = "theirs: calls a moved rule added/removed"
T_SWAP = "theirs: pairs two rules neither of which changed (508.3b/509.7b)"
T_TITLES = "theirs: never reads title lines"
T_EXAMPLES = "theirs: never reads examples"
T_CITES = "theirs: misses a citation of another rule"
T_REFS = "theirs: a renumbered reference counted as wording"
T_TYPO = "theirs: typography counted as wording"
T_SKIPPED = "theirs: a release of ours they skip (partial pair)"
T_MISSED = "theirs: a removal or addition they do not list (its text nowhere on the other side)"
E_MERGE = "either: a rule merged into one that goes on (theirs moved, ours removed)"
E_SPLIT = "either: a rule split in parts, each side going on as another part"
O_PARENT = "ours: move to a new parent as removed+added"
O_REWRITE = "ours: same-number rewrite as removed+added"
O_SYMBOLS = "ours: symbols counted as wording"
O_REFERENCE = "ours: reference to another lineage folded"
UNCLASSIFIED = "unclassified"
CAUSES = (
    T_PAIRS,
    T_MOVED,
    T_SWAP,
    T_TITLES,
    T_EXAMPLES,
    T_CITES,
    T_REFS,
    T_TYPO,
    T_SKIPPED,
    T_MISSED,
    E_MERGE,
    E_SPLIT,
    O_PARENT,
    O_REWRITE,
    O_SYMBOLS,
    O_REFERENCE,
    UNCLASSIFIED,
)


@dataclass
class Finding:
    """One of their entries, or one item only ours, with what we make of it."""

    category: str
    cause: str  # "" when agreed
    entry: Entry | None
    ours: list  # the DiffItems of ours it concerns
    detail: str = ""


def our_verdict(item) -> str:
    """added, removed, reworded (listed); renumbered, reference-only, typography-only (not)."""
    from kb.diffing import REAL

    if item.status in ("added", "removed"):
        return item.status
    if any(k in REAL for k in item.kinds):
        return "reworded"
    if not item.kinds:
        return "renumbered"
    return "reference-only" if "reference" in item.kinds else "typography-only"


LISTED = ("added", "removed", "reworded")


@dataclass
class PairReport:
    pair: Pair
    findings: list[Finding]
    #: Our listed counts: what our diff page says for the pair, before any comparison.
    ours_listed: Counter

    def count(self, category: str) -> int:
        return sum(1 for f in self.findings if f.category == category)

    @property
    def causes(self) -> Counter:
        return Counter(f.cause for f in self.findings if f.category != AGREED)

    @property
    def theirs(self) -> int:
        return sum(1 for f in self.findings if f.entry is not None)

    def cause_of(self, number: str) -> set[str]:
        """The causes of the findings about `number` (theirs or ours, old or new)."""
        out = set()
        for f in self.findings:
            numbers = {i.old_number for i in f.ours} | {i.new_number for i in f.ours}
            if f.entry is not None:
                numbers |= {s.number for s in (f.entry.old, f.entry.new) if s}
            if number in numbers and f.category != AGREED:
                out.add(f.cause)
        return out


def compare(pair: Pair) -> PairReport:
    """Their entries of `pair` against our diff of the same releases (see the docstring)."""
    from kb.history import diff_between
    from kb.models import Release

    releases = {
        r.effective_date: r for r in Release.objects.filter(effective_date__in=[pair.old, pair.new])
    }
    diff = diff_between(releases[pair.old], releases[pair.new])
    a, b = snapshot(pair.old), snapshot(pair.new)
    ours = {i.lineage_id: i for i in diff.items}
    listed = [i for i in diff.items if our_verdict(i) in LISTED]
    rewrites = _removed_added(listed, a, b)
    findings = []
    seen: set[int] = set()
    for entry in pair.entries:
        finding = _match(entry, a, b, ours, rewrites)
        seen.update(i.lineage_id for i in finding.ours)
        findings.append(finding)
    for item in listed:
        if item.lineage_id not in seen:
            cause, detail = _only_ours_cause(item, a, b, rewrites)
            if cause in (UNCLASSIFIED, T_MISSED) and pair.partial:
                cause = T_SKIPPED
            findings.append(Finding(OURS, cause, None, [item], detail))
    return PairReport(pair, findings, Counter(our_verdict(i) for i in listed))


def _removed_added(listed: list, a: Snapshot, b: Snapshot) -> dict[int, tuple[int, str]]:
    """Our removed and added rules that are one rule (texts at least SAME_RULE alike): each
    lineage -> (its partner, the cause). Best pairs first, each rule in one pair at most."""
    removed = [i for i in listed if i.status == "removed" and i.kind in ("rule", "subrule")]
    added = [i for i in listed if i.status == "added" and i.kind in ("rule", "subrule")]
    scored = []
    for r in removed:
        old = a.by_lineage[r.lineage_id].text
        for n in added:
            s = similarity(old, b.by_lineage[n.lineage_id].text)
            same_number = r.old_number == n.new_number
            if s >= (SAME_NUMBER_REWRITE if same_number else SAME_RULE):
                scored.append((s, same_number, r, n))
    out: dict[int, tuple[int, str]] = {}
    for _, same_number, r, n in sorted(scored, key=lambda x: (-x[0], not x[1])):
        if r.lineage_id in out or n.lineage_id in out:
            continue
        cause = O_REWRITE if same_number else O_PARENT
        out[r.lineage_id] = (n.lineage_id, cause)
        out[n.lineage_id] = (r.lineage_id, cause)
    return out


def _match(
    entry: Entry, a: Snapshot, b: Snapshot, ours: dict, rewrites: dict[int, tuple[int, str]]
) -> Finding:
    old = a.by_number.get(entry.old.number) if entry.old else None
    new = b.by_number.get(entry.new.number) if entry.new else None
    lineages = list(dict.fromkeys(r.lineage for r in (old, new) if r is not None))
    items = [ours[lid] for lid in lineages if lid in ours]
    verdicts = [our_verdict(i) for i in items]
    agreed = (
        len(items) == 1
        and verdicts[0] == entry.verdict
        and (entry.verdict != "reworded" or (old is not None and new is not None))
        and (entry.verdict != "added" or new is not None)
        and (entry.verdict != "removed" or old is not None)
    )
    if agreed:
        return Finding(AGREED, "", entry, items)
    category = OTHER if items else THEIRS
    detail = f"ours: {', '.join(_describe(i) for i in items) or 'no change'}"
    return Finding(
        category, _their_cause(entry, old, new, items, a, b, rewrites), entry, items, detail
    )


def _describe(item) -> str:
    numbers = (
        item.old_number
        if item.old_number == item.new_number
        else (f"{item.old_number or '-'} -> {item.new_number or '-'}")
    )
    return f"{numbers} {our_verdict(item)}"


def _their_cause(
    entry: Entry,
    old: Rule | None,
    new: Rule | None,
    items: list,
    a: Snapshot,
    b: Snapshot,
    rewrites: dict[int, tuple[int, str]],
) -> str:
    """Why one of their entries disagrees with us, by the first rule that explains it."""
    for side, rule, snap in ((entry.old, old, a), (entry.new, new, b)):
        if side is not None and _elsewhere(side, rule, snap):
            return T_SWAP
    if entry.verdict == "reworded":
        unlisted = all(our_verdict(i) not in LISTED for i in items)
        if old is not None and new is not None and old.lineage != new.lineage and unlisted:
            return T_SWAP  # two rules, neither of which changed its words
        if old is not None and new is not None and old.lineage == new.lineage and items:
            verdict = our_verdict(items[0])
            if verdict == "typography-only":
                return T_TYPO
            if verdict == "reference-only" and not _cites_other_lineage(old.text, new.text, a, b):
                return T_REFS
        if old is not None and new is not None and old.lineage != new.lineage:
            pair = rewrites.get(old.lineage)
            if pair is not None and pair[0] == new.lineage:
                return pair[1]
            if old.lineage not in b.by_lineage and new.lineage in a.by_lineage:
                return E_MERGE  # the old rule ended; the one it went into was there before
            went_on = b.by_lineage.get(old.lineage)
            if (
                went_on is not None
                and new.lineage not in a.by_lineage
                and carved_from(new.text, old.text)
                and carved_from(went_on.text, old.text)
            ):
                return E_SPLIT  # both new rules are parts of the old one; we follow the other
        if similarity(entry.old.text, entry.new.text) < SAME_RULE:
            return T_PAIRS
        if (
            old is not None
            and new is not None
            and old.lineage == new.lineage
            and items
            and our_verdict(items[0]) == "reference-only"
            and _cites_other_lineage(old.text, new.text, a, b)
        ):
            return O_REFERENCE
        return UNCLASSIFIED
    rule = new if entry.verdict == "added" else old
    if rule is not None and any(
        i.lineage_id == rule.lineage and i.old_number and i.new_number for i in items
    ):
        return T_MOVED
    return UNCLASSIFIED


def _elsewhere(side: Side, rule: Rule | None, snap: Snapshot) -> bool:
    """Their text is not our text at their number, but is another number's text: exactly
    (508.3b and 509.7b differ by one word, attacking or blocking), or nearly."""
    key = text_key(side.text)
    if rule is not None and text_key(rule.text) == key:
        return False
    candidates = [r for r in snap.by_number.values() if r.kind in ("rule", "subrule")]
    if any(text_key(r.text) == key for r in candidates if r is not rule):
        return True
    if rule is not None and similarity(side.text, rule.text) >= SAME_RULE:
        return False
    return any(
        similarity(side.text, r.text) >= SAME_TEXT
        for r in candidates
        if abs(len(r.text) - len(side.text)) < len(side.text) // 5
    )


def _nowhere(rule: Rule, there: Snapshot, here: Snapshot) -> bool:
    """A rule removed (or added) whose text no rule on the other side that is itself new
    there (added, or removed) reads like: a real removal or addition, not a move we missed.
    Rules that continue their own lineage on both sides are not candidates (XLN's new 704.5j,
    the legend rule renumbered, reads like the removed planeswalker uniqueness rule)."""
    candidates = [
        r
        for lineage, r in there.by_lineage.items()
        if lineage not in here.by_lineage and r.kind in ("rule", "subrule")
    ]
    return not any(similarity(rule.text, r.text) >= SAME_RULE for r in candidates)


def _cites_other_lineage(old: str, new: str, a: Snapshot, b: Snapshot) -> bool:
    """A reference in `new` cites a rule of another lineage than the same reference in `old`
    (the cited numbers taken in order, each in its own release)."""
    from kb.crtext.references import expand_targets, find_references

    def cited(text: str, snap: Snapshot) -> list[int | None]:
        return [
            snap.by_number[n].lineage if n in snap.by_number else None
            for ref in find_references(text)
            for n in expand_targets(ref)
        ]

    return cited(old, a) != cited(new, b)


def _only_ours_cause(
    item, a: Snapshot, b: Snapshot, rewrites: dict[int, tuple[int, str]]
) -> tuple[str, str]:
    """Why we list a change they do not, by the first rule that explains it."""
    from kb.models.rules import is_heading

    rule = (a if item.status == "removed" else b).by_lineage[item.lineage_id]
    if item.kind in ("section", "chapter") or is_heading(rule.kind, rule.text):
        return T_TITLES, ""
    if item.lineage_id in rewrites:
        partner, cause = rewrites[item.lineage_id]
        other = (b if item.status == "removed" else a).by_lineage[partner]
        return cause, f"with {other.number}"
    if item.status in ("added", "removed"):
        return (
            (T_MISSED, "")
            if _nowhere(rule, *((b, a) if item.status == "removed" else (a, b)))
            else (UNCLASSIFIED, "")
        )
    old, new = a.by_lineage[item.lineage_id].text, b.by_lineage[item.lineage_id].text
    if "wording" in item.kinds and symbols_only(old, new):
        return O_SYMBOLS, ""
    if item.kinds == ["wording"] and citations_aside(old) == citations_aside(new):
        return T_CITES, ""  # only what it cites differs: other rules, more, a longer range
    if item.kinds == ["examples"]:
        return T_EXAMPLES, ""
    return UNCLASSIFIED, ""


def compare_all(vj_dir: Path, cr_en: Path) -> list[PairReport]:
    """Every diff of theirs compared with ours (the archive of `cr_en` imported)."""
    from kb.models import Release

    dates = sorted(Release.objects.values_list("effective_date", flat=True))
    return [compare(p) for p in pairs_of(read_diffs(vj_dir), cr_en, dates)]


# -- the report -------------------------------------------------------------------------------

SHORT = {
    T_PAIRS: "T-pair",
    T_MOVED: "T-move",
    T_SWAP: "T-swap",
    T_TITLES: "T-title",
    T_EXAMPLES: "T-exam",
    T_CITES: "T-cite",
    T_REFS: "T-refs",
    T_TYPO: "T-typo",
    T_SKIPPED: "T-skip",
    T_MISSED: "T-miss",
    E_MERGE: "E-merge",
    E_SPLIT: "E-split",
    O_PARENT: "O-parent",
    O_REWRITE: "O-rewrite",
    O_SYMBOLS: "O-symbol",
    O_REFERENCE: "O-ref",
    UNCLASSIFIED: "unclass",
}


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def report(reports: list[PairReport], examples: int = 3) -> str:
    """The per-pair table, the causes per pair, the totals and the unclassified examples."""
    lines = [
        "Venser's Journal's diffs against ours, rule by rule (their entries; our listed "
        "changes: added, removed, reworded)",
        "",
    ]
    head = (
        f"{'pair':<16} {'releases':<25} {'theirs':>6} {'agreed':>6} {'other':>6} "
        f"{'o.theirs':>8} {'o.ours':>6} {'agree':>6}"
    )
    lines += [head, "-" * len(head)]

    def row(label: str, span: str, group: list[PairReport]) -> str:
        theirs = sum(r.theirs for r in group)
        agreed = sum(r.count(AGREED) for r in group)
        return (
            f"{label:<16} {span:<25} {theirs:>6} {agreed:>6} "
            f"{sum(r.count(OTHER) for r in group):>6} "
            f"{sum(r.count(THEIRS) for r in group):>8} "
            f"{sum(r.count(OURS) for r in group):>6} {_pct(agreed, theirs):>6}"
        )

    for r in reports:
        span = f"{r.pair.old} -> {r.pair.new}{' *' if r.pair.partial else ''}"
        lines.append(row(r.pair.label, span, [r]))
    lines.append("-" * len(head))
    lines += _totals(reports, row)
    lines += [
        "",
        "* our side spans a release of theirs we do not have (its changes count as only ours)",
        "",
    ]
    lines += _causes_table(reports)
    lines += ["", "How their set codes were read:"]
    for r in reports:
        lines.append(f"  {r.pair.label}: " + "; ".join(r.pair.notes))
    lines += ["", f"Unclassified disagreements (up to {examples} a pair):"]
    for r in reports:
        for f in [f for f in r.findings if f.cause == UNCLASSIFIED][:examples]:
            lines.append(f"  {r.pair.label}: {_example(f)}")
    return "\n".join(lines)


def _totals(reports: list[PairReport], row) -> list[str]:
    whole = [r for r in reports if not r.pair.partial]
    biggest = max(reports, key=lambda r: r.theirs)
    return [
        row("total", "", reports),
        row("without partial", "", whole),
        row(f"without {biggest.pair.label}", "", [r for r in reports if r is not biggest]),
    ]


def _causes_table(reports: list[PairReport]) -> list[str]:
    """Disagreements (other verdict, only theirs, only ours) by cause, per pair."""
    head = f"{'pair':<16} " + " ".join(f"{SHORT[c]:>9}" for c in CAUSES)
    lines = ["Disagreements by cause:", head, "-" * len(head)]
    total: Counter = Counter()
    for r in reports:
        causes = r.causes
        total.update(causes)
        lines.append(f"{r.pair.label:<16} " + " ".join(f"{causes[c]:>9}" for c in CAUSES))
    lines.append("-" * len(head))
    lines.append(f"{'total':<16} " + " ".join(f"{total[c]:>9}" for c in CAUSES))
    lines += [""] + [f"  {SHORT[c]:<9} {c}" for c in CAUSES]
    return lines


def _example(f: Finding) -> str:
    if f.entry is not None:
        text = (f.entry.new or f.entry.old).text
        return f"{f.category}: theirs {f.entry.label} {f.entry.verdict}; {f.detail} «{text[:70]}»"
    item = f.ours[0]
    return f"{f.category}: {_describe(item)} {item.kinds or ''} {f.detail}".rstrip()


# -- running it -------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--var-dir",
        help="use (and complete) the archive in this data directory instead of a throwaway one",
    )
    parser.add_argument(
        "--examples", type=int, default=3, help="unclassified examples printed per pair"
    )
    args = parser.parse_args(argv)
    if args.var_dir:
        from bench.environment import setup

        setup(args.var_dir)
        return run(args.examples)
    from bench.environment import throwaway_var_dir

    with throwaway_var_dir("vensers-bench-"):
        return run(args.examples)


def run(examples: int) -> int:
    from django.conf import settings
    from django.core.management import call_command

    data = Path(settings.KB_DATA_DIR)
    cr_en, vj = data / "cr" / "en", data / "cr" / "changes" / "vensersjournal"
    if not (cr_en.is_dir() and vj.is_dir()):
        print(f"no shared data at {cr_en} and {vj}: nothing to compare", file=sys.stderr)
        return 1
    call_command("migrate", verbosity=0)
    call_command("import_rules", str(cr_en), verbosity=0)
    print(report(compare_all(vj, cr_en), examples), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
