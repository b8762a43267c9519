"""What imports leave behind: the source's anomalies and one record per import."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class Anomaly(models.Model):
    """A defect of the source document, kept as data instead of being dropped or 'fixed'."""

    release = models.ForeignKey("kb.Release", on_delete=models.CASCADE, related_name="anomalies")
    lang = models.CharField(max_length=2, default="en")
    kind = models.CharField(max_length=40)
    line = models.PositiveIntegerField(null=True, blank=True)
    number = models.CharField(max_length=40, blank=True)
    detail = models.TextField(blank=True)

    class Meta:
        ordering = ["release", "line"]
        verbose_name_plural = _("anomalies")

    def __str__(self) -> str:
        return f"{self.release.effective_date} {self.kind} {self.number}".strip()


class ImportRecord(models.Model):
    class Action(models.TextChoices):
        CREATED = "created", _("created")
        REPLACED = "replaced", _("replaced")
        REMOVED = "removed", _("removed")

    release = models.ForeignKey(
        "kb.Release", null=True, on_delete=models.SET_NULL, related_name="import_records"
    )
    effective_date = models.DateField()
    lang = models.CharField(max_length=2, default="en")
    source = models.CharField(max_length=500)
    sha256 = models.CharField(max_length=64)
    action = models.CharField(max_length=10, choices=Action.choices)
    counts = models.JSONField(default=dict)
    anomaly_count = models.PositiveIntegerField(default=0)
    user = models.CharField(max_length=150, blank=True)
    seconds = models.FloatField(default=0)
    # What a replacement carried over from the replaced release (French texts, added
    # examples, kept lineages) and what it could not ("--force"): kept here, never lost.
    carried = models.JSONField(default=dict, blank=True, db_default={})
    lost = models.JSONField(default=list, blank=True, db_default=[])
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.effective_date} {self.lang} {self.action} {self.created_at:%Y-%m-%d %H:%M}"
