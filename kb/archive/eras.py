"""Store the links across the Magic 2010 renumbering (kb.archive.crossing finds them).

Run after an import that touches either side (2009-05-01, 2009-07-11) and by
`manage.py link_eras`. A maintainer's verdict is never overwritten: confirmed and rejected
links stay as they are, a proposal the texts no longer support goes, a sure link the texts no
longer support goes too (it was never anyone's work).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from kb.archive.crossing import Link, Rule, cross, cross_chapters
from kb.models import EraLink, Release, RuleNumber, RuleVersion
from kb.models.versioning import valid_on
from kb.signals import era_links_changed

#: The last legacy release and the first modern one: the two sides of the renumbering.
LAST_LEGACY = dt.date(2009, 5, 1)
FIRST_MODERN = dt.date(2009, 7, 11)


@dataclass
class EraLinkReport:
    sure: int = 0
    proposed: int = 0
    kept: int = 0  # maintainers' verdicts left as they were
    removed: int = 0
    legacy_rules: int = 0
    linked: int = 0  # legacy rules with a shown link

    def describe(self) -> str:
        share = self.linked / self.legacy_rules if self.legacy_rules else 0.0
        return (
            f"Links across Magic 2010: {self.sure} sure, {self.proposed} proposed for review, "
            f"{self.kept} reviewed kept, {self.removed} withdrawn; {self.linked} of "
            f"{self.legacy_rules} rules of {LAST_LEGACY.isoformat()} linked ({share:.0%})"
        )


def both_sides_loaded() -> bool:
    return Release.objects.filter(effective_date__in=[LAST_LEGACY, FIRST_MODERN]).count() == 2


def rules_on(
    date: dt.date, kinds: tuple[str, ...] = ("rule", "subrule")
) -> tuple[list[Rule], dict[str, int]]:
    """The entries of these kinds in force on `date` (English text), and each number's
    lineage."""
    texts = dict(RuleVersion.objects.filter(valid_on(date)).values_list("lineage_id", "text_en"))
    rules: list[Rule] = []
    lineage: dict[str, int] = {}
    for number, lid in (
        RuleNumber.objects.filter(valid_on(date), kind__in=kinds, ordinal=0)
        .order_by("sort_key")
        .values_list("number", "lineage_id")
    ):
        rules.append(Rule(number, texts.get(lid) or ""))
        lineage[number] = lid
    return rules, lineage


@transaction.atomic
def link_eras() -> EraLinkReport:
    """Compute the links again and store them; maintainers' verdicts are kept."""
    report = EraLinkReport()
    if not both_sides_loaded():
        return report
    legacy, legacy_lineage = rules_on(LAST_LEGACY)
    modern, modern_lineage = rules_on(FIRST_MODERN)
    old_chapters, old_chapter_lineage = rules_on(LAST_LEGACY, ("chapter",))
    new_chapters, new_chapter_lineage = rules_on(FIRST_MODERN, ("chapter",))
    legacy_lineage.update(old_chapter_lineage)
    modern_lineage.update(new_chapter_lineage)
    rule_links = cross(legacy, modern)
    chapter_links = cross_chapters(rule_links, old_chapters, new_chapters)
    found: dict[tuple[str, str], Link] = {(k.legacy, k.modern): k for k in rule_links}
    found.update({(k.legacy, k.modern): k for k in chapter_links})
    existing = {(e.legacy_number, e.modern_number): e for e in EraLink.objects.all()}
    report.legacy_rules = len(legacy)
    create, update, drop = [], [], []
    for key, row in existing.items():
        if row.reviewed:
            row.legacy_id = legacy_lineage.get(key[0])
            row.modern_id = modern_lineage.get(key[1])
            update.append(row)
            report.kept += 1
        elif key not in found:
            drop.append(row.pk)
    for key, link in found.items():
        status = EraLink.Status.SURE if link.sure else EraLink.Status.PROPOSED
        row = existing.get(key)
        if row is not None and row.reviewed:
            continue
        fields = {
            "legacy_id": legacy_lineage.get(link.legacy),
            "modern_id": modern_lineage.get(link.modern),
            "how": link.how,
            "score": round(link.score, 3),
            "evidence": link.evidence[:300],
            "status": status,
        }
        if row is None:
            create.append(EraLink(legacy_number=link.legacy, modern_number=link.modern, **fields))
        else:
            for name, value in fields.items():
                setattr(row, name, value)
            update.append(row)
        if link.sure:
            report.sure += 1
        else:
            report.proposed += 1
    EraLink.objects.filter(pk__in=drop).delete()
    report.removed = len(drop)
    transaction.on_commit(lambda: era_links_changed.send(sender=EraLink))
    EraLink.objects.bulk_create(create)
    EraLink.objects.bulk_update(
        update, ["legacy", "modern", "how", "score", "evidence", "status"], batch_size=500
    )
    report.linked = len(
        set(EraLink.objects.shown().values_list("legacy_number", flat=True))
        & {r.number for r in legacy}
    )
    return report


def follow_imports(dates: set[dt.date]) -> EraLinkReport | None:
    """After imports: link again when either side was imported or replaced, or when both are
    loaded and no link exists yet (an archive loaded before links existed)."""
    if not both_sides_loaded():
        return None
    if dates & {LAST_LEGACY, FIRST_MODERN} or not EraLink.objects.exists():
        return link_eras()
    return None


def review(link: EraLink, *, confirm: bool, user: str) -> None:
    """A maintainer's verdict on a link (kept by every later computation)."""
    link.status = EraLink.Status.CONFIRMED if confirm else EraLink.Status.REJECTED
    link.reviewed_by = user[:150]
    link.reviewed_at = timezone.now()
    link.save(update_fields=["status", "reviewed_by", "reviewed_at"])
    transaction.on_commit(lambda: era_links_changed.send(sender=EraLink))


def origins_of(lineage_id: int) -> list[EraLink]:
    """The shown links of a modern lineage to the legacy rules it came from."""
    return list(EraLink.objects.shown().filter(modern_id=lineage_id).order_by("legacy_number"))


def successors_of(lineage_id: int) -> list[EraLink]:
    """The shown links of a legacy lineage to the modern rules it went into."""
    return list(EraLink.objects.shown().filter(legacy_id=lineage_id).order_by("modern_number"))
