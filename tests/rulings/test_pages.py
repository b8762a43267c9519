"""Card pages, the rulings panel on rule pages and the cards API, on the real data."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.kb.helpers import page_queries

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@pytest.fixture
def client(cards) -> Client:
    return Client()


queries = page_queries  # warm caches, then the least of two reads


def test_card_page_names_texts_symbols_and_rulings_in_context(client: Client) -> None:
    html = client.get("/en/cards/acorn-catapult/").content.decode()
    assert "Acorn Catapult" in html and "Catapulte à glands" in html
    assert 'lang="fr"' in html
    assert 'role="img"' in html  # {T} and {1} drawn as symbols
    assert "2 rulings" in html
    # The release in force on 2011-09-22, linked.
    assert 'href="/en/2011-07-15/rules/"' in html
    # The rule it leans on, today's number, and that it was reworded since (with the diff).
    assert 'href="/en/rules/608.2b/"' in html
    assert "The rules it relies on changed since" in html
    assert 'href="/en/diff/2011-07-15..2026-08-07/?section=6#r-608.2b"' in html


def test_old_rulings_say_they_predate_the_modern_rules(client: Client) -> None:
    html = client.get("/en/cards/abeyance/").content.decode()
    assert (
        'Rules in force then: <a href="/en/2004-10-01/rules/">October 1, 2004</a>, before the '
        "Magic 2010 renumbering (July 11, 2009)"
    ) in html
    # 602 (activated abilities) and 605 (mana abilities); static and triggered abilities are
    # named only as examples of what it does not affect.
    assert html.count('class="rule-link"') >= 2


def test_a_2006_ruling_shows_the_rule_it_leaned_on_then_and_what_it_became(
    client: Client,
) -> None:
    """Issue 36: links point at today's rules; before Magic 2010 the number shown for then is
    that of the legacy rule today's came from (kb.archive.eras), in the release of the day."""
    html = client.get("/en/cards/abyssal-nocturnus/").content.decode()
    assert '<a class="rule-link" href="/en/rules/603/"' in html
    assert '(then <a href="/en/2006-02-01/rules/410/">410</a>)' in html
    # "Changed since" leads to where the history page shows the legacy rule, not to a diff
    # of releases across the renumbering (which matches nothing).
    assert '(<a href="/en/rules/603/history/#era-before">see the changes</a>)' in html
    history = client.get("/en/rules/603/history/").content.decode()
    assert 'id="era-before"' in history and '/en/2009-05-01/rules/410/">410</a>' in history


def test_most_links_of_rulings_before_2009_name_the_rule_of_their_day(cards) -> None:
    import datetime as dt

    from rulings.models import HIDDEN_KINDS, RulingLink

    old = RulingLink.objects.filter(date__lt=dt.date(2009, 7, 11)).exclude(kind__in=HIDDEN_KINDS)
    assert old.count() > 3000
    assert old.exclude(number="").count() / old.count() >= 0.8  # 3,333 of 3,889 measured
    assert not old.exclude(number="").filter(release__effective_date__gte=dt.date(2009, 7, 11))


def test_old_templating_is_flagged(client: Client) -> None:
    html = client.get("/en/cards/jeleva-nephalias-scourge/").content.decode()
    assert "Old wording: “converted mana cost” is “mana value” in the rules since" in html


def test_the_dynamo_page_links_its_rulings_to_the_rules(client: Client) -> None:
    html = client.get("/en/cards/the-peregrine-dynamo/").content.decode()
    for number in ("602", "603", "707.10", "607"):
        assert f'href="/en/rules/{number}/"' in html


def test_french_card_page_and_unknown_card(client: Client) -> None:
    html = client.get("/fr/cards/acorn-catapult/").content.decode()
    assert "2 décisions" in html and "Règles en vigueur alors" in html
    assert client.get("/en/cards/no-such-card/").status_code == 404


def test_card_search_page_finds_typos_and_french_names(client: Client) -> None:
    html = client.get("/en/cards/", {"q": "porte de la guilde d'izzet"}).content.decode()
    for slug in ("izzet-guildgate", "izzet-guildgate-a", "izzet-guildgate-b"):
        assert f'href="/en/cards/{slug}/"' in html
    html = client.get("/en/cards/", {"q": "lightnig bolt"}).content.decode()
    assert 'href="/en/cards/lightning-bolt/"' in html
    for hostile in ("\x00", "'; DROP TABLE", "<script>", "x" * 5000, "((("):
        response = client.get("/en/cards/", {"q": hostile})
        assert response.status_code == 200
        assert b"<script>" not in response.content.split(b"</form>")[1]


def test_rule_page_lists_its_rulings_newest_first_paginated(client: Client) -> None:
    html = client.get("/en/current/rules/702.19/").content.decode()
    m = re.search(r"(\d[\d,]*) rulings on this rule", html)
    assert m and int(m.group(1).replace(",", "")) > 50  # 80 when measured
    dates = re.findall(
        r'<article class="ruling[^"]*"[^>]*>\s*<p class="ruling-date"><time datetime="([\d-]+)"',
        html,
    )
    assert len(dates) == 20 and dates == sorted(dates, reverse=True)
    page2 = client.get("/en/current/rules/702.19/", {"rulings": 2}).content.decode()
    assert "page 2 of" in page2
    assert client.get("/en/current/rules/702.19/", {"rulings": "x"}).status_code == 200


