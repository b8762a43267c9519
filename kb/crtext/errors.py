"""Errors raised while reading a CR document.

They carry the line number so that an operator who feeds a wrong file learns *where* it went
wrong, not just that it did.
"""

from __future__ import annotations


class CRFormatError(ValueError):
    """The input is not a Comprehensive Rules document we can read."""

    def __init__(self, message: str, *, line: int | None = None, source: str = "") -> None:
        self.message = message
        self.line = line
        self.source = source
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = self.source or "<input>"
        if self.line is not None:
            where = f"{where}, line {self.line}"
        return f"{where}: {self.message}"

    def with_source(self, source: str) -> CRFormatError:
        """Return the same error naming `source` (parsers often learn the file name late)."""
        self.source = source
        self.args = (str(self),)
        return self


class LegacyLayoutError(CRFormatError):
    """A pre-Magic 2010 document: its numbering is a different scheme, refused until supported."""
