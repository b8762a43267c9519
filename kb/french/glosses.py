"""French glosses on English rule text: "Trample (Piétinement)", "the stack (pile)".

Most of the archive has no French rule text, so `/fr/` shows the English under a notice. A
French reader still knows the game in French: each vocabulary term an English text contains
carries its French name right after it, in a ``<span class="gloss" lang="fr">`` (read in French
by screen readers, hidden in one click by static/js/glosses.js, shown without JavaScript).

One pass over the rendered HTML: text between tags is matched against every term at once
(longest first, so "double strike" wins over "double"), never inside a link, an abbreviation or
a span already marked; each term is glossed once per rule (its first occurrence in the rule's
text and its examples, read in order), which is enough to learn it without burying the
sentence. Only terms the pages may show are used (the
rule of the "FR" badge: ``VocabularyTerm.objects.shown``).

kb reads its own VocabularyTerm only: the rulings app fills it, kb never imports rulings.
"""

from __future__ import annotations

import functools
import hashlib
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Count, Max
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from kb.models import VocabularyTerm
from kb.models.rules import is_heading

#: Kinds in the order that names an English word when two kinds share it ("Exile": the action
#: unless a determiner or preposition makes it the zone, see `_pick`).
_KIND_ORDER = ("keyword ability", "keyword action", "zone", "step", "glossary")
_NOUN_CONTEXT = re.compile(r"(?:\b(?:the|in|into|from|to|of|an?|its|their|your)\s+)$", re.I)
_TAG = re.compile(r"(<[^>]*>)")
_TAG_NAME = re.compile(r"^<\s*(/?)\s*([a-zA-Z0-9]+)")
#: Elements whose text is never glossed: links (a gloss inside would change the link text),
#: abbreviations, code, and spans already marked (a gloss, a French or symbol span).
_SKIP = frozenset({"a", "abbr", "code", "script", "style", "button"})
_VOID = frozenset({"br", "img", "hr", "wbr", "input"})


@dataclass(frozen=True)
class Gloss:
    en: str
    fr: str
    kind: str
    verified: bool


@dataclass
class Glossary:
    """The shown terms and one pattern matching any of them (longest alternative first)."""

    by_en: dict[str, list[Gloss]]
    pattern: re.Pattern[str] | None

    def gloss(self, html: str, done: set[str] | None = None) -> SafeString:
        """`html` with the first occurrence of each term followed by its French gloss. A term
        that is a link's text is glossed right after the link, never inside it. `done`: the
        French terms glossed already in the same block (a rule's text before its examples),
        filled in as terms are glossed, so a block glosses each term once."""
        if self.pattern is None or not html:
            return mark_safe(html)  # rendered by kb.web.rendering, escaped there
        done = set() if done is None else done
        out: list[str] = []
        skipping: list[str] = []  # open elements whose text is not glossed
        link_text: list[str] = []
        before = ""
        for part in _TAG.split(str(html)):
            if part.startswith("<") and part.endswith(">"):
                closes_link = skipping == ["a"] and _TAG_NAME.match(part) is not None
                closes_link = closes_link and part.replace(" ", "").lower().startswith("</a")
                _track(part, skipping)
                out.append(part)
                if closes_link:
                    out.append(self._after_link("".join(link_text), done, before))
                    before += "".join(link_text)
                    link_text = []
            elif skipping:
                if skipping == ["a"]:
                    link_text.append(part)
                out.append(part)
            elif part.strip():
                out.append(self._gloss_text(part, done, before))
                before += part
            else:
                out.append(part)
        return mark_safe("".join(out))  # only escaped French terms were added

    def _gloss_text(self, text: str, done: set[str], before: str) -> str:
        assert self.pattern is not None
        titles = _quoted_titles(text, before)

        def replace(m: re.Match[str]) -> str:
            if any(start <= m.start() < end for start, end in titles):
                return m.group(0)
            term = self._term(m, text, done, before)
            return m.group(0) + _span(term) if term else m.group(0)

        # A possessive's ending stays on its word: "owner’s (propriétaire)", not
        # "owner (propriétaire)’s".
        return _POSSESSIVE.sub(r"\2\1", self.pattern.sub(replace, text))

    def _after_link(self, text: str, done: set[str], before: str) -> str:
        """The gloss of a link whose whole text is a term ("attacking creature"), to follow
        the link; a link naming something else ("active player") gets none, not the gloss
        of a word inside it."""
        assert self.pattern is not None
        m = self.pattern.fullmatch(text.strip())
        term = self._term(m, text, done, before) if m else None
        return _span(term) if term else ""

    def _term(self, m: re.Match[str], text: str, done: set[str], before: str) -> Gloss | None:
        """The term a match names, unless it was glossed already in this text or its French
        is the same word ("Vigilance")."""
        candidates = self.by_en.get(_key(m.group(1)))
        if not candidates:
            return None
        term = _pick(candidates, (before + text[: m.start()])[-24:])
        if term.fr.casefold() in done or term.fr.casefold() == m.group(0).casefold():
            return None
        done.add(term.fr.casefold())
        return term


