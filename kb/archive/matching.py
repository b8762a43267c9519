"""Match the entries of two consecutive releases: which entry became which.

Renumbering is mostly block shifts onto numbers that still exist (701.16a became 701.20a while
701.16a went on to mean Investigate), and boilerplate ("Multiple instances of X are redundant")
looks alike across keywords. So numbers are never trusted on their own: chapters are matched by
title and content, rules only inside matched chapters, subrules only inside matched rules, each
level by text with cited numbers masked (a renumbered reference is not a new text), keeping
document order where it holds. Pure and deterministic: the same two releases always give the
same pairs, whatever order the archive was imported in.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from kb.archive.texts import analyse
from kb.crtext.numbers import parent_of

#: Minimum token similarity to pair two leftover entries of the same parent.
PAIR_THRESHOLD = 0.5
#: Entries matched across parents (moved to another chapter or rule) must be this long.
MOVED_MIN_LENGTH = 40
#: A moved entry whose words changed (a rule whose text went down to its new first subrule,
#: 201.2 -> 201.2a; Two-Headed Giant's rules into the shared team turns option, 806.7b ->
#: 805.6) is still matched across parents when it is this similar to one leftover and clearly
#: less to any other: on the whole archive, the 14 pairs between 0.6 and 0.85 read right.
MOVED_SIMILARITY = 0.6
MOVED_LEAD = 0.1
#: A leftover that keeps its number and its parent is the same entry rewritten (M20's
#: mulligan rules: 0.30 to 0.34) when this similar: unrelated rules under one parent share
#: less than that, and one that took the number of a moved rule is not a leftover.
REWRITE_THRESHOLD = 0.25
#: Leftovers of a rule whose steps were rewritten (see _match_steps_rewritten).
STEP_THRESHOLD = 0.3
#: A rule split in parts (see _match_split): each part this much made of the old rule's
#: words, the parts together this much of them, each part bringing words of its own.
SPLIT_PART_WITHIN = 0.8
SPLIT_COVER = 0.7
SPLIT_OWN_WORDS = 3
#: Words an entry needs before its words are weighed as a whole rule's (_match_split).
SPLIT_MIN_WORDS = 8


@dataclass(slots=True)
class Item:
    """What the matcher needs to know about one entry."""

    number: str
    kind: str
    text: str
    ordinal: int = 0


def _key(item: Item) -> str:
    return analyse(item.text).key


def _similarity(a: Item, b: Item) -> float:
    ta, tb = analyse(a.text).tokens, analyse(b.text).tokens
    if not ta and not tb:
        return 1.0
    return len(ta & tb) / len(ta | tb)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def align(
    a_idx: Sequence[int],
    b_idx: Sequence[int],
    key: Callable[[int, str], str],
    score: Callable[[int, int], float],
    threshold: float = PAIR_THRESHOLD,
) -> list[tuple[int, int]]:
    """Pair two ordered lists: equal keys in order, then unique equal keys, then by similarity."""
    ka = [key(i, "a") for i in a_idx]
    kb = [key(j, "b") for j in b_idx]
    pairs: dict[int, int] = {}
    sm = SequenceMatcher(None, ka, kb, autojunk=False)
    for block in sm.get_matching_blocks():
        for n in range(block.size):
            pairs[block.a + n] = block.b + n
    used_b = set(pairs.values())
    # Moved out of order but textually identical (and unambiguous).
    left_a = [i for i in range(len(ka)) if i not in pairs]
    left_b = [j for j in range(len(kb)) if j not in used_b]
    by_key_a: dict[str, list[int]] = defaultdict(list)
    by_key_b: dict[str, list[int]] = defaultdict(list)
    for i in left_a:
        by_key_a[ka[i]].append(i)
    for j in left_b:
        by_key_b[kb[j]].append(j)
    for k, ia in by_key_a.items():
        jb = by_key_b.get(k)
        if jb and len(ia) == 1 and len(jb) == 1:
            pairs[ia[0]] = jb[0]
            used_b.add(jb[0])
    # Changed texts: best similarity first, ties broken by closeness in the document.
    left_a = [i for i in range(len(ka)) if i not in pairs]
    left_b = [j for j in range(len(kb)) if j not in used_b]
    if left_a and left_b:
        anchors = sorted(pairs.items())
        candidates = []
        for i in left_a:
            lo, hi = _gap(anchors, i, len(kb))
            for j in left_b:
                s = score(a_idx[i], b_idx[j])
                if lo <= j < hi:
                    s += 0.05  # stays between the same neighbours: likely the same entry
                if s >= threshold:
                    candidates.append((-s, abs(i - j), i, j))
        candidates.sort()
        for _, _, i, j in candidates:
            if i in pairs or j in used_b:
                continue
            pairs[i] = j
            used_b.add(j)
    return sorted((a_idx[i], b_idx[j]) for i, j in pairs.items())


def _gap(anchors: list[tuple[int, int]], i: int, n_b: int) -> tuple[int, int]:
    """The range of b positions between the anchors surrounding a position i of a."""
    lo, hi = 0, n_b
    for ai, bj in anchors:
        if ai < i:
            lo = bj + 1
        elif ai > i:
            hi = bj
            break
    return lo, hi


class _Doc:
    """Index of one release's items by level and parent."""

    def __init__(self, items: Sequence[Item]) -> None:
        self.items = items
        self.children: dict[int | None, list[int]] = defaultdict(list)
        last: dict[str, int] = {}
        self.by_kind: dict[str, list[int]] = defaultdict(list)
        for idx, it in enumerate(items):
            parent = parent_of(it.number)
            self.children[last.get(parent) if parent else None].append(idx)
            last[it.number] = idx
            self.by_kind[it.kind].append(idx)
        self._tokens: dict[int, frozenset[str]] = {}

    def subtree_tokens(self, idx: int) -> frozenset[str]:
        """Words of everything under an entry: its fingerprint when its own title changed."""
        if idx not in self._tokens:
            out: set[str] = set()
            for c in self.children.get(idx, []):
                out |= analyse(self.items[c].text).tokens
                out |= self.subtree_tokens(c)
            self._tokens[idx] = frozenset(out)
        return self._tokens[idx]


