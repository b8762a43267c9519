"""Publishing a release from the admin (issue 12): upload, preview (the real import, rolled
back), confirm by typing the set name; cancel leaves no trace; bad files are form errors;
permissions. The demo set for the flow, the full archive for a real pair of releases."""

from __future__ import annotations

import datetime as dt
import re
import time

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Group, Permission, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from kb.admin.publish import upload_dir
from kb.archive import editing
from kb.archive.publishing import PublishError, preview_release, publish_release
from kb.models import ImportRecord, Release, RuleNumber, RuleVersion
from roles.groups import MAINTAINERS
from search.models import IndexOutbox
from tests.conftest import release_files
from tests.kb.helpers import DEMO, clear_archive, run, table_dump

pytestmark = pytest.mark.django_db

CURRENT = dt.date(2025, 6, 6)
NEW = dt.date(2099, 1, 24)  # no real release has this date
PUBLISH = "/admin/kb/release/publish/"
CONFIRM = "/admin/kb/release/publish/confirm/"


def demo_new_text() -> str:
    """The demo's current release dated 2099-01-24, with 602.1b reworded, 602.3b removed
    and 602.5f added."""
    text = (DEMO / "2025-06-06.txt").read_text(encoding="utf-8")
    text = text.replace("June 6, 2025", "January 24, 2099")
    text = text.replace("For many years", "For many, many years")  # 602.1b changed
    start = text.index("602.3b If")
    text = text[:start] + text[text.index("602.4.", start) :]  # 602.3b removed
    added = "602.5f Activated abilities that read “Activate only during combat” are rare.\n\n"
    return text.replace("Glossary\n\nActivated", added + "Glossary\n\nActivated")


def version_of(number: str, date: dt.date = CURRENT) -> RuleVersion:
    lineage = RuleNumber.objects.as_of(date).get(number=number).lineage_id
    return RuleVersion.objects.as_of(date).get(lineage_id=lineage)


def archive_counts() -> tuple[int, ...]:
    return (
        Release.objects.count(),
        RuleVersion.objects.count(),
        ImportRecord.objects.count(),
        IndexOutbox.objects.count(),
        LogEntry.objects.count(),
    )


@pytest.fixture
def demo(db) -> None:
    clear_archive()
    run("import_rules", str(DEMO))


def login(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def maintainer(demo) -> Client:
    """A member of the Content maintainers group, not a superuser."""
    user = User.objects.create_user("mai", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name=MAINTAINERS))
    return login(user)


def upload(client: Client, text: str | bytes, name: str = "rules.txt", **fields: str):
    data = text.encode("utf-8") if isinstance(text, str) else text
    return client.post(PUBLISH, {"file": SimpleUploadedFile(name, data), **fields})


def token_of(page: str) -> str:
    return re.search(r'name="token" value="([^"]+)"', page).group(1)


# -- the services -------------------------------------------------------------------------


def test_preview_lists_the_changes_and_changes_nothing(demo) -> None:
    before, dump = archive_counts(), table_dump()
    preview = preview_release(data=demo_new_text().encode(), source="x.txt", set_name="Zed")
    assert archive_counts() == before
    assert table_dump() == dump
    assert (preview.effective_date, preview.compared_with) == (NEW, CURRENT)
    assert not preview.replaces and preview.set_name == "Zed"
    assert [c.number for c in preview.added] == ["602.5f"]
    assert [c.number for c in preview.removed] == ["602.3b"]
    assert [(c.number, c.kinds) for c in preview.changed] == [("602.1b", ["wording"])]
    assert preview.moved == []
    assert preview.counts["subrules"] == 11
    assert preview.maintainer == []


def test_preview_follows_renumbering_and_reads_cr_and_crlf_files(demo) -> None:
    text = (DEMO / "2025-06-06.txt").read_text(encoding="utf-8")
    text = text.replace("June 6, 2025", "January 24, 2099")
    text = text.replace("602.5e Activated", "602.5f Activated")
    text = text.replace("602.5d Activated", "602.5e Activated")
    for line_end in ("\r\n", "\r"):
        preview = preview_release(data=text.replace("\n", line_end).encode(), source="x.txt")
        moves = [(c.old_number, c.number) for c in preview.moved]
        assert moves == [("602.5d", "602.5e"), ("602.5e", "602.5f")]
        assert preview.added == preview.removed == preview.changed == []


