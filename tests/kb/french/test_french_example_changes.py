"""The examples' part of the stale diff (kb.french.status.example_changes): what a translator
must update besides the rule's text."""

from __future__ import annotations

from kb.french.status import example_changes


def test_added_removed_and_reworded_examples_are_told_apart() -> None:
    old = ["A 2/2 blocks.", "Opt scries 1.", "The token is named Boo."]
    new = ["An extra example first.", "A 2/2 blocks.", "The token is called Boo.", "Last."]
    changes = example_changes(old, new)
    assert [c for c, _ in changes] == ["added", "removed", "reworded", "added"]
    assert str(changes[2][1]) == "The token is <del>named</del><ins>called</ins> Boo."
    assert str(changes[1][1]) == "<del>Opt scries 1.</del>"
    added = [str(d) for c, d in changes if c == "added"]
    assert added[0] == "<ins>An extra example first.</ins>"


def test_typography_alone_is_no_change_and_equal_lists_give_nothing() -> None:
    assert example_changes(["It says \u201cgo.\u201d"], ['It says "go."']) == []
    assert example_changes([], []) == []
    assert example_changes(["One."], []) == [("removed", "<del>One.</del>")]