def match_rules(a: Sequence[Item], b: Sequence[Item]) -> list[tuple[int, int]]:
    """Pairs (index in a, index in b) of entries that are the same rule in both releases."""
    da, db = _Doc(a), _Doc(b)
    pairs: dict[int, int] = {}

    # Sections: by number (there are nine and they have never moved).
    sec_b = {b[j].number: j for j in db.by_kind["section"]}
    for i in da.by_kind["section"]:
        j = sec_b.get(a[i].number)
        if j is not None:
            pairs[i] = j

    for i, j in _match_chapters(a, b, da, db):
        pairs[i] = j

    def keyfn(idx: int, side: str) -> str:
        return _key((a if side == "a" else b)[idx])

    def rule_score(i: int, j: int) -> float:
        # A renamed keyword ("Totem armor" -> "Umbra armor") keeps most of its subrules' words;
        # unrelated keywords share only boilerplate, so the title weighs as much as the body.
        s = _similarity(a[i], b[j])
        ta, tb = da.subtree_tokens(i), db.subtree_tokens(j)
        if ta and tb:
            s = 0.5 * s + 0.5 * _jaccard(ta, tb)
        if a[i].number == b[j].number:
            s += 0.05
        return s

    def sub_score(i: int, j: int) -> float:
        return _similarity(a[i], b[j]) + (0.05 if a[i].number == b[j].number else 0.0)

    # Rules inside matched chapters, subrules inside matched rules.
    used_b = set(pairs.values())
    for level, score in (("chapter", rule_score), ("rule", sub_score)):
        for i in sorted(p for p in pairs if a[p].kind == level):
            j = pairs[i]
            ca = [c for c in da.children.get(i, []) if c not in pairs]
            cb = [c for c in db.children.get(j, []) if c not in used_b]
            for x, y in align(ca, cb, keyfn, score):
                pairs[x] = y
                used_b.add(y)

    _match_moved(a, b, da, db, pairs, used_b)
    _match_rewritten(a, b, da, db, pairs, used_b)
    _match_steps_rewritten(a, b, da, db, pairs, used_b)
    _match_split(a, b, da, db, pairs, used_b)
    return sorted(pairs.items())