def test_preview_lists_maintainers_work_on_changed_and_removed_rules(demo) -> None:
    editing.edit_rule_version(
        version=version_of("602.1b"), user="ann", text_fr="Texte 602.1b.", fr_status="reviewed"
    )
    editing.add_example(version=version_of("602.3b"), user="ann", text_en="Example: Ann's.")
    editing.edit_rule_version(version=version_of("602.2a"), user="ann", text_fr="Inchangé.")
    preview = preview_release(data=demo_new_text().encode(), source="x.txt")
    found = {(m.where, m.what, m.fate) for m in preview.maintainer}
    assert found == {
        (
            "602.1b",
            "French text (reviewed)",
            "stays with the earlier releases (the new text has none)",
        ),
        ("602.3b", "1 added example(s)", "stays with the earlier releases (the rule is gone)"),
    }  # 602.2a's text goes on unchanged: its French text with it, nothing to say


def test_preview_lists_link_decisions_on_the_rules_it_touches(demo) -> None:
    from rulings.models import Card, LinkKind, Ruling, RulingLink

    card = Card.objects.create(key="publish-test", slug="publish-test", name_en="Test Card")
    for number, kind in (("602.3b", LinkKind.CONFIRMED), ("602.1b", LinkKind.REJECTED)):
        ruling = Ruling.objects.create(
            card=card, date=dt.date(2024, 1, 1), text=f"On {number}.", text_hash=number
        )
        lineage = RuleNumber.objects.as_of(CURRENT).get(number=number).lineage_id
        RulingLink.objects.create(ruling=ruling, lineage_id=lineage, kind=kind, number=number)
    ruling = Ruling.objects.create(card=card, date=dt.date(2024, 1, 2), text="Hm.", text_hash="c")
    lineage = RuleNumber.objects.as_of(CURRENT).get(number="602.2a").lineage_id  # unchanged
    RulingLink.objects.create(ruling=ruling, lineage_id=lineage, kind=LinkKind.CONFIRMED)
    preview = preview_release(data=demo_new_text().encode(), source="x.txt")
    assert [(m.where, m.what, m.fate) for m in preview.maintainer] == [
        (
            "602.1b",
            "rejected link: ruling on Test Card (2024-01-01)",
            "kept; the rule's text changed: check that it still holds",
        ),
        (
            "602.3b",
            "confirmed link: ruling on Test Card (2024-01-01)",
            "kept; the rule is gone from the new text (no current number)",
        ),
    ]


def test_publish_imports_and_a_bad_file_names_its_line(demo) -> None:
    result = publish_release(data=demo_new_text().encode(), source="x.txt", set_name="Zed")
    assert (result.effective_date, result.action) == (NEW, "created")
    assert Release.objects.get(effective_date=NEW).set_name_en == "Zed"
    assert RuleNumber.objects.as_of(NEW).filter(number="602.5f").exists()
    with pytest.raises(PublishError, match="already loaded with different content"):
        publish_release(data=demo_new_text().replace("rare", "common").encode(), source="y")
    with pytest.raises(PublishError, match="line 3"):
        publish_release(data=b"Magic\n\nThese rules\x00", source="bad.txt")


# -- the admin pages ------------------------------------------------------------------------


def test_the_changelist_offers_publishing(maintainer: Client) -> None:
    page = maintainer.get("/admin/kb/release/").content.decode()
    assert 'href="/admin/kb/release/publish/"' in page
    assert maintainer.get(PUBLISH).status_code == 200


def test_upload_preview_confirm_publishes(maintainer: Client) -> None:
    before = archive_counts()
    response = upload(maintainer, demo_new_text(), set_name="Zendikar Test")
    assert response.status_code == 200
    page = response.content.decode()
    assert archive_counts() == before  # the preview changed nothing
    assert '<td data-count="added">1</td>' in page
    assert '<td data-count="removed">1</td>' in page
    assert '<td data-count="changed">1</td>' in page
    assert "602.5f" in page and "602.3b" in page and "602.1b" in page
    token = token_of(page)
    assert len(list(upload_dir().glob("*"))) >= 2

    wrong = maintainer.post(CONFIRM, {"token": token, "typed": "Zendikar", "action": "publish"})
    assert wrong.status_code == 200
    assert "Type “Zendikar Test” to publish this release." in wrong.content.decode()
    assert archive_counts() == before

    done = maintainer.post(
        CONFIRM, {"token": token, "typed": " zendikar  TEST ", "action": "publish"}
    )
    assert done.status_code == 302 and done["Location"] == "/admin/kb/release/"
    release = Release.objects.get(effective_date=NEW)
    assert release.set_name_en == "Zendikar Test"
    record = ImportRecord.objects.get(effective_date=NEW)
    assert (record.action, record.user, record.source) == ("created", "mai", "rules.txt")
    assert LogEntry.objects.filter(object_id=str(release.pk)).count() == 1
    again = maintainer.post(CONFIRM, {"token": token, "typed": "Zendikar Test"})
    assert again.status_code == 302 and again["Location"] == PUBLISH  # the upload is gone


