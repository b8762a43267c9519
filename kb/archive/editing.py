"""Maintainers' edits of the archive: the one write path the admin and the commands share.

Why services: an edited text is more than a column. Its hashes tell the diff and the "last
changed" badge what kind of change a version is, its reference spans drive the links a page
draws, the search index and the diff cache show it, and other apps (rulings) re-resolve what
leans on it. Each service below does all of that in one transaction, marks what a maintainer
changed apart from what the official source printed (so an import can carry it over), and
refuses a value that would break an invariant with a message naming the row and the field.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from kb.archive.families import (
    REFERENCE_FIELDS,
    GlossaryTextTable,
    RuleTextTable,
    reference_rows,
)
from kb.archive.texts import hashes
from kb.dbutil import insert_rows, update_rows
from kb.models import Example, GlossaryVersion, Reference, Release, RuleVersion, VocabularyTerm
from kb.models.glossary import alias_errors
from kb.models.rules import ExampleOrigin
from kb.models.versioning import HASH_FIELDS, FrenchStatus
from kb.signals import text_edited

_KEEP = object()  # "leave this field as it is" for arguments where None is a value


def _clean_text(value: str, label: str, field: str, *, required: bool) -> str:
    """Texts are stored as the source prints them: no surrounding blanks, "\n" line ends."""
    text = value.replace("\r\n", "\n").strip()
    if required and not text:
        raise ValidationError({field: f"{label}: the text cannot be empty."})
    return text


def _french_release(version: RuleVersion | GlossaryVersion) -> Release | None:
    """The English release a new French text translates: the version's first release."""
    return Release.objects.filter(effective_date=version.valid_from).first()


def _set_english(obj: Any, text: str) -> bool:
    """Write a maintainer's English text, keeping the official one in `source_text`; writing
    the official text back undoes the edit. Returns whether anything changed."""
    if text == obj.text_en:
        return False
    official = obj.source_text if obj.en_edited else obj.text_en
    obj.text_en = text
    obj.en_edited = text != official
    obj.source_text = official if obj.en_edited else ""
    return True


def _set_french(obj: Any, text: str) -> bool:
    if text == (obj.text_fr or ""):
        return False
    obj.text_fr = text
    obj.fr_edited = True
    return True


def _set_texts(obj: Any, label: str, text_en: str | None, text_fr: str | None) -> list[str]:
    """Write the English and/or French text asked for (None: leave it), cleaned; returns the
    fields changed."""
    changed = []
    if text_en is not None and _set_english(
        obj, _clean_text(text_en, label, "text_en", required=True)
    ):
        changed.append("text_en")
    if text_fr is not None and _set_french(
        obj, _clean_text(text_fr, label, "text_fr", required=False)
    ):
        changed.append("text_fr")
    return changed


def _stamp(obj: Any, user: str) -> None:
    obj.edited_by = user[:150]
    obj.edited_at = timezone.now()


@transaction.atomic
def edit_rule_version(
    *,
    version: RuleVersion,
    user: str,
    text_en: str | None = None,
    text_fr: str | None = None,
    fr_status: str | None = None,
    fr_release: Any = _KEEP,
) -> list[str]:
    """Change a rule version's English and/or French text (None: leave it). Returns the
    fields changed (empty: nothing to do, nothing written)."""
    version = RuleVersion.objects.select_for_update().get(pk=version.pk)
    label = version.label()
    changed = _set_texts(version, label, text_en, text_fr)
    return _save_version(version, label, user, changed, fr_status, fr_release)


def _save_version(
    version: RuleVersion | GlossaryVersion,
    label: str,
    user: str,
    changed: list[str],
    fr_status: str | None,
    fr_release: Any,
) -> list[str]:
    """The end of a rule or glossary version's edit, once its texts (and aliases) are set: the
    French text's status and release, then, if anything changed, the stamp, the row, and what
    the importer derives from a new English text. Returns the fields changed."""
    changed = changed + _french_meta(version, label, fr_status, fr_release, "text_fr" in changed)
    if not changed:
        return []
    _stamp(version, user)
    version.save()
    if isinstance(version, GlossaryVersion):
        kind, owner, refresh = "glossary", version.term_id, refresh_glossary_version
    else:
        kind, owner, refresh = "rule", version.lineage_id, refresh_rule_version
    if "text_en" in changed:
        update_rows(type(version), ["text"], [(version.text_en, version.pk)])
        refresh(version)
    _after_edit(kind, version.pk, owner, changed, user)
    return changed