def _match_moved(
    a: Sequence[Item], b: Sequence[Item], da: _Doc, db: _Doc, pairs: dict, used_b: set
) -> None:
    """Entries that moved to another parent, or changed level (M20's subrules 110.5a-g became
    rules 111.2-111.8): identical texts first, unambiguous and long enough to trust; then
    nearly identical ones, clearly closer to one leftover than to any other.

    Rules and subrules are one pool: a numbered entry's level is where it sits, not what it
    says. Headings (chapters, and rules that are only a keyword's name) stay apart: they are
    short, and their children decide where they went."""
    left_a = [i for kind in ("rule", "subrule") for i in da.by_kind[kind] if i not in pairs]
    left_b = [j for kind in ("rule", "subrule") for j in db.by_kind[kind] if j not in used_b]
    ka: dict[str, list[int]] = defaultdict(list)
    kb: dict[str, list[int]] = defaultdict(list)
    for i in left_a:
        ka[_key(a[i])].append(i)
    for j in left_b:
        kb[_key(b[j])].append(j)
    for k, ia in ka.items():
        jb = kb.get(k)
        if jb and len(ia) == 1 and len(jb) == 1 and len(k) >= MOVED_MIN_LENGTH:
            pairs[ia[0]] = jb[0]
            used_b.add(jb[0])
    left_a = [i for i in left_a if i not in pairs and len(_key(a[i])) >= MOVED_MIN_LENGTH]
    left_b = [j for j in left_b if j not in used_b and len(_key(b[j])) >= MOVED_MIN_LENGTH]
    if not (left_a and left_b) or len(left_a) * len(left_b) > 250_000:
        return
    scores = {(i, j): _similarity(a[i], b[j]) for i in left_a for j in left_b}

    def lead(best: float, others: Iterable[float]) -> bool:
        return all(best - s >= MOVED_LEAD for s in others)

    for i in left_a:
        j = max(left_b, key=lambda j: scores[i, j])
        best = scores[i, j]
        if (
            best >= MOVED_SIMILARITY
            and lead(best, (scores[i, y] for y in left_b if y != j))
            and lead(best, (scores[x, j] for x in left_a if x != i))
        ):
            pairs[i] = j
            used_b.add(j)


def _match_rewritten(
    a: Sequence[Item], b: Sequence[Item], da: _Doc, db: _Doc, pairs: dict, used_b: set
) -> None:
    """A leftover rule or subrule whose number, kind and parent (matched) are the same on
    both sides, and whose words overlap enough, is one rule rewritten, not one removed and
    another added (M20's mulligan rules, 103.4c, 800.5 and 903.11g, rewritten whole)."""
    parent_a = {c: p for p, children in da.children.items() for c in children}
    parent_b = {c: p for p, children in db.children.items() for c in children}
    left_b = {
        (b[j].number, b[j].ordinal): j
        for kind in ("rule", "subrule")
        for j in db.by_kind[kind]
        if j not in used_b
    }
    rules_a = [i for kind in ("rule", "subrule") for i in da.by_kind[kind]]
    rules_b = [j for kind in ("rule", "subrule") for j in db.by_kind[kind]]
    for kind in ("rule", "subrule"):
        for i in da.by_kind[kind]:
            if i in pairs:
                continue
            j = left_b.get((a[i].number, a[i].ordinal))
            if j is None or j in used_b or b[j].kind != kind:
                continue
            pa, pb = parent_a.get(i), parent_b.get(j)
            if pa is None or pb is None or pairs.get(pa) != pb:
                continue
            score = _similarity(a[i], b[j])
            if score < REWRITE_THRESHOLD:
                continue
            if _went_elsewhere(a, b, i, j, score, rules_a, rules_b):
                continue
            pairs[i] = j
            used_b.add(j)