def test_the_effective_date_confirms_a_release_without_set_name(maintainer: Client) -> None:
    token = token_of(upload(maintainer, demo_new_text()).content.decode())
    done = maintainer.post(CONFIRM, {"token": token, "typed": "2099-01-24"})
    assert done.status_code == 302
    assert Release.objects.filter(effective_date=NEW).exists()


def test_cancel_leaves_no_trace(maintainer: Client) -> None:
    before, dump = archive_counts(), table_dump()
    files = set(upload_dir().glob("*"))
    token = token_of(upload(maintainer, demo_new_text(), set_name="Zed").content.decode())
    assert set(upload_dir().glob("*")) - files  # the upload waits for its confirmation
    response = maintainer.post(CONFIRM, {"token": token, "typed": "", "action": "cancel"})
    assert response.status_code == 302
    assert set(upload_dir().glob("*")) == files
    assert archive_counts() == before and table_dump() == dump


def test_bad_files_are_form_errors(maintainer: Client) -> None:
    before = archive_counts()
    response = upload(maintainer, b"Magic: The Gathering\r\n\r\nThese rules\x00 are")
    assert response.status_code == 200
    assert "line 3" in response.content.decode()
    assert "binary data" in response.content.decode()
    truncated = demo_new_text().split("602.2.")[0].replace("Credits", "").replace("Glossary", "")
    response = upload(maintainer, truncated + "\n602.2x. nonsense\n")
    assert response.status_code == 200 and 'class="errorlist' in response.content.decode()
    response = upload(maintainer, demo_new_text(), name="rules.pdf")
    assert "Upload the official text file (.txt)." in response.content.decode()
    same = (DEMO / "2025-06-06.txt").read_bytes()
    assert "nothing to publish" in upload(maintainer, same).content.decode()
    assert archive_counts() == before


def test_tokens_are_signed_and_belong_to_their_uploader(maintainer: Client, demo) -> None:
    token = token_of(upload(maintainer, demo_new_text()).content.decode())
    forged = maintainer.post(CONFIRM, {"token": token[:-2] + "xx", "typed": "2099-01-24"})
    assert forged.status_code == 302 and forged["Location"] == PUBLISH
    other = User.objects.create_user("other", is_staff=True)
    other.groups.add(Group.objects.get(name=MAINTAINERS))
    stolen = login(other).post(CONFIRM, {"token": token, "typed": "2099-01-24"})
    assert stolen.status_code == 302 and stolen["Location"] == PUBLISH
    assert not Release.objects.filter(effective_date=NEW).exists()


