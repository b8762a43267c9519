"""Keep interval rows and lineages right when a release is inserted or removed.

Rows hold one value of an entry (a text, a number) over the releases in which it did not change;
a lineage chains an entry across releases, renumberings included. Both derive from the chain of
matches between *consecutive* releases, so inserting release k between P and N only changes the
links P→k→N (in place of P→N). This module rebuilds the rows of that window and nothing else,
which makes the result independent of import order (by date, reversed, one release inserted
last) and cheap (an append writes only what changed).

`restitch` gets the window's columns (releases in date order; each a list of cells: existing rows,
or entries of a new document), links consecutive columns with the family's matcher, gives every
chain of links one lineage (keyed by its first number and date), and then, for each of the
family's tables, lets consecutive linked cells with equal value share one row. It writes only the
differences with what the database holds.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import models

from kb.archive.matching import Item
from kb.crtext.numbers import is_legacy_date
from kb.dbutil import chunks, insert_returning, update_rows


@dataclass(slots=True)
class Slot:
    """A cell's row in one table: its value (equal values share a row) and where it was."""

    value: str
    row_id: int | None = None
    old_from: dt.date | None = None
    old_to: dt.date | None = None


@dataclass(slots=True)
class Cell:
    """One entry of one release in the window: existing rows, or a parsed entry to store."""

    item: Item
    number: str
    ordinal: int
    slots: list[Slot]  # one per table of the family
    lineage_id: int | None = None
    data: Any = None  # the parsed entry, for cells of a new document


@dataclass(slots=True)
class Column:
    date: dt.date
    cells: list[Cell]
    release: Any  # kb.models.Release
    is_new: bool = False


class Table:
    """An interval table that follows the lineages (rule numbers, rule texts, glossary texts)."""

    model: type[models.Model]
    lineage_field: str = "lineage"
    #: Columns a row holds besides its interval and lineage (new_values gives them in order).
    fields: list[str]

    @property
    def lineage_attr(self) -> str:
        return f"{self.lineage_field}_id"

    def new_values(self, cell: Cell) -> tuple[Any, ...]:
        """Values of `fields` for a new document's entry."""
        raise NotImplementedError

    def create_children(self, rows: list[tuple[int, Cell]]) -> None:
        """Store what hangs off freshly created rows (examples, references)."""

    def copy_children(self, pairs: list[tuple[int, int]]) -> None:
        """Copy what hangs off old rows to their copies (new id, old id)."""

    def refresh_derived(self, lineage_ids: set[int]) -> None:
        """Recompute fields that depend on the previous row of the lineage."""


class Family:
    """What differs between rules and glossary terms; the engine is shared."""

    lineage_model: type[models.Model]
    tables: list[Table]
    #: Lineages identified by their key alone (glossary terms), not by where a chain starts.
    keyed_lineages: bool = False

    def load_cells(self, date: dt.date) -> list[Cell]:
        raise NotImplementedError

    def match(self, a: Sequence[Item], b: Sequence[Item]) -> list[tuple[int, int]]:
        raise NotImplementedError

    def lineage_key(self, cell: Cell, date: dt.date) -> str:
        raise NotImplementedError

    def new_lineage(self, key: str, cell: Cell) -> models.Model:
        raise NotImplementedError