def test_a_subrule_page_leads_to_the_rulings_of_its_rule_and_chapter(client: Client) -> None:
    """Most rulings are linked at the rule or chapter: 602.2a has none of its own, chapter 602
    hundreds; 702.19b's are on 702.19. The counts are those the pages above show."""
    html = client.get("/en/current/rules/602.2a/").content.decode()
    assert "No ruling is linked to this rule itself" in html
    m = re.search(r'<a href="/en/rules/602/#rulings">(\d+) rulings on chapter 602</a>', html)
    chapter = client.get("/en/rules/602/").content.decode()
    assert m and f"{m.group(1)} rulings on this chapter" in chapter and int(m.group(1)) > 400
    html = client.get("/en/2010-04-23/rules/702.19b/").content.decode()
    m = re.search(r'<a href="/en/2010-04-23/rules/702.19/#rulings">(\d+) rulings on rule', html)
    rule = client.get("/en/2010-04-23/rules/702.19/").content.decode()
    assert m and f"{m.group(1)} rulings on this rule" in rule
    assert "rulings on chapter 702" not in html  # none is linked to the chapter itself


def test_card_and_rule_pages_use_constant_queries(client: Client) -> None:
    one = queries(client, "/en/cards/abandoned-campground/")
    many = queries(client, "/en/cards/experimental-lab-staff-room/")  # 32 rulings
    assert one == many
    # Two chapters with cross-references: a few dozen rulings, and thousands.
    few = queries(client, "/en/current/rules/607/")
    lots = queries(client, "/en/current/rules/603/")
    assert few == lots
    # A subrule's panel with none of its own: no count, no rulings read, whatever the number
    # above it (525 on chapter 602, 99 on rule 702.19): the counts per rule are kept per data
    # state, so the panel reads only the three stamps they are kept under (cards and
    # rulings, the archive for the counts and for the headings). The panel alone: the pages'
    # own reads differ with their references.
    assert _panel_queries("602.2a") == _panel_queries("702.19b") == 3


def _panel_queries(number: str) -> int:
    from django.test import RequestFactory

    from kb import hooks, selectors
    from kb.models import RuleNumber
    from rulings.hooks import rulings_on_this_rule

    releases = selectors.Releases.load()
    current = releases.current
    lineage = RuleNumber.objects.as_of(current.effective_date).get(number=number).lineage_id
    page = hooks.RulePage(
        RequestFactory().get(f"/en/rules/{number}/"), lineage, number, current, True, releases
    )
    rulings_on_this_rule(page)  # warm per-process caches
    with CaptureQueriesContext(connection) as ctx:
        assert rulings_on_this_rule(page) is not None
    return len(ctx.captured_queries)


def test_keyword_rules_and_glossary_show_the_french_term(client: Client) -> None:
    html = client.get("/en/current/rules/702.19/").content.decode()
    assert '<span class="fr-term" lang="fr"' in html and "Piétinement" in html
    html = client.get("/fr/current/glossary/").content.decode()
    assert "capacité activée" in html
    html = client.get("/en/current/rules/702/").content.decode()
    for fr in ("Contact mortel", "Parade", "Vol", "Lien de vie"):
        assert fr in html


def test_api_card_with_rulings_links_and_context(client: Client) -> None:
    bolt = client.get("/api/v1/cards/4457ed35-7c10-48c8-9776-456485fdf070").json()
    assert bolt["name_en"] == "Lightning Bolt" and bolt["slug"] == "lightning-bolt"
    data = client.get("/api/v1/cards/acorn-catapult").json()
    assert data["name_fr"] == "Catapulte à glands"
    ruling = next(r for r in data["rulings"] if "illegal target" in r["text"])
    link = next(r for r in ruling["rules"] if r["number"] == "608.2b")
    assert link["changed_since"] == "2018-04-27"
    assert link["diff_url"].endswith("/en/diff/2011-07-15..2026-08-07/?section=6#r-608.2b")
    assert ruling["predates_modern_rules"] is False
    assert data["oracle_id"] is None  # an MTGJSON v3 record: keyed by its name
    assert client.get("/api/v1/cards/nothing-like-this").status_code == 404


def test_api_search_autocomplete_and_rule_rulings(client: Client) -> None:
    names = client.get("/api/v1/cards/autocomplete", {"q": "foudre"}).json()
    assert names[0]["name_en"] == "Lightning Bolt" and names[0]["lang"] == "fr"
    assert len(client.get("/api/v1/cards/autocomplete", {"q": "a"}).json()) <= 20
    assert client.get("/api/v1/cards", {"q": "\x00<>\"'"}).status_code == 200
    page = client.get("/api/v1/rules/702.19/rulings").json()
    assert page["count"] > 50 and len(page["rulings"]) == 50
    dates = [r["date"] for r in page["rulings"]]
    assert dates == sorted(dates, reverse=True)
    assert client.get("/api/v1/rules/999.9/rulings").status_code == 404
    assert client.get("/api/v1/rules/not-a-rule/rulings").status_code in (400, 404)


def test_each_link_shows_its_evidence_on_hover_and_focus(client: Client) -> None:
    """The words that made a link, in a tooltip tied to the link (aria-describedby), so it
    shows on hover and on keyboard focus and screen readers read it; in both languages."""
    html = client.get("/en/cards/teferis-protection/").content.decode()
    links = re.findall(
        r'<a class="rule-link" href="/en/rules/702\.26/" aria-describedby="(evidence-[\d-]+)">'
        r'702\.26</a><span class="evidence" role="tooltip" id="\1">([^<]*)</span>',
        html,
    )
    assert len(links) == 13
    assert all(
        text == "Linked by the words “The following rulings focus on the phasing keyword”"
        for _id, text in links
    )
    fr = client.get("/fr/cards/teferis-protection/").content.decode()
    heading = "The following rulings focus on the phasing keyword"
    assert f"Lié par les mots «\u00a0{heading}\u00a0»" in fr
