"""The French CR parser and PDF reader (no database): the seed's French 602 and small documents
written here for the conventions the seed does not show."""

from __future__ import annotations

import datetime as dt

import pytest

from kb.crtext import CRFormatError, Document
from kb.crtext.french_parser import parse_french_bytes, parse_french_date, parse_french_text
from kb.crtext.pdf import join_paragraphs, pdf_text, strip_page_furniture
from tests.crtext.french_fixtures import french_document, french_pdf, requires_seed

FULL = """Magic : l'Assemblée
Règles complètes

Ces règles entrent en vigueur à compter du 1er février 2010.

Introduction

Ce document est la référence ultime.

Sommaire

1. Concepts du jeu
100. Généralités
Glossaire
Crédits

1. Concepts du jeu

100. Généralités

100.1. Ces règles de Magic s'appliquent à toute partie\u00a0; elles sont complètes.

100.1a Une partie à deux joueurs est une partie qui commence avec seulement deux joueurs.

Exemple\u00a0: Dans une partie « Troll à deux têtes », il y a quatre joueurs.

Exemple : Un second exemple\u202f!

GLOSSAIRE

Abandonner
Action de quitter la partie. Voir règle 104.3a.

Piétinement
Une capacité de mot-clé. Voir règle 702.19.

Crédits

Conception des règles : quelqu'un.
"""


@pytest.mark.parametrize(
    ("line", "date"),
    [
        ("Ces règles entrent en vigueur au 1er février 2010.", dt.date(2010, 2, 1)),
        ("Ces règles entrent en vigueur à compter du 23 avril 2010.", dt.date(2010, 4, 23)),
        ("CES RÈGLES ENTRENT EN VIGUEUR AU 1ER FÉVRIER 2010.", dt.date(2010, 2, 1)),
        ("Ces règles entrent en vigueur au 18\u00a0juin\u00a02010.", dt.date(2010, 6, 18)),
        ("Ces règles entrent en vigueur au 16\u202fjuillet 2010.", dt.date(2010, 7, 16)),
        ("Ces règles entrent en vigueur au 1 aout 2011.", dt.date(2011, 8, 1)),
        ("Ces règles entrent en vigueur au 1er Décembre 2012.", dt.date(2012, 12, 1)),
        ("Ces règles sont claires.", None),
    ],
)
def test_the_date_line_in_its_variants(line, date) -> None:
    assert parse_french_date(line) == date


def test_an_unknown_month_names_the_file_and_line() -> None:
    text = "Règles complètes\nCes règles entrent en vigueur au 1er brumaire 2010.\n100.1. Texte.\n"
    with pytest.raises(CRFormatError, match=r"fr\.txt, line 2: unknown French month 'brumaire'"):
        parse_french_text(text, source="fr.txt")


def test_a_whole_small_document_headings_examples_glossary_credits() -> None:
    doc = parse_french_text(FULL, source="fr.txt")
    assert doc.effective_date == dt.date(2010, 2, 1) and doc.date_line == 4
    assert doc.title == "Magic : l'Assemblée"
    assert doc.introduction == "Ce document est la référence ultime."
    assert doc.contents == ["1. Concepts du jeu", "100. Généralités", "Glossaire", "Crédits"]
    assert [(e.number, e.kind) for e in doc.entries] == [
        ("1", "section"),
        ("100", "chapter"),
        ("100.1", "rule"),
        ("100.1a", "subrule"),
    ]
    rule, subrule = doc.entries[2], doc.entries[3]
    assert rule.text.endswith("partie\u00a0; elles sont complètes.")  # kept as printed
    assert subrule.examples == [
        "Dans une partie « Troll à deux têtes », il y a quatre joueurs.",
        "Un second exemple\u202f!",
    ]
    assert [g.headword for g in doc.glossary] == ["Abandonner", "Piétinement"]
    assert doc.glossary[1].text == "Une capacité de mot-clé. Voir règle 702.19."
    assert doc.credits == "Conception des règles : quelqu'un."
    assert doc.anomalies == []


@requires_seed
def test_the_seed_602_parses_with_its_defects_kept_and_reported() -> None:
    doc = parse_french_text(french_document(), source="602.txt")
    assert doc.effective_date == dt.date(2010, 4, 23)
    assert doc.chapters == ["602"]
    numbers = [e.number for e in doc.entries]
    assert numbers[:4] == ["602", "602.1", "602.1a", "602.1b"] and numbers[-1] == "602.5e"
    assert doc.counts() == {
        "sections": 0,
        "chapters": 1,
        "rules": 5,
        "subrules": 11,
        "examples": 1,
        "glossary": 0,
    }
    by_number = {e.number: e for e in doc.entries}
    assert by_number["602"].text == "Activer des capacités activées"
    # Kept as printed: the doubled number stays in the text, for a maintainer to decide.
    assert by_number["602.2a"].text.startswith("2a Le joueur annonce qu'il active la capacité.")
    assert by_number["602.1"].examples == ["Le coût d'activation d'une capacité qui dit «,"]
    found = {(a.kind, a.number, a.line) for a in doc.anomalies}
    assert found == {
        ("lost_symbol", "602.1", 11),  # "avant les deux-points (."
        ("example_cut_short", "602.1", 12),  # "… qui dit «,"
        ("doubled_number", "602.2a", 16),  # "602.2a 2a"
        ("lost_symbol", "602.5a", 23),  # "le symbole d'engagement ()"
    }