#: A gloss followed by a possessive ending (moved after it).
_POSSESSIVE = re.compile(r"""(<span class="gloss"[^>]*>[^<]*</span>)(['’]s\b)""")
#: A title quoted after the number it names: "See rule 113, “Abilities.”", "section 6,
#: “Spells, Abilities, and Effects”". A heading, never glossed.
_QUOTE = re.compile(r"“[^”]*”")
_TITLE_AFTER = re.compile(r"\b(?:rules?|sections?)\s+[0-9][0-9.a-z–-]*,\s*$", re.I)


def _quoted_titles(text: str, before: str) -> list[tuple[int, int]]:
    """Where `text` quotes the title of a rule or section it (or the text before it) cites."""
    out = []
    for m in _QUOTE.finditer(text):
        if _TITLE_AFTER.search((before + text[: m.start()])[-60:]):
            out.append((m.start(), m.end()))
    return out


def _track(tag: str, skipping: list[str]) -> None:
    """Follow the elements whose text is skipped (see _SKIP; spans with a class or a lang)."""
    m = _TAG_NAME.match(tag)
    if m is None or tag.startswith("<!"):
        return
    closing, name = m.group(1) == "/", m.group(2).lower()
    if name in _VOID or tag.endswith("/>"):
        return
    if closing:
        if skipping and skipping[-1] == name:
            skipping.pop()
        elif skipping and name == "span" and "span" in skipping:
            skipping.remove("span")
        return
    if skipping:
        skipping.append(name)  # nested inside a skipped element: skipped too
    elif name in _SKIP or (
        name == "span" and re.search(r"""\b(?:class=["'][^"']*\b(?:gloss|ms|fr-term)|lang=)""", tag)
    ):
        skipping.append(name)


def _span(term: Gloss) -> str:
    title = _("French term") if term.verified else _("French term (unverified)")
    return f'<span class="gloss" lang="fr" title="{escape(title)}"> ({escape(term.fr)})</span>'


def _pick(candidates: list[Gloss], context: str) -> Gloss:
    if len(candidates) > 1 and _NOUN_CONTEXT.search(context):
        nouns = [c for c in candidates if not c.kind.startswith("keyword")]
        if nouns:
            return nouns[0]
    return candidates[0]


def _key(text: str) -> str:
    return " ".join(text.casefold().split())


def _plural(word: str) -> str:
    if word.endswith("y") and word[-2:-1] not in ("a", "e", "i", "o", "u"):
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"


def _forms(en: str) -> list[str]:
    """The English term and its plural (or third person: "abilities", "sacrifices"). Not
    its participle: "activated", "created", "revealed" describe, they do not name the action
    ("An activated (activer) or triggered ability" was wrong); a participle the vocabulary
    lists as a term of its own ("tapped") is glossed as that term."""
    base = " ".join(en.casefold().split())
    return [base, _plural(base)]


