"""Maintainers' edits of cards, rulings and ruling links: the one write path.

The admin (and any view or command) saves through these services so that every edit is marked
as a maintainer's (imports then keep it and report when the source changes too), relinks what
it affects, and reaches the search index (saves enqueue their documents through post_save, in
the same transaction) and the admin log.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.db.models import QuerySet

from rulings.importing.records import ruling_hash
from rulings.linking import link_rulings
from rulings.models import EDITABLE_CARD_FIELDS, Card, LinkKind, Ruling, RulingLink
from rulings.stamp import bump as bump_stamp

#: Fields whose change may change a ruling's links (its words, or the heading it is read under).
RELINKING_RULING_FIELDS = frozenset({"text", "is_heading", "group", "card"})
#: Card fields the linker reads (names are blanked before reading; own keywords are trusted).
RELINKING_CARD_FIELDS = frozenset({"name_en", "name_fr", "keywords"})
DECISIONS = (LinkKind.CONFIRMED, LinkKind.REJECTED)


class EditRefused(ValueError):
    """An edit that would break an invariant; nothing was saved."""


@transaction.atomic
def save_ruling(*, ruling: Ruling, changed: Collection[str], relink: bool = True) -> Ruling:
    """Save a ruling a maintainer created or changed (`changed`: the names of the fields).

    A text that differs from the source's is marked edited, so imports keep it; setting it
    back to the source's text clears the mark. A ruling added by hand has no source text: it is
    marked edited too, so that a close ruling in a later file is reported, not written over it.
    `relink=False` leaves relinking to `relink_ruling` (the admin saves its link rows first).
    """
    changed = set(changed)
    if not ruling.text or not ruling.text.strip():
        raise EditRefused(f"ruling {ruling.pk or '(new)'}: the text is empty")
    ruling.text_hash = ruling_hash(ruling.text)
    if "text" in changed or ruling.pk is None:
        ruling.text_edited = not ruling.source_hash or ruling.text_hash != ruling.source_hash
    if {"is_heading", "group"} & changed:
        ruling.grouped_by_hand = True  # imports leave a maintainer's grouping alone
    ruling.save()
    RulingLink.objects.filter(ruling=ruling).update(date=ruling.date)  # rule pages sort by it
    if relink and RELINKING_RULING_FIELDS & changed:
        relink_ruling(ruling=ruling)
    return ruling


@transaction.atomic
def relink_ruling(*, ruling: Ruling) -> None:
    """Recompute a ruling's cited and inferred links (a corrected text may lean on other rules;
    a ruling moved under another heading leans on what that heading names). Confirmed and
    rejected links stay as the maintainers decided."""
    link_rulings([ruling.pk])


@transaction.atomic
def save_card(*, card: Card, changed: Collection[str]) -> Card:
    """Save a card a maintainer changed, remembering for each edited field what the source
    said (imports keep the maintainer's value and report when the source changes it too).
    A field set back to the source's value is no longer an edit."""
    if card.pk is None:
        raise EditRefused("cards come from the imported files: they are not added by hand")
    before = Card.objects.filter(pk=card.pk).values(*EDITABLE_CARD_FIELDS).get()
    edited = dict(card.edited or {})
    fields = [f for f in EDITABLE_CARD_FIELDS if f in set(changed)]
    for name in fields:
        source = edited.get(name, before[name])
        if getattr(card, name) == source:
            edited.pop(name, None)
        else:
            edited[name] = source
    card.edited = edited
    card.save()
    if "name_en" in fields:
        Card.objects.filter(pk=card.pk).update(name=card.name_en)  # the untranslated column
    if RELINKING_CARD_FIELDS & set(fields):
        link_rulings(list(card.rulings.values_list("id", flat=True)))
    return card


@transaction.atomic
def decide_links(
    *,
    links: Iterable[RulingLink],
    kind: LinkKind | str,
    user: AbstractBaseUser | AnonymousUser | None = None,
) -> int:
    """Confirm or reject ruling links (relinking and imports keep them; a rejected link is not
    inferred again). Each changed link gets an admin log entry naming who decided. Returns the
    number of links changed."""
    if kind not in DECISIONS:
        raise EditRefused(f"a maintainer's decision is confirmed or rejected, not {kind!r}")
    ids = (
        list(links.values_list("pk", flat=True))
        if isinstance(links, QuerySet)
        else [link.pk for link in links]
    )
    to_change = RulingLink.objects.filter(pk__in=ids).exclude(kind=kind)
    changed_ids = list(to_change.values_list("pk", flat=True))
    if not changed_ids:
        return 0
    RulingLink.objects.filter(pk__in=changed_ids).update(kind=kind)
    bump_stamp()  # a rejected link leaves its rule's page
    if user is not None and user.is_authenticated:
        LogEntry.objects.log_actions(
            user.pk,
            RulingLink.objects.filter(pk__in=changed_ids).select_related("ruling"),
            CHANGE,
            change_message=f"kind: {kind}",
        )
    return len(changed_ids)
