"""The admin's History page names who made each edit, and links the name to that user's admin
page only for a viewer who may open it (issue 31): a content maintainer (no permission on
users, roles.groups) saw every editor's name link to /admin/auth/user/<id>/change/, a 403."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.test import Client

from kb.models import RuleVersion
from roles.groups import MAINTAINERS
from tests.kb.archive.test_editing import _empty_inline, demo, version_of  # noqa: F401 - demo archive

pytestmark = pytest.mark.django_db


def _maintainer(name: str) -> User:
    user = User.objects.create_user(name, password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name=MAINTAINERS))
    return user


def _signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def edited(demo) -> tuple[RuleVersion, User]:  # noqa: F811
    """602.2a's French text, edited in the admin by the maintainer "ann"."""
    ann = _maintainer("ann")
    version = version_of("602.2a")
    url = f"/admin/kb/ruleversion/{version.pk}/change/"
    client = _signed_in(ann)
    page = client.get(url).content.decode()
    stamp = re.search(r'name="_edit_stamp" value="([^"]*)"', page).group(1)
    response = client.post(
        url,
        {
            "text_en": version.text_en,
            "text_fr": "Le joueur annonce qu’il active la capacité (texte de test).",
            "fr_status": "unofficial",
            "fr_release": "",
            "_edit_stamp": stamp,
            **_empty_inline(),
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    assert RuleVersion.history.filter(id=version.pk, history_user=ann).exists()
    return version, ann


def _history(viewer: User, version: RuleVersion) -> str:
    response = _signed_in(viewer).get(f"/admin/kb/ruleversion/{version.pk}/history/")
    assert response.status_code == 200
    return response.content.decode()


def test_the_editors_name_links_to_their_page_only_for_a_viewer_allowed_to_open_it(
    edited: tuple[RuleVersion, User],
) -> None:
    version, ann = edited
    user_page = f"/admin/auth/user/{ann.pk}/change/"
    link = f'<a href="{user_page}">ann</a>'
    bob = _maintainer("bob")
    assert not bob.has_perm("auth.view_user") and not bob.has_perm("auth.change_user")
    html = _history(bob, version)
    assert re.search(r"<td>\s*ann\s*</td>", html), "the editor's name, as plain text"
    assert "/admin/auth/user/" not in html
    assert _signed_in(bob).get(user_page).status_code == 403  # where the link led
    # Given the permission to view users, a maintainer gets the link, as a superuser does.
    carol = _maintainer("carol")
    carol.user_permissions.add(Permission.objects.get(codename="view_user"))
    carol = User.objects.get(pk=carol.pk)  # permissions are cached on the instance
    assert link in _history(carol, version)
    assert _signed_in(carol).get(user_page).status_code == 200
    admin = User.objects.create_superuser("root", "root@example.org", "pw")
    assert link in _history(admin, version)
