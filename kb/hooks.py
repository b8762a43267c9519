"""Extension points other apps plug into (kb never imports them).

A rule page shows panels registered here: the rulings app adds "Rulings on this rule".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.http import HttpRequest


@dataclass(frozen=True)
class RulePage:
    """What a panel may know about the rule page it is drawn on."""

    request: HttpRequest
    lineage_id: int
    number: str
    release: Any  # kb.models.Release
    is_current: bool
    releases: Any  # kb.selectors.Releases, already loaded by the page


@dataclass
class Panel:
    template: str
    context: dict[str, Any]


RulePanel = Callable[[RulePage], Panel | None]
_rule_panels: list[RulePanel] = []


def register_rule_panel(panel: RulePanel) -> RulePanel:
    """Register a function drawing a panel on rule pages (usable as a decorator)."""
    if panel not in _rule_panels:
        _rule_panels.append(panel)
    return panel


def rule_panels(page: RulePage) -> list[Panel]:
    return [p for p in (panel(page) for panel in _rule_panels) if p is not None]


#: `make run` loads the rules (kb's load_site_data), then what other apps register here, with
#: the data folder (None: the shared data is absent, load a demo set) and a writer for progress.
SiteDataLoader = Callable[[Any, Callable[[str], None], int], None]
_site_data_loaders: list[SiteDataLoader] = []


def register_site_data_loader(loader: SiteDataLoader) -> SiteDataLoader:
    if loader not in _site_data_loaders:
        _site_data_loaders.append(loader)
    return loader


def site_data_loaders() -> list[SiteDataLoader]:
    return list(_site_data_loaders)


#: Names other apps know how to find despite typos (the rulings app: cards, by rulings.names):
#: (what was typed, how many[, least=sureness wanted]) -> suggestions
#: (search.backend.Suggestion), best first, each with how sure the finder is (0-100: 100 for
#: a name typed whole, a close spelling's closeness, 0 for a name only begun). The site
#: search's autocomplete and its corrections use them.
NameFinder = Callable[..., list[tuple[Any, float]]]
_name_finders: list[NameFinder] = []


def register_name_finder(finder: NameFinder) -> NameFinder:
    if finder not in _name_finders:
        _name_finders.append(finder)
    return finder


def name_finders() -> list[NameFinder]:
    return list(_name_finders)


#: What other apps keep on rule lineages that a maintainer decided (the rulings app: confirmed
#: and rejected links), described for the publish preview: lineage id -> descriptions.
DecisionReader = Callable[[set[int]], dict[int, list[str]]]
_decision_readers: list[DecisionReader] = []


def register_maintainer_decisions(reader: DecisionReader) -> DecisionReader:
    if reader not in _decision_readers:
        _decision_readers.append(reader)
    return reader


def maintainer_decisions(lineage_ids: set[int]) -> dict[int, list[str]]:
    """Every registered app's decisions on these lineages, merged."""
    out: dict[int, list[str]] = {}
    if not lineage_ids:
        return out
    for reader in _decision_readers:
        for lid, items in reader(lineage_ids).items():
            out.setdefault(lid, []).extend(items)
    return out


@dataclass(frozen=True)
class ExportPart:
    """One file of the bulk export that another app writes and reads back (the rulings app:
    cards, rulings and their links). kb's `export_data` / `import_data` call every registered
    part after the rules, so kb never imports the app that owns the data.

    `build` returns the file's JSON object (deterministic: sorted rows); `load` stores such an
    object into an empty database, after the rules, and returns its counts; `is_empty` says
    whether the app holds no data yet (import_data refuses a database that holds some);
    `counts` summarises a built object for the manifest; `schema` is the file's JSON Schema
    (served beside the files)."""

    name: str
    filename: str
    build: Callable[[], dict[str, Any]]
    load: Callable[[dict[str, Any]], dict[str, int]]
    is_empty: Callable[[], bool]
    counts: Callable[[dict[str, Any]], dict[str, int]]
    schema: Path | None = None


_export_parts: list[ExportPart] = []


def register_export_part(part: ExportPart) -> ExportPart:
    if all(p.name != part.name for p in _export_parts):
        _export_parts.append(part)
    return part


def export_parts() -> list[ExportPart]:
    return list(_export_parts)


#: What other apps' data the site's pages show changes with: each function returns a queryset
#: of one value in one row that moves whenever that data does (the rulings app: its cards and
#: rulings). The page cache (kb.web.page_cache) keys every page with them, as with the archive's
#: own stamp, reading them all in one statement compiled once per process.
PageStamp = Callable[[], Any]
_page_stamps: list[PageStamp] = []


def register_page_stamp(stamp: PageStamp) -> PageStamp:
    if stamp not in _page_stamps:
        _page_stamps.append(stamp)
    return stamp


def page_stamps() -> list[Any]:
    """Every registered app's stamp query (unevaluated querysets)."""
    return [stamp() for stamp in _page_stamps]
