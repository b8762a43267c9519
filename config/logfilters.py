"""Logging filters the settings name (config.settings)."""

from __future__ import annotations

import logging


class WithoutTraceback(logging.Filter):
    """Keeps a record's message and drops its traceback: a request naming a host the site
    does not serve is the client's doing (scanners send many), worth one line, not forty."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.exc_info = None
        record.exc_text = None
        return True
