"""Link each Magic 2010 rule (2009-07-11) to the legacy rules (2009-05-01) it came from.

Why a command: `import_rules` links them whenever either release is imported; this computes
them again on demand (after changing the thresholds, or to see the figures). Maintainers'
verdicts (confirmed, rejected) are kept.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from kb.archive.eras import FIRST_MODERN, LAST_LEGACY, both_sides_loaded, link_eras


class Command(BaseCommand):
    help = "Link the 2009-07-11 rules to the 2009-05-01 rules they came from (by their texts)."

    def handle(self, *args, **opts) -> None:
        if not both_sides_loaded():
            raise CommandError(
                f"both {LAST_LEGACY.isoformat()} and {FIRST_MODERN.isoformat()} must be loaded "
                "(import_rules cr/en-legacy cr/en)"
            )
        self.stdout.write(link_eras().describe())
