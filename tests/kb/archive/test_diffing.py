"""Word diffs and change kinds."""

import re

from kb.diffing import classify, is_noise, word_diff


def test_a_small_change_in_a_long_text_stays_small() -> None:
    old = "The player announces that he or she is activating the ability. " * 5
    new = old.replace("he or she is", "they are", 1)
    html = word_diff(old, new)
    assert html.count("<del>") == 1 and html.count("<ins>") == 1
    assert "<del>he or she is</del><ins>they are</ins>" in html


def test_every_token_is_escaped() -> None:
    html = word_diff("a <b> & c", 'a <i> & "c"')
    bare = re.sub(r"</?(?:ins|del)>", "", html)
    assert "<" not in bare and ">" not in bare
    assert bare == "a &lt;bi&gt; &amp; &quot;c&quot;"
    assert "<ins>&quot;</ins>c<ins>&quot;</ins>" in html


def test_change_kinds() -> None:
    base = ("t1", "f1", "m1", "e1")
    assert classify(base, base) == []
    assert classify(base, ("t2", "f1", "m1", "e1")) == ["typography"]
    assert classify(base, ("t2", "f2", "m1", "e1")) == ["reference"]
    assert classify(base, ("t2", "f2", "m2", "e1")) == ["wording"]
    assert classify(base, ("t2", "f2", "m2", "e2")) == ["wording", "examples"]
    assert is_noise(["reference"]) and is_noise(["typography"]) and not is_noise(["wording"])


def test_typography_folded_inside_a_changed_text() -> None:
    old = 'Spells with "Draw a card" and the word _Magic_ - say "he or she".'
    new = "Spells with “Draw a card” and the word Magic — say “they”."
    folded = word_diff(old, new, True)
    assert "<del>he or she</del><ins>they</ins>" in folded
    assert folded.count("<ins>") == 1 and folded.count("<del>") == 1
    assert "“Draw a card”" in folded and "Magic —" in folded  # shown as the new text has it
    every = word_diff(old, new)
    assert "<del>&quot;</del><ins>“</ins>" in every and every.count("<ins>") > 3


def test_shifts_fold_into_blocks_by_step_and_adjacency() -> None:
    from kb.history import DiffItem, move_blocks

    def moved(old: str, new: str, rank: int, kinds: list[str] | None = None) -> DiffItem:
        status = "changed" if kinds else "moved"
        return DiffItem(status, kinds or [], rank, old, new, "subrule", 1, 2, new, rank=rank)

    items = [
        moved("114.7c", "115.7c", 10),
        moved("114.7d", "115.7d", 11, ["typography"]),
        moved("114.8", "115.8", 12),
        moved("702.15", "702.16", 13),  # another step
        moved("702.16", "702.17", 15),  # not next to the one before
        moved("702.17", "702.19", 16, ["wording"]),  # a real change: not folded
        moved("702.18", "702.20", 17),
    ]
    blocks = move_blocks(items)
    assert [(b.first.old_number, b.last.new_number, b.count) for b in blocks] == [
        ("114.7c", "115.8", 3),
        ("702.15", "702.16", 1),
        ("702.16", "702.17", 1),
        ("702.18", "702.20", 1),
    ]
    assert blocks[0].unchanged == 2