def build(terms: Iterable[tuple[str, str, str, bool]]) -> Glossary:
    """The glossary of (English, French, kind, verified) terms; English names with brackets
    ("Counter (marker)") never occur as such in rule text and are skipped."""
    by_en: dict[str, list[Gloss]] = {}
    forms_of: dict[str, str] = {}
    for en, fr, kind, verified in terms:
        if not en or not fr or "(" in en or not re.search(r"\w", en):
            continue
        gloss = Gloss(en, fr, kind, verified)
        # A zone is named with or without its noun ("the command zone", "exile"): the gloss
        # follows the whole name, not its first word.
        extra = [f"{en.casefold()} zone"] if kind == "zone" else []
        for form in [*_forms(en), *extra]:
            forms_of.setdefault(form, en)
            by_en.setdefault(form, []).append(gloss)
    order = {k: i for i, k in enumerate(_KIND_ORDER)}
    for glosses in by_en.values():
        glosses.sort(key=lambda g: order.get(g.kind, len(order)))
    if not by_en:
        return Glossary({}, None)
    alternatives = sorted(by_en, key=len, reverse=True)
    body = "|".join(re.escape(a).replace(r"\ ", r"\s+") for a in alternatives)
    pattern = re.compile(rf"(?<![\w-])({body})(?![\w-])", re.IGNORECASE)
    return Glossary(by_en, pattern)


_checked: tuple[float, tuple[object, ...]] | None = None
#: Seconds a read of the vocabulary's stamp is trusted: a page asks for a hundred titles.
STAMP_SECONDS = 2.0


