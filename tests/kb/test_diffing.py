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
