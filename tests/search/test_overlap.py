"""The words a question shares with a passage (search.semantic.overlap): pure, no database."""

from __future__ import annotations

from search.semantic.overlap import Overlap, terms

PASSAGES = [
    "Trample. If all the creatures blocking it are removed from combat, all its damage is "
    "assigned to the player.",
    "Trample. The controller of an attacking creature with trample first assigns damage to "
    "the creatures blocking it.",
    "Deathtouch. Any nonzero amount of combat damage assigned to a creature by a source with "
    "deathtouch is considered to be lethal damage.",
    "Flying. A creature with flying can't be blocked except by creatures with flying.",
    "Haste. A creature with haste can attack as soon as it comes under its controller's control.",
]


def test_terms_are_folded_stemmed_and_without_stop_words():
    assert terms("The blockers were REMOVED from combat") == {"blocker", "remov", "combat"}
    assert terms("Détruire à nouveau") == {"detruir", "nouveau"}


def test_rarer_shared_words_weigh_more():
    overlap = Overlap(PASSAGES)
    asked = terms("blocking creature removed, does trample still hit the player?")
    scores = [overlap.score(asked, i) for i in range(len(PASSAGES))]
    assert scores[0] > scores[1] > scores[2] == 0.0
    # "trample" is in two of five passages, "removed" in one: the rarer counts more.
    assert overlap.weight["remov"] > overlap.weight["trampl"]
