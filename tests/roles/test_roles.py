"""A content maintainer can do the job (edit texts, translations, rulings, links; publish
releases) and no more (no users, no deleting releases, lineages or import records)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.test import Client

from kb.models import ImportRecord, Lineage, Release
from roles.groups import MAINTAINER_PERMISSIONS, MAINTAINERS, setup_roles

pytestmark = pytest.mark.django_db


@pytest.fixture
def maintainer() -> Client:
    user = User.objects.create_user("mai", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name=MAINTAINERS))
    client = Client()
    client.force_login(user)
    return client


def test_migrate_sets_the_group_up_and_setup_roles_restores_it() -> None:
    group = Group.objects.get(name=MAINTAINERS)  # made by migrate (post_migrate)
    expected = sum(len(actions) for actions in MAINTAINER_PERMISSIONS.values())
    assert group.permissions.count() == expected
    group.permissions.clear()
    call_command("setup_roles", verbosity=0)
    assert group.permissions.count() == expected
    assert setup_roles() == {MAINTAINERS: expected}  # idempotent


def test_a_maintainer_can_edit_texts_rulings_and_links_and_publish() -> None:
    user = User.objects.create_user("m2", is_staff=True)
    user.groups.add(Group.objects.get(name=MAINTAINERS))
    for perm in (
        "kb.change_ruleversion",
        "kb.change_glossaryversion",
        "kb.add_example",
        "kb.change_vocabularyterm",
        "kb.add_release",
        "rulings.change_ruling",
        "rulings.change_rulinglink",
        "rulings.change_card",
    ):
        assert user.has_perm(perm), perm
    for perm in (
        "kb.delete_release",
        "kb.delete_lineage",
        "kb.change_lineage",
        "kb.delete_importrecord",
        "kb.change_importrecord",
        "kb.add_importrecord",
        "kb.change_rulenumber",
        "auth.add_user",
        "auth.change_user",
        "auth.change_group",
    ):
        assert not user.has_perm(perm), perm


def test_the_admin_lets_a_maintainer_in_and_keeps_the_rest_closed(maintainer: Client) -> None:
    release = Release.objects.create(effective_date=dt.date(1990, 1, 24), sha256="a")
    lineage = Lineage.objects.create(key="602.2a@1990-01-24", kind="subrule")
    record = ImportRecord.objects.create(
        release=release, effective_date=release.effective_date, source="x", sha256="a",
        action="created",
    )  # fmt: skip
    assert maintainer.get("/admin/").status_code == 200
    assert maintainer.get("/admin/kb/ruleversion/").status_code == 200
    assert maintainer.get("/admin/rulings/ruling/").status_code == 200
    assert maintainer.get(f"/admin/kb/release/{release.pk}/change/").status_code == 200
    assert maintainer.get(f"/admin/kb/release/{release.pk}/delete/").status_code == 403
    assert maintainer.get(f"/admin/kb/lineage/{lineage.pk}/delete/").status_code == 403
    assert maintainer.get("/admin/auth/user/").status_code == 403
    assert maintainer.get("/admin/auth/group/").status_code == 403
    assert maintainer.get(f"/admin/kb/importrecord/{record.pk}/delete/").status_code == 403
