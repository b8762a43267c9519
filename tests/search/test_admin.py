"""Maintainers' edits in the admin reach the index: a save through post_save, a deletion
through IndexedAdminMixin (both in the admin's transaction)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from kb.models import GlossaryVersion
from search.models import IndexOutbox
from tests.search.test_indexing import glossary_entry

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(db) -> Client:
    from tests.kb.helpers import clear_archive
    from tests.rulings.helpers import clear_cards

    clear_archive()
    clear_cards()
    IndexOutbox.objects.all().delete()
    client = Client()
    client.force_login(User.objects.create_superuser("maintainer", "m@example.org", "x"))
    return client


def test_the_indexed_admins_load_and_kb_rows_are_not_deleted_by_hand(staff: Client) -> None:
    """kb's versions are derived by imports (issue 12): the admin does not offer to delete
    them; deletions of other indexed models still re-index through IndexedAdminMixin."""
    for model in ("lineage", "rulenumber", "ruleversion", "glossaryterm", "glossaryversion"):
        assert staff.get(f"/admin/kb/{model}/").status_code == 200, model
    for model in ("card", "ruling"):
        assert staff.get(f"/admin/rulings/{model}/").status_code == 200, model
    version = glossary_entry()
    IndexOutbox.objects.all().delete()
    response = staff.post(
        f"/admin/kb/glossaryversion/{version.pk}/delete/", {"post": "yes"}, follow=False
    )
    assert response.status_code == 403
    assert GlossaryVersion.objects.filter(pk=version.pk).exists()
    assert not IndexOutbox.objects.exists()
