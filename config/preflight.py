"""`make serve`'s first step: one clear line, not a traceback, when production settings
cannot load (DJANGO_SECRET_KEY or DJANGO_ALLOWED_HOSTS missing), before anything starts.

    python -m config.preflight   # exit status 0 when the settings load, 2 otherwise
"""

from __future__ import annotations

import importlib
import os
import sys

from django.core.exceptions import ImproperlyConfigured


def main() -> int:
    module = os.environ.get("DJANGO_SETTINGS_MODULE") or "config.settings.prod"
    try:
        importlib.import_module(module)
    except ImproperlyConfigured as exc:
        print(f"Cannot serve: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
