"""Signals other apps listen to (kb never imports them; they subscribe)."""

from django.dispatch import Signal

#: Sent after a release is imported, replaced or removed and committed.
#: kwargs: effective_date (datetime.date), action ("created", "replaced", "removed").
release_changed = Signal()
