"""Maintainers' edits (issue 12, rules side), on the demo set: one write path, validation,
conflicts, and work that survives `import_rules --replace`."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.db import IntegrityError, transaction
from django.test import Client

from kb.archive import editing
from kb.archive.importer import Importer
from kb.models import (
    Example,
    GlossaryVersion,
    ImportRecord,
    Lineage,
    Reference,
    Release,
    RuleNumber,
    RuleVersion,
    VocabularyTerm,
)
from kb.models.versioning import EDIT_FIELDS, HASH_FIELDS
from kb.signals import text_edited
from tests.kb.helpers import DEMO, clear_archive, run

pytestmark = pytest.mark.django_db
CURRENT = dt.date(2025, 6, 6)


@pytest.fixture
def demo(db) -> None:
    clear_archive()
    run("import_rules", str(DEMO))


@pytest.fixture
def staff(demo) -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("maintainer", "m@example.org", "x"))
    return client


def version_of(number: str, date: dt.date = CURRENT) -> RuleVersion:
    lineage = RuleNumber.objects.as_of(date).get(number=number).lineage_id
    return RuleVersion.objects.as_of(date).get(lineage_id=lineage)


@contextmanager
def edit_signals() -> Iterator[list[dict]]:
    """The `text_edited` signals sent while the block runs (their keyword arguments)."""
    sent: list[dict] = []
    text_edited.connect(lambda **kw: sent.append(kw), weak=False, dispatch_uid="t-edit")
    try:
        yield sent
    finally:
        text_edited.disconnect(dispatch_uid="t-edit")


def test_editing_english_recomputes_hashes_change_and_references(
    demo, django_capture_on_commit_callbacks
) -> None:
    version = version_of("602.2a")
    before = (version.text_hash, version.masked_hash)
    official = version.text_en
    with edit_signals() as sent, django_capture_on_commit_callbacks(execute=True):
        editing.edit_rule_version(
            version=version, user="ann", text_en=official + " See rule 117.1."
        )
    version.refresh_from_db()
    assert (version.text_hash, version.masked_hash) != before
    assert version.en_edited and version.source_text == official and version.edited_by == "ann"
    assert "wording" in version.change
    assert "117.1" in set(version.references.values_list("target", flat=True))
    assert sent and sent[0]["lineage_id"] == version.lineage_id and "text_en" in sent[0]["fields"]
    # Writing the official text back undoes the edit.
    editing.edit_rule_version(version=version, user="ann", text_en=official)
    version.refresh_from_db()
    assert not version.en_edited and version.source_text == "" and version.text_hash == before[0]


def test_editing_a_glossary_text_recomputes_its_hashes_change_and_references(
    demo, django_capture_on_commit_callbacks
) -> None:
    """The glossary's edit ends as a rule's does (one path): hashes, change flags and English
    references follow the new text; the rules' references are left as they were."""
    entry = GlossaryVersion.objects.as_of(CURRENT).get(headword="Activated Ability")
    before = (entry.text_hash, entry.folded_hash, entry.masked_hash, entry.examples_hash)
    official = entry.text_en
    rule_refs = set(Reference.objects.filter(glossary_version=None).values_list("id", "target"))
    with edit_signals() as sent, django_capture_on_commit_callbacks(execute=True):
        editing.edit_glossary_version(
            version=entry, user="ann", text_en=official + " See rule 117.1."
        )
    entry.refresh_from_db()
    assert entry.masked_hash != before[2] and entry.examples_hash == before[3]
    assert entry.en_edited and entry.source_text == official and entry.edited_by == "ann"
    assert set(entry.references.values_list("target", flat=True)) == {"602", "117.1"}
    assert set(Reference.objects.filter(glossary_version=None).values_list("id", "target")) == (
        rule_refs
    )
    assert [(s["kind"], s["lineage_id"], s["fields"]) for s in sent] == [
        ("glossary", entry.term_id, ("text_en",))
    ]
    editing.edit_glossary_version(version=entry, user="ann", text_en=official)
    entry.refresh_from_db()
    assert (entry.text_hash, entry.folded_hash, entry.masked_hash, entry.examples_hash) == before
    assert not entry.en_edited and set(entry.references.values_list("target", flat=True)) == {"602"}


