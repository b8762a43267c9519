"""Atom feeds for following changes: the releases (each with its summary and diff link), and
a rule's history (every release that changed it, with the change's word diff).

Built on django.contrib.syndication, which writes valid Atom.
"""

from __future__ import annotations

import datetime as dt

from django.contrib.syndication.views import Feed
from django.core.paginator import InvalidPage, Paginator
from django.http import Http404, HttpRequest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.html import conditional_escape, escape
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from kb import selectors
from kb.crtext.numbers import is_number
from kb.history import EraStep, HistoryItem, across_2010, cached_summary, rule_history
from kb.models import Release
from kb.web.formatting import kind_labels, longdate, set_name

#: Releases in a page of the feed: the latest ones first (each summary is a diff, cached per
#: archive state); older pages (`?page=2`…) reach back to 1999.
RELEASES_IN_FEED = 20


class PagedAtomFeed(Atom1Feed):
    """Atom with RFC 5005's paging links (first, previous, next, last): a feed reader follows
    the newest page, an archive walker the `next` links back to the first release."""

    def add_root_elements(self, handler) -> None:
        super().add_root_elements(handler)
        for rel, href in self.feed.get("paging", {}).items():
            handler.addQuickElement("link", "", {"rel": rel, "href": href})


class ReleasesFeed(Feed):
    feed_type = PagedAtomFeed
    page_cache_reads = frozenset({"page"})  # kb.web.page_cache.reads
    author_name = "Rules KB"

    def get_object(self, request: HttpRequest) -> dict:
        """The page asked for (`?page=`, 1 the newest). A feed's address names one page for
        good (a reader keeps what it fetched), so a page that does not exist is a 404, not
        the nearest page."""
        releases = selectors.Releases.load().in_force_now  # oldest first
        pairs = [(r, releases[i - 1] if i else None) for i, r in enumerate(releases)][::-1]
        paginator = Paginator(pairs, RELEASES_IN_FEED)
        try:
            page = paginator.page(request.GET.get("page", "1"))
        except InvalidPage:
            raise Http404(_("No such page of the feed.")) from None
        base = request.build_absolute_uri(reverse("kb:releases_feed"))

        def at(n: int) -> str:
            return base if n == 1 else f"{base}?page={n}"

        paging = {"first": at(1), "last": at(paginator.num_pages)}
        if page.has_previous():
            paging["previous"] = at(page.previous_page_number())
        if page.has_next():
            paging["next"] = at(page.next_page_number())
        return {"pairs": list(page), "paging": paging, "page": page.number}

    def feed_extra_kwargs(self, obj: dict) -> dict:
        return {"paging": obj["paging"]}

    def title(self) -> str:
        return _("Comprehensive Rules releases")

    def subtitle(self) -> str:
        return _("Each new release of the Magic: The Gathering Comprehensive Rules: what changed.")

    def link(self) -> str:
        return reverse("kb:releases")

    def feed_url(self, obj: dict) -> str:
        url = reverse("kb:releases_feed")
        return url if obj["page"] == 1 else f"{url}?page={obj['page']}"

    def items(self, obj: dict) -> list[tuple[Release, Release | None]]:
        """The releases in force by now, newest first. A release loaded before its effective
        date is left out until that date, when it enters as the newest entry (dated by its
        effective date): a feed entry says "this is the rule now", and a reader's feed keeps
        an entry as first seen, so one announced early could never be told apart later."""
        return obj["pairs"]

    def item_title(self, item: tuple[Release, Release | None]) -> str:
        release = item[0]
        name = set_name(release)
        date = longdate(release.effective_date)
        return (
            _("Release of %(date)s (%(set)s)") % {"date": date, "set": name}
            if name
            else _("Release of %(date)s") % {"date": date}
        )

    def item_link(self, item: tuple[Release, Release | None]) -> str:
        release, previous = item
        if previous is None:
            return reverse("kb:contents", args=[release.effective_date.isoformat()])
        dates = [previous.effective_date.isoformat(), release.effective_date.isoformat()]
        return reverse("kb:diff", args=dates)

    def item_description(self, item: tuple[Release, Release | None]) -> str:
        release, previous = item
        if previous is None:
            return escape(_("The first release of the archive."))
        return render_to_string(
            "includes/diff_summary.html", {"summary": cached_summary(previous, release)}
        )

    def item_updateddate(self, item: tuple[Release, Release | None]) -> dt.datetime:
        return dt.datetime.combine(item[0].effective_date, dt.time(), tzinfo=dt.UTC)

    item_pubdate = item_updateddate


