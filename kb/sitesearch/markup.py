"""The results page's hits as HTML, formatted here rather than in the template: a page of
twenty hits ran some six hundred template nodes, a third of the page's time after the search
itself (the figure the search page's latency target is measured on). Escaped as the template
escaped: every value but the snippets, which the highlighter built and escaped already."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from django.utils.dateformat import format as format_date
from django.utils.html import conditional_escape as esc
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext


def hit_items(shown: Iterable[Mapping[str, object]]) -> SafeString:
    """The <li> of each hit (views.shown's dicts), in the template's layout."""
    return mark_safe("".join(_item(s) for s in shown))


def _item(shown: Mapping) -> str:
    h = shown["hit"]
    url = esc(h.url)
    names = "".join(
        f'<span lang="{esc(code)}" class="other-name"'
        f"{_attr_title(gettext('French term')) if h.kind == 'rule' else ''}>{esc(name)}</span>"
        for code, name in shown["names"]
    )
    context = f'<p class="hit-context">{esc(h.context)}</p>' if h.context else ""
    snippets = "".join(
        f"{_snippet(code, text, shown, url)}\n      " for code, text in shown["snippets"]
    )
    return (
        f'\n    <li class="hit hit-{esc(h.kind)}">\n      <p class="hit-title">\n'
        f'        <a href="{url}">{_title(h, shown)}</a>\n        {names}\n'
        f'        <span class="kind">{esc(_kind(h.kind))}</span>\n      </p>\n'
        f"      {context}\n      {snippets}{_also(shown)}{_matched(shown)}\n    </li>\n  "
    )


def _attr_title(text: str) -> str:
    return f' title="{esc(text)}"'


def _title(h, shown: Mapping) -> str:
    if h.kind == "rule":
        title = f" {esc(shown['title'])}" if shown["title"] else ""
        return f'<span class="num">{esc(h.number)}</span>{title}'
    if h.kind == "ruling":
        date = f", {esc(format_date(h.date, 'Y-m-d'))}" if h.date else ""
        return f"{esc(h.label)}{date}"
    return esc(shown["title"])


def _kind(kind: str) -> str:
    if kind == "rule":
        return gettext("rule")
    if kind == "glossary":
        return gettext("glossary")
    if kind == "card":
        return gettext("card")
    return gettext("ruling")


def _snippet(code: str, text: str, shown: Mapping, url: str) -> str:
    lang = ""
    if len(shown["snippets"]) > 1:
        name = gettext("French") if code == "fr" else gettext("English")
        lang = f'<span class="snippet-lang"{_attr_title(name)}>{esc(code.upper())}</span> '
    definition = shown["definition"]
    if definition:
        number = esc(definition)
        definition = f'<a class="definition" href="{url}#{number}">{number}</a> '
    return f'<p class="snippet" lang="{esc(code)}">{lang}{definition}{text}</p>'


def _also(shown: Mapping) -> str:
    if not shown["also"]:
        return ""
    links = ", ".join(f'<a href="{esc(url)}">{esc(label)}</a>' for label, url in shown["also"])
    more = shown["also_more"]
    if more:
        words = ngettext("and %(n)s other card", "and %(n)s other cards", more) % {"n": more}
        links += f" {words}"
    return f'<p class="also">{esc(gettext("Also on"))} {links}</p>'


def _matched(shown: Mapping) -> str:
    if not shown["matched"]:
        return ""
    words = gettext("matched in %(languages)s") % {"languages": esc(shown["matched"])}
    return f'<p class="matched">{words}</p>'
