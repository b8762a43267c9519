"""Issue 31, point 2: the publish preview names every piece of maintainers' work a release
touches, French texts included, and what becomes stale; and says when the release will not be
in force yet. On the real archive, through the admin's upload page (the preview is the real
import, rolled back).

What failed before: the preview read only rule and glossary rows' own French texts and English
corrections on the release before the new one, so a French example, or a French text on a later
row that a held-back release now also carries, left it saying "This release touches no
maintainer's work"; and it never said when a release dated in the future takes effect.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.contrib.auth.models import Group, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from kb.archive import editing
from kb.archive.importer import Importer
from kb.archive.publishing import not_yet_in_force, preview_release
from kb.models import Example, GlossaryVersion, Release, RuleNumber, RuleVersion
from roles.groups import MAINTAINERS
from tests.conftest import CR_EN

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

LATEST = dt.date(2026, 8, 7)
HELD_BACK = dt.date(2026, 6, 19)
PUBLISH = "/admin/kb/release/publish/"
NONE = 'id="publish-maintainer-none"'  # "This release touches no maintainer's work."


def rule_row(number: str, date: dt.date) -> RuleVersion:
    lineage = RuleNumber.objects.as_of(date).get(number=number).lineage_id
    return RuleVersion.objects.as_of(date).get(lineage_id=lineage)


def maintainer() -> Client:
    user = User.objects.create_user("mai", is_staff=True)
    user.groups.add(Group.objects.get(name=MAINTAINERS))
    client = Client()
    client.force_login(user)
    return client


def upload(client: Client, text: str) -> str:
    data = {"file": SimpleUploadedFile("rules.txt", text.encode("utf-8"))}
    response = client.post(PUBLISH, data)
    assert response.status_code == 200
    return response.content.decode()


def rows_of(page: str) -> list[tuple[str, str, str, str, str]]:
    """The maintainers' table: (class, rule or term, work, fate, why)."""
    return re.findall(
        r'<tr class="(\w+)"><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td>',
        page.split('id="publish-maintainer"', 1)[-1].split("</table>", 1)[0],
    )


def next_release_text() -> str:
    """The latest real release dated 2099-01-24, with 602.2b reworded, the first example of
    613.6 reworded and the glossary's "Activated Ability" reworded."""
    text = (CR_EN / f"{LATEST.isoformat()}.txt").read_text(encoding="utf-8")
    text = re.sub(
        r"effective as of \w+ \d+, \d{4}", "effective as of January 24, 2099", text, count=1
    )
    text = text.replace("is identical to the process", "is the same as the process")
    first = re.search(r"^613\.6\. .*\n(Example: .*)$", text, re.M).group(1)
    text = text.replace(first, first + " Reworded.", 1)
    return text.replace(
        "A kind of ability. Activated abilities are written as",
        "A kind of ability, reworded. Activated abilities are written as",
        1,
    )


def test_the_preview_names_french_texts_of_rules_examples_and_terms_and_what_goes_stale(
    archive,
) -> None:
    editing.edit_rule_version(version=rule_row("602.2b", LATEST), user="ann", text_fr="Fr 2b.")
    first = Example.objects.get(version=rule_row("613.6", LATEST), position=0)
    editing.edit_example(example=first, user="ann", text_fr="Exemple : traduit par Ann.")
    term = GlossaryVersion.objects.as_of(LATEST).get(headword="Activated Ability")
    editing.edit_glossary_version(version=term, user="ann", text_fr="Capacité activée.")
    unchanged = rule_row("602.2a", LATEST)  # the new text leaves it as it is: nothing to say
    editing.edit_rule_version(version=unchanged, user="ann", text_fr="Inchangé.")
    page = upload(maintainer(), next_release_text())
    assert NONE not in page
    stays = "stays with the earlier releases (the new text has none)"
    stale = "becomes stale: the new release changes the English it translates"
    assert rows_of(page) == [
        ("stale", "602.2b", "French text (unofficial)", stays, f"{stale} (wording)"),
        ("stale", "613.6", "example 1 French text", stays, f"{stale} (examples)"),
        (
            "stale",
            "Activated Ability",
            "glossary French text (unofficial)",
            stays,
            f"{stale} (wording)",
        ),
    ]
    assert 'id="publish-future"' in page  # dated 2099


def test_a_held_back_release_names_the_french_text_it_now_carries_too(archive) -> None:
    """2026-06-19 published after 2026-08-07 (removed first, as a release held back): its
    205.3h reads as 2026-08-07's, whose French a maintainer wrote; the French now applies to
    2026-06-19 as well, and the preview says so (it compared with 2026-04-17, where 205.3h has
    no French, and said the release touched nobody's work)."""
    Importer().remove(HELD_BACK)
    later = rule_row("205.3h", LATEST)
    editing.edit_rule_version(version=later, user="ann", text_fr="Les enchantements ont…")
    preview = preview_release(
        data=(CR_EN / f"{HELD_BACK.isoformat()}.txt").read_bytes(), source="x.txt"
    )
    items = [(m.where, m.what, m.fate) for m in preview.maintainer]
    assert items == [
        (
            "205.3h",
            "French text (unofficial)",
            "now also applies to the new release (the same official text)",
        )
    ]
    assert preview.compared_with == dt.date(2026, 4, 17) and not preview.replaces
    assert "205.3h" in [c.number for c in preview.changed]
    assert not preview.future  # in force since 2026-06-19
    assert not Release.objects.filter(effective_date=HELD_BACK).exists()  # rolled back


def test_a_release_in_the_future_is_said_not_to_be_in_force_yet(archive) -> None:
    client = maintainer()
    page = upload(client, next_release_text())
    assert (
        "This release takes effect on 2099-01-24: it will not be in force until that date" in page
    )
    past = (CR_EN / f"{HELD_BACK.isoformat()}.txt").read_text(encoding="utf-8")
    page = upload(client, past.replace("Example: ", "Example:  ", 1))  # a replacement
    assert "Replace the release effective 2026-06-19" in page
    assert 'id="publish-future"' not in page and "will not be in force" not in page
    assert not_yet_in_force(dt.date(2026, 8, 8), today=dt.date(2026, 8, 7))
    assert not not_yet_in_force(dt.date(2026, 8, 7), today=dt.date(2026, 8, 7))