def _went_elsewhere(
    a: Sequence[Item],
    b: Sequence[Item],
    i: int,
    j: int,
    score: float,
    rules_a: Sequence[int],
    rules_b: Sequence[int],
) -> bool:
    """Whether the old text went on elsewhere, or the new one came from elsewhere: another
    entry of the other release that reads as the same text (as similar as entries paired
    under one parent) is where it went or came from. Parallel rewrites (the three mulligan
    rules) resemble each other less than that."""
    elsewhere = max(score, PAIR_THRESHOLD)
    return any(_similarity(a[i], b[y]) > elsewhere for y in rules_b if y != j) or any(
        _similarity(a[x], b[j]) > elsewhere for x in rules_a if x != i
    )


def _match_steps_rewritten(
    a: Sequence[Item], b: Sequence[Item], da: _Doc, db: _Doc, pairs: dict, used_b: set
) -> None:
    """Leftovers that took a sibling's number in a rewrite of their rule's steps (Kaladesh's
    turn structure: "Third, the active player gets priority" became 507.2, "Second, …"), or
    became a subrule of their own number ("Second, any abilities that triggered … go on the
    stack", rule 508.2, became 508.2b): a leftover rule or subrule and a leftover entry
    under the same matched parent (or under the new rule that holds the old rule's number),
    paired best first when at least STEP_THRESHOLD alike and neither text went on elsewhere
    (`_went_elsewhere`)."""
    parent_a = {c: p for p, children in da.children.items() for c in children}
    parent_b = {c: p for p, children in db.children.items() for c in children}
    kinds = ("rule", "subrule")
    left_a = [i for k in kinds for i in da.by_kind[k] if i not in pairs]
    left_b = [j for k in kinds for j in db.by_kind[k] if j not in used_b]
    candidates = []
    for i in left_a:
        pa = parent_a.get(i)
        if pa is None or pa not in pairs:
            continue
        for j in left_b:
            pb = parent_b.get(j)
            if pb is None:
                continue
            sibling = a[i].kind == b[j].kind and pairs[pa] == pb
            demoted = (
                a[i].kind == "rule"
                and b[j].kind == "subrule"
                and b[pb].number == a[i].number
                and parent_b.get(pb) == pairs[pa]
            )
            if not (sibling or demoted):
                continue
            score = _similarity(a[i], b[j])
            if score >= STEP_THRESHOLD:
                candidates.append((score, i, j))
    rules_a = [i for kind in kinds for i in da.by_kind[kind]]
    rules_b = [j for kind in kinds for j in db.by_kind[kind]]
    for score, i, j in sorted(candidates, reverse=True):
        if i in pairs or j in used_b:
            continue
        if _went_elsewhere(a, b, i, j, score, rules_a, rules_b):
            continue
        pairs[i] = j
        used_b.add(j)


