"""Losses of issue 12 that no other test covered, each proven fixed on the demo archive:

* a one-rule erratum replaced with `import_rules --replace` re-created the rule's lineage and
  dropped the confirmed ruling link to it;
* `check_index` crashed on a malformed glossary aliases value;
* a release's date could be moved from the admin, and a rule version moved to another lineage.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import reverse

from kb.models import GlossaryVersion, Lineage, Release, RuleVersion
from rulings.corrections import decide_links
from rulings.models import LinkKind, Ruling, RulingLink
from search.indexing import check, rebuild
from tests.kb.archive.test_editing import CURRENT, _replaced, demo, staff, version_of  # noqa: F401
from tests.kb.helpers import run
from tests.kb.html_forms import form_values
from tests.rulings.helpers import clear_cards
from tests.rulings.test_import import BOLT, write_jsonl

pytestmark = pytest.mark.django_db


@pytest.fixture
def bolt_ruling(demo, tmp_path: Path) -> Ruling:  # noqa: F811
    clear_cards()
    run("import_cards", write_jsonl(tmp_path / "cards.jsonl", BOLT), "--no-link")
    return Ruling.objects.order_by("date").first()


def test_an_erratum_replace_keeps_the_confirmed_link_and_its_lineage(
    bolt_ruling: Ruling, tmp_path: Path, django_capture_on_commit_callbacks
) -> None:
    lineage = version_of("602.2a").lineage_id
    link = RulingLink.objects.create(ruling=bolt_ruling, lineage_id=lineage, number="602.2a")
    decide_links(links=[link], kind=LinkKind.CONFIRMED)
    erratum = _replaced(
        tmp_path, "announces that they are activating", "announces they are activating"
    )
    with django_capture_on_commit_callbacks(execute=True):  # as after the command's commit
        run("import_rules", str(erratum), "--replace")
    new = version_of("602.2a")
    assert new.text_en.startswith("The player announces they are activating")  # the erratum
    assert new.lineage_id == lineage and Lineage.objects.filter(pk=lineage).exists()
    kept = RulingLink.objects.get(pk=link.pk)
    assert (kept.kind, kept.lineage_id) == (LinkKind.CONFIRMED, lineage)
    assert kept.current_number == "602.2a"


def test_check_index_survives_a_malformed_aliases_value(demo, tmp_path: Path) -> None:  # noqa: F811
    clear_cards()  # the demo archive alone: the session's cards would make each rebuild minutes
    with override_settings(KB_INDEX_DIR=tmp_path / "index"):
        rebuild()
        assert check().clean
        GlossaryVersion.objects.update(aliases=[1, {"a": 2}])  # stored by older code
        result = check()  # read, compared, reported: no crash
        assert result.outbox == 0
        try:
            call_command("check_index", verbosity=0)
            code = 0
        except SystemExit as exc:  # the command's "not up to date" exit
            code = exc.code
        assert code == (0 if result.clean else 1)  # a report, not a traceback
        rebuild()
        assert check().clean


def test_a_release_date_cannot_be_moved_from_the_admin(staff: Client) -> None:  # noqa: F811
    release = Release.objects.get(effective_date=CURRENT)
    url = reverse("admin:kb_release_change", args=[release.pk])
    page = staff.get(url).content.decode()
    assert 'name="effective_date"' not in page
    data = form_values(page, "release_form")
    response = staff.post(url, {**data, "effective_date": "2025-06-07"})
    assert response.status_code == 302
    assert Release.objects.get(pk=release.pk).effective_date == CURRENT


def test_a_rule_version_cannot_be_moved_to_another_lineage(staff: Client) -> None:  # noqa: F811
    version = version_of("602.2a")
    target = Lineage.objects.exclude(pk=version.lineage_id).first().pk
    url = reverse("admin:kb_ruleversion_change", args=[version.pk])
    data = form_values(staff.get(url).content.decode(), "ruleversion_form")
    assert "lineage" not in data
    response = staff.post(url, {**data, "lineage": str(target)})
    assert response.status_code == 302
    assert RuleVersion.objects.get(pk=version.pk).lineage_id == version.lineage_id


@pytest.mark.parametrize("model", ["ruleversion", "glossaryversion", "release"])
def test_english_and_french_are_tabs_not_stacked_textareas(staff: Client, model: str) -> None:  # noqa: F811
    """The loss "French and English texts are stacked plain textareas, not tabs": the forms
    carry modeltranslation's per-language classes and load its tabs script and jQuery UI from
    the site's own static files."""
    obj = {
        "ruleversion": lambda: version_of("602.2a"),
        "glossaryversion": lambda: GlossaryVersion.objects.first(),
        "release": lambda: Release.objects.get(effective_date=CURRENT),
    }[model]()
    page = staff.get(reverse(f"admin:kb_{model}_change", args=[obj.pk])).content.decode()
    assert "modeltranslation/js/tabbed_translation_fields.js" in page
    assert "/static/vendor/jquery-ui-1.13.2/jquery-ui.min.js" in page
    assert "googleapis" not in page
    field = "set_name" if model == "release" else "text"
    for lang in ("en", "fr"):
        assert f"mt-field-{field}-{lang}" in page, lang
