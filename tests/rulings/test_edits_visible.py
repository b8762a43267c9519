"""A ruling corrected in the admin shows right after save (issue 12), on the full archive and
the real cards: on its card's page, in the rulings panel of the rule it is linked to, and in search.

The admin POST is the form as rendered; the commit hooks run as after a request's commit, then
the index drains (KB_SEARCH_AUTO_DRAIN is off in tests). Pages are read through the page cache
as another worker would (tests/kb/web/test_edits_visible.py: read and kept before the edit, never
purged, read twice after it). The on-disk index outlives the test's transaction: the source
text is put back through the same service and drained again."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.contrib.auth.models import User
from django.db.models import Count
from django.test import Client
from django.urls import reverse

from kb.models import RuleNumber
from rulings.corrections import save_card, save_ruling
from rulings.models import Card, LinkKind, Ruling, RulingLink
from search.indexing import drain
from tests.kb.html_forms import form_values
from tests.kb.web.test_edits_visible import another_workers_page_cache, cached_read, search

__all__ = ["another_workers_page_cache"]  # the fixture, used by every test here

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

MARK = "Snorgleplume"  # a word no card, ruling or rule uses


def a_linked_ruling() -> tuple[Ruling, str]:
    """A ruling linked to a current rule that has the fewest rulings (the rule page's panel
    then lists it on its first page)."""
    shown = RulingLink.objects.exclude(kind=LinkKind.REJECTED).exclude(current_number="")
    quiet = (
        shown.filter(ruling__missing=False, ruling__is_heading=False)
        .values("lineage_id")
        .annotate(n=Count("id"))
        .order_by("n", "lineage_id")
        .first()
    )
    assert quiet is not None
    link = (
        shown.filter(lineage_id=quiet["lineage_id"], ruling__missing=False)
        .select_related("ruling__card")
        .order_by("id")
        .first()
    )
    return link.ruling, link.current_number


def test_a_ruling_edit_shows_on_the_card_the_rule_and_in_search(
    search_index, django_capture_on_commit_callbacks
) -> None:
    staff = Client()
    staff.force_login(User.objects.create_superuser("maintainer", "m@example.org", "x"))
    ruling, number = a_linked_ruling()
    original = ruling.text
    edited = f"{original} {MARK}."
    card_url = reverse("rulings:card", args=[ruling.card.slug])
    assert MARK not in cached_read(card_url)
    assert MARK not in cached_read(f"/en/rules/{number}/")
    url = reverse("admin:rulings_ruling_change", args=[ruling.pk])
    data = form_values(staff.get(url).content.decode(), "ruling_form")
    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(url, {**data, "text": edited})
    assert response.status_code == 302, response.content.decode()[:3000]
    drain()
    try:
        assert edited in unescape(cached_read(card_url))
        rule = cached_read(f"/en/rules/{number}/")
        assert MARK in rule, f"the rulings panel of {number} does not show the edit"
        hits = search(MARK, "en", kind="ruling")
        assert hits and hits[0]["card"] == ruling.card.name_en
    finally:
        ruling.refresh_from_db()
        ruling.text = original
        save_ruling(ruling=ruling, changed=["text"])
        drain()
    assert not search(MARK, "en", kind="ruling")


def test_a_card_french_name_edit_shows_on_its_pages(
    search_index, django_capture_on_commit_callbacks
) -> None:
    """A maintainer corrects a card's French name: its French page, the English one (which
    names it in French too) and the card search follow at once."""
    staff = Client()
    staff.force_login(User.objects.create_superuser("maintainer", "m@example.org", "x"))
    card = Card.objects.exclude(name_fr="").order_by("id").first()
    assert card is not None
    original = card.name_fr
    renamed = f"{original} {MARK}"
    french_url = f"/fr/cards/{card.slug}/"
    english_url = f"/en/cards/{card.slug}/"
    assert MARK not in cached_read(french_url) and MARK not in cached_read(english_url)
    url = reverse("admin:rulings_card_change", args=[card.pk])
    data = form_values(staff.get(url).content.decode(), "card_form")
    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(url, {**data, "name_fr": renamed})
    assert response.status_code == 302, response.content.decode()[:3000]
    drain()
    try:
        assert renamed in unescape(cached_read(french_url))
        assert renamed in unescape(cached_read(english_url))
        found = Client().get("/api/v1/cards", {"q": renamed})
        assert found.status_code == 200 and renamed in str(found.json())
    finally:
        card.refresh_from_db()
        card.name_fr = original
        save_card(card=card, changed=["name_fr"])
        drain()
    assert MARK not in cached_read(french_url)


def test_a_rejected_link_leaves_its_rules_counts_at_once(
    cards, django_capture_on_commit_callbacks
) -> None:
    """The rulings panel's counts (the rule's own, and those of the rule and chapter above a
    subrule) are kept per data state (rulings.selectors.link_counts): a maintainer's decision
    moves them on the next read."""
    from rulings.corrections import decide_links

    link = (
        RulingLink.objects.exclude(kind=LinkKind.REJECTED)
        .filter(current_number__regex=r"^\d{3}\.\d+$", ruling__missing=False)
        .order_by("id")
        .first()
    )
    rule = link.current_number
    subrule = RuleNumber.objects.filter(
        valid_to__isnull=True, kind="subrule", number__startswith=f"{rule}a"
    ).first()
    shown = RulingLink.objects.exclude(kind=LinkKind.REJECTED).filter(lineage_id=link.lineage_id)
    before = shown.count()

    def counts() -> tuple[str, str]:
        title = re.search(r'<h2 id="rulings-title">(.*?)</h2>', cached_read(f"/en/rules/{rule}/"))
        above = ""
        if subrule is not None:
            page = cached_read(f"/en/rules/{subrule.number}/")
            found = re.search(rf"(\d+) rulings? on rule {re.escape(rule)}\b", page)
            above = found.group(1) if found else "0"
        return unescape(title.group(1)), above

    assert counts() == (
        f"{before} ruling{'s' if before > 1 else ''} on this rule",
        str(before) if subrule is not None else "",
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert decide_links(links=[link], kind=LinkKind.REJECTED) == 1
    after = before - 1
    own = (
        f"{after} ruling{'s' if after > 1 else ''} on this rule"
        if after
        else "No ruling is linked to this rule itself"
    )
    assert counts() == (own, (str(after) if after else "0") if subrule is not None else "")