def restitch(
    family: Family,
    columns: list[Column],
    *,
    earlier_exists: bool,
    later_exists: bool,
    doomed: Sequence[Sequence[int]] = (),
    spare: set[int] | None = None,
) -> set[int]:
    """Rebuild the rows of a window of consecutive releases; return the lineages touched.

    `doomed` lists, per table, rows of a removed release that no column holds any more.
    `spare` (a release being replaced): lineages left empty are added to it instead of being
    deleted, and a new chain whose key one of them holds takes it back, so that what points
    at a lineage from other apps (ruling links) survives the replacement.
    """
    doomed = list(doomed) or [[] for _ in family.tables]
    # Lineages of rows that only the removed release held: deleted below if left empty.
    candidates: set[int] = set()
    first = family.tables[0]
    for chunk in chunks(doomed[0]):
        candidates.update(
            first.model.objects.filter(id__in=chunk).values_list(first.lineage_attr, flat=True)
        )
    if not columns:
        for table, ids in zip(family.tables, doomed, strict=True):
            for chunk in chunks(ids):
                table.model.objects.filter(id__in=chunk).delete()
        _delete_empty_lineages(family, candidates, spare)
        return set()
    pred = _links(family, columns)
    chains, chain_of = _chains(columns, pred)
    if family.keyed_lineages:
        chain_lineage = _keyed_chain_lineages(family, columns, chains, earlier_exists)
    else:
        chain_lineage = _chain_lineages(family, columns, chains, earlier_exists, spare)
    window = _Window(columns, pred, chain_of, chain_lineage, earlier_exists, later_exists)
    touched: set[int] = set()
    for t, table in enumerate(family.tables):
        touched |= _rebuild_table(table, t, window, doomed[t])
    candidates |= {c.lineage_id for col in columns for c in col.cells if c.lineage_id is not None}
    _delete_empty_lineages(family, candidates - set(chain_lineage), spare)
    for table in family.tables:
        table.refresh_derived(touched)
    return touched


def _delete_empty_lineages(
    family: Family, candidates: set[int], spare: set[int] | None = None
) -> None:
    """Delete the candidate lineages that no row holds any more (or spare them)."""
    first = family.tables[0]
    alive: set[int] = set()
    for chunk in chunks(sorted(candidates)):
        alive.update(
            first.model.objects.filter(**{f"{first.lineage_attr}__in": chunk}).values_list(
                first.lineage_attr, flat=True
            )
        )
    if spare is not None:
        spare.update(candidates - alive)
        return
    for chunk in chunks(sorted(candidates - alive)):
        family.lineage_model.objects.filter(id__in=chunk).delete()


def _links(family: Family, columns: list[Column]) -> list[dict[int, int]]:
    """For each column, which cell of the previous column each cell continues."""
    pred: list[dict[int, int]] = [{}]
    for j in range(1, len(columns)):
        # Nothing is matched across the Magic 2010 renumbering: rule numbers of the two layouts
        # name unrelated rules (legacy 101.1 is not modern 101.1); what a 2009-07-11 rule came
        # from is told by kb.archive.crossing, with evidence and review. Glossary terms meet
        # again by their key (the headword), and modern chains keep the keys, so the slugs and
        # URLs, they had before the legacy releases were loaded.
        if is_legacy_date(columns[j - 1].date) != is_legacy_date(columns[j].date):
            pred.append({})
            continue
        pairs = family.match(
            [c.item for c in columns[j - 1].cells], [c.item for c in columns[j].cells]
        )
        pred.append({b: a for a, b in pairs})
    return pred


def _chains(
    columns: list[Column], pred: list[dict[int, int]]
) -> tuple[list[list[tuple[int, int]]], list[list[int]]]:
    """Chains of links through the window; chain_of[j][i] is the chain of cell i of column j."""
    chain_of: list[list[int]] = []
    chains: list[list[tuple[int, int]]] = []
    for j, col in enumerate(columns):
        col_pred = pred[j]
        prev = chain_of[j - 1] if j else []
        here: list[int] = []
        for i in range(len(col.cells)):
            p = col_pred.get(i)
            if p is not None:
                c = prev[p]
            else:
                c = len(chains)
                chains.append([])
            here.append(c)
            chains[c].append((j, i))
        chain_of.append(here)
    return chains, chain_of


