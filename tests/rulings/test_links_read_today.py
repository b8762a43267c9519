"""The rulings' "number today", the keywords in force and the French worklist read the release
in force today, not a release loaded to come (issue 31), on the real archive: on 2026-07-01
the release in force is 2026-06-19 and 2026-08-07 is still to come."""

from __future__ import annotations

import datetime as dt

import pytest

from kb.french.status import rule_french_states
from kb.models import Release, RuleVersion
from rulings.linking.lineage_numbers import Numbers
from rulings.vocabulary.mining import keywords_in_force

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

IN_FORCE, TO_COME = dt.date(2026, 6, 19), dt.date(2026, 8, 7)


@pytest.fixture
def before_next(archive, settings):
    settings.KB_TODAY = "2026-07-01"
    assert Release.objects.current().effective_date == IN_FORCE
    assert Release.objects.order_by("effective_date").last().effective_date == TO_COME


def test_the_number_today_is_the_number_in_force(before_next):
    assert Numbers().current == IN_FORCE


def test_the_keywords_in_force_are_today_s(before_next):
    # 701.70 Recruit and 702.195 Storied come with 2026-08-07.
    names = {k.name for k in keywords_in_force()}
    assert "Trample" in names and not {"Recruit", "Storied"} & names
    assert {"Recruit", "Storied"} <= {k.name for k in keywords_in_force(TO_COME)}


def test_the_french_worklist_defaults_to_the_release_in_force(before_next):
    states = rule_french_states()
    in_force = set(RuleVersion.objects.as_of(IN_FORCE).values_list("id", flat=True))
    assert states and set(states) <= in_force
    only_to_come = set(RuleVersion.objects.as_of(TO_COME).values_list("id", flat=True)) - in_force
    assert only_to_come and not (only_to_come & set(states))
