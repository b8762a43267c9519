"""Small presentation helpers for the reading templates."""

from __future__ import annotations

from functools import lru_cache
from html import escape
from typing import TYPE_CHECKING

from django import template
from django.utils.html import conditional_escape, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

if TYPE_CHECKING:
    from kb.history import DiffItem

from kb.web import formatting

register = template.Library()


register.filter("longdate", formatting.longdate)
register.filter("set_name", formatting.set_name)
register.filter("symbols", formatting.symbols)


@register.filter
def switcher_items(switcher: list[dict[str, object]]) -> str:
    """The release switcher's list items (kb.web.views._Page.switcher): a hundred of them on an
    old rule cost the template loop about 2.5 ms a page. Escaped as the template did (html's
    escape is what Django's own calls)."""
    rows = []
    for s in switcher:
        current = ' aria-current="page"' if s["is_this"] else ""
        name = f' <span class="muted">{escape(s["set_name"])}</span>' if s["set_name"] else ""
        was = f' — <span class="was">{escape(s["number"])}</span>' if s["renumbered"] else ""
        date = s["date"].isoformat()  # type: ignore[attr-defined]
        rows.append(f'<li><a href="{escape(s["url"])}"{current}>{date}</a>{name}{was}</li>\n')
    return mark_safe("".join(rows))


@register.filter
def diff_items(items: list[DiffItem]) -> str:
    """A diff's items (kb.history.DiffItem, with the view's URLs and chapter headings), each
    an <article>: a release diff lists hundreds, which cost the included template about
    40 % of the page; formatted here, escaped as the template did."""
    labels = _diff_labels(get_language() or "en")
    return mark_safe("".join(_diff_item(item, labels) for item in items))


def _diff_item(item: DiffItem, labels: dict[str, str]) -> str:
    anchor = escape(item.anchor)
    heading = getattr(item, "heading", None)  # set by the view on chapters
    title = f" {entry_title(heading)}" if heading else ""
    new = f'<a href="{escape(item.new_url)}">{escape(item.new_number)}</a>'
    old = f'<a href="{escape(item.old_url)}">{escape(item.old_number)}</a>'
    if item.status == "added":
        h3 = f'<span class="kind kind-added">{labels["added"]}</span> {new}{title}\n'
    elif item.status == "removed":
        h3 = f'<span class="kind kind-removed">{labels["removed"]}</span> {old}\n'
    else:
        moved = (
            f'<span class="kind kind-moved">{labels["moved"]}</span> {old} → ' if item.moved else ""
        )
        h3 = f"{moved}{new}{title}\n{change_kinds(item.kinds)}"
    number = escape(item.new_number or item.old_number)
    diff = f'<p class="diff" lang="en">{conditional_escape(item.diff)}</p>' if item.diff else ""
    examples = "".join(
        f'<p class="example diff"><span class="example-label">{labels["example"]}</span> '
        f'<span lang="en">{conditional_escape(x)}</span></p>'
        for x in item.example_diffs
    )
    return (
        f'<article class="diff-item status-{escape(item.status)}" id="{anchor}">\n<h3>{h3}\n'
        f'<a class="anchor" href="#{anchor}" aria-label="{labels["link"]}">#</a>\n'
        f'<button type="button" class="copy cite-item" hidden data-n="{number}" '
        f'data-anchor="{anchor}">{labels["cite"]}</button></h3>\n'
        f"{diff}\n{examples}\n</article>\n"
    )


@lru_cache(maxsize=8)
def _diff_labels(language: str) -> dict[str, str]:
    """A diff item's words in a language (translated once per process), escaped."""
    words = {
        "added": _("added"),
        "removed": _("removed"),
        "moved": _("moved"),
        "link": _("Link to this change"),
        "cite": _("Cite"),
        "example": _("Example:"),
    }
    return {key: escape(word) for key, word in words.items()}


@register.filter
def lookup(mapping: dict, key: object) -> object:
    return mapping.get(key) if mapping else None


@register.filter
def change_kinds(kinds: list[str]) -> str:
    """Badges for change kinds (new, moved, wording, examples, reference, typography…)."""
    if not kinds:
        return ""
    labels = formatting.kind_labels(get_language() or "en")
    return format_html_join(
        "", '<span class="kind kind-{}">{}</span>', ((k, labels.get(k, k)) for k in kinds)
    )


@register.simple_tag
def entry_title(entry: object, text: object = None) -> str:
    """A section's, chapter's or keyword rule's title: on /fr/, its French title (the French
    document's where one is loaded, else the vocabulary's name), the English after it; the
    English alone otherwise."""
    from django.utils.html import format_html

    english = entry.text if text is None else text  # type: ignore[attr-defined]
    if (get_language() or "en")[:2] == "fr":
        fr = _french_title(entry)
        if fr:
            return format_html(
                '<span lang="fr">{}</span> <span class="title-en" lang="en">({})</span>',
                fr,
                english,
            )
    return format_html('<span lang="en">{}</span>', english)


@register.simple_tag
def entry_title_plain(entry: object) -> str:
    """`entry_title` as plain text (page titles, breadcrumbs)."""
    english = str(entry.text)  # type: ignore[attr-defined]
    if (get_language() or "en")[:2] == "fr":
        fr = _french_title(entry)
        if fr:
            return f"{fr} ({english})"
    return english


@register.simple_tag
def entry_title_short(entry: object) -> str:
    """A title in the page's language alone (breadcrumbs): the French one under /fr/ where
    one is known, else the English."""
    from django.utils.html import format_html

    if (get_language() or "en")[:2] == "fr":
        fr = _french_title(entry)
        if fr:
            return format_html('<span lang="fr">{}</span>', fr)
    return format_html('<span lang="en">{}</span>', str(entry.text))  # type: ignore[attr-defined]


def _french_title(entry: object) -> str:
    """The French document's title of this version where one is loaded, else the
    vocabulary's French name of the title ("" when neither)."""
    from kb.french.glosses import french_title

    version = getattr(entry, "version", None)
    document = getattr(version, "text_fr", "") if version is not None else ""
    if document:
        return str(document)
    return french_title(entry.lineage_id, str(entry.text))  # type: ignore[attr-defined]


#: Words of a rule's text an index shows when the rule is a sentence, not a heading.
INDEX_WORDS = 8


@register.simple_tag
def chapter_index(entries: list) -> list[dict[str, object]]:
    """A chapter's rules for its index: a keyword rule by its name (its French name first
    under /fr/ where one is known), any other rule by its first words."""
    from django.utils.html import format_html

    from kb.models.rules import is_heading

    french = (get_language() or "en")[:2] == "fr"
    out = []
    for e in entries:
        if e.kind != "rule":
            continue
        text = str(e.text).strip()
        heading = is_heading(e.kind, text)
        if heading:
            fr = _french_title(e) if french else ""
            label = (
                format_html(
                    '<span lang="fr">{}</span> <span class="muted" lang="en">{}</span>', fr, text
                )
                if fr
                else format_html('<span lang="en">{}</span>', text)
            )
        else:
            words = text.split()
            short = " ".join(words[:INDEX_WORDS]) + (" …" if len(words) > INDEX_WORDS else "")
            label = format_html('<span lang="en">{}</span>', short)
        out.append({"number": e.number, "anchor": e.anchor, "label": label, "heading": heading})
    return out
