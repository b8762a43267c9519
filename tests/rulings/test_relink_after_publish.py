"""Issue 31, point 3: the rulings a published release touches are relinked as part of the
publish, not at the next start.

Before: an import only re-resolved the numbers links record; `make run`'s load_site_data then
saw a release imported after the rulings were linked and relinked all 43,774 of them (336 s on
the issue's machine), while `make serve` never did: two deployments, two sets of links. Now the
import's commit sends kb.signals.rules_changed with the lineages it changed, and the rulings app
relinks the rulings whose links those can move (rulings.linking.changed).

On the real archive and cards: the latest release is removed and published again through the
service (as the admin does); afterwards every ruling's links are those a full link of the
archive gave (the session's), only a small part of the rulings was relinked, and nothing is
left for the next start to relink. A French-only edit relinks nothing.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from kb.archive import editing
from kb.archive.importer import Importer
from kb.archive.publishing import publish_release
from kb.models import RuleNumber, RuleVersion
from rulings.linking import changed, rules_changed_since_linking
from rulings.models import Ruling, RulingLink
from tests.conftest import CR_EN

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

LATEST = dt.date(2026, 8, 7)


def links() -> set[tuple]:
    """Every link by what it says (lineage ids of rules the release adds are new ones after a
    publish: the number names them)."""
    return set(
        RulingLink.objects.values_list("ruling_id", "kind", "evidence", "number", "current_number")
    )


@pytest.fixture
def relinked(monkeypatch) -> list[int]:
    """How many rulings each relink after a change of the rules linked."""
    counts: list[int] = []
    real = changed.link_rulings

    def counting(ids, linker=None):
        done = real(ids, linker)
        counts.append(done)
        return done

    monkeypatch.setattr(changed, "link_rulings", counting)
    return counts


def test_a_publish_relinks_the_rulings_it_touches_and_leaves_nothing_for_the_next_start(
    cards, relinked, django_capture_on_commit_callbacks
) -> None:
    before = links()
    # 2026-08-07 rewords and renumbers rules of chapter 310 (Battles): the rulings linked to
    # the chapter by its words lean on what changed.
    battles = RuleNumber.objects.as_of(LATEST).get(number="310").lineage_id
    on_battles = Ruling.objects.filter(links__lineage_id=battles)
    assert on_battles.exists()
    with django_capture_on_commit_callbacks(execute=True):  # as after the commit
        Importer().remove(LATEST)
    started = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        publish_release(path=CR_EN / f"{LATEST.isoformat()}.txt", user="mai")
    total = Ruling.objects.count()
    assert len(relinked) == 2 and all(0 < n < total // 10 for n in relinked), relinked
    # The rulings on the rules it changed were linked by the publish, against its text.
    assert on_battles.exists() and not on_battles.filter(linked_at__lt=started).exists()
    assert links() == before  # what a full link of the same archive gives
    # The next start (load_site_data's rulings loader) has nothing to relink.
    assert not rules_changed_since_linking()
    assert not Ruling.objects.filter(linked_at=None).exists()


def test_a_french_only_edit_relinks_nothing(cards, django_capture_on_commit_callbacks) -> None:
    lineage = RuleNumber.objects.as_of(LATEST).get(number="702.19").lineage_id  # Trample
    version = RuleVersion.objects.as_of(LATEST).get(lineage_id=lineage)
    linked = Ruling.objects.filter(links__lineage_id=lineage)
    assert linked.exists()
    stamps = dict(linked.values_list("id", "linked_at"))
    with django_capture_on_commit_callbacks(execute=True):
        editing.edit_rule_version(version=version, user="ann", text_fr="Traduit par Ann.")
    assert dict(linked.values_list("id", "linked_at")) == stamps
    with django_capture_on_commit_callbacks(execute=True):  # the English is read: relinked
        editing.edit_rule_version(version=version, user="ann", text_en=version.text_en + ".")
    assert all(at > stamps[rid] for rid, at in linked.values_list("id", "linked_at"))