def _chain_lineages(
    family: Family,
    columns: list[Column],
    chains: list[list[tuple[int, int]]],
    earlier_exists: bool,
    spare: set[int] | None = None,
) -> list[int]:
    """A lineage per chain.

    Chains already running before the window keep theirs. Others take a free lineage of one of
    their cells under a new key (fewer rows to relabel), a spared lineage holding their key,
    or a new one.
    """

    def cell(ji: tuple[int, int]) -> Cell:
        return columns[ji[0]].cells[ji[1]]

    keeps_head = not columns[0].is_new and earlier_exists
    head = {c.lineage_id for c in columns[0].cells} if not columns[0].is_new else set()
    taken: set[int] = set()
    lineage: list[int | None] = [None] * len(chains)
    keys: list[str | None] = [None] * len(chains)
    for c, path in enumerate(chains):
        first = cell(path[0])
        if path[0][0] == 0 and keeps_head:
            lineage[c] = first.lineage_id
            taken.add(first.lineage_id)
            continue
        keys[c] = family.lineage_key(first, columns[path[0][0]].date)
        for ji in reversed(path):
            lid = cell(ji).lineage_id
            if lid is not None and lid not in taken and (lid not in head or ji[0] == 0):
                lineage[c] = lid
                taken.add(lid)
                break
    spared = _spared_by_key(family, spare, {keys[c] for c in range(len(chains)) if keys[c]})
    for c in range(len(chains)):
        lid = spared.get(keys[c]) if keys[c] else None
        if lineage[c] is None and lid is not None and lid not in taken:
            lineage[c] = lid
            taken.add(lid)
    rekey = {lineage[c]: keys[c] for c in range(len(chains)) if keys[c] and lineage[c]}
    # A lineage no chain took (spared, or one a new release's links leave empty: a rule
    # rewritten under its number in the inserted release, then moved, in the next one) must
    # not hold a key another lineage is given now: it steps aside, and is deleted below if
    # nothing holds it any more.
    wanted = set(rekey.values())
    clash = {
        lid: f"~spared{lid}" for key, lid in spared.items() if key in wanted and lid not in taken
    }
    for chunk in chunks(sorted(wanted)):
        for lid in family.lineage_model.objects.filter(key__in=chunk).values_list("id", flat=True):
            if lid not in taken:
                clash.setdefault(lid, f"~{lid}")
    if clash:
        _set_keys(family.lineage_model, clash)
    if rekey:
        _set_keys(family.lineage_model, rekey)
    fresh = [c for c in range(len(chains)) if lineage[c] is None]
    if fresh:
        created = family.lineage_model.objects.bulk_create(
            [family.new_lineage(keys[c], cell(chains[c][0])) for c in fresh]
        )
        for c, obj in zip(fresh, created, strict=True):
            lineage[c] = obj.pk
    return lineage


def _spared_by_key(family: Family, spare: set[int] | None, keys: set[str]) -> dict[str, int]:
    if not spare:
        return {}
    found: dict[str, int] = {}
    for chunk in chunks(sorted(spare)):
        found.update(
            (k, i)
            for i, k in family.lineage_model.objects.filter(id__in=chunk).values_list("id", "key")
            if k in keys
        )
    return found


def _keyed_chain_lineages(
    family: Family,
    columns: list[Column],
    chains: list[list[tuple[int, int]]],
    earlier_exists: bool,
) -> list[int]:
    """A lineage per chain, found by the key of the chain's first entry.

    Chains already running before the window keep the lineage they have: their first entry
    lies before the window.
    """
    keeps_head = not columns[0].is_new and earlier_exists
    firsts = [columns[p[0][0]].cells[p[0][1]] for p in chains]
    kept = [
        c.lineage_id if p[0][0] == 0 and keeps_head else None
        for c, p in zip(firsts, chains, strict=True)
    ]
    keys = [
        family.lineage_key(c, columns[p[0][0]].date) for c, p in zip(firsts, chains, strict=True)
    ]
    existing: dict[str, int] = {}
    for chunk in chunks(sorted(set(keys))):
        existing.update(family.lineage_model.objects.filter(key__in=chunk).values_list("key", "id"))
    missing: dict[str, Cell] = {}
    for k, c, lid in zip(keys, firsts, kept, strict=True):
        if lid is None and k not in existing:
            missing.setdefault(k, c)
    if missing:
        created = family.lineage_model.objects.bulk_create(
            [family.new_lineage(k, c) for k, c in sorted(missing.items())]
        )
        existing.update({obj.key: obj.pk for obj in created})
    return [lid if lid is not None else existing[k] for k, lid in zip(keys, kept, strict=True)]


