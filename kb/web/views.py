"""Reading pages. Views stay thin: kb.selectors reads and assembles, templates present."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.core.paginator import Page
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from kb import hooks, selectors
from kb.crtext.numbers import is_legacy_date, is_number, kind_of
from kb.french import glosses
from kb.french.status import (
    STATES,
    TO_DO,
    attach_anomalies,
    french_states,
    worklist,
    worklist_page,
)
from kb.history import (
    across_2010,
    cached_summary,
    counterparts,
    diff_between,
    diff_overview,
    move_blocks,
    ordered,
    render_item_diffs,
    rule_history,
    term_history,
)
from kb.models import Release
from kb.selectors import BadRelease, NoRelease, Releases, release_for
from kb.web import fragments, page_cache
from kb.web.entries import glossary_linker, render_entries, rendered_glossary
from search.analysis import fold

#: The query parameter carrying the date a reader asked for (see _page).
ASKED_ON = "on"


class _Page:
    """What every reading page needs to know about the release it shows."""

    def __init__(self, request: HttpRequest, token: str, releases: Releases, release: Release):
        self.request = request
        self.token = token
        self.releases = releases
        self.release = release
        self.date = release.effective_date
        self.is_current = token == "current"
        # Pages link hundreds of numbers: reverse once, then fill the number in.
        self._pinned_template = reverse("kb:rule", args=["0000-00-00", "0"])
        if self.is_current:
            self._rule_prefix = reverse("kb:current_rule", args=["0"])[:-2]
        else:
            self._rule_prefix = reverse("kb:rule", args=[token, "0"])[:-2]

    def rule_url(self, number: str) -> str:
        return f"{self._rule_prefix}{number}/"

    def pinned_rule_url(self, number: str, date: dt.date | None = None) -> str:
        """The URL of `number` in a given release (this page's by default), built without
        reversing each time: switchers list a hundred of them."""
        iso = (date or self.date).isoformat()
        return self._pinned_template.replace("0000-00-00", iso).replace("/0/", f"/{number}/")

    def switcher(self, lineage_id: int, number: str) -> list[dict[str, object]]:
        """The releases in which a lineage exists, newest first, with its number in each."""
        return [
            {
                "date": r.effective_date,
                "set_name": r.set_name or "",
                "number": n,
                "url": self.pinned_rule_url(n, r.effective_date),
                "is_this": r.pk == self.release.pk,
                "renumbered": n != number,
            }
            for r, n in reversed(selectors.lineage_releases(lineage_id, self.releases))
        ]

    def term_url(self, slug: str) -> str:
        return reverse("kb:glossary_term", args=[self.token, slug])

    @property
    def asked_on(self) -> dt.date | None:
        """The date the reader asked for (`?on=`, set by the redirect from a date that is no
        release's), when it stands for this page's release: the banner says so."""
        token = self.request.GET.get(ASKED_ON, "")
        try:
            asked = dt.date.fromisoformat(token)
        except ValueError:
            return None
        try:
            found = release_for(asked.isoformat(), self.releases)
        except (BadRelease, NoRelease):
            return None
        return asked if found.pk == self.release.pk and asked != self.date else None

    def context(self, **extra: object) -> dict[str, object]:
        return {
            "asked_on": self.asked_on,
            "release": self.release,
            "release_token": self.token,
            "is_current": self.is_current,
            "is_upcoming": self.releases.is_upcoming(self.release),
            "current_release": self.releases.current,
            **extra,
        }

    def gloss(self, items: list) -> bool:
        """On /fr/ only: English texts carry the French of their terms (kb.french.glosses)."""
        return self.request.LANGUAGE_CODE == "fr" and glosses.gloss_entries(items)


def _page(request: HttpRequest, token: str, rebuild: Callable[[str], str]) -> _Page | HttpResponse:
    """Resolve the release of a URL: `current`, an effective date, or any date (redirected to
    the release in force on it)."""
    releases = Releases.load()
    if not releases.all:
        raise Http404(_("No release is loaded yet."))
    try:
        release = release_for(token, releases)
    except BadRelease:
        raise Http404(_("“%(token)s” is not a date.") % {"token": token}) from None
    except NoRelease as exc:
        raise Http404(_no_release(exc)) from None
    if token != "current" and release.effective_date.isoformat() != token:
        # The date asked for goes along, so that the page can say which release it stands for.
        target = rebuild(release.effective_date.isoformat())
        return redirect(f"{target}?{urlencode({ASKED_ON: token})}")
    return _Page(request, token, releases, release)


def _no_release(exc: NoRelease) -> str:
    if exc.first is None:
        return _("No release is loaded yet.")
    if exc.date is None:  # `current`, while every release loaded is still to come
        return _("No release is in force yet: the first loaded takes effect on %(first)s.") % {
            "first": exc.first.isoformat()
        }
    return _("No release was in force on %(date)s: the archive starts on %(first)s.") % {
        "date": exc.date.isoformat(),
        "first": exc.first.isoformat(),
    }


@page_cache.reads()
def home(request: HttpRequest) -> HttpResponse:
    """The release in force today, what it changed, and the releases loaded ahead of their
    date (announced as to come, never as current)."""
    releases = Releases.load()
    current = releases.current
    sections = _sections(selectors.contents(current.effective_date)) if current else []
    previous = releases.previous(current) if current is not None else None
    return render(
        request,
        "kb/home.html",
        {
            "current_release": current,
            "release": current,
            "sections": sections,
            "release_count": len(releases.all),
            "previous_release": previous,
            "summary": cached_summary(previous, current) if previous else None,
            "upcoming": [(r, releases.previous(r)) for r in releases.upcoming],
        },
    )


@page_cache.reads()
def releases(request: HttpRequest) -> HttpResponse:
    """Every release, newest first; the current one and those still to come marked."""
    loaded = Releases.load()
    all_releases = loaded.all
    rows = []
    for i, r in enumerate(all_releases):
        rows.append(
            {
                "release": r,
                "previous": all_releases[i - 1] if i else None,
                "upcoming": loaded.is_upcoming(r),
                "current": r == loaded.current,
            }
        )
    return render(request, "kb/releases.html", {"rows": list(reversed(rows))})


#: What each kind of anomaly means, for readers of the releases table.
ANOMALY_KINDS = {
    "dangling_reference": gettext_lazy(
        "A rule or glossary entry cites a number this release does not have."
    ),
    "duplicate_number": gettext_lazy("Two rules of the document carry the same number."),
    "doubled_example_prefix": gettext_lazy("An example starts with “Example:” twice."),
    "glued_glossary_term": gettext_lazy("A glossary entry is glued to the one before it."),
    "orphan_subrule": gettext_lazy("A subrule whose rule the document lacks."),
    "stray_digit_in_number": gettext_lazy("A number with a stray digit."),
    "stray_space_in_number": gettext_lazy("A number with a stray space."),
    "stray_line": gettext_lazy("A line that belongs to no rule."),
    "subrule_letter_sequence": gettext_lazy("Subrule letters out of sequence."),
}


@page_cache.reads(ASKED_ON)
def anomalies(request: HttpRequest, release: str) -> HttpResponse:
    """The defects of a release's official document, kept as found (the releases table
    counts them): what each kind means, and where it is."""
    page = _page(request, release, lambda t: reverse("kb:anomalies", args=[t]))
    if isinstance(page, HttpResponse):
        return page
    rows = [
        {
            "anomaly": a,
            "meaning": ANOMALY_KINDS.get(a.kind, ""),
            "url": page.rule_url(a.number) if a.number and is_number(a.number) else "",
        }
        for a in page.release.anomalies.filter(lang="en").order_by("line", "id")
    ]
    return render(request, "kb/anomalies.html", page.context(rows=rows))


@page_cache.reads(ASKED_ON)
def contents(request: HttpRequest, release: str) -> HttpResponse:
    page = _page(request, release, lambda t: reverse("kb:contents", args=[t]))
    if isinstance(page, HttpResponse):
        return page
    sections = _sections(selectors.contents(page.date))
    return render(
        request,
        "kb/contents.html",
        page.context(sections=sections, current_url=reverse("kb:contents", args=["current"])),
    )


def _sections(entries: list[selectors.Entry]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for e in entries:
        if e.kind == "section":
            out.append({"entry": e, "chapters": []})
        elif out:
            out[-1]["chapters"].append(e)
    return out


@page_cache.reads("rulings", ASKED_ON)  # the page of the rulings panel (rulings.hooks)
def rule(request: HttpRequest, number: str, release: str = "current") -> HttpResponse:
    page = _page(request, release, lambda t: reverse("kb:rule", args=[t, number]))
    if isinstance(page, HttpResponse):
        return page
    kind = kind_of(number) if is_number(number) else ""
    body = _chapter_body(page, number) if kind == "chapter" else None
    if body is None:
        entries = selectors.entries_for(number, page.date) if kind else []
    else:  # the chapter's entries were rendered now, or come from the cache: its title needed
        entries = body.entries or selectors.entries_for(number, page.date, alone=True)
    main = next((e for e in entries if e.number == number), None)
    if main is None:
        return _missing_rule(page, number)
    children = [e for e in entries if e is not main]
    if body is None:
        bilingual, show_anomalies, glossed = _prepare_entries(page, entries)
    else:
        bilingual, show_anomalies, glossed = body.flags
        if not body.entries:
            _prepare_entries(page, [main])
    headings = selectors.headings(number, page.date)
    for e in [main, *headings]:
        e.url = page.rule_url(e.number)
    previous, following = selectors.neighbours(number, page.date)
    return render(
        request,
        f"kb/{kind}.html",
        page.context(
            number=number,
            main=main,
            entries=entries,
            children=children,
            body=body.html if body else None,
            headings=headings,
            previous=previous,
            following=following,
            previous_url=page.rule_url(previous) if previous else None,
            following_url=page.rule_url(following) if following else None,
            switcher=page.switcher(main.lineage_id, number),
            panels=hooks.rule_panels(
                hooks.RulePage(
                    request, main.lineage_id, number, page.release, page.is_current, page.releases
                )
            ),
            pinned_url=request.build_absolute_uri(page.pinned_rule_url(number)),
            current_url=reverse("kb:current_rule", args=[number]),
            **_bilingual(bilingual, main, show_anomalies),
            glossed=glossed,
        ),
    )


def _prepare_entries(page: _Page, entries: list[selectors.Entry]) -> tuple[bool, bool, bool]:
    """Render the entries' texts with their references, French texts (anomalies for staff) and
    glosses under /fr/; (the page is bilingual, shows anomalies, has glosses)."""
    french = french_states([e.version for e in entries], page.date)
    render_entries(
        entries,
        page.date,
        page.rule_url,
        glossary_linker(page.release, page.term_url),
        french=french,
    )
    selectors.attach_french(entries)
    bilingual = any(f.text for f in french.values())
    show_anomalies = bilingual and page.request.user.is_staff
    if show_anomalies:
        attach_anomalies((e.number, e.fr) for e in entries if e.fr)
    for e in entries:
        e.url = page.rule_url(e.number)
    return bilingual, show_anomalies, page.gloss(entries)


@dataclass
class _ChapterBody:
    html: str
    flags: tuple[bool, bool, bool]  # what _prepare_entries says of the whole chapter
    entries: list[selectors.Entry] = field(default_factory=list)  # when rendered now


def _chapter_body(page: _Page, number: str) -> _ChapterBody:
    """A chapter's index and entries, rendered once per archive and vocabulary state
    (kb.web.fragments): 702's 1,250 entries cost most of a second to read, render and gloss."""
    request = page.request
    loaded: list[selectors.Entry] = []

    def build() -> _ChapterBody:
        loaded.extend(selectors.entries_for(number, page.date))
        flags = _prepare_entries(page, loaded)
        context = {
            "children": [e for e in loaded if e.number != number],
            "bilingual": flags[0],
            "show_anomalies": flags[1],
            "french_first": request.LANGUAGE_CODE == "fr",
        }
        return _ChapterBody(render_to_string("kb/chapter_body.html", context, request), flags)

    # The date with the token: what `current` stands for moves on a release's effective date.
    parts = ("chapter", page.token, page.date, number, request.LANGUAGE_CODE, request.user.is_staff)
    body = fragments.cached(parts, build)
    body.entries = loaded
    return body


def _bilingual(bilingual: bool, main: selectors.Entry, show_anomalies: bool) -> dict[str, object]:
    """Side by side where the page has French: French first under /fr/. The notice "no
    French text is loaded" is left out when the rule shown has one."""
    out: dict[str, object] = {
        "bilingual": bilingual,
        "french_first": (get_language() or "")[:2] == "fr",
        "show_anomalies": show_anomalies,
    }
    if main.fr is not None and main.fr.text:
        out["translated_language"] = ""
    return out


def _missing_rule(page: _Page, number: str) -> HttpResponse:
    nearest = selectors.nearest_numbers(number, page.date) if is_number(number) else []
    elsewhere = []
    for start, end in selectors.other_releases_with(number):
        # The last release in which the number existed: the one in force the day before it ended.
        last = page.releases.in_force(end - dt.timedelta(days=1)) if end else page.releases.current
        elsewhere.append({"start": start, "end": end, "last": last})
    return render(
        page.request,
        "kb/rule_missing.html",
        page.context(
            number=number,
            nearest=[(n, page.rule_url(n)) for n in nearest],
            elsewhere=elsewhere,
            across=[(n, page.rule_url(n)) for n in counterparts(number, page.date)]
            if is_number(number)
            else [],
            across_legacy=is_legacy_date(page.date),
        ),
        status=404,
    )


@page_cache.reads("q", ASKED_ON)
def glossary(request: HttpRequest, release: str) -> HttpResponse:
    page = _page(request, release, lambda t: reverse("kb:glossary", args=[t]))
    if isinstance(page, HttpResponse):
        return page
    lang = request.LANGUAGE_CODE
    query = request.GET.get("q", "").strip()

    def build() -> tuple[str, int, bool]:
        terms = glosses.order_glossary(rendered_glossary(page.date, page.rule_url), lang, query)
        glossed = page.gloss(terms)
        letters: dict[str, list[selectors.Term]] = {}
        for t in terms:
            letters.setdefault(fold(glosses.sort_name(t, lang)[:1]).upper(), []).append(t)
        context = page.context(letters=letters, french_first=lang == "fr")
        return render_to_string("kb/glossary_body.html", context, request), len(terms), glossed

    # The whole list (some 700 entries, glossed under /fr/) is rendered once per archive and
    # vocabulary state; a filtered one (?q=, the form without JS) each time.
    if query:
        html, count, glossed = build()
    else:
        html, count, glossed = fragments.cached(("glossary", page.token, page.date, lang), build)
    return render(
        request,
        "kb/glossary.html",
        page.context(
            body=html,
            count=count,
            glossed=glossed,
            glossary_query=query,
            french_first=lang == "fr",
            current_url=reverse("kb:glossary", args=["current"]),
        ),
    )


@page_cache.reads(ASKED_ON)
def glossary_term(request: HttpRequest, release: str, slug: str) -> HttpResponse:
    page = _page(request, release, lambda t: reverse("kb:glossary_term", args=[t, slug]))
    if isinstance(page, HttpResponse):
        return page
    terms = rendered_glossary(page.date, page.rule_url, slug=slug)
    if not terms:
        raise Http404(_("No glossary entry “%(slug)s” in this release.") % {"slug": slug})
    glossed = page.gloss(terms)
    return render(
        request,
        "kb/glossary_term.html",
        page.context(
            term=terms[0],
            terms=terms,
            glossed=glossed,
            citation=_("CR glossary, %(term)s (%(date)s)")
            % {"term": terms[0].headword, "date": page.date.isoformat()},
            pinned_url=request.build_absolute_uri(
                reverse("kb:glossary_term", args=[page.date.isoformat(), slug])
            ),
            current_url=reverse("kb:glossary_term", args=["current", slug]),
        ),
    )


@page_cache.reads(ASKED_ON)
def history(request: HttpRequest, number: str, release: str = "current") -> HttpResponse:
    """Every version of the rule's lineage, newest first; noise folded."""
    page = _page(request, release, lambda t: reverse("kb:history", args=[t, number]))
    if isinstance(page, HttpResponse):
        return page
    version = selectors.rule_version(number, page.date) if is_number(number) else None
    if version is None:
        return _missing_rule(page, number)
    items = rule_history(version.lineage_id, page.releases)
    origins, successors = across_2010(version.lineage_id)
    for step in (*origins, *successors):
        step.url = page.pinned_rule_url(step.number, step.date)
    for item in items:
        item.url = page.pinned_rule_url(item.number, item.date) if item.release else ""
        if item.previous_until is not None:
            item.previous_url = page.pinned_rule_url(
                item.previous_number, item.previous_until.effective_date
            )
        if item.release is not None:
            previous = page.releases.previous(item.release)
            item.diff_url = (
                reverse(
                    "kb:diff", args=[previous.effective_date.isoformat(), item.date.isoformat()]
                )
                + f"#r-{item.number}"
                if previous
                else ""
            )
    return render(
        request,
        "kb/history.html",
        page.context(
            number=number,
            items=items,
            origins=origins,
            successors=successors,
            # The English release each French text translates, by release id (no query).
            release_dates={r.pk: r.effective_date for r in page.releases.all},
            rule_url=page.rule_url(number),
            today=page.releases.today,  # the changes of releases to come are marked so
            current_url=reverse("kb:current_history", args=[number]),
            citation=_("CR %(n)s, history (%(date)s)")
            % {"n": number, "date": page.date.isoformat()},
            pinned_url=request.build_absolute_uri(
                reverse("kb:history", args=[page.date.isoformat(), number])
            ),
        ),
    )


@page_cache.reads("typography", "section", "page")
def diff(request: HttpRequest, old: str, new: str) -> HttpResponse:
    """What changed between any two releases, matched by lineage: the summary, the real
    changes, then the moves folded into blocks. A long diff is read a section at a time, and
    a long section a few chapters at a time (`?section=7&page=2`)."""
    releases = Releases.load()
    try:
        a, b = ordered(release_for(old, releases), release_for(new, releases))
    except BadRelease as exc:
        raise Http404(str(exc)) from None
    except NoRelease as exc:
        raise Http404(_no_release(exc)) from None
    canonical = (a.effective_date.isoformat(), b.effective_date.isoformat())
    if (old, new) != canonical:
        query = f"?{request.GET.urlencode()}" if request.GET else ""
        return redirect(reverse("kb:diff", args=list(canonical)) + query)
    fold = request.GET.get("typography") != "all"
    # No real section or page number is longer (the key is what the content is built from).
    section, number = request.GET.get("section", "")[:12], request.GET.get("page", "")[:4]
    # Everything under the title is rendered once per archive and vocabulary state: a big
    # diff's thousands of items, their word diffs and pages cost far more than the rest.
    parts = ("diff", get_language(), *canonical, section, number, fold)
    content = fragments.cached(parts, lambda: _diff_content(request, a, b, section, number, fold))
    across = is_legacy_date(a.effective_date) and not is_legacy_date(b.effective_date)
    return render(
        request, "kb/diff.html", {"old": a, "new": b, "content": content, "across": across}
    )


def _diff_content(
    request: HttpRequest, a: Release, b: Release, chosen: str, raw_page: str, fold: bool
) -> str:
    result = diff_between(a, b)
    sectioned = result.sectioned
    chosen = chosen if sectioned else ""
    pages = result.pages(chosen) if chosen else []
    if not pages:
        chosen = ""
    number = _page_number(raw_page, len(pages))
    page = pages[number - 1] if pages else None
    if not sectioned:
        shown, terms = result.items, result.terms
    else:
        shown = page.items if page else []
        terms = page.terms if page else []
    # Sections and chapters titled like the rule pages (entry_title: French under /fr/).
    headings = selectors.sections_and_chapters(b.effective_date)
    render_item_diffs(shown, terms, fold_typography=fold)
    a_prefix = reverse("kb:rule", args=[a.effective_date.isoformat(), "0"])[:-2]
    b_prefix = reverse("kb:rule", args=[b.effective_date.isoformat(), "0"])[:-2]
    for item in shown:
        item.old_url = f"{a_prefix}{item.old_number}/" if item.old_number else ""
        item.new_url = f"{b_prefix}{item.new_number}/" if item.new_number else ""
        item.heading = headings.get(item.new_number) if item.kind == "chapter" else None
    overview = diff_overview(result)
    context = {
        "old": a,
        "new": b,
        "counts": overview.counts,
        "summary": overview.summary,
        "total": len(result.items),
        "sectioned": sectioned,
        "chosen": chosen,
        "pages": pages,
        "page": page,
        "fold": fold,
        "query": _diff_query(chosen, number if len(pages) > 1 else 0),
        "section_counts": [(s, headings.get(s), n, noise) for s, _, n, noise in overview.sections],
        "groups": _diff_groups(shown, headings),
        "blocks": move_blocks(shown),
        "show_terms": bool(terms),
        "real_terms": [t for t in terms if not t.noise],
        "noise_terms": [t for t in terms if t.noise],
        "all_real_terms": overview.terms,
        "all_noise_terms": overview.noise_terms,
    }
    return render_to_string("kb/diff_content.html", context, request)


def _page_number(raw: str, count: int) -> int:
    """The page asked for, within 1..count (a bad or missing number reads as 1)."""
    return min(max(int(raw), 1), count) if raw.isdigit() and count else 1


def _diff_query(section: str, page: int) -> str:
    """The query string of the page shown, for its typography toggle."""
    parts = [f"section={section}"] if section else []
    if page:
        parts.append(f"page={page}")
    return "&".join(parts)


def _diff_groups(items: list, headings: dict[str, selectors.Entry]) -> list[dict[str, object]]:
    """The real changes by section and chapter, each chapter's noise folded apart; the
    shifts are left to their blocks."""
    sections: dict[str, dict[str, list]] = {}
    for item in items:
        if item.shift:
            continue
        sections.setdefault(item.section, {}).setdefault(item.chapter or item.section, []).append(
            item
        )
    return [
        {
            "section": section,
            "entry": headings.get(section),
            "chapters": [
                {
                    "chapter": ch,
                    "real": [i for i in its if not i.noise],
                    "noise": [i for i in its if i.noise],
                }
                for ch, its in chapters.items()
            ],
        }
        for section, chapters in sections.items()
    ]


@page_cache.reads()
def glossary_history(request: HttpRequest, slug: str) -> HttpResponse:
    term = selectors.glossary_term(slug)
    if term is None:
        raise Http404(_("No glossary entry “%(slug)s” in this release.") % {"slug": slug})
    releases = Releases.load()
    items = term_history(term, releases)
    return render(
        request,
        "kb/glossary_history.html",
        {
            "term": term,
            "items": items,
            "current_release": releases.current,
            "today": releases.today,
        },
    )


def _worklist_page_links(url: str, state: str, rows_page: Page) -> list[tuple[int, str]]:
    """Every page of the worklist with its link, the state filter kept (a few dozen at most:
    3000+ rows at 200 a page)."""
    if rows_page.paginator.num_pages < 2:
        return []
    query = f"state={state}&" if state else ""
    return [(n, f"{url}?{query}page={n}") for n in rows_page.paginator.page_range]


@page_cache.reads("release", "state", "page", ASKED_ON)
def translation(request: HttpRequest, release: str = "current") -> HttpResponse:
    """The translators' worklist: every rule of a release whose French is missing, stale or
    unofficial, by section and chapter, with counts; `?state=` filters (an unknown state
    lists them all)."""
    asked = request.GET.get("release", "")
    if release == "current" and re.fullmatch(r"\d{4}-\d{2}-\d{2}", asked):
        query = f"?state={request.GET['state']}" if request.GET.get("state") else ""
        return redirect(reverse("kb:translation_release", args=[asked]) + query)
    page = _page(request, release, lambda t: reverse("kb:translation_release", args=[t]))
    if isinstance(page, HttpResponse):
        return page
    state = request.GET.get("state", "")
    whole = worklist(page.date, state=state, french_titles=(get_language() or "")[:2] == "fr")
    work, rows_page = worklist_page(whole, request.GET.get("page"))
    release_iso = page.date.isoformat()
    diff_template = reverse("kb:diff", args=["0000-00-00", release_iso])
    admin_template = ""
    if request.user.is_staff:
        admin_template = reverse("admin:kb_ruleversion_change", args=[0])
    for section in work.sections:
        for chapter in section.chapters:
            chapter.url = page.rule_url(chapter.number)
            for row in chapter.rows:
                row.url = page.rule_url(row.number)
                row.diff_url = (
                    diff_template.replace("0000-00-00", row.french.translates.isoformat())
                    + f"?section={row.number[0]}#r-{row.number}"
                    if row.french.stale and row.french.translates
                    else ""
                )
                row.admin_url = (
                    admin_template.replace("/0/", f"/{row.version_id}/") if admin_template else ""
                )
    translation_url = (
        reverse("kb:translation_release", args=[page.token])
        if not page.is_current
        else reverse("kb:translation")
    )
    return render(
        request,
        "kb/translation.html",
        page.context(
            work=work,
            states=STATES,
            to_do=TO_DO,
            releases=list(reversed(page.releases.all)),
            translation_url=translation_url,
            rows_page=rows_page,
            page_links=_worklist_page_links(translation_url, work.state, rows_page),
            current_url=reverse("kb:translation"),
            translated_language="",  # the worklist is about French texts: no notice
        ),
    )
