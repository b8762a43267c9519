"""A ruling with its context as HTML, built in Python.

Why not a template include: a card or rule page can show hundreds of rulings, and an include
per ruling cost ~0.25 ms each (most of a 200-ruling page); this renders the same markup in a
tenth of that. Every value from the data is escaped here.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from kb.web.formatting import longdate, symbols
from rulings.ruling_context import LinkView, RulingView


@dataclass(frozen=True)
class _Labels:
    """The page's translated phrases, looked up once per page rather than once per ruling."""

    then: str
    cited: str
    missing: str
    predates: str
    predates_then: str
    in_force: str
    old_wording: str
    rules: str
    changed: str
    evidence: str
    own_keyword: str
    by_hand: str

    @classmethod
    def current(cls) -> _Labels:
        return cls(
            then=_("then %(n)s"),
            cited=escape(_("cited")),
            missing=escape(_("no longer in the source")),
            predates=escape(
                _(
                    "This ruling predates the modern Comprehensive Rules (July 11, 2009): "
                    "its terms may have changed since."
                )
            ),
            # Holds the link's markup: the values are escaped, not the sentence.
            predates_then=_(
                'Rules in force then: <a href="%(url)s">%(date)s</a>, before the Magic 2010 '
                "renumbering (July 11, 2009): numbers and terms have changed since."
            ),
            in_force=escape(_("Rules in force then:")),
            old_wording=_("Old wording: “%(phrase)s” is “%(now)s” in the rules since %(since)s."),
            rules=escape(_("Rules:")),
            # The words of the ruling that made the link (or the heading it is listed under).
            evidence=_("Linked by the words “%(evidence)s”"),
            own_keyword=_("Linked because it is the card's keyword: %(keyword)s"),
            by_hand=_("Linked by a maintainer"),
            # Holds the link's markup: the values are escaped, not the sentence.
            changed=_(
                "The rules it relies on changed since: %(n)s was reworded on %(since)s "
                '(<a href="%(url)s">see the changes</a>).'
            ),
        )


def rulings_html(views: list[RulingView], show_card: bool = False) -> list[SafeString]:
    labels = _Labels.current()
    return [_ruling(view, labels, show_card) for view in views]


def evidence_text(link: LinkView, labels: _Labels) -> str:
    """Why a ruling links to a rule, as a reader is told: the words that made the link, the
    card's keyword (the evidence "[phasing]"), or a maintainer's decision."""
    evidence = link.evidence.strip()
    if evidence.startswith("[") and evidence.endswith("]"):
        return labels.own_keyword % {"keyword": evidence[1:-1]}
    if evidence:
        return labels.evidence % {"evidence": evidence}
    return labels.by_hand


def _link(link: LinkView, labels: _Labels, tip_id: str) -> str:
    if link.url:
        # The evidence in a tooltip shown on hover and on keyboard focus, read by screen
        # readers as the link's description (a title attribute is neither).
        tip = escape(evidence_text(link, labels))
        html = (
            f'<span class="rule-link-tip"><a class="rule-link" href="{escape(link.url)}" '
            f'aria-describedby="{tip_id}">{escape(link.number)}</a>'
            f'<span class="evidence" role="tooltip" id="{tip_id}">{tip}</span></span>'
        )
    else:
        html = f'<span class="ref-missing">{escape(link.number_then)}</span>'
    if link.number_then and link.number_then != link.number:
        then = escape(link.number_then)
        if link.then_url:
            then = f'<a href="{escape(link.then_url)}">{then}</a>'
        html += f' <span class="muted">({escape(labels.then).replace("%(n)s", then)})</span>'
    if link.kind == "cited":
        html += f' <span class="muted">{labels.cited}</span>'
    return html


def _ruling(view: RulingView, labels: _Labels, show_card: bool) -> SafeString:
    r = view.ruling
    head = f'<time datetime="{r.date.isoformat()}">{escape(longdate(r.date))}</time>'
    if show_card:
        url = reverse("rulings:card", args=[r.card.slug])
        head += f' · <a href="{escape(url)}" lang="en">{escape(r.card.name_en)}</a>'
    if r.missing:
        head += f' <span class="kind">{labels.missing}</span>'
    context: list[str] = []
    if view.predates_modern and view.release:
        sentence = labels.predates_then % {
            "url": escape(view.release_url),
            "date": escape(longdate(view.release.effective_date)),
        }
        context.append(f'<p class="notice">{sentence}</p>')
    elif view.predates_modern:
        context.append(f'<p class="notice">{labels.predates}</p>')
    elif view.release:
        context.append(
            f'<p class="muted">{labels.in_force} <a href="{escape(view.release_url)}">'
            f"{escape(longdate(view.release.effective_date))}</a></p>"
        )
    for phrase, now, since in view.old_wording:
        text = labels.old_wording % {"phrase": phrase, "now": now, "since": longdate(since)}
        context.append(f'<p class="notice old-wording">{escape(text)}</p>')
    if view.links:
        links = ", ".join(
            _link(link, labels, f"evidence-{r.pk}-{i}") for i, link in enumerate(view.links)
        )
        context.append(f'<p class="ruling-rules">{labels.rules} {links}</p>')
    for link in view.changed:
        sentence = labels.changed % {
            "n": escape(link.number),
            "since": escape(longdate(link.changed_since)),
            "url": escape(link.diff_url),
        }
        context.append(f'<p class="notice changed-since">{sentence}</p>')
    missing = " missing" if r.missing else ""
    return mark_safe(  # every value above is escaped
        f'<article class="ruling{missing}" id="ruling-{r.pk}">'
        f'<p class="ruling-date">{head}</p>'
        f'<p class="ruling-text" lang="en">{symbols(r.text)}</p>'
        f'<div class="ruling-context">{"".join(context)}</div></article>'
    )