def _match_split(
    a: Sequence[Item], b: Sequence[Item], da: _Doc, db: _Doc, pairs: dict, used_b: set
) -> None:
    """A leftover rule whose words went into several new entries of its (matched) chapter,
    each of them carved out of it (Amonkhet's 708.2a became 708.3 and 708.3a; The Brothers'
    War's meld pairs, 713.1a, became 713.2 and a subrule per pair): the old rule goes on
    as the part holding most of its words, the others are new. Parts must each bring words
    the others lack: boilerplate shared by sibling keywords ("Multiple instances of … are
    redundant") is no split."""
    kinds = ("rule", "subrule")
    chapter_a = {a[i].number: i for i in da.by_kind["chapter"]}
    left_b: dict[str, list[int]] = defaultdict(list)  # by chapter number
    for k in kinds:
        for j in db.by_kind[k]:
            if j not in used_b and len(analyse(b[j].text).tokens) >= SPLIT_MIN_WORDS - 2:
                left_b[b[j].number.split(".")[0]].append(j)
    for k in kinds:
        for i in da.by_kind[k]:
            words = analyse(a[i].text).tokens
            if i in pairs or len(words) < SPLIT_MIN_WORDS:
                continue
            chapter = pairs.get(chapter_a.get(a[i].number.split(".")[0], -1))
            if chapter is None:
                continue
            shares = {}
            for j in left_b.get(b[chapter].number, []):
                tokens = analyse(b[j].text).tokens
                if j not in used_b and len(words & tokens) >= SPLIT_PART_WITHIN * len(tokens):
                    shares[j] = words & tokens
            parts = {
                j: shared
                for j, shared in shares.items()
                if len(shared - set().union(*(s for y, s in shares.items() if y != j)))
                >= SPLIT_OWN_WORDS
            }
            covered = set().union(*parts.values()) if parts else set()
            if len(parts) < 2 or len(covered) < SPLIT_COVER * len(words):
                continue
            j = max(parts, key=lambda j: (len(parts[j]), -j))  # the first of equals
            pairs[i] = j
            used_b.add(j)


def _match_chapters(
    a: Sequence[Item], b: Sequence[Item], da: _Doc, db: _Doc
) -> list[tuple[int, int]]:
    pairs: dict[int, int] = {}
    titles_a: dict[str, list[int]] = defaultdict(list)
    titles_b: dict[str, list[int]] = defaultdict(list)
    for i in da.by_kind["chapter"]:
        titles_a[_key(a[i])].append(i)
    for j in db.by_kind["chapter"]:
        titles_b[_key(b[j])].append(j)
    for t, ia in titles_a.items():
        jb = titles_b.get(t)
        if jb and len(ia) == len(jb):
            pairs.update(zip(ia, jb, strict=True))
    used_b = set(pairs.values())
    # Renamed chapters ("903. EDH" -> "903. Commander", Tribal -> Kindred): by shared words.
    candidates = []
    for i in da.by_kind["chapter"]:
        if i in pairs:
            continue
        for j in db.by_kind["chapter"]:
            if j in used_b:
                continue
            s = _jaccard(da.subtree_tokens(i), db.subtree_tokens(j))
            if a[i].number == b[j].number:
                s += 0.1
            if s >= 0.6:
                candidates.append((-s, i, j))
    candidates.sort()
    for _, i, j in candidates:
        if i in pairs or j in used_b:
            continue
        pairs[i] = j
        used_b.add(j)
    return sorted(pairs.items())


def match_glossary(a: Sequence[Item], b: Sequence[Item]) -> list[tuple[int, int]]:
    """Glossary terms match by headword (the key); a changed alias list by its first alias.

    For glossary items, `number` holds the term key and `text` the first alias.
    """
    pairs: dict[int, int] = {}
    by_key_b: dict[tuple[str, int], int] = {(it.number, it.ordinal): j for j, it in enumerate(b)}
    for i, it in enumerate(a):
        j = by_key_b.get((it.number, it.ordinal))
        if j is not None:
            pairs[i] = j
    used_b = set(pairs.values())
    first_a: dict[str, list[int]] = defaultdict(list)
    first_b: dict[str, list[int]] = defaultdict(list)
    for i, it in enumerate(a):
        if i not in pairs:
            first_a[it.text.casefold()].append(i)
    for j, it in enumerate(b):
        if j not in used_b:
            first_b[it.text.casefold()].append(j)
    for k, ia in first_a.items():
        jb = first_b.get(k)
        if jb and len(ia) == 1 and len(jb) == 1:
            pairs[ia[0]] = jb[0]
    return sorted(pairs.items())
