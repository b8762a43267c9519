"""Bytes to text for CR files as they are found in the wild.

Wizards published the CR as ASCII, cp1252, UTF-16 and UTF-8 with or without a BOM, with CRLF, CR
or LF line ends. We accept all of those and refuse what is clearly not a text document, naming the
line where decoding failed.
"""

from __future__ import annotations

import codecs

from kb.crtext.errors import CRFormatError
from kb.crtext.limits import CONTROL_RE, MAX_DOCUMENT_BYTES

_CONTROL_RE = CONTROL_RE  # declared with the other limits (the admin refuses the same)


def _line_of(data: bytes, offset: int) -> int:
    return (
        data.count(b"\n", 0, offset)
        + data.count(b"\r", 0, offset)
        - data.count(b"\r\n", 0, offset)
        + 1
    )


def decode_bytes(data: bytes, *, source: str = "") -> str:
    """Decode a CR file and normalise its line ends to "\\n"."""
    if len(data) > MAX_DOCUMENT_BYTES:
        raise CRFormatError(
            f"larger than {MAX_DOCUMENT_BYTES // (1024 * 1024)} MB ({len(data) / 1e6:.1f} MB): "
            "not a Comprehensive Rules document",
            source=source,
        )
    if not data.strip():
        raise CRFormatError("the file is empty", source=source)
    if data.startswith(codecs.BOM_UTF8):
        text = _strict(data[3:], "utf-8", source, offset=3)
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = _strict(data, "utf-16", source)
    else:
        nul = data.find(b"\x00")
        if nul != -1:
            raise CRFormatError(
                "binary data (NUL byte): not a text file", line=_line_of(data, nul), source=source
            )
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            # Older official files are cp1252; fall back to it only when every byte is defined.
            try:
                text = data.decode("cp1252")
            except UnicodeDecodeError:
                raise CRFormatError(
                    f"cannot decode byte 0x{data[exc.start]:02x} as UTF-8 or Windows-1252",
                    line=_line_of(data, exc.start),
                    source=source,
                ) from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    bad = _CONTROL_RE.search(text)
    if bad is not None:
        raise CRFormatError(
            f"control character U+{ord(bad.group()):04X}: not a text document",
            line=text.count("\n", 0, bad.start()) + 1,
            source=source,
        )
    return text


def _strict(data: bytes, encoding: str, source: str, offset: int = 0) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise CRFormatError(
            f"invalid {encoding} data", line=_line_of(data, exc.start + offset), source=source
        ) from None