class RuleHistoryFeed(Feed):
    feed_type = Atom1Feed
    page_cache_reads = frozenset()  # no query parameter (kb.web.page_cache.reads)
    author_name = "Rules KB"  # Atom asks for an author of the feed

    def get_object(self, request: HttpRequest, number: str) -> dict:
        releases = selectors.Releases.load()
        current = releases.current
        version = (
            selectors.rule_version(number, current.effective_date)
            if current and is_number(number)
            else None
        )
        if version is None:
            raise Http404(_("No rule %(n)s in the current release.") % {"n": number})
        # The changes in force by now: a release to come enters the feed on its date.
        items = [i for i in rule_history(version.lineage_id, releases) if i.date <= releases.today]
        # Its past before Magic 2010 (issue 36) goes with its first entry, as on its page.
        origins = across_2010(version.lineage_id)[0]
        for step in origins:
            where = reverse("kb:rule", args=[step.date.isoformat(), step.number])
            step.url = request.build_absolute_uri(where)
        return {
            "number": number,
            "items": [(item, origins if item is items[-1] else []) for item in items],
        }

    def title(self, obj: dict) -> str:
        return _("History of rule %(n)s") % {"n": obj["number"]}

    def subtitle(self, obj: dict) -> str:
        return _(
            "Every release that changed rule %(n)s of the Magic: The Gathering Comprehensive Rules."
        ) % {"n": obj["number"]}

    def link(self, obj: dict) -> str:
        return reverse("kb:current_history", args=[obj["number"]])

    def feed_url(self, obj: dict) -> str:
        return reverse("kb:rule_feed", args=[obj["number"]])

    def items(self, obj: dict) -> list[tuple[HistoryItem, list[EraStep]]]:
        return obj["items"]

    def item_title(self, entry: tuple[HistoryItem, list[EraStep]]) -> str:
        item = entry[0]
        labels = kind_labels((get_language() or "en")[:2])
        kinds = ", ".join(str(labels.get(k, k)) for k in item.kinds)
        return f"{item.number}: {kinds} ({longdate(item.date)})"

    def item_link(self, entry: tuple[HistoryItem, list[EraStep]]) -> str:
        item = entry[0]
        return reverse("kb:rule", args=[item.date.isoformat(), item.number])

    def item_description(self, entry: tuple[HistoryItem, list[EraStep]]) -> str:
        # The word diff is HTML built from escaped text; a move says what the rule was.
        item, origins = entry
        parts = []
        if item.previous_number:
            parts.append(escape(_("was %(n)s") % {"n": item.previous_number}))
        if item.diff:
            parts.append(f"<p>{conditional_escape(item.diff)}</p>")
        parts += [f"<p>{conditional_escape(d)}</p>" for d in item.example_diffs]
        for step in origins:
            link = f'<a href="{escape(step.url)}">{escape(step.number)}</a>'
            said = (
                _("Before July 11, 2009: %(number)s")
                if step.whole
                else _("Before July 11, 2009: part of %(number)s")
            ) % {"number": link}
            title = f" ({escape(step.title)})" if step.title else ""
            parts.append(f"<p>{said}{title}</p><p>{conditional_escape(step.diff)}</p>")
        return "".join(parts)

    def item_updateddate(self, entry: tuple[HistoryItem, list[EraStep]]) -> dt.datetime:
        return dt.datetime.combine(entry[0].date, dt.time(), tzinfo=dt.UTC)

    item_pubdate = item_updateddate