def _stamp() -> tuple[object, ...]:
    """Changes when the vocabulary does (a rebuild, an edit): count, last edit, last id; read
    at most every STAMP_SECONDS (an edit forgets it at once: see `forget`)."""
    global _checked
    now = time.monotonic()
    if _checked is not None and now - _checked[0] < STAMP_SECONDS:
        return _checked[1]
    agg = VocabularyTerm.objects.aggregate(n=Count("id"), last=Max("edited_at"), top=Max("id"))
    stamp = (agg["n"], agg["last"], agg["top"], int(now // 60))
    _checked = (now, stamp)
    return stamp


def vocabulary_stamp() -> tuple[object, ...]:
    """What changes when the shown vocabulary does: a digest of its rows (a check, an edit, a
    rebuild), recomputed when the stamp moves (at least every minute). Keys cached pages."""
    return _digest(_stamp())


@functools.lru_cache(maxsize=2)
def _digest(stamp: tuple[object, ...]) -> tuple[object, ...]:
    rows = (
        VocabularyTerm.objects.shown()
        .order_by("id")
        .values_list("id", "lineage_id", "en", "fr", "kind", "checked", "edited", "source")
    )
    digest = hashlib.blake2b(repr(list(rows)).encode(), digest_size=12).hexdigest()
    return (*stamp[:3], digest)


def forget() -> None:
    """Drop what this process memoised of the vocabulary (kb.archive.editing.purge_caches)."""
    global _checked
    _checked = None
    _glossary.cache_clear()
    _titles.cache_clear()
    _digest.cache_clear()


@functools.lru_cache(maxsize=2)
def _glossary(stamp: tuple[object, ...]) -> Glossary:
    rows = VocabularyTerm.objects.shown().values_list(
        "en", "fr", "kind", "checked", "edited", "source"
    )
    return build(
        (en, fr, kind, bool(checked or edited or source == "curated"))
        for en, fr, kind, checked, edited, source in rows
    )


def glossary() -> Glossary:
    """The process's glossary, rebuilt when the vocabulary changes (one aggregate query)."""
    return _glossary(_stamp())


def gloss_entries(entries: Iterable[object]) -> bool:
    """Gloss the English HTML of rule entries (their text and examples) in place; True when
    any gloss was added (the page then offers its on/off switch)."""
    g = glossary()
    added = False
    for e in entries:
        if getattr(e, "kind", "") in ("section", "chapter"):
            continue  # titles: French titles name them (french_title)
        html = getattr(e, "html", "")
        if is_heading(getattr(e, "kind", ""), re.sub(r"<[^>]+>", "", str(html))):
            continue  # a rule that only names its keyword: its FR badge names it in French
        french = getattr(e, "french", None)
        if french is not None and str(html).strip().casefold() == french.en.casefold():
            continue  # a keyword rule's title: its "FR" badge already names it
        shown_fr = getattr(e, "fr", None)
        if shown_fr is not None and shown_fr.text:
            continue  # its French text is beside it (or a stale one, said so): no glosses
        done: set[str] = set()  # one block: the rule's text, then its examples
        glossed = g.gloss(html, done)
        added = added or glossed != html
        e.html = glossed
        examples = getattr(e, "examples", None)
        if examples:
            e.examples = [g.gloss(x, done) for x in examples]
            added = added or any(x != y for x, y in zip(e.examples, examples, strict=True))
    return added


# -- French titles -------------------------------------------------------------------------------


@functools.lru_cache(maxsize=2)
def _titles(stamp: tuple[object, ...]) -> dict[int, tuple[str, str]]:
    rows = (
        VocabularyTerm.objects.shown()
        .exclude(lineage_id=None)
        .order_by("lineage_id", "kind")
        .values_list("lineage_id", "en", "fr")
    )
    out: dict[int, tuple[str, str]] = {}
    for lineage_id, en, fr in rows:
        out.setdefault(lineage_id, (_key(en), fr))
    return out


def french_title(lineage_id: int, english: str) -> str:
    """The French title of a section, chapter or keyword rule whose English title is a
    vocabulary term ("405. Stack" -> "Pile", "506. Combat Phase" -> "Phase de combat"); "" when
    the vocabulary does not name it. The term must *be* the title: 602 is the rule of
    "Activated ability" but its title ("Activating Activated Abilities") is not that term."""
    found = _titles(_stamp()).get(lineage_id)
    if found is None:
        return ""
    en, fr = found
    title = _key(english)
    if title == _plural(en) and title != en:
        if " " in fr:
            return ""  # plural of a French phrase: not guessed
        fr = _plural_fr(fr)
    elif title != en:
        return ""
    return fr[:1].upper() + fr[1:]


def _plural_fr(word: str) -> str:
    """A French noun's plural (regular forms; "-al" and "-eau" words are rare in titles)."""
    if word.endswith(("s", "x", "z")):
        return word
    if word.endswith(("eau", "eu")):
        return word + "x"
    return word + "s"


# -- the glossary in French ----------------------------------------------------------------------


def french_name(term: object) -> str:
    """A glossary entry's French name where the vocabulary shows one, else ""."""
    french = getattr(term, "french", None)
    return french.fr if french is not None and french.shown else ""


def order_glossary(terms: list, lang: str, query: str = "") -> list:
    """Glossary entries as a page lists them: on /fr/ by their French name where one is known
    (else the English headword), accents and case aside; `query` keeps the entries whose
    English or French name contains it (accents, case and apostrophes aside)."""
    from search.analysis import fold

    def norm(text: str) -> str:
        return " ".join(fold(text.casefold()).replace("’", "'").split())

    wanted = norm(query)[:100]
    if wanted:
        terms = [t for t in terms if wanted in norm(t.headword) or wanted in norm(french_name(t))]
    if lang == "fr":
        terms = sorted(terms, key=lambda t: (norm(french_name(t) or t.headword), t.version.ordinal))
    return terms


def sort_name(term: object, lang: str) -> str:
    """The name an entry is sorted under on a page of `lang` (its letter heading)."""
    return (french_name(term) if lang == "fr" else "") or term.headword  # type: ignore[attr-defined]