def test_publishing_needs_its_permissions(demo) -> None:
    viewer = User.objects.create_user("viewer", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_release"))
    client = login(viewer)
    assert client.get("/admin/kb/release/").status_code == 200
    assert (
        'href="/admin/kb/release/publish/"' not in client.get("/admin/kb/release/").content.decode()
    )
    assert client.get(PUBLISH).status_code == 403
    assert upload(client, demo_new_text()).status_code == 403
    adder = User.objects.create_user("adder", is_staff=True)
    adder.user_permissions.add(
        Permission.objects.get(codename="view_release"),
        Permission.objects.get(codename="add_release"),
    )
    client = login(adder)
    replacement = demo_new_text().replace("January 24, 2099", "June 6, 2025")
    assert upload(client, replacement).status_code == 403  # replacing needs change_release
    assert upload(client, demo_new_text()).status_code == 200


def test_replace_shows_what_carries_over_and_what_would_be_lost(maintainer: Client) -> None:
    editing.edit_rule_version(
        version=version_of("602.2a"), user="ann", text_fr="Texte gardé.", fr_status="reviewed"
    )
    editing.edit_rule_version(version=version_of("602.3b"), user="ann", text_fr="Texte perdu.")
    replacement = demo_new_text().replace("January 24, 2099", "June 6, 2025")
    before = archive_counts()
    page = upload(maintainer, replacement).content.decode()
    assert archive_counts() == before
    assert "Replace the release effective 2025-06-06" in page
    rows = re.findall(r'<tr class="(kept|lost)"><td>([^<]*)</td><td>([^<]*)</td>', page)
    assert ("kept", "602.2a", "French text (reviewed)") in rows
    assert ("lost", "602.3b", "French text (unofficial)") in rows
    assert 'id="publish-lost"' in page and 'value="force"' in page
    token = token_of(page)
    refused = maintainer.post(CONFIRM, {"token": token, "typed": "2025-06-06"})
    assert "replacing would lose maintainers" in refused.content.decode()
    assert archive_counts() == before
    done = maintainer.post(CONFIRM, {"token": token, "typed": "2025-06-06", "action": "force"})
    assert done.status_code == 302
    record = ImportRecord.objects.filter(action="replaced").latest("id")
    assert [item["text_fr"] for item in record.lost] == ["Texte perdu."]
    assert version_of("602.2a").text_fr == "Texte gardé."


# -- the full archive -----------------------------------------------------------------------


def latest_modified(date_line: str | None = "January 24, 2099") -> str:
    """The latest real release, with 602.2b reworded, 603.10g removed and 602.5f added (and
    dated `date_line`, or kept at its own date for a replacement)."""
    latest = release_files()[-1]
    text = latest.read_text(encoding="utf-8")
    if date_line:
        text = re.sub(
            r"effective as of \w+ \d+, \d{4}", f"effective as of {date_line}", text, count=1
        )
    text = text.replace(
        "activating an ability is identical to", "activating an ability is the same as"
    )
    text = re.sub(r"\n603\.10g [^\n]*\n", "\n", text, count=1)
    added = "602.5f Activated abilities that read “Activate only during combat” are rare."
    return re.sub(r"(\n602\.5e [^\n]*\n)", rf"\1\n{added}\n", text, count=1)


def current_version(number: str) -> RuleVersion:
    return version_of(number, Release.objects.latest("effective_date").effective_date)


@pytest.mark.slow
def test_a_real_release_previewed_then_published(archive) -> None:
    user = User.objects.create_user("mai", is_staff=True)
    user.groups.add(Group.objects.get(name=MAINTAINERS))
    client = login(user)
    latest = release_files()[-1]
    editing.edit_rule_version(version=current_version("602.2b"), user="ann", text_fr="Fr 2b.")
    before, started = archive_counts(), time.perf_counter()
    page = upload(client, latest_modified(), set_name="Test Set").content.decode()
    print(f"\npreview of {latest.name} as a new release: {time.perf_counter() - started:.1f} s")
    assert archive_counts() == before
    assert f"the release effective {latest.stem}" in page
    for status, numbers in (("added", "602.5f"), ("removed", "603.10g"), ("changed", "602.2b")):
        assert f'<td data-count="{status}">1</td>' in page, status
        listed = re.search(rf'class="list-{status}".*?</details>', page, re.S).group()
        assert re.findall(r'<span class="rule">([^<]*)</span>', listed) == [numbers]
    assert '<td data-count="moved">0</td>' in page
    assert "<td>602.2b</td><td>French text (unofficial)</td>" in page
    done = client.post(CONFIRM, {"token": token_of(page), "typed": "test set"})
    assert done.status_code == 302
    new = Release.objects.get(effective_date=NEW)
    assert new.counts["rules"] == Release.objects.get(effective_date=latest.stem).counts["rules"]
    assert RuleNumber.objects.as_of(NEW).filter(number="602.5f").exists()
    assert not RuleNumber.objects.as_of(NEW).filter(number="603.10g").exists()
    assert "is the same as the process" in version_of("602.2b", NEW).text_en


@pytest.mark.slow
def test_a_real_replacement_previewed_with_maintainers_work(archive) -> None:
    editing.edit_rule_version(
        version=current_version("602.2a"), user="ann", text_fr="Gardé.", fr_status="reviewed"
    )
    editing.edit_rule_version(version=current_version("603.10g"), user="ann", text_fr="Perdu.")
    before, dump_count = archive_counts(), ImportRecord.objects.count()
    started = time.perf_counter()
    preview = preview_release(data=latest_modified(None).encode(), source="x.txt")
    print(
        f"\npreview of a replacement of the current release: {time.perf_counter() - started:.1f} s"
    )
    assert archive_counts() == before and ImportRecord.objects.count() == dump_count
    assert preview.replaces
    fates = {(m.where, m.what): m.fate for m in preview.maintainer}
    assert fates[("602.2a", "French text (reviewed)")] == "carries over"
    assert fates[("603.10g", "French text (unofficial)")] == "would be lost"
    assert [c.number for c in preview.added] == ["602.5f"]
    assert [c.number for c in preview.removed] == ["603.10g"]
    assert [c.number for c in preview.changed] == ["602.2b"]
    assert [item["rule"] for item in preview.lost] == ["603.10g"]