def test_the_edit_and_hash_field_lists_are_the_models_fields() -> None:
    """EDIT_FIELDS and HASH_FIELDS, declared once beside TextVersionBase, name fields every
    row that has them declares (the importer, export and admin read them by these names)."""
    for model in (RuleVersion, GlossaryVersion, Example):
        names = {f.name for f in model._meta.get_fields()}
        assert set(EDIT_FIELDS) <= names, model
        if model is not Example:
            assert set(HASH_FIELDS) <= names, model


def test_an_added_example_changes_the_examples_hash(demo) -> None:
    version = version_of("602.2a")
    example = editing.add_example(version=version, user="ann", text_en="Example: A new one.")
    version.refresh_from_db()
    assert example.origin == "maintainer" and "examples" in version.change
    with pytest.raises(ValidationError):
        editing.add_example(version=version, user="ann", text_en="  ")


def test_admin_edit_of_french_text_shows_on_the_public_page(staff: Client) -> None:
    version = version_of("602.2a")
    url = f"/admin/kb/ruleversion/{version.pk}/change/"
    page = staff.get(url).content.decode()
    assert "vendor/jquery-ui-1.13.2/jquery-ui.min.js" in page
    assert "googleapis" not in page and "//code.jquery" not in page
    stamp = re.search(r'name="_edit_stamp" value="([^"]*)"', page).group(1)
    french = "Le joueur annonce qu’il active la capacité (texte de test)."
    response = staff.post(
        url,
        {
            "text_en": version.text_en,
            "text_fr": french,
            "fr_status": "unofficial",
            "fr_release": "",
            "_edit_stamp": stamp,
            **_empty_inline(),
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    version.refresh_from_db()
    assert version.text_fr == french and version.fr_edited
    assert version.fr_release.effective_date == CURRENT
    assert french in staff.get("/fr/rules/602.2a/").content.decode()
    assert version.get_absolute_url().endswith("/2025-06-06/rules/602.2a/")


def _empty_inline() -> dict[str, str]:
    return {
        "examples-TOTAL_FORMS": "0",
        "examples-INITIAL_FORMS": "0",
        "examples-MIN_NUM_FORMS": "0",
        "examples-MAX_NUM_FORMS": "1000",
    }


def test_a_concurrent_edit_is_a_conflict_not_a_silent_overwrite(staff: Client) -> None:
    version = version_of("602.2a")
    url = f"/admin/kb/ruleversion/{version.pk}/change/"
    page = staff.get(url).content.decode()
    stamp = re.search(r'name="_edit_stamp" value="([^"]*)"', page).group(1)
    editing.edit_rule_version(version=version, user="bob", text_fr="Texte de Bob.")
    response = staff.post(
        url,
        {
            "text_en": version.text_en,
            "text_fr": "Texte d’Ann.",
            "fr_status": "",
            "fr_release": "",
            "_edit_stamp": stamp,
            **_empty_inline(),
        },
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "Someone else changed this field" in html
    assert "Texte de Bob." in html and "Texte d’Ann." in html
    version.refresh_from_db()
    assert version.text_fr == "Texte de Bob."


def test_derived_fields_are_read_only_and_structure_is_not_editable(staff: Client) -> None:
    version = version_of("602.2a")
    page = staff.get(f"/admin/kb/ruleversion/{version.pk}/change/").content.decode()
    for name in ("text_hash", "valid_from", "valid_to", "change", "lineage"):
        assert f'name="{name}"' not in page, name
    assert staff.get("/admin/kb/importrecord/add/").status_code == 403
    record = ImportRecord.objects.first()
    assert (
        staff.post(f"/admin/kb/importrecord/{record.pk}/delete/", {"post": "yes"}).status_code
        == 403
    )
    number = RuleNumber.objects.first()
    assert (
        staff.post(f"/admin/kb/rulenumber/{number.pk}/change/", {"number": "1"}).status_code == 403
    )
    assert staff.get("/admin/kb/lineage/add/").status_code == 403
    assert staff.get("/admin/kb/release/add/").status_code == 403


def test_constraints_refuse_what_breaks_the_archive(demo) -> None:
    number = RuleNumber.objects.as_of(CURRENT).get(number="602.2a")
    with pytest.raises(IntegrityError), transaction.atomic():
        RuleNumber.objects.filter(pk=number.pk).update(number="602.2A")
    with pytest.raises(IntegrityError), transaction.atomic():
        RuleVersion.objects.filter(pk=version_of("602.2a").pk).update(valid_to=dt.date(2020, 1, 1))
    number.number = "602.2A"
    with pytest.raises(ValidationError, match=r"602\.2A"):
        number.full_clean()
    version = version_of("602.2a")
    version.valid_from = dt.date(2019, 1, 1)
    with pytest.raises(ValidationError, match="overlaps"):
        version.clean()


def test_a_malformed_aliases_value_does_not_break_pages(staff: Client) -> None:
    GlossaryVersion.objects.update(aliases=[1, {"a": 2}])
    client = Client()
    assert client.get("/en/rules/602.2a/").status_code == 200
    assert client.get("/en/current/glossary/").status_code == 200
    assert client.get("/api/v1/glossary").status_code == 200
    assert client.get("/en/search/?q=ability").status_code == 200
    from kb.documents import glossary_documents

    assert list(glossary_documents(None))
    version = GlossaryVersion.objects.first()
    page = staff.get(f"/admin/kb/glossaryversion/{version.pk}/change/").content.decode()
    stamp = re.search(r'name="_edit_stamp" value="([^"]*)"', page).group(1)
    response = staff.post(
        f"/admin/kb/glossaryversion/{version.pk}/change/",
        {
            "aliases": '[1, {"a": 2}]',
            "text_en": version.text_en,
            "text_fr": "",
            "fr_status": "",
            "fr_release": "",
            "_edit_stamp": stamp,
        },
    )
    assert response.status_code == 200
    assert "aliases must be non-empty strings" in response.content.decode()


def test_the_diff_follows_an_edit(demo) -> None:
    client = Client()
    url = "/en/diff/2024-06-07..2025-06-06/"
    assert client.get(url).status_code == 200
    version = version_of("602.2a")
    editing.edit_rule_version(
        version=version, user="ann", text_en=version.text_en + " Edited wording."
    )
    assert "Edited wording" in client.get(url).content.decode()


def test_deleting_a_release_in_the_admin_goes_through_the_removal_path(staff: Client) -> None:
    release = Release.objects.get(effective_date=dt.date(2019, 1, 25))
    response = staff.post(f"/admin/kb/release/{release.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    run("import_rules", str(DEMO / "2019-01-25.txt"))
    date = dt.date(2019, 1, 25)
    lineage = RuleNumber.objects.as_of(date).get(number="602.2a").lineage_id
    assert RuleVersion.objects.as_of(date).filter(lineage_id=lineage).count() == 1
    assert ImportRecord.objects.filter(action="removed").count() == 1


def _held_by_one_release() -> RuleVersion:
    """A rule version of the demo set that exactly one release holds (between two others)."""
    dates = sorted(Release.objects.values_list("effective_date", flat=True))
    for earlier, date, later in zip(dates, dates[1:], dates[2:], strict=False):
        version = RuleVersion.objects.filter(valid_from=date, valid_to=later).first()
        if version is not None:
            assert version.valid_from > earlier
            return version
    raise AssertionError("no version held by one release only in the demo set")


def test_removing_a_release_would_not_take_a_maintainers_work_with_it(staff: Client) -> None:
    """A French text on a version only that release holds goes with the release: the admin's
    delete is refused, naming it, and nothing changes; forced, the import record keeps it. A
    French text on a version other releases hold too stays (its interval shrinks)."""
    alone = _held_by_one_release()
    date = alone.valid_from
    editing.edit_rule_version(version=alone, user="ann", text_fr="Texte seul.")
    number = RuleNumber.objects.as_of(date).get(lineage_id=alone.lineage_id).number
    release = Release.objects.get(effective_date=date)
    page = staff.post(f"/admin/kb/release/{release.pk}/delete/", {"post": "yes"}, follow=True)
    said = page.content.decode()
    assert "removing would lose maintainers&#x27; work (1 item(s))" in said
    assert f"{number} French text: it applied to the removed release only" in said
    assert Release.objects.filter(effective_date=date).exists()
    assert RuleVersion.objects.get(pk=alone.pk).text_fr == "Texte seul."
    assert not ImportRecord.objects.filter(action="removed").exists()
    Importer(user="ann").remove(date, force=True)
    record = ImportRecord.objects.get(action="removed")
    assert [(i["what"], i["text_fr"]) for i in record.lost] == [("French text", "Texte seul.")]
    # A version that other releases hold too keeps its French when one of them goes.
    dates = list(Release.objects.values_list("effective_date", flat=True))

    def held(v: RuleVersion) -> list[dt.date]:
        return [d for d in dates if v.valid_from <= d and (v.valid_to is None or d < v.valid_to)]

    spanning = next(v for v in RuleVersion.objects.order_by("pk") if len(held(v)) >= 3)
    editing.edit_rule_version(version=spanning, user="ann", text_fr="Texte durable.")
    Importer().remove(held(spanning)[1])
    assert RuleVersion.objects.filter(lineage_id=spanning.lineage_id, text_fr="Texte durable.")


def _replaced(tmp_path: Path, old: str, new: str) -> Path:
    text = (DEMO / "2025-06-06.txt").read_text(encoding="utf-8")
    assert old in text
    changed = tmp_path / "2025-06-06.txt"
    changed.write_text(text.replace(old, new), encoding="utf-8")
    return changed


def test_replace_keeps_french_texts_added_examples_and_lineages(demo, tmp_path: Path) -> None:
    version = version_of("602.2a")
    assert version.valid_from == CURRENT  # re-created by a replacement
    lineage = version.lineage_id
    editing.edit_rule_version(
        version=version, user="ann", text_fr="Texte français.", fr_status="reviewed"
    )
    editing.add_example(version=version, user="ann", text_en="Example: Added by Ann.")
    release_id = Release.objects.get(effective_date=CURRENT).pk
    path = _replaced(tmp_path, "is identical to the process", "is the same as the process")
    run("import_rules", str(path), "--replace")
    new = version_of("602.2a")
    assert new.lineage_id == lineage and Lineage.objects.filter(pk=lineage).exists()
    assert (new.text_fr, new.fr_status) == ("Texte français.", "reviewed")
    assert list(new.examples.values_list("text_en", "origin")) == [
        ("Example: Added by Ann.", "maintainer")
    ]
    assert Release.objects.get(effective_date=CURRENT).pk == release_id
    record = ImportRecord.objects.get(action="replaced")
    assert record.carried["French texts"] == 1 and record.lost == []
    from kb.french.status import french_states

    assert french_states([new], CURRENT)[new.pk].state == "reviewed"  # its words unchanged
    # Idempotent: the same file again changes nothing.
    assert "unchanged" in run("import_rules", str(path), "--replace")


def test_a_french_text_carried_onto_a_reworded_rule_reads_as_stale(demo, tmp_path: Path) -> None:
    """A replacement that rewords the English of the release a French text translates leaves
    no row printing the English it was read against: the French is carried (never lost) and
    reads as stale, with that English kept for the diff, until a maintainer reads it again
    (one whose rule kept its words stays current: the test above)."""
    import gzip
    import json

    from kb.french.status import french_states, release_french_states

    reworded = version_of("602.2a")
    assert reworded.valid_from == CURRENT  # re-created by a replacement
    english = reworded.text_en
    editing.edit_rule_version(version=reworded, user="ann", text_fr="Texte.", fr_status="reviewed")
    path = _replaced(tmp_path, "is being activated from a hidden zone", "comes from a hidden zone")
    run("import_rules", str(path), "--replace")
    new = version_of("602.2a")
    states = french_states([new], CURRENT)
    assert (states[new.pk].state, states[new.pk].text) == ("stale", "Texte.")
    assert states[new.pk].translated_english == english != new.text_en
    assert states[new.pk].english_changed_in == CURRENT
    assert release_french_states(CURRENT)[new.pk].stale  # the translators' worklist too
    # The bulk export keeps the English it was read against (and its import restores it).
    run("export_data", "--out", str(tmp_path / "export"))
    data = json.loads(
        gzip.decompress((tmp_path / "export/releases/2025-06-06.json.gz").read_bytes())
    )
    french = next(r["french"] for r in data["rules"] if r["number"] == "602.2a")
    assert french["translated_english"] == english
    # Read again by a maintainer: current.
    editing.edit_rule_version(version=new, user="bob", text_fr="Texte revu.")
    new = version_of("602.2a")
    assert not french_states([new], CURRENT)[new.pk].stale
    assert (new.fr_translates_text, new.fr_translates_hash) == ("", "")


def test_replace_refuses_to_lose_work_unless_forced(demo, tmp_path: Path) -> None:
    version = version_of("602.2a")
    editing.edit_rule_version(version=version, user="ann", text_fr="Texte français.")
    line = next(
        ln
        for ln in (DEMO / "2025-06-06.txt").read_text(encoding="utf-8").splitlines()
        if ln.startswith("602.2a ")
    )
    path = _replaced(tmp_path, line + "\n", "")
    with pytest.raises(CommandError, match=r"602\.2a"):
        run("import_rules", str(path), "--replace")
    assert version_of("602.2a").text_fr == "Texte français."
    run("import_rules", str(path), "--replace", "--force")
    record = ImportRecord.objects.get(action="replaced")
    assert any(item.get("text_fr") == "Texte français." for item in record.lost)


def test_an_edited_vocabulary_term_survives_a_rebuild(demo) -> None:
    from rulings.vocabulary.mining import _store

    lineage = version_of("602.2a").lineage_id
    term = VocabularyTerm.objects.create(
        en="activate", fr="activez", kind="keyword action", source="cards", lineage_id=lineage
    )
    editing.edit_vocabulary_term(term=term, user="ann", fr="activer", checked=True)
    rebuilt = VocabularyTerm(
        en="activate", fr="activez", kind="keyword action", source="cards", agreeing=7, seen=9
    )
    _store({("activate", "keyword action"): rebuilt})
    term = VocabularyTerm.objects.get(en="activate")
    assert (term.fr, term.checked, term.edited) == ("activer", True, True)
    assert (term.mined_fr, term.agreeing, term.seen) == ("activez", 7, 9)


def test_a_french_edit_is_in_the_history_and_reverts_through_the_service(staff: Client) -> None:
    test_admin_edit_of_french_text_shows_on_the_public_page(staff)
    version = version_of("602.2a")
    history = staff.get(f"/admin/kb/ruleversion/{version.pk}/history/").content.decode()
    assert "maintainer" in history and "texte de test" in history  # who, the new value
    records = list(RuleVersion.history.filter(id=version.pk).order_by("history_date"))
    assert records[0].history_change_reason == "as imported" and not records[0].text_fr
    url = f"/admin/kb/ruleversion/{version.pk}/history/{records[0].history_id}/"
    page = staff.get(url).content.decode()
    stamp = re.search(r'name="_edit_stamp" value="([^"]*)"', page).group(1)
    response = staff.post(
        url,
        {
            "text_en": records[0].text_en,
            "text_fr": "",
            "fr_status": "",
            "fr_release": "",
            "_edit_stamp": stamp,
        },
    )
    errors = response.context["adminform"].form.errors if response.status_code == 200 else ""
    assert response.status_code == 302, errors
    version.refresh_from_db()
    # Through the service: still a maintainer's decision (no French here), which an import
    # of a French document must not overwrite.
    assert not version.text_fr and version.fr_edited and version.edited_by == "maintainer"
    assert "texte de test" not in staff.get("/fr/rules/602.2a/").content.decode()
    assert RuleVersion.history.filter(id=version.pk).count() == len(records) + 1
