"""Word-level diffs and change classification, shared by rule history and release diffs.

difflib.SequenceMatcher runs on word tokens with autojunk=False: with the default heuristic a
two-word change in a long rule turns into one huge replacement. Every token is escaped.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from kb.crtext.typography import fold

# Words (with inner apostrophes and hyphens), single punctuation marks, runs of space.
_TOKEN_RE = re.compile(r"\s+|\w+(?:[’'\-]\w+)*|[^\w\s]")

#: Change kinds, from the most to the least significant.
REAL = ("wording", "examples")
NOISE = ("reference", "typography")


@lru_cache(maxsize=20_000)
def word_diff(old: str, new: str, fold_typography: bool = False) -> SafeString:
    """`new` with the words taken out of `old` in <del> and the words put in, in <ins>.

    The common start and end are set aside first: changes are local, and matching only the
    middle keeps long texts (the creature-type list) fast. Cached per pair of texts. Every
    token is escaped before it is marked safe.

    With `fold_typography`, tokens are matched with their typography folded (curly and
    straight quotes, dashes, `_Magic_` markup) and the new text's typography is shown as is:
    only wording differences are highlighted, the way a reader compares two releases.
    """
    a, b = _TOKEN_RE.findall(old), _TOKEN_RE.findall(new)
    ka, kb = (_keys(a), _keys(b)) if fold_typography else (a, b)
    head = 0
    while head < len(a) and head < len(b) and ka[head] == kb[head]:
        head += 1
    tail = 0
    while tail < len(a) - head and tail < len(b) - head and ka[-1 - tail] == kb[-1 - tail]:
        tail += 1
    a_mid, b_mid = a[head : len(a) - tail], b[head : len(b) - tail]
    ka_mid, kb_mid = ka[head : len(a) - tail], kb[head : len(b) - tail]
    # Unchanged text is shown as it reads in the new release.
    out: list[str] = [escape("".join(b[:head]))]
    matcher = SequenceMatcher(None, ka_mid, kb_mid, autojunk=False)
    for op, i1, i2, j1, j2 in _merged(matcher, ka_mid):
        taken, put = "".join(a_mid[i1:i2]), "".join(b_mid[j1:j2])
        if op == "equal" or (fold_typography and fold(taken) == fold(put)):
            out.append(escape(put))
            continue
        if i2 > i1:
            out.append(f"<del>{escape(taken)}</del>")
        if j2 > j1:
            out.append(f"<ins>{escape(put)}</ins>")
    out.append(escape("".join(b[len(b) - tail :])))
    return mark_safe("".join(out))


def _keys(tokens: list[str]) -> list[str]:
    """Tokens with typography folded, for matching: spaces of any kind are one space."""
    return [_token_key(t) for t in tokens]


@lru_cache(maxsize=100_000)
def _token_key(token: str) -> str:
    """One token's key, memoised: a diff page folds some 5,000 tokens, nearly all of them
    words seen before (the fold's five regular expressions were a diff page's first cost)."""
    return " " if not token.strip() else fold(token).replace("_", "") or token


def _merged(matcher: SequenceMatcher, a: list[str]) -> list[tuple[str, int, int, int, int]]:
    """Opcodes where changes separated only by a space become one ("he or she is" -> "they
    are" reads as one replacement, not two)."""
    ops: list[tuple[str, int, int, int, int]] = []
    for op in matcher.get_opcodes():
        if (
            len(ops) >= 2
            and op[0] != "equal"
            and ops[-1][0] == "equal"
            and ops[-2][0] != "equal"
            and not "".join(a[ops[-1][1] : ops[-1][2]]).strip()
        ):
            prev = ops[-2]
            ops[-2:] = [("replace", prev[1], op[2], prev[3], op[4])]
        elif ops and op[0] != "equal" and ops[-1][0] != "equal":
            prev = ops.pop()
            ops.append(("replace", prev[1], op[2], prev[3], op[4]))
        else:
            ops.append(op)
    return ops


def classify(old: tuple[str, str, str, str], new: tuple[str, str, str, str]) -> list[str]:
    """Kinds of change between two versions given their (text, folded, masked, examples)
    hashes: wording and/or examples, else reference, else typography; [] if equal."""
    text, folded, masked, examples = range(4)
    kinds = []
    if old[masked] != new[masked]:
        kinds.append("wording")
    if old[examples] != new[examples]:
        kinds.append("examples")
    if not kinds and old[folded] != new[folded]:
        kinds.append("reference")
    if old[folded] == new[folded] and old[text] != new[text]:
        kinds.append("typography")
    return kinds


def is_noise(kinds: list[str]) -> bool:
    """Changes that renumber references or fix typography only: counted apart, folded."""
    return bool(kinds) and all(k in NOISE for k in kinds)
