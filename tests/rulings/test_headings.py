"""Gatherer's separator lines are headings over a card's rulings, not rulings: how rulings are
grouped under them (pure), and on the real data Teferi's Protection, the only card with them."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client

from rulings.importing.headings import Row, group_rulings, groups, heading_title, heading_topic
from rulings.models import Card, Ruling

DAY = dt.date(2017, 8, 25)
PROTECTION = '---------- The following rulings focus on the "protection from" keyword ----------'
PHASING = "---------- The following rulings focus on the phasing keyword ----------"
LIFE = "---------- The following rulings focus on what it means if your life total can't change ----------"  # noqa: E501


def test_a_separator_line_is_a_heading_with_a_topic() -> None:
    assert heading_title(PHASING) == "The following rulings focus on the phasing keyword"
    assert heading_topic(PHASING) == "the phasing keyword"
    assert heading_title("Phasing out doesn't cause any abilities to trigger.") is None
    assert heading_title("It costs {1}—-{2} less.") is None


def test_rulings_follow_their_heading_when_the_source_kept_the_order() -> None:
    rows = [
        Row(1, DAY, "A card-specific ruling."),
        Row(2, DAY, PROTECTION),
        Row(3, DAY, "Something about damage."),
        Row(4, DAY, PHASING),
        Row(5, DAY, "Something about tokens."),
    ]
    assert groups(rows) == {1: None, 3: 2, 5: 4}


def test_rulings_sorted_by_text_go_under_the_topic_they_name_first() -> None:
    """The shared data (like Scryfall) sorts a card's rulings by text: the headings come
    first, together, and each ruling is placed by the topic it names."""
    rows = [
        Row(1, DAY, PROTECTION),
        Row(2, DAY, PHASING),
        Row(3, DAY, LIFE),
        Row(4, DAY, "Any creatures that phase in under your control can attack."),
        Row(5, DAY, "Gaining protection from everything causes an illegal target."),
        Row(6, DAY, "If an effect would set your life total to a number, nothing happens."),
        Row(7, DAY, "If your untap step is skipped, phased-out permanents won't phase in and "
            "you'll no longer have protection from everything."),
        Row(8, DAY, "Nothing here names a topic."),
        Row(9, dt.date(2020, 1, 1), "Phasing, but another day: not under these headings."),
    ]  # fmt: skip
    assert groups(rows) == {4: 2, 5: 1, 6: 3, 7: 2, 8: None, 9: None}


@pytest.mark.slow
@pytest.mark.django_db
class TestTeferisProtection:
    """The three headings of the shared data, all on Teferi's Protection."""

    @pytest.fixture
    def card(self, cards) -> Card:
        return Card.objects.get(name_en="Teferi's Protection")

    def test_the_headings_are_marked_and_not_counted(self, card: Card) -> None:
        headings = Ruling.objects.filter(is_heading=True)
        assert set(headings.values_list("card__name_en", flat=True)) == {"Teferi's Protection"}
        assert headings.count() == 3
        assert card.rulings.count() == 27 and card.rulings.proper().count() == 24
        # Every ruling under the phasing heading talks about phasing.
        phasing = card.rulings.get(text=PHASING)
        under = list(phasing.grouped.values_list("text", flat=True))
        assert len(under) == 13
        assert all("phas" in text.casefold() for text in under)

    def test_phasing_rulings_lean_on_702_26_with_the_heading_as_evidence(self, card: Card) -> None:
        ruling = card.rulings.get(text__startswith="Permanents that phase out with counters")
        link = ruling.links.get(current_number="702.26")
        assert link.evidence == heading_title(PHASING)
        life = card.rulings.get(text__startswith="If an effect would set your life total")
        assert "119" in set(life.links.values_list("current_number", flat=True))
        # Headings have no links of their own.
        assert not Ruling.objects.filter(is_heading=True, links__isnull=False).exists()

    def test_the_card_page_shows_headings_over_their_rulings(self, card: Card) -> None:
        html = Client().get(f"/en/cards/{card.slug}/").content.decode()
        assert "24 rulings" in html
        assert html.count('class="ruling-group-heading"') == 3
        assert "-----" not in html  # no separator shown as a ruling
        phasing = html.index("focus on the phasing keyword</h3>")
        after = html[phasing : html.index("</section>", phasing)]
        assert "Permanents that phase out with counters" in after
        assert "Gaining protection from everything" not in after

    def test_the_api_and_the_search_index_leave_headings_out(self, card: Card) -> None:
        from rulings.documents import ruling_documents

        data = Client().get(f"/api/v1/cards/{card.slug}").json()
        assert len(data["rulings"]) == 24
        assert not any(r["text"].startswith("---") for r in data["rulings"])
        assert sum(r["heading"].endswith("phasing keyword") for r in data["rulings"]) == 13
        texts = [d.bodies["en"] for d in ruling_documents([str(card.pk)])]
        assert len(texts) == 24 and not any(t.startswith("---") for t in texts)

    def test_regrouping_is_idempotent_and_keeps_a_maintainers_grouping(self, card: Card) -> None:
        assert group_rulings([card.pk]) == []  # already grouped: nothing changes
        moved = card.rulings.get(text__startswith="Permanents that phase out with counters")
        moved.group = None
        moved.grouped_by_hand = True
        moved.save()
        assert group_rulings([card.pk]) == []
        moved.refresh_from_db()
        assert moved.group is None and moved.grouped_by_hand