def _french_meta(
    obj: Any, label: str, fr_status: str | None, fr_release: Any, text_changed: bool
) -> list[str]:
    """A French text records its status and the English release it translates."""
    changed = []
    if fr_status is not None and fr_status != obj.fr_status:
        if fr_status and fr_status not in FrenchStatus.values:
            raise ValidationError({"fr_status": f"{label}: unknown French status {fr_status!r}."})
        obj.fr_status = fr_status
        changed.append("fr_status")
    if fr_release is not _KEEP and fr_release != obj.fr_release:
        obj.fr_release = fr_release
        changed.append("fr_release")
    if text_changed and obj.text_fr:
        if not obj.fr_status:
            obj.fr_status = FrenchStatus.UNOFFICIAL
        if obj.fr_release_id is None:
            obj.fr_release = _french_release(obj)
    if obj.fr_status and not obj.text_fr:
        raise ValidationError(
            {"fr_status": f"{label}: a French status needs a French text (leave it empty)."}
        )
    if (text_changed or changed) and getattr(obj, "fr_translates_hash", ""):
        # A maintainer who rewrote the French, or set its status or release, has read it
        # against this row's English: the English a replacement left it on is no longer kept.
        obj.fr_translates_text, obj.fr_translates_hash = "", ""
    return changed


@transaction.atomic
def edit_example(
    *, example: Example, user: str, text_en: str | None = None, text_fr: str | None = None
) -> list[str]:
    """Change an example's English and/or French text; the version's hashes follow."""
    example = Example.objects.select_related("version").get(pk=example.pk)
    label = f"{example.version.label()}, example {example.position + 1}"
    changed = _set_texts(example, label, text_en, text_fr)
    if not changed:
        return []
    _stamp(example, user)
    example.save()
    if "text_en" in changed:
        update_rows(Example, ["text"], [(example.text_en, example.pk)])
    _touch_version(example.version, user, refresh="text_en" in changed)
    _after_edit("rule", example.version_id, example.version.lineage_id, changed, user)
    return changed


@transaction.atomic
def add_example(*, version: RuleVersion, user: str, text_en: str, text_fr: str = "") -> Example:
    """Add a maintainer's example after the version's others (kept apart from the source's:
    an import of the same release carries it over)."""
    label = f"{version.label()}, new example"
    text_en = _clean_text(text_en, label, "text_en", required=True)
    last = Example.objects.filter(version=version).aggregate(n=Max("position"))["n"]
    example = Example(
        version=version,
        position=0 if last is None else last + 1,
        text_en=text_en,
        text_fr=_clean_text(text_fr, label, "text_fr", required=False),
        origin=ExampleOrigin.MAINTAINER,
        fr_edited=bool(text_fr),
    )
    _stamp(example, user)
    example.save()
    update_rows(Example, ["text"], [(text_en, example.pk)])
    _touch_version(version, user, refresh=True)
    _after_edit("rule", version.pk, version.lineage_id, ["examples"], user)
    return example


@transaction.atomic
def remove_example(*, example: Example, user: str) -> None:
    """Remove a maintainer's example. The source's examples are official: edit them instead."""
    example = Example.objects.select_related("version").get(pk=example.pk)
    if example.origin != ExampleOrigin.MAINTAINER:
        raise ValidationError(
            f"{example.version.label()}, example {example.position + 1}: the official "
            "source prints this example; edit its text instead of removing it."
        )
    version = example.version
    example.delete()
    _touch_version(version, user, refresh=True)
    _after_edit("rule", version.pk, version.lineage_id, ["examples"], user)


@transaction.atomic
def reorder_examples(*, version: RuleVersion, user: str, order: list[int]) -> bool:
    """Put a maintainer's examples of `version` in `order` (their ids, every one of them),
    after the official source's, numbered without gaps. The source's examples keep their
    printed places: an import matches a maintainer's edit of one by its position. Returns
    whether anything moved."""
    examples = list(
        Example.objects.select_for_update().filter(version_id=version.pk).order_by("position")
    )
    printed = [e for e in examples if e.origin != ExampleOrigin.MAINTAINER]
    added = {e.pk: e for e in examples if e.origin == ExampleOrigin.MAINTAINER}
    if sorted(order) != sorted(added):
        raise ValidationError(
            f"{version.label()}: the new order must list each example added by a maintainer "
            "once (the official ones keep their places)."
        )
    wanted = [*printed, *(added[pk] for pk in order)]
    moves = [(e, i) for i, e in enumerate(wanted) if e.position != i]
    if not moves:
        return False
    # (version, position) is unique: park the moving rows past every position first.
    park = max(e.position for e in examples) + 1
    for n, (example, _i) in enumerate(moves):
        Example.objects.filter(pk=example.pk).update(position=park + n)
    for example, position in moves:
        example.position = position
        example.save(update_fields=["position"])  # each move in the example's history
    _touch_version(version, user, refresh=True)
    _after_edit("rule", version.pk, version.lineage_id, ["examples"], user)
    return True


def _touch_version(version: RuleVersion, user: str, *, refresh: bool) -> None:
    if refresh:
        refresh_rule_version(version)
    version = RuleVersion.objects.get(pk=version.pk)
    _stamp(version, user)
    version.save(update_fields=["edited_by", "edited_at"])  # post_save: the index follows


def refresh_rule_version(version: RuleVersion) -> None:
    """Recompute what the importer derives from a version's English text and examples:
    hashes, reference spans, and the change flags of the lineage's versions."""
    examples = list(
        Example.objects.filter(version_id=version.pk)
        .order_by("position")
        .values_list("position", "text_en")
    )
    _refresh_text(RuleVersion, version.pk, examples, RuleTextTable(), version.lineage_id)


