"""The test French document: a header written here, then the seed's French rule 602 exactly as
it arrived (its defects included), as text and as a PDF made here with reportlab.

The seed (../shared/seeds/003_3215fd40f54ce459.txt) is the only real French CR text we have;
tests that read it skip with a clear reason where it is absent.
"""

from __future__ import annotations

import io
import os

import pytest

from kb.french import seeds
from tests.conftest import SEEDS

SEED = SEEDS / seeds.SEED_602
NO_SEED = f"the seed document is not at {SEED}: these tests read its French rule 602"
requires_seed = pytest.mark.skipif(not SEED.is_file(), reason=NO_SEED)


def seed_602() -> list[str]:
    """The seed's French 602 lines, exactly as they are."""
    if not SEED.is_file():
        pytest.skip(NO_SEED)
    return seeds.seed_602_lines(SEED)


def french_document(*, date_line: bool = True) -> str:
    """The test document: the header (with or without its date line), then the seed's 602
    (what `make run` loads too: kb.french.seeds)."""
    if not SEED.is_file():
        pytest.skip(NO_SEED)
    return seeds.french_602_document(SEED, date_line=date_line)


def _wrap(paragraph: str, width: int) -> list[str]:
    """Wrap like a typesetter: at spaces, and hyphenating a long word that would overflow."""
    lines: list[str] = []
    line = ""
    for word in paragraph.split(" "):
        candidate = f"{line} {word}" if line else word
        if len(candidate) <= width:
            line = candidate
            continue
        room = width - len(line) - 2
        if word.isalpha() and len(word) >= 8 and room >= 4:
            cut = min(room, len(word) - 3)
            lines.append(f"{line} {word[:cut]}-" if line else f"{word[:cut]}-")
            line = word[cut:]
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines


def french_pdf(text: str, *, width: int = 70, per_page: int = 28) -> bytes:
    """A PDF of `text` as a publisher lays it out: wrapped and hyphenated lines, a running
    header and a page number on every page (which the reader must remove)."""
    import reportlab
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    font = os.path.join(os.path.dirname(reportlab.__file__), "fonts", "Vera.ttf")
    pdfmetrics.registerFont(TTFont("Vera", font))
    lines: list[str] = []
    for paragraph in text.split("\n"):
        lines.extend(_wrap(paragraph, width) if paragraph else [""])
    out = io.BytesIO()
    pdf = canvas.Canvas(out, pagesize=A4, invariant=True)
    pages = [lines[i : i + per_page] for i in range(0, len(lines), per_page)]
    for number, page in enumerate(pages, 1):
        pdf.setFont("Vera", 9)
        pdf.drawString(60, 800, "Magic : l'Assemblée — Règles complètes")
        pdf.drawString(280, 40, f"Page {number}")
        pdf.setFont("Vera", 10)
        y = 770
        for line in page:
            pdf.drawString(60, y, line)
            y -= 14 if line else 8
        pdf.showPage()
    pdf.save()
    return out.getvalue()


__all__ = ["french_document", "french_pdf", "requires_seed", "seed_602"]