def test_the_french_document_is_the_english_document_with_an_optional_date() -> None:
    doc = parse_french_text(FULL, source="fr.txt")
    assert isinstance(doc, Document) and doc.source == "fr.txt"
    assert doc.counts() == {
        "sections": 1,
        "chapters": 1,
        "rules": 1,
        "subrules": 1,
        "examples": 2,
        "glossary": 2,
    }
    undated = parse_french_text("602.5. Un joueur.\n")
    assert isinstance(undated, Document) and undated.effective_date is None


@requires_seed
def test_without_the_date_line_the_document_still_parses_undated() -> None:
    doc = parse_french_text(french_document(date_line=False), source="602.txt")
    assert doc.effective_date is None and doc.date_line is None
    assert len(doc.entries) == 17


def test_one_rule_with_its_subrules_is_a_document() -> None:
    doc = parse_french_text("602.5. Un joueur.\n602.5a Une capacité.\n")
    assert [e.number for e in doc.entries] == ["602.5", "602.5a"]
    assert doc.chapters == ["602"] and doc.anomalies == []


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"Bonjour\nCeci est une lettre.\n", r"lettre\.txt, line 1: not a Comprehensive Rules"),
        (b"100.1. Regle\n100.2. \x81\n", r"lettre\.txt, line 2: cannot decode byte 0x81"),
        (b"\x00\x01binary", r"lettre\.txt, line 1: binary data"),
        (
            b"Comprehensive Rules\nThese rules are effective as of April 23, 2010.\n100.1. Text.\n",
            r"lettre\.txt, line 2: this is an English document",
        ),
    ],
)
def test_errors_name_the_file_and_line(data, message) -> None:
    with pytest.raises(CRFormatError, match=message):
        parse_french_bytes(data, source="lettre.txt")


def test_cp1252_french_is_read() -> None:
    doc = parse_french_bytes("100.1. Règle « un ».\n".encode("cp1252"), source="a.txt")
    assert doc.entries[0].text == "Règle « un »."


# -- PDF ---------------------------------------------------------------------------------------


def test_wrapped_lines_join_and_hyphenation_is_undone() -> None:
    lines = [
        "602.2b Le reste du processus d'activa-",
        "tion est identique, comme dans les règles",
        "601.2b–h. Le joueur elle-",
        "même le fait.",
        "602.3. Certaines capacités.",
        "Exemple : Un exemple coupé «,",
        "602.3a Si plusieurs adversaires.",
    ]
    assert join_paragraphs(lines) == [
        "602.2b Le reste du processus d'activation est identique, comme dans les règles "
        "601.2b–h. Le joueur elle-même le fait.",
        "602.3. Certaines capacités.",
        "Exemple : Un exemple coupé «,",
        "602.3a Si plusieurs adversaires.",
    ]


def test_a_citation_wrapped_after_a_comma_is_not_a_rule() -> None:
    lines = ["702.5a Voir les règles 305.1,", "305.2 et 305.3."]
    assert join_paragraphs(lines) == ["702.5a Voir les règles 305.1, 305.2 et 305.3."]


def test_running_headers_and_page_numbers_are_removed() -> None:
    pages = [["Règles complètes — mars 2010", f"{n}00.1. Texte {n}.", f"Page {n}"] for n in (1, 2)]
    assert strip_page_furniture(pages) == [["100.1. Texte 1."], ["200.1. Texte 2."]]


def test_not_a_pdf_is_refused_clearly() -> None:
    with pytest.raises(CRFormatError, match=r"doc\.pdf, line 1: not a PDF file"):
        pdf_text(b"bonjour", source="doc.pdf")


@requires_seed
def test_the_pdf_of_the_test_document_parses_to_the_same_texts() -> None:
    text = french_document()
    pdf = french_pdf(text)
    from_pdf = parse_french_text(pdf_text(pdf, source="602.pdf"), source="602.pdf")
    from_txt = parse_french_text(text, source="602.txt")
    assert from_pdf.effective_date == from_txt.effective_date
    assert [(e.number, e.text, e.examples) for e in from_pdf.entries] == [
        (e.number, e.text, e.examples) for e in from_txt.entries
    ]
    assert {(a.kind, a.number) for a in from_pdf.anomalies} == {
        (a.kind, a.number) for a in from_txt.anomalies
    }
