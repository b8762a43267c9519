"""The search outbox: index changes recorded in the same transaction as the data they follow."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class IndexOutbox(models.Model):
    """Documents of `group` (or every document of `kind` when group is "*") changed.

    Written in the transaction that changed the data, so a committed change is never lost by
    the index; drained by one writer at a time (search.indexing.drain).
    """

    kind = models.CharField(max_length=20)
    group = models.CharField(max_length=64)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("index outbox entry")
        verbose_name_plural = _("index outbox")

    def __str__(self) -> str:
        return f"{self.kind}:{self.group}"