def _set_keys(lineage_model: type[models.Model], rekey: dict[int, str]) -> None:
    """Give lineages new keys in two steps, so that swapped keys never collide."""
    current: dict[int, str] = {}
    for chunk in chunks(sorted(rekey)):
        current.update(lineage_model.objects.filter(id__in=chunk).values_list("id", "key"))
    changed = {lid: key for lid, key in rekey.items() if current.get(lid) != key}
    if changed:
        update_rows(lineage_model, ["key"], [(f"~{lid}", lid) for lid in changed])
        update_rows(lineage_model, ["key"], [(key, lid) for lid, key in changed.items()])


@dataclass(slots=True)
class _Window:
    """What every table of the family shares while the window is rebuilt."""

    columns: list[Column]
    pred: list[dict[int, int]]
    chain_of: list[list[int]]
    chain_lineage: list[int]
    earlier_exists: bool
    later_exists: bool

    def lineage(self, j: int, i: int) -> int:
        """The lineage of cell i of column j (its chain's)."""
        return self.chain_lineage[self.chain_of[j][i]]


@dataclass(slots=True)
class _Groups:
    """Cells of one table grouped into rows: linked cells of equal value share one.

    Per group: its first and last cell, its row id, the rows its cells had (to reuse one) and a
    parsed source; gid[j][i] is the group of cell i of column j.
    """

    gid: list[list[int]] = field(default_factory=list)
    first: list[tuple[int, int]] = field(default_factory=list)
    last: list[tuple[int, int]] = field(default_factory=list)
    row_of: list[int | None] = field(default_factory=list)
    cands: list[list[int]] = field(default_factory=list)
    source: list[Cell | None] = field(default_factory=list)
    old: dict[int, tuple[Slot, int | None]] = field(default_factory=dict)  # row -> (slot, lineage)


@dataclass(slots=True)
class _Plan:
    """What a table's rows become: rows to update, rows to create, their intervals."""

    updates: list[tuple[Any, ...]] = field(default_factory=list)
    #: (group, values, parsed source or None, row copied from or None)
    creates: list[tuple[int, tuple[Any, ...], Cell | None, int | None]] = field(
        default_factory=list
    )
    touched: set[int] = field(default_factory=set)
    interval: list[tuple[dt.date | None, dt.date | None]] = field(default_factory=list)


def _rebuild_table(table: Table, t: int, window: _Window, doomed: Sequence[int]) -> set[int]:
    """Rebuild the rows of one of the family's tables (`t`) over the window."""
    groups = _group_cells(t, window)
    _reuse_rows(groups)
    plan = _plan_rows(table, t, window, groups)
    kept = set(groups.row_of)  # the rows created below are new ids: never dead
    dead = sorted({rid for rid in [*groups.old, *doomed] if rid not in kept})
    _step_aside(table, plan, groups, dead)
    _write_rows(table, plan, groups.row_of)
    _mirror_new_columns(t, window, groups, plan.interval)
    touched = plan.touched | _follow_after_window(table, window)
    for chunk in chunks(dead):
        table.model.objects.filter(id__in=chunk).delete()
    return touched


#: Where a row waits while another takes its place (_step_aside): no release is that old.
_ASIDE = dt.date(1, 1, 1)


def _step_aside(table: Table, plan: _Plan, groups: _Groups, dead: Sequence[int]) -> None:
    """Rows trading places (two lineages exchanging versions when a new match crosses their
    chains: removing 2020-11-20 between its neighbours swaps 2021-02-05's 700.x rows) would
    meet on the unique (lineage, valid_from) one statement before the other leaves, and a
    row may take the place of one deleted only afterwards: those rows first step aside to a
    placeholder date of their own, then take their final place."""
    targets = {(u[2], u[0]): u[-1] for u in plan.updates}
    for _g, values, _src, _copied in plan.creates:
        targets[(values[-1], values[-3])] = None
    if not targets:
        return
    held = {rid: (lineage, slot.old_from) for rid, (slot, lineage) in groups.old.items()}
    unseen = [rid for rid in dead if rid not in held]  # a removed release's own rows
    for chunk in chunks(unseen):
        for rid, lineage, valid_from in table.model.objects.filter(id__in=chunk).values_list(
            "id", table.lineage_attr, "valid_from"
        ):
            held[rid] = (lineage, valid_from)
    leaving = {u[-1] for u in plan.updates} | set(dead)
    aside = [rid for rid in leaving if rid in held and targets.get(held[rid], rid) != rid]
    update_rows(
        table.model,
        ["valid_from", "valid_to"],
        [(_ASIDE + dt.timedelta(days=k), None, rid) for k, rid in enumerate(sorted(aside))],
    )