def refresh_glossary_version(version: GlossaryVersion) -> None:
    """Recompute what the importer derives from a glossary version's English text: hashes,
    reference spans, and the change flags of the term's versions."""
    _refresh_text(GlossaryVersion, version.pk, [], GlossaryTextTable(), version.term_id)


def _refresh_text(
    model: type[RuleVersion | GlossaryVersion],
    version_id: int,
    examples: list[tuple[int, str]],
    table: RuleTextTable | GlossaryTextTable,
    owner_id: int,
) -> None:
    """The two refreshes' common part: the version's stored English text (and its examples,
    as (position, text)) hashed, its English reference spans found again, and the change
    flags of the lineage's or term's versions recomputed."""
    text = model.objects.filter(pk=version_id).values_list("text_en", flat=True).get()
    h = hashes(text, tuple(t for _, t in examples))
    update_rows(model, list(HASH_FIELDS), [(h.text, h.folded, h.masked, h.examples, version_id)])
    rule_id, glossary_id = (version_id, None) if model is RuleVersion else (None, version_id)
    Reference.objects.filter(
        rule_version_id=rule_id, glossary_version_id=glossary_id, lang="en"
    ).delete()
    rows = reference_rows(text, rule_id, glossary_id, None)
    for position, example_text in examples:
        rows += reference_rows(example_text, rule_id, glossary_id, position)
    insert_rows(Reference, REFERENCE_FIELDS, rows)
    table.refresh_derived({owner_id})


@transaction.atomic
def edit_glossary_version(
    *,
    version: GlossaryVersion,
    user: str,
    text_en: str | None = None,
    text_fr: str | None = None,
    fr_status: str | None = None,
    fr_release: Any = _KEEP,
    aliases: list[str] | None = None,
) -> list[str]:
    """Change a glossary version's texts or aliases; hashes, references and the index follow."""
    version = GlossaryVersion.objects.select_for_update().get(pk=version.pk)
    label = f"glossary “{version.headword}” ({version.valid_from})"
    changed = _set_texts(version, label, text_en, text_fr)
    if aliases is not None and aliases != version.aliases:
        problem = alias_errors(aliases)
        if problem:
            raise ValidationError({"aliases": f"{label}: {problem}"})
        version.aliases = aliases
        changed.append("aliases")
    return _save_version(version, label, user, changed, fr_status, fr_release)


@transaction.atomic
def edit_vocabulary_term(
    *, term: VocabularyTerm, user: str, fr: str | None = None, checked: bool | None = None
) -> list[str]:
    """Correct a French term (a rebuild keeps it: see rulings.vocabulary.mining) or tick it
    checked."""
    term = VocabularyTerm.objects.select_for_update().get(pk=term.pk)
    changed = []
    if fr is not None:
        fr = " ".join(fr.split())
        if not fr:
            raise ValidationError({"fr": f"vocabulary “{term.en}” ({term.kind}): empty term."})
        if fr != term.fr:
            if not term.edited and not term.mined_fr:
                term.mined_fr = term.fr
            term.fr = fr
            term.edited = True
            changed.append("fr")
    if checked is not None and checked != term.checked:
        term.checked = checked
        changed.append("checked")
    if not changed:
        return []
    _stamp(term, user)
    term.save()  # post_save: the rule and glossary entry it names are re-indexed
    _after_edit("vocabulary", term.pk, term.lineage_id, changed, user)
    return changed


@transaction.atomic
def mark_vocabulary_checked(*, terms: Iterable[VocabularyTerm], user: Any) -> int:
    """Tick terms as checked by `user` (a reviewer went through the vocabulary queue): each
    term gets its own history record naming the reviewer (django-simple-history) and the
    edit stamp (edited_by, edited_at); terms already checked are left alone. Returns how many
    were marked."""
    username = user.get_username() if hasattr(user, "get_username") else str(user or "")
    ids = [t.pk for t in terms]
    marked = 0
    rows = VocabularyTerm.objects.select_for_update().filter(pk__in=ids, checked=False)
    for term in rows.order_by("pk"):
        term.checked = True
        _stamp(term, username)
        if hasattr(user, "get_username"):
            term._history_user = user  # a command has no request for the history middleware
        term._change_reason = "marked checked"
        term.save()
        _after_edit("vocabulary", term.pk, term.lineage_id, ["checked"], username)
        marked += 1
    return marked


def _after_edit(kind: str, object_id: int, lineage_id: int | None, fields: list[str], user: str):
    purge_caches()
    transaction.on_commit(
        lambda: text_edited.send(
            sender=kind,
            kind=kind,
            object_id=object_id,
            lineage_id=lineage_id,
            fields=tuple(fields),
            user=user,
        )
    )


def purge_caches() -> None:
    """Forget what this process memoised from texts (the diff cache is keyed by the archive's
    edit stamp, see kb.stamps.archive_generation, so every process misses it at once)."""
    from kb.french import glosses

    # The read side's tables of texts (glossary links, search's glossary names) are kept
    # under the archive's stamp, which this edit moves in every process: nothing to clear.
    glosses.forget()