def _group_cells(t: int, window: _Window) -> _Groups:
    """Group cells; an existing row that starts inside the window keeps its id unless an
    earlier column already holds it."""
    columns = window.columns
    dates = [c.date for c in columns]
    groups = _Groups()
    gid, first, last = groups.gid, groups.first, groups.last
    row_of, cands, source, old = groups.row_of, groups.cands, groups.source, groups.old
    for j, col in enumerate(columns):
        prev_gid = gid[j - 1] if j else None
        prev_cells = columns[j - 1].cells if j else None
        col_pred = window.pred[j]
        col_gid: list[int] = []
        lower = dates[j - 1] if j else None
        for i, cell in enumerate(col.cells):
            s = cell.slots[t]
            if s.row_id is not None:
                old[s.row_id] = (s, cell.lineage_id)
            p = col_pred.get(i)
            if p is not None and prev_cells[p].slots[t].value == s.value:
                g = prev_gid[p]
                last[g] = (j, i)
                if s.row_id is not None:
                    cands[g].append(s.row_id)
            else:
                g = len(first)
                first.append((j, i))
                last.append((j, i))
                own = s.row_id is not None and (
                    j == 0 or (s.old_from is not None and s.old_from > lower)
                )
                row_of.append(s.row_id if own else None)
                cands.append([s.row_id] if s.row_id is not None and not own else [])
                source.append(None)
            if cell.data is not None:
                source[g] = cell
            col_gid.append(g)
        gid.append(col_gid)
    return groups


def _reuse_rows(groups: _Groups) -> None:
    """Give a group without a row of its own a row one of its cells had, if no group has it."""
    row_of = groups.row_of
    used = {r for r in row_of if r is not None}
    for g, rid in enumerate(row_of):
        if rid is None:
            for c in groups.cands[g]:
                if c not in used:
                    row_of[g] = c
                    used.add(c)
                    break


def _plan_rows(table: Table, t: int, window: _Window, groups: _Groups) -> _Plan:
    """Each group's interval and lineage: an update where its row changed, else a new row
    (from the parsed entry, or a copy of the row its first cell had)."""
    columns = window.columns
    plan = _Plan()
    for g in range(len(groups.first)):
        j0, i0 = groups.first[g]
        fslot = columns[j0].cells[i0].slots[t]
        rid = groups.row_of[g]
        valid_from, valid_to = _interval(t, window, groups, g)
        plan.interval.append((valid_from, valid_to))
        lineage_id = window.lineage(j0, i0)
        if j0 > 0 or not window.earlier_exists:
            plan.touched.add(lineage_id)
        if rid is not None:
            o, old_lineage = groups.old[rid]
            if o.old_from != valid_from or o.old_to != valid_to or old_lineage != lineage_id:
                plan.updates.append((valid_from, valid_to, lineage_id, rid))
                plan.touched.add(lineage_id)
            continue
        src = groups.source[g]
        if src is not None:
            values, copied_from = table.new_values(src), None
        else:
            copied_from = fslot.row_id
            values = table.model.objects.filter(pk=copied_from).values_list(*table.fields)[0]
        plan.creates.append((g, (*values, valid_from, valid_to, lineage_id), src, copied_from))
        plan.touched.add(lineage_id)
    return plan


def _interval(
    t: int, window: _Window, groups: _Groups, g: int
) -> tuple[dt.date | None, dt.date | None]:
    """A group's interval: from its first column (or earlier, for a row running into the window)
    to the column after its last (or later, for a row running on past the window)."""
    columns = window.columns
    m = len(columns) - 1
    j0, i0 = groups.first[g]
    j1, i1 = groups.last[g]
    fslot = columns[j0].cells[i0].slots[t]
    rid = groups.row_of[g]
    if j0 == 0 and window.earlier_exists and rid is not None and rid == fslot.row_id:
        valid_from = fslot.old_from
    else:
        valid_from = columns[j0].date
    if j1 < m:
        valid_to = columns[j1 + 1].date
    elif window.later_exists:
        valid_to = columns[j1].cells[i1].slots[t].old_to
    else:
        valid_to = None
    return valid_from, valid_to


def _write_rows(table: Table, plan: _Plan, row_of: list[int | None]) -> None:
    """Apply the plan; created rows' ids go into `row_of`, and their children are stored."""
    update_rows(table.model, ["valid_from", "valid_to", table.lineage_field], plan.updates)
    creates = plan.creates
    if creates:
        ids = insert_returning(
            table.model,
            [*table.fields, "valid_from", "valid_to", table.lineage_field],
            [values for _, values, _, _ in creates],
        )
        for (g, _, _, _), rid in zip(creates, ids, strict=True):
            row_of[g] = rid
        table.create_children([(row_of[g], src) for g, _, src, _ in creates if src is not None])
        copies = [(row_of[g], cf) for g, _, src, cf in creates if src is None]
        if copies:
            table.copy_children(copies)


def _mirror_new_columns(
    t: int,
    window: _Window,
    groups: _Groups,
    interval: list[tuple[dt.date | None, dt.date | None]],
) -> None:
    """The new column now mirrors the database: callers may reuse it as the next import's P."""
    for j, col in enumerate(window.columns):
        if col.is_new:
            for i, c in enumerate(col.cells):
                g = groups.gid[j][i]
                c.slots[t].row_id = groups.row_of[g]
                c.slots[t].old_from, c.slots[t].old_to = interval[g]
                c.lineage_id = window.lineage(j, i)


def _follow_after_window(table: Table, window: _Window) -> set[int]:
    """Rows after the window follow the lineage of the chain they continue; returns the
    lineages they moved to."""
    columns = window.columns
    m = len(columns) - 1
    if not window.later_exists or columns[m].is_new:
        return set()
    moves: dict[int, int] = {}
    for i, c in enumerate(columns[m].cells):
        new = window.lineage(m, i)
        if c.lineage_id is not None and c.lineage_id != new:
            moves[c.lineage_id] = new
    if not moves:
        return set()
    tails: list[tuple[int, int]] = []
    for chunk in chunks(sorted(moves)):
        tails.extend(
            table.model.objects.filter(
                **{f"{table.lineage_attr}__in": chunk}, valid_from__gt=columns[m].date
            ).values_list("id", table.lineage_attr)
        )
    update_rows(table.model, [table.lineage_field], [(moves[lid], rid) for rid, lid in tails])
    return set(moves.values())


def refresh_intervals(
    model: type[models.Model],
    lineage_attr: str,
    lineage_ids: set[int],
    fields: Sequence[str],
    compute: Callable[[tuple | None, tuple, Any], tuple[tuple, Any]],
    derived: Sequence[str],
) -> None:
    """Walk each lineage's rows in date order and store what `compute` derives from neighbours.

    `compute(previous_row, row, carry) -> (derived values, carry)`; rows are tuples of
    ("id", "lineage_id", *fields, *derived).
    """
    updates = []
    for chunk in chunks(sorted(lineage_ids)):
        rows = (
            model.objects.filter(**{f"{lineage_attr}__in": chunk})
            .order_by(lineage_attr, "valid_from")
            .values_list("id", lineage_attr, *fields, *derived)
        )
        prev = None
        carry = None
        for row in rows:
            if prev is not None and prev[1] != row[1]:
                prev, carry = None, None
            values, carry = compute(prev, row, carry)
            if tuple(row[-len(derived) :]) != tuple(values):
                updates.append((*values, row[0]))
            prev = row
    update_rows(model, list(derived), updates)
